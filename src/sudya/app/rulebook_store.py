"""Rulebooks in the ledger (issue 17): an organiser's rulebooks and editions, published into the
database, append-only; the bundled files stay the defaults.

Publishing is a gate: the text must load, lint without errors (the edition's days checked
against the editions before it: no overlap) and pass its own test cases. The edition number
is the next one after every edition of that id, files and stored ones; the stored text says
so itself (`edition: N` and its entry in `editions:`, with the day it was published and its
`in_force_from`), so a stored edition reads like a file. A published edition is never changed
(the table's triggers refuse it), only followed by another.

`in_force_from` is a day, or None for «со следующего турнира» (003: a precedent is in force
from the next tournament): from the first tournament dated on or after the day it was
published. A tournament uses the edition in force on its date unless it pins one
(`edition_for`, called by Ledger.create_tournament); the tournament records it, and replaying
its series applies each tournament's recorded edition from that tournament on.

The rulebooks package reads no database: `sync` registers the stored editions with the loader
(`loader.register`), so `loader.load(id, edition)` finds them as it finds files.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import io
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app import rulebook_cases
from sudya.app.common import Actor, LedgerError
from sudya.app.views import (
    CaseResultView,
    EditionView,
    RulebookCheckView,
    RulebookProblem,
    TournamentEditionView,
)
from sudya.domain.errors import RulebookError, SudyaError
from sudya.domain.rulebook import editions as eds
from sudya.domain.rulebook import lint, loader
from sudya.domain.rulebook.schema import Rulebook

if TYPE_CHECKING:
    from sudya.app.ledger import Ledger

# name -> (the case's scenario YAML, its expected replay JSON or the refusal it must give:
# the text of NAME.expected.json or NAME.error.txt, as rulebook_cases reads them)
Cases = dict[str, tuple[str, str]]

PRECEDENT_SOURCE = "003 «Решение вопросов, не урегулированных данной системой»"
_CASE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ------------------------------------------------------------------ the loader's registry


def sync(s: Session) -> None:
    """Make the loader's registry what the ledger holds: every stored edition this process has
    not got yet registered (a small read: ids, numbers and hashes; texts only of the new
    ones), any other forgotten."""
    rows = s.execute(select(m.RulebookEdition.rulebook, m.RulebookEdition.edition,
                            m.RulebookEdition.sha256, m.RulebookEdition.series_id)).all()
    loader.keep_stored({(row.rulebook, row.edition) for row in rows})
    for row in rows:
        if (loader.stored_editions(row.rulebook).get(row.edition) == row.sha256
                and loader.scope_of(row.rulebook, row.edition) == row.series_id):
            continue
        text = s.scalar(select(m.RulebookEdition.text).where(
            m.RulebookEdition.rulebook == row.rulebook,
            m.RulebookEdition.edition == row.edition))
        try:
            loader.register(row.rulebook, row.edition, text or "", row.sha256,
                            scope=row.series_id)
        except RulebookError:
            continue  # published under other code and no longer loads: not offered


def edition_for(rulebook_id: str, day: dt.date, series: int | None = None) -> str | None:
    """The edition of a rulebook in force on a day in a series — the bundled and shared ones
    and the series' own, never another series' (None: none says so; the caller takes the
    newest). «Со следующего турнира» counts from the day the edition was decided."""
    try:
        history = eds.history(rulebook_id, series)
    except SudyaError:
        return None
    timed = [dataclasses.replace(e, in_force_from=e.date)
             if e.in_force_from == "next-tournament" and e.date is not None else e
             for e in history]
    found = eds.in_force_on(timed, day)
    return None if found is None else found.id


def edition_in(rulebook_id: str, day: dt.date, series: int,
               pinned: str | None = None) -> str | None:
    """The edition a new tournament of a series uses: the one it pins, else the one in force
    on its day, else the newest the series sees (None: the loader's newest, a file's); an
    edition another series published for itself is refused (`edition.other-series`)."""
    if pinned is not None:
        owner = loader.scope_of(rulebook_id, pinned)
        if owner is not None and owner != series:
            raise LedgerError("edition.other-series", field="edition", rulebook=rulebook_id,
                              edition=pinned)
        return pinned
    found = edition_for(rulebook_id, day, series)
    if found is not None:
        return found
    seen = {*loader.edition_files(rulebook_id), *loader.stored_editions(rulebook_id, series)}
    numbered = [n for n in seen if n.isdigit()]
    return max(numbered, key=int) if numbered else None


# ------------------------------------------------------------------ the gate


def check_text(text: str, *, name: str, cases: Cases | None = None,
               lang: str = "en", series: int | None = None) -> RulebookCheckView:
    """Does a rulebook text load (the loader's errors with line and key path), what does its
    lint say, do its own cases pass (where cases are given), and do its edition's days fit
    after the editions stored before it: the check publishing makes."""
    if len(text.encode("utf-8")) > loader.MAX_YAML_BYTES:
        return RulebookCheckView(name=name, loads=False, problems=[RulebookProblem(
            severity="error", message=f"too large (more than {loader.MAX_YAML_BYTES:,} bytes)")])
    try:
        data = loader.parse_yaml(text, name)
        book = loader.validate(data, name)
    except RulebookError as exc:
        return RulebookCheckView(name=name, loads=False, problems=_load_problems(exc, name))
    problems = [_problem(f, data) for f in lint.lint_book(book, lang)]
    problems += [_problem(f, data) for f in _edition_findings(book, name, lang, series)]
    results = _run_cases(text, book, cases) if cases else []
    return RulebookCheckView(name=name, rulebook=book.id, edition=book.edition, loads=True,
                             problems=problems, cases=results)


_AT = re.compile(r"^(?P<name>.*?):(?P<line>\d+): (?P<rest>.*)$")


def _load_problems(exc: RulebookError, name: str) -> list[RulebookProblem]:
    out: list[RulebookProblem] = []
    for text in exc.params.get("problems") or [str(exc)]:
        line: int | None = None
        rest = str(text).removeprefix(f"{name}: ")
        found = _AT.match(str(text))
        if found and found["name"] == name:
            line, rest = int(found["line"]), found["rest"]
        where, sep, message = rest.partition(": ")
        if not sep or " " in where or where.startswith("malformed"):
            where, message = "", rest
        out.append(RulebookProblem(severity="error", where=where, line=line, message=message))
    return out


def _problem(f: lint.Finding, data: Any) -> RulebookProblem:
    return RulebookProblem(severity=f.severity,
                           code=f.code, where=f.where, line=_line_in(data, f.loc),
                           message=f.message)


def _line_in(data: Any, loc: tuple[str | int, ...]) -> int | None:
    """The line of a finding's key path, list items named by their id (as lint does)."""
    return loader.line_of(data, loader.keys_of(data, loc)) if loc else None


def _edition_findings(book: Rulebook, name: str, lang: str,
                      series: int | None) -> list[lint.Finding]:
    """The edition lint over the editions before this one that the series sees and this one
    (overlaps are errors); and an edition in force from a day before the previous one starts
    overlaps it too."""
    before: list[tuple[Rulebook, str]] = []
    seen = {*loader.edition_files(book.id), *loader.stored_editions(book.id, series)}
    for n in sorted(seen, key=lambda n: int(n) if n.isdigit() else 0):
        if n.isdigit() and book.edition.isdigit() and int(n) < int(book.edition):
            try:
                before.append((loader.load(book.id, n), n))
            except RulebookError:
                continue
    if not before:
        return []
    found = [f for f in lint.lint_editions([*before, (book, name)], lang)
             if f.file == name or not f.file]
    own = next((e for e in book.editions if e.id == book.edition), None)
    start = _start(own) if own is not None else None
    prev_book = before[-1][0]
    prev = next((e for e in book.editions if e.id == prev_book.edition), None) or next(
        (e for e in prev_book.editions if e.id == prev_book.edition), None)
    prev_start = _start(prev) if prev is not None else None
    if start is not None and prev_start is not None and start < prev_start and not any(
            f.code.startswith("lint.edition-overlap") for f in found):
        idx = book.editions.index(own) if own is not None else 0
        found.append(lint.Finding(
            "error", f"editions[{idx}].in_force_from",
            f"edition {book.edition} would be in force from {start.isoformat()}, before "
            f"edition {prev_book.edition} ({prev_start.isoformat()})",
            code="lint.edition-overlap", loc=("editions", idx, "in_force_from")))
    return found


def _start(entry: Any) -> dt.date | None:
    start = entry.in_force_from
    if isinstance(start, dt.date):
        return start
    return entry.date if start == "next-tournament" else None


def _run_cases(text: str, book: Rulebook, cases: Cases) -> list[CaseResultView]:
    """Each case replayed under the text, as `sudya rulebook test` replays a folder's."""
    out: list[CaseResultView] = []
    with tempfile.TemporaryDirectory(prefix="sudya-cases-") as tmp:
        root = Path(tmp)
        rulebook = root / "rulebook.yaml"
        rulebook.write_text(text, encoding="utf-8")
        folder = root / "cases"
        folder.mkdir()
        for name, (scenario, expected) in sorted(cases.items()):
            if not _CASE_NAME.fullmatch(name):
                out.append(CaseResultView(name=name, passed=False,
                                          problems=["not a case name (letters, digits, . _ -)"]))
                continue
            case = folder / f"{name}.yaml"
            case.write_text(scenario, encoding="utf-8")
            suffix = ".expected.json" if expected.lstrip().startswith("{") else ".error.txt"
            (folder / f"{name}{suffix}").write_text(expected, encoding="utf-8")
            try:
                outcome = rulebook_cases.run_case(case, str(rulebook), book.id,
                                                  local_files=False)
            except SudyaError as exc:
                out.append(CaseResultView(name=name, passed=False, problems=[str(exc)]))
                continue
            out.append(CaseResultView(name=name, passed=outcome.passed,
                                      problems=[p.replace(str(root) + "/", "")
                                                for p in outcome.problems]))
    return out


def cases_in(folder: Path) -> Cases:
    """The cases kept in a folder (NAME.yaml with NAME.expected.json or NAME.error.txt)."""
    found: Cases = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob("*.yaml")):
        name = path.name.removesuffix(".yaml")
        for suffix in (".expected.json", ".error.txt"):
            other = path.with_name(name + suffix)
            if other.is_file():
                found[name] = (path.read_text(encoding="utf-8"),
                               other.read_text(encoding="utf-8"))
                break
    return found


