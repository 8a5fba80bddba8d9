"""Replay of a federation's season, for each bundled rulebook, as ratios measured in one run.

For berserk, clan-championship and team-wargame a season is generated (infractions, ends of
matches, results, corrections, appeals, the college's decisions, clans joining as others are
disqualified for the series), then replayed through the engine: the first N events and 3N,
side by side (`side_by_side`: every replay takes its next 1,000 events in turn, so all of them
meet the same minutes of this shared machine). Printed per rulebook: the seconds for N
events, 3N against N (linear: at most 3.3), the 3N events replayed with the history thrown
away every 1,000 events as the baseline (full history / reset ≈ 1 means the work per event
does not grow with the season), and the seconds for N events against the goal (2 s for
100,000 on a 2-core machine); and the rulings the full history and the resets made (a team's
accumulation and cards that convert count what is still valid across the resets' boundaries,
so the full history makes more) with the CPU time per ruling of the two. `--rss` also
replays 1,000,000 events in a fresh process and reports its peak resident memory. `--ten`
also replays 10N events (a season of 1,000,000) side by side with the first N, in a fresh
process: 10× the events at most 11× the time; with `--tenths`, the CPU time per ruling of
each tenth of the 10N as well. The replays side by side run `--repeat` times: each ratio is
the larger of the runs, the seconds for N the best.

Each figure's last line reads `NAME: X (goal Y)`.

    python bench/replay.py [--events 100000] [--books berserk,clan-championship,team-wargame]
                           [--rss [--rss-events 1000000]] [--ten [--tenths]] [--repeat 2]
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import gc
import itertools
import random
import resource
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sudya.domain.bulk import paused_gc
from sudya.domain.engine.core import RulesEngine
from sudya.domain.engine.model import (
    Appeal,
    Correction,
    Decision,
    EndOfMatch,
    Event,
    NewTournament,
    Offence,
    Result,
    Roster,
    RosterChange,
    Ruling,
    Tournament,
)
from sudya.domain.errors import RuleError
from sudya.domain.rulebook import loader

START = dt.date(2026, 1, 10)
PER_TOURNAMENT = 2000  # events of one tournament; a tournament a week


class Season:
    """A season's events, told what the engine refused and ruled so it stays plausible.

    A real season's history holds no refused event (the ledger never stores one), so the
    generator hears of each refusal (`refused`) and of each ruling (`ruled`): a clan
    disqualified for the series is replaced by a new clan joining, and the college decides
    some of the pending rulings a while after they were made.
    """

    book_id = ""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.book = loader.load(self.book_id)
        self.recent: deque[str] = deque(maxlen=500)  # offences one may correct or appeal
        self.due: deque[Event] = deque()  # events to yield next (roster changes, decisions)
        self.later: deque[tuple[int, Event]] = deque()  # (at k, event)
        self.k = 0
        self.corrections = True  # a scenario file has no corrections (bench/cli_replay.py)

    def roster(self) -> Roster:
        raise NotImplementedError

    def tournament(self) -> Tournament:
        raise NotImplementedError

    def offence(self, k: int) -> Event:
        raise NotImplementedError

    def other(self, k: int) -> Event | None:
        """A match's end, a result…: the rulebook's events other than infractions."""
        return None

    def events(self) -> Iterator[Event]:
        day = START
        for k in itertools.count(1):
            self.k = k
            while self.later and self.later[0][0] <= k:
                self.due.append(self.later.popleft()[1])
            while self.due:
                yield self.due.popleft()
            if k % PER_TOURNAMENT == 0:
                day += dt.timedelta(days=7)
                yield NewTournament(id=f"t{k}", date=day)
                continue
            roll = self.rng.random()
            if roll < 0.004 and self.recent and self.corrections:
                yield Correction(id=f"c{k}", of=self.rng.choice(self.recent))
            elif roll < 0.008 and self.recent:
                yield Appeal(id=f"a{k}", of=self.rng.choice(self.recent),
                             outcome=self.rng.choice(("upheld", "overturned")))
            else:
                ev = self.other(k) or self.offence(k)
                if isinstance(ev, Offence):
                    self.recent.append(ev.id)
                yield ev

    def refused(self, ev: Event, exc: RuleError) -> None:
        pass

    def ruled(self, ev: Event, rulings: list[Ruling]) -> None:
        pass


class Berserk(Season):
    book_id = "berserk"

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.players = [f"p{i}" for i in range(2000)]
        self.simple = [i.id for i in self.book.infractions
                       if not i.id.startswith(("deck.", "conduct.severe", "cheating",
                                               "conduct.random")) and not i.details]

    def roster(self) -> Roster:
        return Roster(players=list(self.players))

    def tournament(self) -> Tournament:
        return Tournament(0, START, "professional", {})

    def other(self, k: int) -> Event | None:
        if k % 97 == 0:
            return EndOfMatch(id=f"m{k}", round=k % 9)
        if k % 97 == 50:  # one table's match ends
            return EndOfMatch(id=f"m{k}", round=k % 9,
                              players=tuple(self.rng.sample(self.players, 2)))
        if k % 5 == 0:
            a, b = self.rng.sample(self.players, 2)
            return Result(id=f"r{k}", players=(a, b), score=(self.rng.randint(0, 2), 0),
                          round=k % 9)
        return None

    def offence(self, k: int) -> Event:
        return Offence(id=f"e{k}", infraction=self.rng.choice(self.simple),
                       offender=self.rng.choice(self.players), round=k % 9)


class Clans(Season):
    """3,000 clans of 10 fighters; a clan or fighter disqualified for the series stays out
    (regulations.md §4 E7), and a new clan joins in its place."""

    book_id = "clan-championship"
    KINDS = ("elixirs.forbidden-combat", "interference", "fight.unauthorised-start",
             "invisibility", "hoops", "attack.undeclared-on-participant")

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.clans = 0
        self.teams: dict[str, list[str]] = {}
        self.fighters: list[str] = []
        self.where: dict[str, int] = {}
        for _ in range(3000):
            self._clan()
        self.first = copy.deepcopy(self.teams)

    def _clan(self) -> tuple[str, list[str]]:
        name = f"clan{self.clans}"
        members = [f"c{self.clans}.{j}" for j in range(10)]
        self.clans += 1
        self.teams[name] = members
        for m in members:
            self.where[m] = len(self.fighters)
            self.fighters.append(m)
        return name, members

    def _retire(self, fighter: str) -> None:
        i = self.where.pop(fighter, None)
        if i is None:
            return
        last = self.fighters.pop()
        if last != fighter:
            self.fighters[i] = last
            self.where[last] = i

    def roster(self) -> Roster:
        teams = copy.deepcopy(self.first)
        return Roster(players=[m for ms in teams.values() for m in ms], teams=teams)

    def tournament(self) -> Tournament:
        return Tournament(0, START, None, {})

    def offence(self, k: int) -> Event:
        inf = self.rng.choice(self.KINDS)
        details: dict[str, Any] = ({"level": self.rng.randint(1, 20), "attacks": 1}
                                   if inf.startswith("attack") else {})
        return Offence(id=f"e{k}", infraction=inf, offender=self.rng.choice(self.fighters),
                       details=details)

    def other(self, k: int) -> Event | None:
        if k % 4 == 0:
            a, b = self.rng.sample(self.fighters, 2)
            return Result(id=f"r{k}", players=(a, b), score=(1, 0), round=k % 9)
        return None

    def refused(self, ev: Event, exc: RuleError) -> None:
        if exc.code == "team.disqualified-for-series":
            team = exc.params["team"]
            for m in self.teams.get(team, ()):
                self._retire(m)
            name, members = self._clan()
            self.due.append(RosterChange(id=f"j{self.k}", players=tuple(members),
                                         teams={name: members}))
        elif exc.code == "subject.disqualified-for-series":
            self._retire(exc.params["subject"])

    def ruled(self, ev: Event, rulings: list[Ruling]) -> None:
        # the college decides half of the aggravated rulings 200 events later: one rank
        # stricter than the table's, never a disqualification
        for r in rulings:
            if not (r.aggravated and r.pending) or self.rng.random() < 0.5:
                continue
            top = max((s.rank for s in r.offered or () if hasattr(s, "rank")), default=0)
            kind = next((k for k in self.book.sanctions if k.rank > top and not k.status
                         and k.amount != "required"), None)
            if kind is not None:
                self.later.append((self.k + 200, Decision(
                    id=f"d{self.k}.{r.seq}", of=r.event, sanctions=[{"kind": kind.id}])))


class Wargame(Season):
    """Teams of 5 players; warnings and cards per team (conversions), results every game."""

    book_id = "team-wargame"
    KINDS = ("disruptive-behaviour", "petty-cheating", "third-party-help", "time-wasting",
             "time-wasting", "serious-cheating", "red-list-model", "intoxication",
             "frivolous-appeal")

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.teams = {f"team{i}": [f"w{i}.{j}" for j in range(5)] for i in range(400)}
        self.players = [m for ms in self.teams.values() for m in ms]

    def roster(self) -> Roster:
        return Roster(players=list(self.players), teams=copy.deepcopy(self.teams))

    def tournament(self) -> Tournament:
        return Tournament(0, START, None, {})

    def other(self, k: int) -> Event | None:
        if k % 3 == 0:
            a, b = self.rng.sample(self.players, 2)
            x = self.rng.randint(0, 20)
            return Result(id=f"r{k}", players=(a, b), score=(x, 20 - x), round=k % 5)
        return None

    def offence(self, k: int) -> Event:
        inf = self.rng.choice(self.KINDS)
        if inf == "intoxication" and self.rng.random() < 0.9:
            inf = "petty-cheating"  # rare: the player leaves the tournament
        choice: Any = None
        if inf == "serious-cheating":
            choice = self.rng.choice(("min", "max", {"points": -15}))
        elif inf == "frivolous-appeal":
            choice = self.rng.choice(("warning", "yellow-card"))
        return Offence(id=f"e{k}", infraction=inf, offender=self.rng.choice(self.players),
                       round=k % 5, choice=choice)


SEASONS: dict[str, Callable[[int], Season]] = {
    "berserk": Berserk, "clan-championship": Clans, "team-wargame": Wargame}


def rule_season(season: Season, engine: RulesEngine, n: int,
                stored: Callable[[Event], object] | None = None) -> tuple[int, int]:
    """Rule with `engine` on the first `n` events a ledger would have stored (a refused event
    is never stored, so no history holds it: the season hears of it and makes another), the
    collector paused; each stored event is passed to `stored`. Returns (stored, refused)."""
    kept = refused = 0
    with paused_gc():
        for ev in season.events():
            if kept == n:
                break
            try:
                made = engine.apply(ev)
            except RuleError as exc:
                refused += 1
                season.refused(ev, exc)
                continue
            season.ruled(ev, made)
            kept += 1
            if stored is not None:
                stored(ev)
    return kept, refused


def admissible(season: Season, n: int) -> tuple[list[Event], int]:
    """The first `n` events a ledger would have stored, and how many were refused. Untimed."""
    engine = RulesEngine(season.book, season.roster(), season.tournament())
    kept: list[Event] = []
    _, refused = rule_season(season, engine, n, kept.append)
    return kept, refused


@dataclass
class Timed:
    """One replay's seconds by the clock, and the CPU seconds and the rulings made (by all its
    engines, when the history restarts) of each of its chunks."""

    wall: float = 0.0
    chunks: list[tuple[float, int]] = field(default_factory=list)  # (CPU s, rulings) each

    @property
    def cpu(self) -> float:
        return sum(cpu for cpu, _ in self.chunks)

    @property
    def rulings(self) -> int:
        return sum(made for _, made in self.chunks)


CHUNK = 1000  # events each replay side by side takes in its turn
# the history thrown away every this many events: the baseline, and one longer than
# every rulebook's validity window (clan-championship's two months are 9 tournaments of 2,000
# events, one a week), whose history holds all that can still count
RESETS = (1000, 30_000)


def side_by_side(season: Season, events: list[Event], n: int, resets: tuple[int, ...] = ()
                 ) -> tuple[Timed, Timed, list[Timed]]:
    """The first `n` events and all of `events` (and, for each window of `resets`, all of
    them again with the history thrown away every so many events), replayed side by side:
    each replay takes its next CHUNK events in turn, the first `n` one chunk for every
    `len(events) // n` of the others', so all of them run in the same minutes of the machine.

    Run one after the other, a replay of 20 s met another speed of this shared 2-core machine
    than the 2 s one it was compared with (the speed moves by up to 50 % within the hour):
    berserk's 3N read 3.48× its N and 1.46× the resets, then 3.03× and 1.07× side by side, in
    three runs whose speed differed by 30 %. Each replay's chunks are timed by themselves; the
    others' work between them leaves it colder caches, if anything (the full history's state
    is the larger).

    The history-dependent rules (a team's accumulation, cards that convert) make more rulings
    from a full history than from the resets, so the CPU per ruling is the figure of the work
    per event; the replay is one thread: on a machine shared with other work its CPU seconds
    are what it would take alone. A reset's new engine is made untimed (it indexes the
    series' roster, which grows by a clan for every one disqualified: 300 engines over
    275,000 fighters were 16 of the 41 s of a clan reset replay under cProfile).

    Untimed first: the states of the earlier runs (and of `admissible`) are freed. Rulings
    and sanctions refer to each other, so only the collector frees them; left until some
    later collection, each run allocated from fresh memory and ran slower than the one
    before it (team-wargame, after berserk and clan-championship in one process: 3N events
    3.74× the time of N, 2.88× with this collection; 2.91× when run alone)."""
    gc.collect()
    per_short = max(1, len(events) // n)

    def engine() -> RulesEngine:
        return RulesEngine(season.book, season.roster(), season.tournament())

    # (its times, its engine, its events, its window: None for a full history)
    replays: list[tuple[Timed, RulesEngine, list[Event], int | None]] = [
        (Timed(), engine(), events[:n], None), (Timed(), engine(), events, None),
        *((Timed(), engine(), events, window) for window in resets)]
    with paused_gc():  # as sudya.replay and the ledger replay
        for k in range(-(-len(events) // CHUNK)):
            # in turn, and every other round the other way round, so that no replay is always
            # timed right after the same one (two identical replays of 3,000 events read
            # 1.04-1.10 apart in either order: the method's resolution at that size)
            turn = list(enumerate(replays))
            for which, (timed, rules, own, window) in turn if k % 2 == 0 else turn[::-1]:
                start = k * CHUNK
                if which == 0:  # the first n: its next chunk, every per_short chunks
                    if k % per_short:
                        continue
                    start = k // per_short * CHUNK
                    if start >= len(own):
                        continue
                if window is not None and start % window == 0:
                    rules = RulesEngine(season.book, rules.roster, rules.t)
                    replays[which] = (timed, rules, own, window)
                before = len(rules.rulings)
                wall, cpu = time.perf_counter(), time.process_time()
                for ev in own[start:start + CHUNK]:
                    try:
                        rules.apply(ev)
                    except RuleError:  # a short history refuses at other moments than the full
                        if window is None:  # the full history admitted every one of them
                            raise
                took = time.process_time() - cpu
                timed.wall += time.perf_counter() - wall
                timed.chunks.append((took, len(rules.rulings) - before))
    return replays[0][0], replays[1][0], [timed for timed, *_ in replays[2:]]


def rss_child(book_id: str, n: int) -> None:
    """In a fresh process: replay `n` events of a season as they are made; print the peak
    resident memory (MB) and the seconds."""
    season = SEASONS[book_id](20261130)
    engine = RulesEngine(season.book, season.roster(), season.tournament())
    start = time.perf_counter()
    rule_season(season, engine, n)  # the events are not kept: only the engine's memory counts
    took = time.perf_counter() - start
    print(f"{peak_rss_mb():.0f} {took:.2f} {len(engine.rulings)}")


def peak_rss_mb() -> float:
    """This process's peak resident memory since it was started. Linux's `ru_maxrss` keeps
    the parent's peak across `execve` (a child of a parent that replayed 1,000,000 events
    reads the parent's 1,354 MB), so the figure is the memory map's own high-water mark
    (`VmHWM`), where there is one."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def ten_child(book_id: str, n: int, repeat: int, tenths: bool = False) -> None:
    """In a fresh process: the first N and all 10N events of one season side by side
    (`side_by_side`), `repeat` times; prints the CPU seconds of the two and the rulings of the
    10N in the run whose ratio was the larger. A process of its own, so the 10N events'
    memory neither sits under the other figures' runs (freed, it leaves the heap in pieces:
    clan-championship's 3N then took 3.86× the time of N, 3.2× without) nor counts in their
    peak. `tenths`: then the CPU seconds and the rulings of each tenth of that 10N (printed
    after them, in pairs: the same work in each tenth, if the work per ruling does not grow;
    the time per ruling of the later tenths is the memory's too, a larger state than the
    caches)."""
    season = SEASONS[book_id](20261130)
    events, _ = admissible(season, 10 * n)
    runs = [side_by_side(season, events, n)[:2] for _ in range(repeat)]
    short, long = max(runs, key=lambda run: run[1].cpu / run[0].cpu)
    per = max(1, len(long.chunks) // 10)
    pieces = [Timed(chunks=long.chunks[i * per:(i + 1) * per]) for i in range(10 if tenths else 0)]
    print(f"{short.cpu:.3f} {long.cpu:.3f} {long.rulings}",
          *(f"{tenth.cpu:.3f} {tenth.rulings}" for tenth in pieces))


def child(*args: str) -> list[str]:
    """This script run with `args` in a fresh process: its output's words."""
    return subprocess.run([sys.executable, __file__, *args], check=True,
                          capture_output=True, text=True).stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--books", default=",".join(SEASONS))
    parser.add_argument("--rss", action="store_true",
                        help="also replay --rss-events in a fresh process: peak memory")
    parser.add_argument("--rss-events", type=int, default=1_000_000)
    parser.add_argument("--rss-child", help=argparse.SUPPRESS)
    parser.add_argument("--ten-child", help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=2,
                        help="the replays side by side this many times: the larger ratios "
                             "and the best time of N")
    parser.add_argument("--ten", action="store_true",
                        help="also replay 10× the events: the time against N's")
    parser.add_argument("--tenths", action="store_true",
                        help="with --ten: the 10× events once more, the time per ruling of "
                             "each tenth")
    args = parser.parse_args()
    if args.rss_child:
        rss_child(args.rss_child, args.rss_events)
        return
    if args.ten_child:
        ten_child(args.ten_child, args.events, args.repeat, args.tenths)
        return
    n = args.events
    goal_s = 2.0 * n / 100_000
    worst_growth = worst_time = worst_ten = 0.0
    worst_reset: dict[int, float] = {}
    worst_per_ruling: dict[int, float] = {}
    for book_id in args.books.split(","):
        season = SEASONS[book_id](20261130)
        events, refused = admissible(season, 3 * n)
        runs = [side_by_side(season, events, n, RESETS) for _ in range(args.repeat)]
        # each ratio the larger of the runs side by side; the time of N the best of them
        short = min(run[0].wall for run in runs)
        short_cpu = min(run[0].cpu for run in runs)
        growth = max(full.wall / first.wall for first, full, _ in runs)
        growth_cpu = max(full.cpu / first.cpu for first, full, _ in runs)
        worst_growth = max(worst_growth, growth)
        worst_time = max(worst_time, short / goal_s)
        print(f"{book_id}: {n:,} events {short:.2f} s ({short / n * 1e6:.1f} µs/event), "
              f"CPU {short_cpu:.2f} s; {n:,} events / {goal_s:g} s goal = {short / goal_s:.2f} "
              f"({refused:,} reports refused while the season was made); {3 * n:,} events "
              f"side by side with them: 3× the events = {growth:.2f}× the time "
              f"({growth_cpu:.2f}× the CPU)", flush=True)
        for i, window in enumerate(RESETS):
            vs_reset = max(full.wall / resets[i].wall for _, full, resets in runs)
            vs_reset_cpu = max(full.cpu / resets[i].cpu for _, full, resets in runs)
            per_ruling = max((full.cpu / full.rulings) / (resets[i].cpu / resets[i].rulings)
                             for _, full, resets in runs)
            full_made, reset_made = runs[0][1].rulings, runs[0][2][i].rulings
            worst_reset[window] = max(worst_reset.get(window, 0.0), vs_reset)
            worst_per_ruling[window] = max(worst_per_ruling.get(window, 0.0), per_ruling)
            print(f"{book_id}: full history / history reset every {window:,} events = "
                  f"{vs_reset:.2f} (CPU {vs_reset_cpu:.2f}); the full history made "
                  f"{full_made:,} rulings, the resets {reset_made:,} "
                  f"({full_made / reset_made - 1:+.0%}); CPU per ruling, full / reset = "
                  f"{per_ruling:.2f}", flush=True)
        if args.rss:
            peak, took, rulings = child("--rss-child", book_id,
                                        "--rss-events", str(args.rss_events))
            print(f"{book_id}: {args.rss_events:,} events in {float(took):.1f} s, "
                  f"{int(rulings):,} rulings, peak RSS {peak} MB", flush=True)
            print(f"replay-rss-{book_id}-mb: {peak} (goal 1024)", flush=True)
        if args.ten:
            words = child("--ten-child", book_id, "--events", str(n), "--repeat",
                          str(args.repeat), *(["--tenths"] if args.tenths else []))
            ten_short, ten_long, ten_made = map(float, words[:3])
            worst_ten = max(worst_ten, ten_long / ten_short)
            print(f"{book_id}: {n:,} events {ten_short:.2f} s, {10 * n:,} events "
                  f"{ten_long:.2f} s ({int(ten_made):,} rulings): 10× the events = "
                  f"{ten_long / ten_short:.2f}× the CPU time", flush=True)
            if words[3:]:
                pairs = list(zip(words[3::2], words[4::2], strict=True))
                print(f"{book_id}, each tenth of the {10 * n:,} events: " + ", ".join(
                    f"{float(cpu):.2f} s / {int(rulings):,} rulings = "
                    f"{float(cpu) / int(rulings) * 1e6:.1f} µs" for cpu, rulings in pairs),
                    flush=True)
    if args.ten:
        print(f"replay-10x-events-time-ratio: {worst_ten:.2f} (goal 11)")
    print(f"replay-3x-events-time-ratio: {worst_growth:.2f} (goal 3.3)")
    short_reset, long_reset = RESETS
    print(f"replay-full-over-reset: {worst_reset[short_reset]:.2f} (goal 1.1)")
    print(f"replay-full-over-reset-per-ruling: {worst_per_ruling[short_reset]:.2f} (goal 1.1)")
    print(f"replay-full-over-reset-{long_reset}-per-ruling: {worst_per_ruling[long_reset]:.2f} "
          "(goal 1.1)")
    print(f"replay-time-over-goal: {worst_time:.2f} (goal 1.0)")


if __name__ == "__main__":
    main()
