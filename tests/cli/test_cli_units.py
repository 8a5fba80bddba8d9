"""Erratum E11 (../shared/spec/regulations.md §4) in the CLI's text output: an amount carries
its unit, written by the same function as the pages (rulebooks.describe.amount_text) —
«24 руды» in Russian, "24 ore" in English, never a bare number.
"""

from __future__ import annotations

from pathlib import Path

from cli_kit import run


def test_the_rulings_and_the_history_write_amounts_with_their_units(tmp_path: Path) -> None:
    db = ("--db", f"sqlite:///{tmp_path / 'sudya.db'}")
    run(tmp_path, "init", *db).ok()
    spring = run(tmp_path, "tournament", "create", "--name", "Spring", "--series", "League",
                 "--date", "2026-03-01", "--rulebook", "clan-championship", *db
                 ).ok().stdout.strip()
    run(tmp_path, "team", "add", "north", "-t", spring, "--members", "grom,veda", *db).ok()
    # 003 «Назначение каторги без права откупа»: level × attacks = 12 × 2 = 24 ore
    recorded = run(tmp_path, "record", "attack.undeclared-on-participant", "-t", spring,
                   "--player", "grom", "--detail", "level=12", "--detail", "attacks=2",
                   "--id", "a1", *db).ok().stdout
    assert "Каторга без права откупа: 24 руды" in recorded  # by its name (issue 38)
    history = run(tmp_path, "history", "grom", *db).ok().stdout
    assert "Каторга без права откупа: 24 руды" in history
    english = run(tmp_path, "history", "grom", *db, lang="en").ok().stdout
    assert "Penal labour without buy-out: 24 ore" in english