def _refuse_unless_ok(check: RulebookCheckView) -> None:
    if not check.loads:
        first = check.problems[0]
        raise LedgerError("rulebook.does-not-load", field="text",
                          problem=_shown(first))
    if check.errors:
        first = check.errors[0]
        field = "in_force_from" if first.code.startswith("lint.edition-overlap") else "text"
        raise LedgerError("rulebook.lint-errors", field=field, count=len(check.errors),
                          problem=_shown(first))
    failed = [c for c in check.cases if not c.passed]
    if failed:
        raise LedgerError("rulebook.case-fails", field=f"cases.{failed[0].name}",
                          case=failed[0].name, count=len(failed),
                          problem=(failed[0].problems or [""])[0])


def _shown(p: RulebookProblem) -> str:
    at = f"line {p.line}: " if p.line else ""
    return f"{at}{p.where + ': ' if p.where else ''}{p.message}"


# ------------------------------------------------------------------ publishing


def publish(ledger: Ledger, *, text: str, in_force_from: dt.date | None, summary: str,
            actor: Actor | None, cases: Cases | None = None,
            series: int | None = None) -> EditionView:
    """Publish a rulebook text as the next edition of its id for a series — in force in that
    series' tournaments only, from a day (None: from the next tournament) — after the gate
    (`check_text`): refused with the field named unless it loads, lints without errors, fits
    after the series' previous edition and passes its cases (given, or else the series'
    previous stored edition's, or the bundled folder's of that id). Numbers are counted over
    every series (an edition's number names it alone). Without a series — a rulebook of one's
    own id, never a bundled one, by the author of its first shared edition (or the
    administrator) — the edition is shared by every series that uses that id."""
    actor = actor or Actor()
    summary = summary.strip()
    if not summary:
        raise LedgerError("rulebook.summary-required", field="summary")
    if len(summary) > 2000:
        raise LedgerError("rulebook.summary-too-long", field="summary", most=2000)
    first = check_text(text, name="text")
    if not first.loads:
        _refuse_unless_ok(first)
    book = loader.validate(loader.parse_yaml(text, "text"), "text")
    if series is None and loader.edition_files(book.id):
        # a bundled rulebook is never changed for every series at once (issue 35)
        raise LedgerError("rulebook.bundled-shared", field="series", rulebook=book.id)
    with ledger.factory() as r:
        sync(r)
        if series is None and not actor.owner:
            # a rulebook of one's own id: its shared editions are its author's alone
            author = r.scalar(select(m.RulebookEdition.created_by).where(
                m.RulebookEdition.rulebook == book.id, m.RulebookEdition.series_id.is_(None))
                .order_by(m.RulebookEdition.id).limit(1))
            if author is not None and author != actor.name:
                raise LedgerError("rulebook.not-yours", field="series", rulebook=book.id,
                                  author=author)
        series_name: str | None = None
        if series is not None:
            found = r.execute(select(m.Series.rulebook, m.Series.name)
                              .where(m.Series.id == series)).first()
            if found is None or found.rulebook != book.id:
                raise LedgerError("rulebook.not-the-series", field="text", rulebook=book.id,
                                  series=found.name if found else "",
                                  series_rulebook=found.rulebook if found else "")
            series_name = found.name
        if cases is None:
            cases = _cases_before(r, book.id, series)
    numbers = [int(n) for n in loader.editions_of(book.id) if n.isdigit()]
    number = str(max(numbers) + 1) if numbers else "1"
    today = m.now().date()
    final = as_edition(text, number=number, decided=today, in_force_from=in_force_from,
                       summary=summary)
    check = check_text(final, name=loader.stored_name(book.id, number), cases=cases,
                       series=series)
    _refuse_unless_ok(check)
    digest = sha256(final)
    row = m.RulebookEdition(rulebook=book.id, edition=number, text=final, sha256=digest,
                            in_force_from=in_force_from, summary=summary,
                            cases={k: list(v) for k, v in (cases or {}).items()},
                            series_id=series, created_by=actor.name,
                            request_id=actor.request_id)
    try:
        with ledger.uow().begin() as s:
            s.add(row)
            s.flush()
            view = _stored_view(row, series=series_name)
    except IntegrityError:
        raise LedgerError("rulebook.edition-taken", field="edition", rulebook=book.id,
                          edition=number) from None
    loader.register(book.id, number, final, digest, scope=series)
    return view


