"""Formulas are evaluated by many threads at once (a web app's thread pool): each call must
see its own names. Penal labour by formula (regulations.md §2.3: level × attacks) computed
by four threads on shared rulebook formulas gives every amount right."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from sudya.app.scenario import replay
from sudya.domain.rulebook.formula import Formula


def test_one_formula_from_many_threads_sees_each_calls_names() -> None:
    formula = Formula("level * attacks + ceil(level / 2)")
    start = threading.Barrier(4)

    def work(seed: int) -> list[tuple[int, int, int]]:
        start.wait()
        out = []
        for i in range(3000):
            level, attacks = seed * 1000 + i, i % 7 + 1
            out.append((level, attacks, formula({"level": level, "attacks": attacks})))
        return out

    with ThreadPoolExecutor(4) as pool:
        results = [r for rows in pool.map(work, range(4)) for r in rows]
    wrong = [(lv, at, got) for lv, at, got in results if got != lv * at + -(-lv // 2)]
    assert wrong == []


def scenario(level: int, attacks: int) -> dict[str, object]:
    return {"rulebook": "clan-championship", "date": "2026-03-01", "players": ["veda"],
            "events": [{"id": "a1", "infraction": "attack.undeclared-on-participant",
                        "player": "veda", "details": {"level": level, "attacks": attacks}}]}


def test_penal_labour_replayed_by_four_threads_is_always_level_times_attacks() -> None:
    cases = [(lv, at) for lv in range(1, 16) for at in range(1, 11)] * 4  # 600 replays

    def amount(case: tuple[int, int]) -> tuple[int, int, int]:
        level, attacks = case
        [ruling] = replay(scenario(level, attacks))["rulings"]
        [labour] = [s for s in ruling["sanctions"] if s["kind"] == "penal-labour"]
        return level, attacks, labour["amount"]

    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(amount, cases))
    assert [(lv, at, n) for lv, at, n in got if n != lv * at] == []
