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

A difference is a value (`CaseDifference`): `sudya rulebook test` prints it as a line
(`difference_line`), the editor says it in the organiser's words (`difference_text`: «e3 · bob
· Замедленный темп игры: ожидали Предупреждение, получили Поражение в партии»). A run also
gives what the case now gives, written as its expected file would be (`Outcome.actual`), so
the case can be made to expect it.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sudya.adapters.scenario_file import load_scenario_file
from sudya.app.scenario import replay
from sudya.domain.errors import RulebookError, ScenarioError, SudyaError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook
from sudya.i18n.messages import catalogue, render

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


@dataclass(frozen=True)
class CaseDifference:
    """One way a case's run differs from what the case must give, as raw values (the expected
    file's and the replay's), to be said in words (`difference_text`) or as a line of `sudya
    rulebook test` (`difference_line`).

    `what`: `rulebook` (`key`: id or edition); `count` (of rulings; `made`: the rulings the
    replay made, as (event, subject, cause)); a key of the ruling at `index` — `event`,
    `subject`, `infraction`, `cause`, `sanctions`, `pending`, `offered`, `aggravated`,
    `applies_to`, `revokes`, `resolves`, `resolved_by`, `round`, `edition`, `reasons`;
    `subjects` (who is summed up); `summary` (a subject's `key`: status, sanctions, points,
    ore); `standings`; `standings-order` (`key`: players or teams); `refusal` (an `.error.txt`
    not met: `key` code, field or message); `refused` (a result was expected: `got` is the
    refusal, a SudyaError); `not-refused` (a refusal was expected: `got` the number of
    rulings); `case` (the case cannot be run: `got` is why, a SudyaError)."""

    what: str
    event: str | None = None
    subject: str | None = None
    infraction: str | None = None
    expected: Any = None
    got: Any = None
    key: str = ""
    index: int | None = None
    made: tuple[tuple[Any, Any, Any], ...] = ()


def case_differences(result: dict[str, Any], expected: dict[str, Any]) -> list[CaseDifference]:
    """Every way a replay result differs from what an expected file states."""
    out: list[CaseDifference] = []
    if "rulebook" in expected:
        for key in ("id", "edition"):
            if key in expected["rulebook"] and \
                    result["rulebook"].get(key) != expected["rulebook"][key]:
                out.append(CaseDifference("rulebook", key=key,
                                          expected=expected["rulebook"][key],
                                          got=result["rulebook"].get(key)))
    got_rulings, want_rulings = result["rulings"], expected.get("rulings", [])
    if len(got_rulings) != len(want_rulings):
        out.append(CaseDifference("count", expected=len(want_rulings), got=len(got_rulings),
                                  made=tuple((r["event"], r["subject"], r["cause"])
                                             for r in got_rulings)))
    for i, (got, want) in enumerate(zip(got_rulings, want_rulings, strict=False)):
        keys = [*ALWAYS, "sanctions", *(k for k in (*WHEN_STATED, "reasons") if k in want)]
        for key in keys:
            g, w = ruling_value(got, key), ruling_value(want, key)
            if g != w:
                out.append(CaseDifference(
                    key, event=want.get("event"), subject=want.get("subject"),
                    infraction=want.get("infraction") or got.get("infraction"),
                    expected=w, got=g, key=key, index=i))
    got_subjects, want_subjects = result["subjects"], expected.get("subjects", {})
    if set(got_subjects) != set(want_subjects):
        out.append(CaseDifference("subjects", expected=sorted(want_subjects),
                                  got=sorted(got_subjects)))
    for sid, want in want_subjects.items():
        got = got_subjects.get(sid)
        if got is None:
            continue
        for key, w in want.items():
            if got.get(key, ABSENT) != w:
                out.append(CaseDifference("summary", subject=sid, key=key, expected=w,
                                          got=got.get(key, ABSENT)))
    if "standings" in expected and result.get("standings", ABSENT) != expected["standings"]:
        out.append(CaseDifference("standings", expected=expected["standings"],
                                  got=result.get("standings", ABSENT)))
    elif "standings" in expected and isinstance(expected["standings"], dict):
        # the tables are written in their order (docs/scenarios.en.md, `place`)
        for part, want in expected["standings"].items():
            got = result["standings"][part]
            if isinstance(want, dict) and list(got) != list(want):
                out.append(CaseDifference("standings-order", key=part, expected=list(want),
                                          got=list(got)))
    return out