def tournaments_on(session: Session, rulebook_id: str, series: int | None, since: dt.date,
                   limit: int = 20) -> list[TournamentEditionView]:
    """The tournaments judged by a rulebook (in one series, or in every series using its
    id) dated `since` or later, by date: each keeps the edition it was created with."""
    query = (select(m.Tournament.id, m.Tournament.name, m.Tournament.date, m.Tournament.edition,
                    m.Series.name.label("series"))
             .join(m.Series, m.Series.id == m.Tournament.series_id)
             .where(m.Series.rulebook == rulebook_id, m.Tournament.date >= since)
             .order_by(m.Tournament.date, m.Tournament.id).limit(limit))
    if series is not None:
        query = query.where(m.Series.id == series)
    return [TournamentEditionView(id=r.id, name=r.name, series=r.series, date=r.date,
                                  edition=r.edition) for r in session.execute(query)]


def _cases_before(s: Session, rulebook_id: str, series: int | None) -> Cases:
    """The cases the series' newest stored edition passed, or the bundled folder's of that
    id."""
    rows = s.execute(select(m.RulebookEdition.edition, m.RulebookEdition.cases).where(
        m.RulebookEdition.rulebook == rulebook_id,
        m.RulebookEdition.series_id.is_(None) | (m.RulebookEdition.series_id == series))
    ).all()
    if rows:
        newest = max(rows, key=lambda r: int(r.edition) if r.edition.isdigit() else 0)
        if newest.cases:
            return {k: (str(v[0]), str(v[1])) for k, v in newest.cases.items()}
    if loader.edition_files(rulebook_id):
        return cases_in(rulebook_cases.folder(rulebook_id))
    return {}


