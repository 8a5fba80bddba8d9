"""Issue 36: the «Running an event» example of docs/ledger.{ru,en}.md runs as written on an
empty database — every `sudya` line succeeds, in order, with the guide's own files — and the
records it names are the ones it made (the appeal overturns the slow play, the correction
takes back the missed trigger, the college's decision settles the pending hoops)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
from cli_kit import run

DOCS = Path(__file__).parents[2] / "docs"
SHARED = Path(__file__).parents[3] / "shared"


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def lines_of(block: str) -> list[list[str]]:
    """The block's commands: continued lines joined, comments left out."""
    return [shlex.split(line, comments=True) for line in block.replace("\\\n", " ").splitlines()
            if line.strip()]


@pytest.mark.parametrize("guide", ["ledger.en.md", "ledger.ru.md"])
def test_the_ledger_guide_runs_as_written(tmp_path: Path, guide: str) -> None:
    text = (DOCS / guide).read_text("utf-8")
    command_block, players, round2 = blocks(text, "sh")[0], *blocks(text, "csv")[:2]
    here = tmp_path / "event"
    here.mkdir()
    (here / "players.csv").write_text(players, encoding="utf-8")
    (here / "round2.csv").write_text(round2, encoding="utf-8")
    scenarios = tmp_path / "shared" / "scenarios"  # ../shared, as beside a checkout
    scenarios.mkdir(parents=True)
    shutil.copy(SHARED / "scenarios" / "clan-basics.yaml", scenarios)
    for words in lines_of(command_block):
        assert words[0] == "sudya", words
        r = run(here, *words[1:])
        assert r.returncode == 0, (words, r.stdout, r.stderr)
    assert (here / "kubok.csv").read_text("utf-8").count("\n") > 1
    rulings = json.loads(run(here, "history", "boris", "--json").ok().stdout)
    assert {(r["event"], r["cause"]) for r in rulings} >= {("e10", "appeal"),
                                                             ("e11", "correction")}
    veda = json.loads(run(here, "history", "veda", "--json").ok().stdout)
    hoops = [r for r in veda if r["event"] == "e5"]
    decided = [r for r in veda if r["cause"] == "decision"]
    assert hoops and decided and decided[0]["resolves"] == "e5"
