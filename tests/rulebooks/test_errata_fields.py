"""The rulebook fields the errata of regulations.md §4 brought: each refused where it cannot
work, with the file and the key path, so a rulebook author learns it when loading."""

from __future__ import annotations

from pathlib import Path

from rulebook_testkit import TINY, refusal, write

from sudya.app.scenario import replay
from sudya.domain.rulebook import loader

# E5: a condition may read a tournament setting, which the rulebook must declare
NOISE_WAIVED = TINY.replace(
    "    penalty: {low: caution, high: warning}\n",
    "    penalty:\n"
    "      low:\n"
    "        - kind: caution\n"
    "          waived_when:\n"
    "            when: \"not settings['noise_rule']\"\n"
    "            note: {ru: \"Правила о шуме нет\", en: \"No noise rule\", source: \"tiny §1\"}\n"
    "      high: warning\n")


def test_a_condition_reading_an_undeclared_setting_is_refused(tmp_path: Path) -> None:
    message = refusal(write(tmp_path, NOISE_WAIVED))
    assert "infractions.noise.penalty.low.sanctions[0]" in message
    assert "reads settings['noise_rule'], which the rulebook does not declare" in message


def test_a_condition_reads_the_setting_or_its_default(tmp_path: Path) -> None:
    path = write(tmp_path, NOISE_WAIVED.replace(
        "sanctions:\n",
        "settings:\n  noise_rule: {name: {ru: \"Правило о шуме\", en: \"Noise rule\"}, "
        "default: true}\nsanctions:\n", 1))
    events = [{"id": "n1", "infraction": "noise", "player": "a"}]
    base = {"rulebook": str(path), "level": "low", "date": "2026-03-01", "players": ["a"],
            "events": events}
    by_default = replay(base)["rulings"][0]
    assert [s["kind"] for s in by_default["sanctions"]] == ["caution"]
    off = replay({**base, "settings": {"noise_rule": False}})["rulings"][0]
    assert off["cause"] == "none" and off["sanctions"] == []
    assert "rulebook.note" in [r["code"] for r in off["reasons"]]


# E8: a carry-over reads a detail, which must be declared
def test_a_carry_over_on_an_undeclared_detail_is_refused(tmp_path: Path) -> None:
    text = TINY.replace(
        '  - {id: warning, rank: 2, name: {ru: "Предупреждение", en: "Warning"}}\n',
        '  - id: warning\n    rank: 2\n    name: {ru: "Предупреждение", en: "Warning"}\n'
        '    carry_over:\n      - detail: later\n        applies_to: next-game\n'
        '        by_judge: true\n'
        '        note: {ru: "Перенесено", en: "Carried", source: "tiny §3"}\n')
    message = refusal(write(tmp_path, text))
    assert "sanctions.warning.carry_over: 'later' is not a declared detail" in message


# E10: berserk's appeals are an interpretation citing §4 E10, and every appeal ruling shows it
def test_berserk_appeals_cite_erratum_e10_on_every_appeal_ruling() -> None:
    book = loader.load("berserk")
    assert book.appeals is not None and book.appeals.source == "regulations.md §4 E10"
    assert [n.source for n in book.appeals.interpretation] == ["regulations.md §4 E10"]
    assert book.roles["head-judge"].final
    result = replay({
        "rulebook": "berserk", "level": "professional", "date": "2026-03-01",
        "players": ["p1"], "judges": {"anna": {"role": "head-judge"},
                                      "oleg": {"role": "floor-judge"}},
        "events": [{"id": "e1", "infraction": "procedure.minor", "player": "p1",
                    "judge": "oleg"},
                   {"id": "a1", "appeal": {"of": "e1", "judge": "anna",
                                           "outcome": "upheld"}}]})
    appeal = result["rulings"][1]
    assert appeal["cause"] == "appeal"
    assert [(r["code"], r["source"]) for r in appeal["reasons"]] == [
        ("appeal.upheld", ""), ("rule.interpretation", "regulations.md §4 E10")]


# E7, E9: a scope or a replacement only where the sanction gives a status
def test_a_scope_or_replacement_without_a_status_is_refused(tmp_path: Path) -> None:
    text = TINY.replace(
        '  - {id: caution, rank: 1, name: {ru: "Замечание", en: "Caution"}}\n',
        '  - {id: caution, rank: 1, scope: series, name: {ru: "Замечание", en: "Caution"}}\n'
    ).replace(
        "    penalty: {low: caution, high: warning}\n",
        "    penalty:\n"
        "      low: [{kind: warning, scope: series}]\n"
        "      high:\n"
        "        - kind: warning\n"
        "          replacement:\n"
        "            by: [coach]\n"
        "            note: {ru: \"Замена\", en: \"Replacement\", source: \"tiny §1\"}\n")
    message = refusal(write(tmp_path, text))
    assert "sanctions.caution.scope: only a sanction with a status keeps its bearer out" in message
    assert "infractions.noise.penalty.low.sanctions[0].scope: only a sanction with a status" \
        in message
    assert "infractions.noise.penalty.high.sanctions[0].replacement: only a removed player" \
        in message


def test_the_bundled_readings_of_e7_and_e9() -> None:
    clan = loader.load("clan-championship")
    assert {k.id: k.scope for k in clan.sanctions if k.status} == {
        "fighter-dq-replaceable": "series", "fighter-dq": "series", "team-dq": "series"}
    elixirs = clan.infraction("elixirs.forbidden-combat")
    assert elixirs is not None and elixirs.repeats is not None
    assert elixirs.repeats[0].sanctions[0].scope == "tournament"  # «с турнира» only
    wargame = loader.load("team-wargame")
    removals = {inf.id: [s for s in inf.penalty.sanctions if s.kind == "removal"]
                for inf in wargame.infractions
                if not isinstance(inf.penalty, dict) and inf.penalty is not None}
    assert [(s.status, s.replacement.by if s.replacement else None)
            for s in removals["intoxication"]] == [("removed", ["same-army", "coach"])]
    assert [s.status for s in removals["red-list-model"] + removals["third-party-help"]] == [
        None, None]


# E11: amounts are written with their units («75 руды», «−5 очков»)
def test_amounts_are_written_with_their_units() -> None:
    from sudya.domain.rulebook.describe import amount_text

    wargame, clan = loader.load("team-wargame"), loader.load("clan-championship")
    points = wargame.kind("points")
    assert [amount_text(points, n, "ru") for n in (-1, -2, -5, -21, -12)] == [
        "−1 очко", "−2 очка", "−5 очков", "−21 очко", "−12 очков"]
    assert amount_text(points, -5, "en") == "−5 points"
    assert amount_text(clan.kind("penal-labour"), 75, "ru") == "75 руды"
    assert amount_text(clan.kind("reduce-fighters"), 1, "ru") == "1 боец"
    for book in (wargame, clan):
        assert all(k.unit is not None for k in book.sanctions if k.amount != "none")