def difference_line(d: CaseDifference) -> str:
    """A difference as `sudya rulebook test` prints it (English, the values as Python's)."""
    if d.what == "rulebook":
        return f"rulebook.{d.key}: expected {d.expected!r}, got {d.got!r}"
    if d.what == "count":
        return f"rulings: expected {d.expected}, got {d.got}: {list(d.made)}"
    if d.index is not None:
        return (f"rulings[{d.index}] (event {d.event!r}, subject {d.subject!r}).{d.key}: "
                f"expected {d.expected!r}, got {d.got!r}")
    if d.what == "subjects":
        return f"subjects: expected {d.expected}, got {d.got}"
    if d.what == "summary":
        return f"subjects.{d.subject}.{d.key}: expected {d.expected!r}, got {d.got!r}"
    if d.what == "standings":
        return f"standings: expected {d.expected!r}, got {d.got!r}"
    if d.what == "standings-order":
        return f"standings.{d.key} order: expected {d.expected}, got {d.got}"
    if d.what == "refusal" and d.key == "message":
        return f"message: expected it to hold {d.expected!r}, got {d.got!r}"
    if d.what == "refusal":
        return f"{d.key}: expected {d.expected!r}, got {d.got!r}"
    if d.what == "refused":
        return f"refused: {d.got}"
    if d.what == "not-refused":
        return (f"expected a refusal ({d.expected}), the scenario replayed with {d.got} "
                "ruling(s)")
    return str(d.got)