def as_edition(text: str, *, number: str, decided: dt.date, in_force_from: dt.date | None,
               summary: str, summary_en: str | None = None) -> str:
    """The text as edition `number`: `edition:` set and its entry in `editions:` (the day it
    was decided, in force from a day or the next tournament, what changed), comments kept."""
    yaml = YAML(typ="rt")
    yaml.width = 100
    data = yaml.load(text)
    if not isinstance(data, dict):
        raise LedgerError("rulebook.does-not-load", field="text",
                          problem="a rulebook must be a mapping of keys")
    data["edition"] = number
    history = data.get("editions")
    if not isinstance(history, list):
        history = data["editions"] = []
    for old in [e for e in history if isinstance(e, dict) and str(e.get("id")) == number]:
        history.remove(old)
    entry = CommentedMap()
    entry["id"] = number
    entry["date"] = decided
    entry["in_force_from"] = in_force_from if in_force_from is not None else "next-tournament"
    entry["summary"] = {"ru": summary, "en": summary_en or summary}
    history.append(entry)
    buf = io.StringIO()
    yaml.dump(data, buf)
    return buf.getvalue()


# ------------------------------------------------------------------ reading


def editions(session: Session, rulebook_id: str) -> list[EditionView]:
    """Every edition of a rulebook, by number: bundled files, the shared stored ones and each
    series' own (named by its series, as that series sees its days in force)."""
    sync(session)
    if rulebook_id not in loader.bundled_ids():
        raise LedgerError("rulebook.unknown", field="rulebook", rulebook=rulebook_id)
    rows = {r.edition: r for r in session.scalars(select(m.RulebookEdition).where(
        m.RulebookEdition.rulebook == rulebook_id))}
    names = dict(session.execute(select(m.Series.id, m.Series.name).where(
        m.Series.id.in_({r.series_id for r in rows.values() if r.series_id is not None}))
    ).tuples().all())
    seen: dict[str, eds.EditionInfo] = {}
    for scope in [None, *sorted(names)]:
        try:
            history = eds.history(rulebook_id, scope)
        except SudyaError:
            continue  # only series' own editions, and none shared
        for e in history:
            seen.setdefault(e.id, e)
    out: list[EditionView] = []
    for number in sorted(seen, key=lambda n: int(n) if n.isdigit() else 0):
        e, row = seen[number], rows.get(number)
        if row is not None:
            out.append(_stored_view(row, until=e.in_force_until,
                                    series=names.get(row.series_id or 0)))
            continue
        summary = e.summary.get("ru") if e.summary else ""
        out.append(EditionView(
            rulebook=rulebook_id, edition=e.id, stored=False, decided=e.date,
            in_force_from=e.in_force_from if isinstance(e.in_force_from, dt.date) else None,
            from_next_tournament=e.in_force_from == "next-tournament",
            in_force_until=e.in_force_until, summary=summary or ""))
    return out


