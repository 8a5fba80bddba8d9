"""Hostile scenario files, byte by byte: `sudya replay` answers each with exit 2 and one line
on stderr naming the file (and the line where known), no traceback, in bounded time — in this
process as the console script runs it (cli_kit.run), and a few through the real console
script (slow); and the file reader, fed random bytes and random text, returns a dict or
raises ScenarioError.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_kit import Run, refused, run, run_process
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sudya.adapters.scenario_file import load_scenario_file
from sudya.app.scenario import replay
from sudya.domain.errors import ScenarioError

TIMEOUT = 20  # seconds: a reader that loops or expands without end is a failure

VALID_HEAD = b"rulebook: berserk\nlevel: amateur\ndate: 2026-03-01\nplayers: [alisa, boris]\n"


def laughs(levels: int = 9) -> bytes:
    """"Billion laughs": each anchor holds nine aliases of the one before (9^9 values)."""
    lines = [b"a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for n in range(1, levels):
        lines.append(f"a{n}: &a{n} [".encode() + b", ".join(
            f"*a{n - 1}".encode() for _ in range(9)) + b"]")
    return VALID_HEAD + b"\n".join(lines) + b"\n"


def nested(depth: int, open_: bytes = b"[", close: bytes = b"]") -> bytes:
    return open_ * depth + close * depth


# name -> (file contents, what the one line must say besides the file name)
CASES: dict[str, tuple[bytes, tuple[str, ...]]] = {
    "not-utf8.yaml": (VALID_HEAD + b"events: \xff\xfe\n", (":5:", "not UTF-8")),
    "not-utf8.json": (b'{"rulebook": "\xff"}', (":1:", "not UTF-8")),
    "latin1.yaml": ("rulebook: berserk\nnote: café\n".encode("latin-1"), (":2:", "not UTF-8")),
    "surrogate-bytes.yaml": (b"rulebook: \xed\xb2\x80\n", (":1:", "not UTF-8")),
    "nul.yaml": (b"rulebook: berserk\x00\n", (":1:", "U+0000")),
    "nul.json": (b'{"rulebook": "berserk\x00"}', (":1:", "malformed JSON")),
    "nul-escaped.yaml": (b'rulebook: "berserk\\0"\n', (":1:", "rulebook", "control character")),
    "nul-escaped.json": (b'{"rulebook": "berserk\\u0000"}', ("rulebook", "control character")),
    "digits-5000.yaml": (VALID_HEAD + b"round: " + b"7" * 5000 + b"\n", (":5:", "digits")),
    "digits-5000.json": (b'{"round": ' + b"7" * 5000 + b"}", (":1:", "too large")),
    "hex-digits.yaml": (b"round: 0x" + b"f" * 3700 + b"\n", (":1:", "round", "within")),
    "ten-to-400.yaml": (b"events:\n  - round: 1" + b"0" * 400 + b"\n", (":2:", "events[0].round")),
    "ten-to-400.json": (b'{"round": 1' + b"0" * 400 + b"}", (":1:", "too large")),
    "e400.yaml": (VALID_HEAD + b"settings: {x: 1e400}\n", (":5:", "settings.x", "finite")),
    "e400.json": (b'{"x": 1e400}', (":1:", "too large")),
    "nan.yaml": (b"events:\n  - details: {x: .nan}\n", (":2:", "events[0].details.x", "nan")),
    "inf.yaml": (b"level: .inf\n", (":1:", "level", "inf")),
    "minus-inf.yaml": (b"level: -.Inf\n", (":1:", "level", "inf")),
    "nan.json": (b'{"level": NaN}', (":1:", "NaN")),
    "infinity.json": (b'{"level": -Infinity}', (":1:", "Infinity")),
    "surrogate.json": (b'{"players": ["\\udc80"]}', (":1:", "surrogate")),
    "surrogate.yaml": (b'players: ["\\udc80"]\n', (":1:", "players[0]", "surrogate")),
    "surrogate-key.yaml": (b'"\\ud800": 1\n', ("surrogate",)),
    "deep-flow.yaml": (b"events: " + nested(3000) + b"\n", (":1:", "nested too deeply")),
    "deep-block.yaml": (b"".join(b"  " * i + b"a:\n" for i in range(400)), (":100:", "nested")),
    "deep-map.yaml": (b"a: " + nested(3000, b"{b: ", b"}") + b"\n", ("nested too deeply",)),
    "deep.json": (b'{"events": ' + nested(3000) + b"}", (":1:", "nested too deeply")),
    "deep-500.json": (b'{"events": ' + nested(500) + b"}", ("events[0]", "nested too deeply")),
    "billion-laughs.yaml": (laughs(), ("aliases expand",)),
    "alias-cycle.yaml": (b"players: &p [alisa, *p]\n", (":1:", "inside the value")),
    "undefined-alias.yaml": (b"players: *nobody\n", (":1:", "undefined alias")),
    "date-13-45.yaml": (b"rulebook: berserk\ndate: 2026-13-45\n", (":2:", "2026-13-45")),
    "date-02-30.yaml": (b"date: 2026-02-30\n", (":1:", "2026-02-30", "day is out of range")),
    "date-year-0.yaml": (b"date: 0000-01-01\n", (":1:", "0000-01-01")),
    "timestamp-offset.yaml": (b"date: 2026-01-01 10:00:00 +99:00\n", (":1:", "timestamp")),
    "yaml-1.1.yaml": (b"%YAML 1.1\n---\nrulebook: berserk\n", ("YAML 1.2",)),
    "unknown-tag.yaml": (b"rulebook: !foo berserk\n", (":1:", "rulebook", "!foo")),
    "python-tag.yaml": (b'rulebook: !!python/object/apply:os.system ["echo pwned"]\n',
                        (":1:", "rulebook", "!!python/object/apply:os.system")),
    "binary.yaml": (b"rulebook: !!binary AAAA\n", (":1:", "binary")),
    "set.yaml": (b"players: !!set {alisa, boris}\n", (":1:", "sets")),
    "bool-garbage.yaml": (b"level: !!bool maybe\n", (":1:", "maybe")),
    "int-garbage.yaml": (b"round: !!int 0x_\n", (":1:", "0x_")),
    "duplicate-key.yaml": (b"rulebook: berserk\nrulebook: berserk\n", (":2:", "duplicate key")),
    "two-documents.yaml": (b"rulebook: berserk\n---\nrulebook: berserk\n", ("single document",)),
    "complex-key.yaml": (b"? [a, b]\n: 1\n", ("keys must be",)),
    "tab-indent.yaml": (b"events:\n\t- x\n", (":2:",)),
    "list.json": (b"[1, 2, 3]", ("a scenario must be a mapping",)),
    "empty.yaml": (b"", ("a scenario must be a mapping",)),
    "bom-only.json": (b"\xef\xbb\xbf", (":1:", "malformed JSON")),
}
HUGE = 25_000_000  # past both limits; written sparse, so it costs no disk


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="sudya-hostile-") as name:
        root = Path(name)
        for file, (data, _needles) in CASES.items():
            (root / file).write_bytes(data)
        for file in ("huge.yaml", "huge.json"):
            with (root / file).open("wb") as f:
                f.truncate(HUGE)
        # a well-formed scenario whose rulebook file is the hostile part
        (root / "evil-rulebook.yaml").write_bytes(b"id: evil\nx: " + nested(3000) + b"\n")
        (root / "uses-evil-rulebook.yaml").write_bytes(
            b"rulebook: ./evil-rulebook.yaml\ndate: 2026-03-01\n")
        (root / "evil-rulebook-bytes.yaml").write_bytes(b"id: evil\ntitle: \xff\n")
        (root / "uses-evil-rulebook-bytes.yaml").write_bytes(
            b"rulebook: ./evil-rulebook-bytes.yaml\ndate: 2026-03-01\n")
        yield root


# run through the CLI: one of each kind the brief names (the rest are given to the reader
# alone, below)
CLI_CASES = ["not-utf8.yaml", "not-utf8.json", "nul.yaml", "nul-escaped.json",
             "digits-5000.yaml", "digits-5000.json", "ten-to-400.yaml", "e400.json",
             "nan.yaml", "inf.yaml", "nan.json", "infinity.json", "surrogate.json",
             "surrogate.yaml", "deep-flow.yaml", "deep.json", "billion-laughs.yaml",
             "alias-cycle.yaml", "date-13-45.yaml", "python-tag.yaml", "huge.yaml",
             "huge.json", "uses-evil-rulebook.yaml", "/dev/zero"]
EXTRA: dict[str, tuple[str, ...]] = {
    "huge.yaml": ("too large", "1,000,000 bytes"),
    "huge.json": ("too large", "20,000,000 bytes"),
    "uses-evil-rulebook.yaml": ("rulebook", "evil-rulebook.yaml:2", "nested too deeply"),
    "uses-evil-rulebook-bytes.yaml": ("rulebook", "evil-rulebook-bytes.yaml:2", "not UTF-8"),
    "no-such-file.yaml": ("cannot read",),
    ".": ("cannot read",),  # a directory
    "/dev/zero": ("too large",),  # endless: the reader stops at its limit
}
ALL = {**{name: needles for name, (_data, needles) in CASES.items()}, **EXTRA}
# the file a line must name, where it is not the scenario itself
NAMED = {"uses-evil-rulebook.yaml": "evil-rulebook.yaml",
         "uses-evil-rulebook-bytes.yaml": "evil-rulebook-bytes.yaml"}
CLI = {name: ALL[name] for name in CLI_CASES}


@pytest.mark.parametrize("name", list(CLI))
def test_sudya_replay_refuses_a_hostile_file_in_one_line(name: str, folder: Path) -> None:
    started = time.monotonic()
    replayed = run(folder, "replay", name, lang="en")  # the needles are English
    assert time.monotonic() - started < TIMEOUT, (name, replayed.stderr)
    line = refused(replayed, *CLI[name])
    assert NAMED.get(name, Path(name).name) in line, line  # names the file


# through the console script, a process each: a file that is not UTF-8, and one without end
END_TO_END = ["not-utf8.yaml", "/dev/zero"]


@pytest.mark.slow
@pytest.mark.parametrize("name", END_TO_END)
def test_the_console_script_refuses_a_hostile_file_in_one_line(name: str,
                                                               folder: Path) -> None:
    replayed: Run = run_process(folder, "replay", name, lang="en", timeout=TIMEOUT)
    line = refused(replayed, *CLI[name])
    assert Path(name).name in line, line


def test_a_hostile_file_is_refused_in_russian_by_default(folder: Path) -> None:
    """Without SUDYA_LANG the reader's refusals are Russian, as every CLI message."""
    refused(run(folder, "replay", "not-utf8.yaml"), "not-utf8.yaml:5:", "текст не в UTF-8")
    refused(run(folder, "replay", "huge.json"), "huge.json", "слишком большой объём")
    refused(run(folder, "replay", "uses-evil-rulebook-bytes.yaml"),
            "evil-rulebook-bytes.yaml:2", "rulebook", "текст не в UTF-8")
    refused(run(folder, "replay", "no-such-file.yaml"), "no-such-file.yaml",
            "не удаётся прочитать")