def differences(result: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """Every way a replay result differs from what an expected file states (the lines of
    `sudya rulebook test`)."""
    return [difference_line(d) for d in case_differences(result, expected)]


def refusal_case_differences(error: ScenarioError, pinned: str) -> list[CaseDifference]:
    """How a refusal differs from an `.error.txt` (code, field, words of the message)."""
    message = str(error)
    out: list[CaseDifference] = []
    have = {"code": error.code, "field": error.field}
    for needle in pinned.splitlines():
        key, sep, value = needle.partition(": ")
        if sep and key in have:
            if have[key] != value.strip():
                out.append(CaseDifference("refusal", key=key, expected=value.strip(),
                                          got=have[key]))
        elif needle.strip() and needle.strip() not in message:
            out.append(CaseDifference("refusal", key="message", expected=needle.strip(),
                                      got=message))
    return out


def refusal_differences(error: ScenarioError, pinned: str) -> list[str]:
    """How a refusal differs from an `.error.txt` (code, field, words of the message)."""
    return [difference_line(d) for d in refusal_case_differences(error, pinned)]


# ---------------------------------------------------------------- what a case now gives

# a ruling's keys an expected file states, beyond those always compared, when they say
# something (a pending ruling, an aggravation, what it revokes or settles...): the ruling's
# round, edition and reasons only where the case stated them already
SAID_WHEN_SET = ("pending", "offered", "aggravated", "applies_to", "revokes", "resolves",
                 "resolved_by")
WIDTH = 100  # the bundled cases' lines


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _object_lines(items: list[str], indent: int) -> list[str]:
    """`{"k": v, …}` at `indent`, wrapped at WIDTH between its members as the bundled cases
    are (a continuation one column further in, under the first key)."""
    lines: list[str] = []
    line = " " * indent + "{"
    for n, item in enumerate(items):
        piece = item + (", " if n < len(items) - 1 else "}")
        if n and len(line.rstrip()) + len(piece) > WIDTH:
            lines.append(line.rstrip())
            line = " " * (indent + 1)
        line += piece
    lines.append(line)
    return lines


def expected_text(result: dict[str, Any], like: dict[str, Any] | None = None) -> str:
    """A replay result written as a case's `NAME.expected.json` is (the bundled
    `cases/*/*.expected.json`): the rulebook's id, each ruling on a line of the keys compared,
    each subject's summary on a line, the standings where there are any. `like`: the expected
    file this one is to replace — the keys it states (a ruling's round, reasons, the
    rulebook's edition, no standings) are stated again."""
    like_rulings = [r for r in (like or {}).get("rulings", []) if isinstance(r, dict)]
    stated = {k for r in like_rulings for k in r}
    book: dict[str, Any] = {"id": result["rulebook"].get("id")}
    if like is not None and "edition" in (like.get("rulebook") or {}):
        book["edition"] = result["rulebook"].get("edition")
    lines = ["{", f'  "rulebook": {_dumps(book)},']
    rulings = []
    for r in result["rulings"]:
        keys = [*ALWAYS, "sanctions"]
        keys += [k for k in (*WHEN_STATED, "reasons") if k in stated or (
            k in SAID_WHEN_SET and r.get(k) not in (None, False))]
        items = [f"{_dumps(k)}: {_dumps(ruling_value(r, k))}" for k in keys]
        rulings.append(_object_lines(items, 4))
    if rulings:
        lines.append('  "rulings": [')
        for n, ruling in enumerate(rulings):
            if n < len(rulings) - 1:
                ruling[-1] += ","
            lines += ruling
        lines.append("  ],")
    else:
        lines.append('  "rulings": [],')
    subjects = [f"    {_dumps(sid)}: {_dumps(summary)}"
                for sid, summary in result["subjects"].items()]
    with_standings = "standings" in result and (like is None or "standings" in like)
    end = "," if with_standings else ""
    if subjects:
        lines += ['  "subjects": {', ",\n".join(subjects), "  }" + end]
    else:
        lines.append('  "subjects": {}' + end)
    if with_standings:
        table = json.dumps(result["standings"], ensure_ascii=False, indent=2)
        lines.append('  "standings": ' + table.replace("\n", "\n  "))
    lines.append("}")
    return "\n".join(lines) + "\n"


def refusal_text(error: SudyaError) -> str:
    """A refusal written as a case's `NAME.error.txt` pins it: its code, and its field."""
    return f"code: {error.code}\n" + (f"field: {error.field}\n" if error.field else "")


# ---------------------------------------------------------------- a rulebook's cases


@dataclass(frozen=True)
class Outcome:
    """One case run: its name, the differences found (none: it passed) as lines of `sudya
    rulebook test` (`problems`) and as values (`differences`, the same ones), and what the
    case now gives written as its expected file would be (`actual`: the text of
    NAME.expected.json, or with `refused` that of NAME.error.txt; None when the case could
    not be run), for an editor to offer «make the case expect this»."""

    name: str
    path: Path
    problems: list[str] = field(default_factory=list)
    differences: list[CaseDifference] = field(default_factory=list)
    actual: str | None = None
    refused: bool = False

    @property
    def passed(self) -> bool:
        return not self.problems


def _outcome(name: str, path: Path, found: list[CaseDifference], actual: str | None = None,
             refused: bool = False) -> Outcome:
    return Outcome(name, path, [difference_line(d) for d in found], found, actual, refused)


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


def _scrub(exc: SudyaError, names: dict[str, str]) -> SudyaError:
    """The error with each path of `names` said by its name instead (in where it happened and
    in its texts): a case run on the server never shows the server's folders."""
    def said(text: str) -> str:
        for path, name in names.items():
            text = text.replace(path, name)
        return text

    exc.where = said(exc.where)
    exc.params = {k: said(v) if isinstance(v, str) else v for k, v in exc.params.items()}
    return exc


def run_case(path: Path, ref: str, rulebook_id: str, edition: str | None = None, *,
             local_files: bool = True, label: str | None = None) -> Outcome:
    """Replay one case under the rulebook `ref` and compare it with what it must give. A case
    names its rulebook by id; only with `local_files` (the CLI's own files) may it name a
    file — a case sent to the server (the editor, a publication) never makes it read one.
    With `label`, a message names the case so and the rulebook file by its id, never a
    path (the editor's cases are written to a folder of the server's)."""
    name = path.name.removesuffix(".yaml")
    expected_file = path.with_name(f"{name}.expected.json")
    error_file = path.with_name(f"{name}.error.txt")
    shown = label if label is not None else str(path)
    names = {} if label is None else {
        str(expected_file): label, str(error_file): label, str(path): label,
        ref: rulebook_id, str(path.parent) + "/": ""}
    if not expected_file.is_file() and not error_file.is_file():
        raise RulebookError("cases.no-expected", case=shown, name=name)
    try:
        scenario = load_scenario_file(path)
    except ScenarioError as exc:
        raise RulebookError("cases.unreadable", case=shown,
                            problem=str(_scrub(exc, names))) from exc
    named = scenario.get("rulebook")
    if named is not None and named != rulebook_id and not (
            local_files and isinstance(named, str) and Path(named).is_file()
            and loader.load(named).id == rulebook_id):
        raise RulebookError("cases.other-rulebook", case=shown, named=str(named),
                            rulebook=rulebook_id)
    scenario["rulebook"] = ref
    if edition is not None and "edition" not in scenario:
        scenario["edition"] = edition
    try:
        result = replay(scenario)
    except ScenarioError as exc:
        _scrub(exc, names)
        if error_file.is_file():
            return _outcome(name, path, refusal_case_differences(
                exc, error_file.read_text(encoding="utf-8")), refusal_text(exc), refused=True)
        return _outcome(name, path, [CaseDifference("refused", got=exc)], refusal_text(exc),
                        refused=True)
    if error_file.is_file():
        return _outcome(name, path, [CaseDifference(
            "not-refused", expected=f"{name}.error.txt", got=len(result["rulings"]))],
            expected_text(result))
    try:
        expected = json.loads(expected_file.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise RulebookError("cases.unreadable", case=label or str(expected_file),
                            problem=str(exc)) from exc
    if not isinstance(expected, dict) or not isinstance(expected.get("rulings", []), list):
        raise RulebookError("cases.unreadable", case=label or str(expected_file),
                            problem="not a replay result (a mapping with rulings)")
    return _outcome(name, path, case_differences(result, expected),
                    expected_text(result, expected))


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
    file and its `.cases/` folder are kept); a case that cannot be read fails with why, naming
    the case (never the folder it was written to). Each outcome holds what the case now
    gives (`Outcome.actual`)."""
    with tempfile.TemporaryDirectory(prefix="sudya-draft-") as tmp:
        book_path = Path(tmp) / "draft.yaml"
        book_path.write_text(text, encoding="utf-8")
        try:
            book = loader.load(str(book_path))
        except RulebookError as exc:
            raise _scrub(exc, {str(book_path): "draft.yaml", tmp + "/": ""}) from None
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
            label = case.name or name
            try:
                outcome = run_case(path, str(book_path), book.id, local_files=False,
                                   label=label)
            except RulebookError as exc:
                _scrub(exc, {str(book_path): book.id, tmp + "/": ""})
                outcome = _outcome(name, path, [CaseDifference("case", got=exc)])
            outcomes.append(dataclasses.replace(outcome, name=label,
                                                path=Path(f"{name}.yaml")))
        return outcomes


# ---------------------------------------------------------------- a difference in words

# a ruling's keys said with the name of the key first («основание: ожидали …»); the
# sanctions alone are not («ожидали Предупреждение, получили Поражение в партии»)
_NAMED_KEY = frozenset({*ALWAYS, *WHEN_STATED, "reasons"})


def _plural(n: Any, lang: str) -> str:
    """one, few or many: which of a count's codes says `n` (Russian has three forms)."""
    if not isinstance(n, int) or isinstance(n, bool):
        return "many"
    if lang == "en":
        return "one" if n == 1 else "many"
    if n % 10 == 1 and n % 100 != 11:
        return "one"
    return "few" if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else "many"


def _kind_name(book: Rulebook | None, kind: Any, lang: str) -> str:
    if book is None or not isinstance(kind, str):
        return str(kind)
    try:
        return book.kind(kind).name.get(lang)
    except KeyError:
        return kind  # a kind the draft no longer has: its id


def _sanction_words(s: Any, book: Rulebook | None, lang: str) -> str:
    if not isinstance(s, dict) or "kind" not in s:
        return _words(s, book, lang)
    if s.get("amount") is not None:
        text = render("cases.sanction-amount", {"kind": s["kind"], "amount": s["amount"]},
                      lang, book)
    else:
        text = _kind_name(book, s["kind"], lang)
    if s.get("score") is not None:
        text = render("cases.sanction-score", {"sanction": text, "score": s["score"]}, lang)
    if s.get("subject") is not None:
        text = render("cases.sanction-subject", {"sanction": text, "subject": s["subject"]},
                      lang)
    if "valid_until" in s:
        text = render("cases.sanction-forever", {"sanction": text}, lang) \
            if s["valid_until"] is None else \
            render("cases.sanction-until", {"sanction": text, "date": s["valid_until"]}, lang)
    if s.get("attached"):
        text = render("cases.sanction-attached", {"sanction": text}, lang)
    return text


def _sanctions_words(value: Any, book: Rulebook | None, lang: str) -> str:
    """Sanctions by their names, with amounts («Штрафные очки: 2»); none: «без пенальти»."""
    if not isinstance(value, list):
        return _words(value, book, lang)
    if not value:
        return render("cases.no-sanctions", None, lang)
    return " + ".join(_sanction_words(s, book, lang) for s in value)


def _principal(value: Any) -> Any:
    """The sanctions a ruling gives, without those attached to them."""
    if not isinstance(value, list):
        return value
    return [s for s in value if not (isinstance(s, dict) and s.get("attached"))]


def _words(value: Any, book: Rulebook | None, lang: str) -> str:
    if value is None or isinstance(value, bool):
        return render(f"value.{str(value).lower()}", None, lang)
    if value == ABSENT:
        return render("cases.absent", None, lang)
    if isinstance(value, list):
        return ", ".join(_words(v, book, lang) for v in value) or \
            render("cases.nothing", None, lang)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _value_words(key: str, value: Any, book: Rulebook | None, lang: str) -> str:
    """A compared value as the organiser reads it: names, not ids."""
    if key in ("sanctions", "offered") and isinstance(value, list) and all(
            isinstance(s, dict) and "kind" in s for s in value):
        return _sanctions_words(value, book, lang)
    if key == "cause" and isinstance(value, str):
        return catalogue(lang).get(f"cause.{value}", value)
    if key == "infraction" and isinstance(value, str) and book is not None:
        found = book.infraction(value)
        return found.name.get(lang) if found is not None else value
    if key == "status" and isinstance(value, str):
        return catalogue(lang).get(f"cases.status.{value}", value)
    return _words(value, book, lang)


def _key_name(key: str, lang: str) -> str:
    return render(f"cases.key.{key.replace('_', '-')}", None, lang)


def difference_text(d: CaseDifference, book: Rulebook | None = None, lang: str = "ru") -> str:
    """A difference in words in a language, the rulebook's names for its kinds and
    infractions (`book`: the rulebook the case ran under): «e3 · bob · Замедленный темп игры:
    ожидали Предупреждение, получили Поражение в партии»."""
    lang = lang if lang in ("ru", "en") else "en"

    def expected_got(key: str) -> dict[str, str]:
        return {"expected": _value_words(key, d.expected, book, lang),
                "got": _value_words(key, d.got, book, lang)}

    if d.index is not None:
        if d.what == "sanctions" and _principal(d.expected) != _principal(d.got):
            # what comes with a kind by itself (the warning of a game loss) says nothing
            body = render("cases.expected-got", {
                "expected": _sanctions_words(_principal(d.expected), book, lang),
                "got": _sanctions_words(_principal(d.got), book, lang)}, lang)
        elif d.what in _NAMED_KEY:
            body = render("cases.field-expected-got",
                          {"field": _key_name(d.what, lang), **expected_got(d.what)}, lang)
        else:
            body = render("cases.expected-got", expected_got(d.what), lang)
        where = {"event": d.event, "subject": d.subject, "difference": body}
        if d.infraction:
            return render("cases.ruling", {**where, "infraction": d.infraction}, lang, book)
        return render("cases.ruling-bare", where, lang)
    if d.what == "count":
        return render(f"cases.count-{_plural(d.expected, lang)}",
                      {"expected": d.expected, "got": d.got}, lang)
    if d.what == "rulebook":
        return render(f"cases.rulebook-{d.key}", expected_got(d.key), lang)
    if d.what == "subjects":
        return render("cases.subjects", expected_got("subjects"), lang)
    if d.what == "summary" and d.key == "sanctions" and isinstance(d.expected, dict) \
            and isinstance(d.got, dict):
        # the kinds whose counts differ, each: «bob: Поражение в матче: ожидали 0, получили 1»
        return "; ".join(render("cases.summary", {
            "subject": d.subject, "field": _kind_name(book, kind, lang),
            "expected": d.expected.get(kind, 0), "got": d.got.get(kind, 0)}, lang)
            for kind in dict.fromkeys([*d.expected, *d.got])
            if d.expected.get(kind, 0) != d.got.get(kind, 0))
    if d.what == "summary":
        return render("cases.summary", {"subject": d.subject, "field": _key_name(d.key, lang),
                                        **expected_got(d.key)}, lang)
    if d.what == "standings":
        return render("cases.standings", None, lang)
    if d.what == "standings-order":
        return render("cases.standings-order", {"part": _key_name(d.key, lang),
                                                **expected_got("order")}, lang)
    if d.what == "refusal":
        return render(f"cases.refusal-{d.key}", expected_got(d.key), lang)
    if d.what == "refused":
        error = d.got.render(lang, book) if isinstance(d.got, SudyaError) else str(d.got)
        return render("cases.refused", {"error": error}, lang)
    if d.what == "not-refused":
        return render("cases.not-refused", {"got": d.got}, lang)
    if isinstance(d.got, SudyaError):  # the case cannot be run: why, in its own words
        return d.got.render(lang, book)
    return str(d.got)


def outcome_texts(outcome: Outcome, book: Rulebook | None = None, lang: str = "ru"
                  ) -> list[str]:
    """A case's differences in words (`difference_text`); a difference known only as a line
    (an outcome made by hand from a refusal) as it is."""
    if outcome.differences:
        return [difference_text(d, book, lang) for d in outcome.differences]
    return list(outcome.problems)
