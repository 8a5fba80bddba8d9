"""Editions of a rulebook: precedents become rules of the next edition; editions compared and
listed with the days each is in force."""

from __future__ import annotations

import datetime as dt
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

from sudya.domain.errors import RulebookError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Edition, Rulebook, Text


def write_precedent(rulebook_id: str, *, infraction: str, name_ru: str, name_en: str,
                    sanctions: list[str], source: str, decided_on: dt.date,
                    category: str | None = None, out_dir: Path | None = None) -> Path:
    """Write the next edition of a bundled rulebook with one new rule; return its path."""
    files = loader.edition_files(rulebook_id)
    if not files:
        raise RulebookError("rulebook.unknown-bundled", rulebook=rulebook_id,
                            bundled=", ".join(loader.bundled_ids()))
    newest = max(files, key=int)
    current = loader.load(rulebook_id, newest)
    if current.infraction(infraction) is not None:
        raise RulebookError("rulebook.infraction-exists", infraction=infraction,
                            edition=newest)
    for kind in sanctions:
        try:
            current.kind(kind)
        except KeyError:
            known = ", ".join(k.id for k in current.sanctions)
            raise RulebookError("sanction.unknown-kind-of", field="--sanctions", kind=kind,
                                known=known) from None
    yaml = YAML(typ="rt")
    yaml.width = 100
    data = yaml.load(files[newest].read_text(encoding="utf-8"))
    new_edition = str(int(newest) + 1)
    data["edition"] = new_edition
    entry = CommentedMap()
    entry["id"] = new_edition
    entry["date"] = decided_on
    entry["in_force_from"] = "next-tournament"
    entry["summary"] = {
        "ru": f"Прецедент коллегии: новое нарушение {infraction} «{name_ru}».",
        "en": f"College precedent: new infraction {infraction} «{name_en}».",
    }
    data.setdefault("editions", []).append(entry)
    rule = CommentedMap()
    rule["id"] = infraction
    if category:
        rule["category"] = category
    rule["name"] = {"ru": name_ru, "en": name_en}
    rule["source"] = source
    rule["penalty"] = list(sanctions)
    rule["notes"] = [{
        "ru": f"Прецедент: решение коллегии от {decided_on.isoformat()}, действует со следующего "
              "турнира.",
        "en": f"Precedent: the college's decision of {decided_on.isoformat()}, in force from "
              "the next tournament.",
        "source": source,
    }]
    data["infractions"].append(rule)
    buf = io.StringIO()
    yaml.dump(data, buf)
    text = buf.getvalue()
    target_dir = out_dir or loader.search_path()[0]
    target = target_dir / f"{rulebook_id}.{new_edition}.yaml"
    loader.validate(loader.parse_yaml(text, str(target)), str(target))  # never write a broken one
    target.write_text(text, encoding="utf-8")
    return target


def diff(a: Rulebook, b: Rulebook) -> list[str]:
    """Human-readable differences between two editions."""
    lines: list[str] = []
    lines += _diff_items("infraction", {i.id: i.model_dump(mode="json") for i in a.infractions},
                         {i.id: i.model_dump(mode="json") for i in b.infractions})
    lines += _diff_items("sanction", {k.id: k.model_dump(mode="json") for k in a.sanctions},
                         {k.id: k.model_dump(mode="json") for k in b.sanctions})
    skip = {"infractions", "sanctions", "edition", "editions"}
    da, db = a.model_dump(mode="json"), b.model_dump(mode="json")
    for key in sorted(set(da) | set(db)):
        if key not in skip and da.get(key) != db.get(key):
            lines.append(f"~ {key}: changed")
    return lines


def _diff_items(what: str, a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    out = [f"+ {what} {k}" for k in b if k not in a]
    out += [f"- {what} {k}" for k in a if k not in b]
    for k in a:
        if k in b and a[k] != b[k]:
            fields = sorted(f for f in set(a[k]) | set(b[k]) if a[k].get(f) != b[k].get(f))
            out.append(f"~ {what} {k}: {', '.join(fields)}")
    return out


def files_of(ref: str) -> dict[str, Path]:
    """Edition id -> file of a rulebook id (loader.edition_files) or of a rulebook file: its
    folder's `club.yaml` (edition 1), `club.2.yaml` … (`club.2.yaml` names the same ones)."""
    files = loader.edition_files(ref)
    path = Path(ref)
    if files or not path.is_file() or path.suffix != ".yaml":
        return files
    stem = path.name[: -len(".yaml")]
    head, _, tail = stem.rpartition(".")
    base = head if head and tail.isdigit() else stem
    for p in path.parent.glob(f"{base}*.yaml"):
        name = p.name[: -len(".yaml")]
        if name == base:
            files["1"] = p
        elif name.startswith(base + ".") and name[len(base) + 1:].isdigit():
            files[name[len(base) + 1:]] = p
    return files


@dataclass(frozen=True)
class EditionInfo:
    """One edition as a reader sees it: where it is kept and the days it is in force."""

    id: str
    file: Path
    date: dt.date | None
    in_force_from: str | dt.date
    in_force_until: dt.date | None
    summary: Text | None


def history(ref: str, scope: int | None = None) -> list[EditionInfo]:
    """The editions of a rulebook id or file, oldest first, as a series sees them (`scope`:
    its own stored editions with the shared ones; None: the shared ones only). What each says
    of itself comes from the newest edition's history where it has an entry (publishing an
    edition may close the one before), else from its own file; an edition with no entry is
    `now`."""
    files = files_of(ref)
    stored = loader.stored_editions(ref, scope)  # kept in the ledger: they win over files
    if not files and not stored:
        book = loader.load(ref)  # refused with its own message when it is no rulebook
        files = {book.edition: Path(ref)}
    books = {n: loader.load(str(p)) for n, p in files.items() if n not in stored}
    for n in stored:
        books[n] = loader.load(ref, n)
        files[n] = Path(loader.stored_name(ref, n))
    newest = books[max(books, key=lambda n: int(n) if n.isdigit() else 0)]
    out: list[EditionInfo] = []
    for number in sorted(books, key=lambda n: int(n) if n.isdigit() else 0):
        entry = _entry(newest, number) or _entry(books[number], number) or Edition(id=number)
        out.append(EditionInfo(number, files[number], entry.date, entry.in_force_from,
                               entry.in_force_until, entry.summary))
    return out


def _entry(book: Rulebook, number: str) -> Edition | None:
    return next((e for e in book.editions if e.id == number), None)


def in_force_on(editions: list[EditionInfo], day: dt.date) -> EditionInfo | None:
    """The edition in force on a day, by the dates the editions give (None: none is; an
    edition without a date is taken to be in force before every dated one after it)."""
    found: EditionInfo | None = None
    for e in editions:
        start = e.in_force_from
        if isinstance(start, dt.date) and start > day:
            break
        if e.in_force_until is not None and e.in_force_until < day:
            found = None
            continue
        found = e
    return found