@pytest.mark.parametrize("name", list(ALL))
def test_the_reader_names_the_file_and_the_problem(name: str, folder: Path) -> None:
    started = time.monotonic()
    with pytest.raises(ScenarioError) as refusal:
        replay(load_scenario_file(folder / name))
    assert time.monotonic() - started < TIMEOUT
    message = str(refusal.value)
    assert "\n" not in message and NAMED.get(name, Path(name).name) in message, message
    for needle in ALL[name]:
        assert needle in message, (needle, message)


# ---------------------------------------------------------------------- in process
READER = settings(max_examples=200, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow])
YAML_TOKENS = ["rulebook: berserk\n", "date: 2026-03-01\n", "events:\n", "- ", "  ", "\n",
               "[", "]", "{", "}", ", ", ": ", "? ", "&a ", "*a ", "&b ", "*b ", "<<: ",
               "!!int ", "!!float ", "!!bool ", "!!timestamp ", "!!binary ", "!!set ",
               "!!python/object:os.system ", "!foo ", "%YAML 1.1\n", "%TAG ! x:\n", "---\n",
               "...\n", "'", '"', "\\", "\\udc80", "\\0", "\\x00", "#", "|\n", ">-\n", "\t",
               "2026-13-45", "2026-02-30 25:61:61", "0x", "0o", "0b", "_", "1e400", ".nan",
               ".inf", "-.inf", "9" * 30, "1" * 4400, "~", "null", "yes", "no", "é", "\u2028",
               "\ufeff", "\x85"]