def _stored_view(row: m.RulebookEdition, until: dt.date | None = None,
                 series: str | None = None) -> EditionView:
    at = row.created_at
    return EditionView(rulebook=row.rulebook, edition=row.edition, stored=True,
                       decided=at.date() if at is not None else None,
                       in_force_from=row.in_force_from,
                       from_next_tournament=row.in_force_from is None, in_force_until=until,
                       summary=row.summary, sha256=row.sha256, published_by=row.created_by,
                       published_at=at, series=series)


def text_of(session: Session, rulebook_id: str, edition: str) -> str:
    """The YAML text of an edition: as stored in the ledger, or the bundled file's."""
    stored = session.scalar(select(m.RulebookEdition.text).where(
        m.RulebookEdition.rulebook == rulebook_id, m.RulebookEdition.edition == edition))
    if stored is not None:
        return stored
    path = loader.edition_files(rulebook_id).get(edition)
    if path is None:
        raise LedgerError("rulebook.no-edition", field="edition", rulebook=rulebook_id,
                          edition=edition)
    return loader.read_text(path, loader.MAX_YAML_BYTES)


def stored_cases(session: Session, rulebook_id: str, edition: str | None = None) -> Cases:
    """The cases a stored edition (the newest: None) was published with."""
    rows = session.execute(select(m.RulebookEdition.edition, m.RulebookEdition.cases).where(
        m.RulebookEdition.rulebook == rulebook_id)).all()
    if edition is not None:
        rows = [r for r in rows if r.edition == edition]
    if not rows:
        return {}
    newest = max(rows, key=lambda r: int(r.edition) if r.edition.isdigit() else 0)
    return {k: (str(v[0]), str(v[1])) for k, v in (newest.cases or {}).items()}


def run_stored_cases(session: Session, rulebook_id: str,
                edition: str | None = None) -> list[CaseResultView]:
    """Run a stored edition's cases (`sudya rulebook test ID --db`)."""
    sync(session)
    book = _book(rulebook_id, edition)
    cases = stored_cases(session, rulebook_id, book.edition)
    if not cases:
        raise LedgerError("rulebook.no-cases", field="rulebook", rulebook=rulebook_id,
                          edition=book.edition)
    return _run_cases(text_of(session, rulebook_id, book.edition), book, cases)


def _book(rulebook_id: str, edition: str | None) -> Rulebook:
    try:
        return loader.load(rulebook_id, edition)
    except RulebookError as exc:
        raise LedgerError(exc.code, field="rulebook", where=exc.where, **exc.params) from exc


