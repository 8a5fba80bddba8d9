"""Issue 36: the club guide's commands (docs/club.ru.md, «Те же шаги командами») run as
written on a fresh database, so the guide cannot drift from the program: every `sudya` line
of its block succeeds, in order, with the guide's own players file; then the round has its
pairings, the results and the ruling are stored, and the dropped player is not paired."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from cli_kit import run

GUIDE = Path(__file__).parents[2] / "docs" / "club.ru.md"


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def test_the_club_guide_runs_as_written(tmp_path: Path) -> None:
    text = GUIDE.read_text("utf-8")
    [players] = blocks(text, "csv")
    (tmp_path / "players.csv").write_bytes(players.encode("cp1251"))  # as Excel saves it
    marker = text.index("tests/cli/test_club_guide.py runs")
    commands = blocks(text[marker:], "sh")[0].strip().splitlines()
    env: dict[str, str] = {}
    outputs: list[str] = []
    for line in commands:
        words = shlex.split(line)
        if words[0] == "export":
            key, _sep, value = words[1].partition("=")
            env[key] = value
            continue
        assert words[0] == "sudya", line
        r = run(tmp_path, *words[1:], env=env)
        assert r.returncode == 0, (line, r.stdout, r.stderr)
        outputs.append(r.stdout)
    assert re.search(r"olga: [A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}", outputs[1])  # the invite
    round2 = outputs[[i for i, c in enumerate(c for c in commands if not c.startswith(
        "export")) if "--round 2" in c and "swiss" in c][0]]
    assert "ilya" not in round2 and len(round2.strip().splitlines()) == 4
    assert (tmp_path / "round1-tables.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "round1-slips.pdf").read_bytes().startswith(b"%PDF")
    assert "alisa" in outputs[-1]  # the standings


def test_both_guides_give_the_same_commands() -> None:
    """The English guide's block is the Russian one's (names aside)."""
    ru = blocks(GUIDE.read_text("utf-8"), "sh")[-1]
    en = blocks(GUIDE.with_name("club.en.md").read_text("utf-8"), "sh")[-1]

    def verbs(block: str) -> list[tuple[str, ...]]:
        return [tuple(w for w in shlex.split(line) if not re.search(r"[^\x00-\x7f ]", w)
                      and not w[0].isupper())[:3] for line in block.strip().splitlines()]

    assert set(verbs(en)) <= set(verbs(ru))