JSON_TOKENS = ["{", "}", "[", "]", ",", ":", '"rulebook"', '"berserk"', '"a"', "NaN",
               "Infinity", "-Infinity", "1e400", "-0", "1" * 30, "1" * 5000, "0.1e-400",
               '"\\udc80"', '"\\ud800\\udc00"', '"\\u0000"', '"\\x"', "true", "null", " ",
               "\n", "\ufeff", '"é"']


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="sudya-reader-") as name:
        yield Path(name)


def _read(folder: Path, suffix: str, data: bytes) -> None:
    path = folder / f"case-{os.getpid()}{suffix}"
    path.write_bytes(data)
    try:
        scenario = load_scenario_file(path)
    except ScenarioError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(str(path)), str(exc)
    else:
        assert isinstance(scenario, dict)


@READER
@given(data=st.binary(max_size=2000), suffix=st.sampled_from([".yaml", ".json"]))
def test_random_bytes_give_a_dict_or_a_scenario_error(scratch: Path, data: bytes,
                                                      suffix: str) -> None:
    _read(scratch, suffix, data)


@READER
@given(text=st.text(st.characters(exclude_categories=()), max_size=300),
       suffix=st.sampled_from([".yaml", ".json"]))
def test_random_text_with_surrogates_gives_a_dict_or_a_scenario_error(
        scratch: Path, text: str, suffix: str) -> None:
    _read(scratch, suffix, text.encode("utf-8", "surrogatepass"))


@READER
@given(tokens=st.lists(st.sampled_from(YAML_TOKENS), max_size=60))
def test_yaml_made_of_hostile_pieces_gives_a_dict_or_a_scenario_error(
        scratch: Path, tokens: list[str]) -> None:
    _read(scratch, ".yaml", "".join(tokens).encode("utf-8", "surrogatepass"))


@READER
@given(tokens=st.lists(st.sampled_from(JSON_TOKENS), max_size=60))
def test_json_made_of_hostile_pieces_gives_a_dict_or_a_scenario_error(
        scratch: Path, tokens: list[str]) -> None:
    _read(scratch, ".json", "".join(tokens).encode())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(depth=st.sampled_from([1, 2, 98, 99, 100, 101, 102, 300]),
       kind=st.sampled_from(["[", "{a: ", "- "]))
def test_any_nesting_depth_gives_a_dict_or_a_scenario_error(scratch: Path, depth: int,
                                                            kind: str) -> None:
    if kind == "- ":
        text = "".join("  " * i + "- \n" for i in range(depth))
    else:
        text = "a: " + kind * depth + ("]" if kind == "[" else "}") * depth
    _read(scratch, ".yaml", text.encode())
