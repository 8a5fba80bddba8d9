"""A rulebook's own test cases: scenario files kept with the rulebook, replayed and compared.

A case is `NAME.yaml` in the scenario format (shared/spec/scenarios.md) with what it must give
beside it: `NAME.expected.json` (the replay result, compared on what the file states — the
same comparison as the project's own scenario tests) or `NAME.error.txt` (the scenario is
refused: a line `code: X` pins the error's code, `field: Y` its field, every other line must be
in the message). Where cases are kept:

- a bundled rulebook (or one on SUDYA_RULEBOOK_PATH): `cases/ID/` in its folder;
- a rulebook file `club.yaml` (or `club.2.yaml`): the folder `club.cases/` beside it.

A case runs under the rulebook it is kept with: its `rulebook:` may be left out, and a case
naming another rulebook is refused. Like OpenFisca's YAML tests, one command runs them all
(`sudya rulebook test ID|FILE`).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sudya.adapters.scenario_file import load_scenario_file
from sudya.app.scenario import replay
from sudya.domain.errors import RulebookError, ScenarioError
from sudya.domain.rulebook import loader

ALWAYS = ("event", "subject", "infraction", "cause")
WHEN_STATED = ("pending", "offered", "aggravated", "applies_to", "revokes", "resolves",
               "resolved_by", "round", "edition")
# ruling_json leaves these out when they are false
FALSE_WHEN_ABSENT = ("pending", "aggravated")
SANCTION_KEYS = ("kind", "amount", "score", "subject", "valid_until", "attached")
ABSENT = "<absent>"
# what every ruling of an infraction carries from its rulebook: not the ruling's own reasons
CARRIED = ("rule.source", "rule.interpretation")


# ---------------------------------------------------------------- comparing a result


def sanction_shape(s: dict[str, Any], ruling_subject: Any) -> dict[str, Any]:
    """The compared keys of a sanction, as stated (`valid_until: null` is not its absence)."""
    out = {k: s[k] for k in SANCTION_KEYS if k in s}
    if not out.get("attached"):
        out.pop("attached", None)
    if "subject" in out and out["subject"] == ruling_subject:
        del out["subject"]  # stating the ruling's own subject says nothing more
    return out


def reason_codes(r: dict[str, Any]) -> list[str]:
    return [x["code"] if isinstance(x, dict) else x for x in r.get("reasons", [])
            if (x["code"] if isinstance(x, dict) else x) not in CARRIED]


def ruling_value(r: dict[str, Any], key: str) -> Any:
    if key == "reasons":
        return reason_codes(r)
    if key == "sanctions":
        return [sanction_shape(s, r.get("subject")) for s in r.get("sanctions", [])]
    if key in r:
        return r[key]
    return False if key in FALSE_WHEN_ABSENT else None


def differences(result: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """Every way a replay result differs from what an expected file states."""
    out: list[str] = []
    if "rulebook" in expected:
        for key in ("id", "edition"):
            if key in expected["rulebook"] and \
                    result["rulebook"].get(key) != expected["rulebook"][key]:
                out.append(f"rulebook.{key}: expected {expected['rulebook'][key]!r}, "
                           f"got {result['rulebook'].get(key)!r}")
    got_rulings, want_rulings = result["rulings"], expected.get("rulings", [])
    if len(got_rulings) != len(want_rulings):
        out.append(f"rulings: expected {len(want_rulings)}, got {len(got_rulings)}: "
                   f"{[(r['event'], r['subject'], r['cause']) for r in got_rulings]}")
    for i, (got, want) in enumerate(zip(got_rulings, want_rulings, strict=False)):
        keys = [*ALWAYS, "sanctions", *(k for k in (*WHEN_STATED, "reasons") if k in want)]
        for key in keys:
            g, w = ruling_value(got, key), ruling_value(want, key)
            if g != w:
                out.append(f"rulings[{i}] (event {want.get('event')!r}, subject "
                           f"{want.get('subject')!r}).{key}: expected {w!r}, got {g!r}")
    got_subjects, want_subjects = result["subjects"], expected.get("subjects", {})
    if set(got_subjects) != set(want_subjects):
        out.append(f"subjects: expected {sorted(want_subjects)}, got {sorted(got_subjects)}")
    for sid, want in want_subjects.items():
        got = got_subjects.get(sid)
        if got is None:
            continue
        for key, w in want.items():
            if got.get(key, ABSENT) != w:
                out.append(f"subjects.{sid}.{key}: expected {w!r}, got "
                           f"{got.get(key, ABSENT)!r}")
    if "standings" in expected and result.get("standings", ABSENT) != expected["standings"]:
        out.append(f"standings: expected {expected['standings']!r}, "
                   f"got {result.get('standings', ABSENT)!r}")
    elif "standings" in expected and isinstance(expected["standings"], dict):
        # the tables are written in their order (docs/scenarios.en.md, `place`)
        for part, want in expected["standings"].items():
            got = result["standings"][part]
            if isinstance(want, dict) and list(got) != list(want):
                out.append(f"standings.{part} order: expected {list(want)}, got {list(got)}")
    return out


def refusal_differences(error: ScenarioError, pinned: str) -> list[str]:
    """How a refusal differs from an `.error.txt` (code, field, words of the message)."""
    message = str(error)
    out: list[str] = []
    have = {"code": error.code, "field": error.field}
    for needle in pinned.splitlines():
        key, sep, value = needle.partition(": ")
        if sep and key in have:
            if have[key] != value.strip():
                out.append(f"{key}: expected {value.strip()!r}, got {have[key]!r}")
        elif needle.strip() and needle.strip() not in message:
            out.append(f"message: expected it to hold {needle.strip()!r}, got {message!r}")
    return out


# ---------------------------------------------------------------- a rulebook's cases


@dataclass(frozen=True)
class Outcome:
    """One case run: its name, the differences found (none: it passed)."""

    name: str
    path: Path
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


def folder(ref: str) -> Path:
    """Where the cases of a rulebook id or file are kept (the folder may not exist)."""
    if loader.edition_files(ref):
        for directory in loader.search_path():
            candidate = directory / "cases" / ref
            if candidate.is_dir():
                return candidate
        return loader.search_path()[-1] / "cases" / ref
    path = Path(ref)
    stem = path.name.removesuffix(path.suffix)
    head, _, tail = stem.rpartition(".")
    return path.with_name(f"{head if head and tail.isdigit() else stem}.cases")


def cases(ref: str) -> list[Path]:
    """The case files of a rulebook, by name; a rulebook with none is refused."""
    where = folder(ref)
    found = sorted(where.glob("*.yaml")) if where.is_dir() else []
    if not found:
        raise RulebookError("cases.none", rulebook=ref, folder=str(where))
    return found


def run_case(path: Path, ref: str, rulebook_id: str, edition: str | None = None, *,
             local_files: bool = True) -> Outcome:
    """Replay one case under the rulebook `ref` and compare it with what it must give. A case
    names its rulebook by id; only with `local_files` (the CLI's own files) may it name a
    file — a case sent to the server (the editor, a publication) never makes it read one."""
    name = path.name.removesuffix(".yaml")
    expected_file = path.with_name(f"{name}.expected.json")
    error_file = path.with_name(f"{name}.error.txt")
    if not expected_file.is_file() and not error_file.is_file():
        raise RulebookError("cases.no-expected", case=str(path), name=name)
    try:
        scenario = load_scenario_file(path)
    except ScenarioError as exc:
        raise RulebookError("cases.unreadable", case=str(path), problem=str(exc)) from exc
    named = scenario.get("rulebook")
    if named is not None and named != rulebook_id and not (
            local_files and isinstance(named, str) and Path(named).is_file()
            and loader.load(named).id == rulebook_id):
        raise RulebookError("cases.other-rulebook", case=str(path), named=str(named),
                            rulebook=rulebook_id)
    scenario["rulebook"] = ref
    if edition is not None and "edition" not in scenario:
        scenario["edition"] = edition
    try:
        result = replay(scenario)
    except ScenarioError as exc:
        if error_file.is_file():
            return Outcome(name, path, refusal_differences(
                exc, error_file.read_text(encoding="utf-8")))
        return Outcome(name, path, [f"refused: {exc}"])
    if error_file.is_file():
        return Outcome(name, path, ["expected a refusal (" + name + ".error.txt), the "
                                    f"scenario replayed with {len(result['rulings'])} "
                                    "ruling(s)"])
    try:
        expected = json.loads(expected_file.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise RulebookError("cases.unreadable", case=str(expected_file),
                            problem=str(exc)) from exc
    if not isinstance(expected, dict) or not isinstance(expected.get("rulings", []), list):
        raise RulebookError("cases.unreadable", case=str(expected_file),
                            problem="not a replay result (a mapping with rulings)")
    return Outcome(name, path, differences(result, expected))


def run(ref: str, edition: str | None = None) -> list[Outcome]:
    """Every case of a rulebook id or file, replayed; a bad case or rulebook is refused."""
    book = loader.load(ref, edition)
    target = str(Path(ref).resolve()) if not loader.edition_files(ref) else ref
    return [run_case(p, target, book.id, edition) for p in cases(ref)]


def report(outcomes: Iterable[Outcome], limit: int = 10) -> list[str]:
    """The lines of a failed case: its name, then its first differences."""
    lines: list[str] = []
    for o in outcomes:
        if o.passed:
            continue
        lines.append(f"FAIL {o.name} ({o.path})")
        lines += [f"  {p}" for p in o.problems[:limit]]
        if len(o.problems) > limit:
            lines.append(f"  … {len(o.problems) - limit} more")
    return lines


# ---------------------------------------------------------------- a draft's cases (the editor)


@dataclass(frozen=True)
class DraftCase:
    """A case typed or uploaded beside a draft rulebook: the scenario's YAML (or JSON) and
    what it must give — the replay result as JSON, or (`refusal`) the lines of an
    `.error.txt`."""

    name: str
    scenario: str
    expected: str
    refusal: bool = False


def _file_name(name: str, n: int) -> str:
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in name.strip())[:60]
    return safe.strip("-") or f"case-{n}"


def run_draft(text: str, drafts: Iterable[DraftCase]) -> list[Outcome]:
    """Each case replayed under the draft rulebook `text`, compared as `sudya rulebook test`
    compares (the draft and its cases are written to a folder of their own, as a rulebook
    file and its `.cases/` folder are kept); a case that cannot be read fails with why."""
    with tempfile.TemporaryDirectory(prefix="sudya-draft-") as tmp:
        book_path = Path(tmp) / "draft.yaml"
        book_path.write_text(text, encoding="utf-8")
        book = loader.load(str(book_path))
        folder = Path(tmp) / "draft.cases"
        folder.mkdir()
        outcomes: list[Outcome] = []
        used: set[str] = set()
        for n, case in enumerate(drafts, start=1):
            name = _file_name(case.name, n)
            while name in used:
                name = f"{name}-{n}"
            used.add(name)
            path = folder / f"{name}.yaml"
            path.write_text(case.scenario, encoding="utf-8")
            suffix = ".error.txt" if case.refusal else ".expected.json"
            (folder / f"{name}{suffix}").write_text(case.expected, encoding="utf-8")
            try:
                outcome = run_case(path, str(book_path), book.id, local_files=False)
            except RulebookError as exc:
                outcome = Outcome(name, path, [str(exc)])
            outcomes.append(Outcome(case.name or name, Path(f"{name}.yaml"),
                                    outcome.problems))
        return outcomes