# ------------------------------------------------------------------ precedents


def precedent_draft(session: Session, *, tournament: int, decision_event: str) -> str:
    """The YAML text of the next edition with a draft rule made from a college decision (003:
    «на следующий турнир данный прецедент вносится в данную систему»): the infraction it
    decided, the sanctions it gave, the source citing 003 and the decision; in force from the
    next tournament. Refused for a decision on an aggravated ruling (aggravation makes no
    precedent)."""
    sync(session)
    t = session.get(m.Tournament, tournament)
    if t is None:
        raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
    ev = session.scalar(select(m.Event).where(m.Event.series_id == t.series_id,
                                              m.Event.ext_id == decision_event))
    if ev is None or ev.kind != "decision":
        raise LedgerError("precedent.not-a-decision", field="decision_event",
                          event=decision_event)
    of = str(ev.payload.get("of"))
    decided = list(session.scalars(select(m.Ruling).where(
        m.Ruling.series_id == t.series_id, m.Ruling.event_ext_id == of)))
    if any(r.aggravated for r in decided):
        raise LedgerError("precedent.aggravation", field="decision_event", event=decision_event)
    given = list(session.scalars(select(m.Ruling).where(m.Ruling.event_id == ev.id)))
    sanctions: list[Any] = []
    for item in ev.payload.get("sanctions") or []:
        sanctions.append(_sanction_item(item))
    if not sanctions:
        for r in given:
            for srow in r.sanctions:
                if not srow.attached:
                    sanctions.append(_sanction_item({"kind": srow.kind, "amount": srow.amount,
                                                     "score": srow.score}))
    if not sanctions:
        raise LedgerError("precedent.no-sanctions", field="decision_event", event=decision_event)
    series = t.series
    book = _book(series.rulebook, None)
    infraction = next((r.infraction for r in decided if r.infraction), None)
    base = book.infraction(infraction) if infraction else None
    rule_id = f"{infraction or 'precedent'}.precedent-{_slug(decision_event)}"
    day = ev.payload.get("date") or t.date.isoformat()
    cite = (f"{PRECEDENT_SOURCE}; решение коллегии {decision_event} от {day}, турнир "
            f"«{t.name}»")
    yaml = YAML(typ="rt")
    yaml.width = 100
    data = yaml.load(text_of(session, series.rulebook, book.edition))
    rule = CommentedMap()
    rule["id"] = rule_id
    if base is not None and base.category:
        rule["category"] = base.category
    name_ru = base.name.ru if base is not None else "Прецедент коллегии"
    name_en = base.name.en if base is not None else "A college precedent"
    rule["name"] = {"ru": f"{name_ru} (прецедент {decision_event})",
                    "en": f"{name_en} (precedent {decision_event})"}
    rule["source"] = cite
    if base is not None and base.details:
        rule["details"] = {k: v.model_dump(mode="json", exclude_defaults=True)
                           for k, v in base.details.items()}
    rule["penalty"] = sanctions
    rule["notes"] = [{
        "ru": f"Прецедент: решение коллегии {decision_event} от {day}; действует со "
              "следующего турнира.",
        "en": f"Precedent: the college's decision {decision_event} of {day}; in force from "
              "the next tournament.",
        "source": cite,
    }]
    if not isinstance(data.get("infractions"), list):
        data["infractions"] = []
    data["infractions"].append(rule)
    buf = io.StringIO()
    yaml.dump(data, buf)
    numbers = [int(n) for n in loader.editions_of(series.rulebook) if n.isdigit()]
    return as_edition(buf.getvalue(), number=str(max(numbers, default=0) + 1),
                      decided=m.now().date(), in_force_from=None,
                      summary=f"Прецедент коллегии: {rule_id}.",
                      summary_en=f"College precedent: {rule_id}.")


def _sanction_item(item: dict[str, Any]) -> Any:
    """A decided sanction as a table cell item: its kind, with its amount or score."""
    extra = {k: item[k] for k in ("amount", "score") if item.get(k) is not None}
    return {"kind": item["kind"], **extra} if extra else str(item["kind"])


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9-]+", "-", text).strip("-").lower() or "decision"


__all__ = ["Cases", "as_edition", "cases_in", "check_text", "edition_for", "editions",
           "precedent_draft", "publish", "run_stored_cases", "stored_cases", "sync", "text_of"]
