"""A test case made from a recorded ruling («сделать проверочным случаем»): the scenario that
reproduces it and what that scenario gives, for the rulebook editor to keep beside a draft.

What the scenario holds, read back from the ledger (scenario_import does the reverse):

- the series' rulebook by id (the edition is left out: a case runs under the rulebook it is
  kept with, a draft's new edition too), the level, date and settings of the tournament —
  the first of the series the scenario reaches back to, each later one as a `tournament`
  event;
- the ruling's infraction event, and before it, in ledger order, every infraction event of
  the series up to it that made a ruling about its subjects (the offender, whoever else its
  rulings name) — and, where the rulebook counts teams (accumulation, conversion in the
  team's pool, kinds that land on the team), about their teams and team-mates; each with its
  id, infraction, player or team, judge, round, date, details and choice as recorded;
- the decisions and appeals on those events recorded before the ruling (an event corrected
  before it is left out, as the correction took it back: the scenario format has no
  corrections); the ends of matches before it where the rulebook stacks penalties; no game
  results (they make standings, not sanctions);
- the people those events name: players, their teams where teams count, the judges with the
  role they held.

`expected` is the scenario's replay under the tournament's own edition, written as an
expected file is: it gives the ruling as the ledger recorded it.
"""

from __future__ import annotations

import io
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from sqlalchemy import select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.adapters.scenario_file import plain
from sudya.app import rulebook_store
from sudya.app.common import LedgerError
from sudya.app.rulebook_cases import DraftCase, expected_text
from sudya.app.scenario import replay
from sudya.domain.errors import RulebookError, SudyaError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook

# the kinds of event read back (results and roster changes make no sanctions of the case)
READ = ("tournament", "infraction", "decision", "appeal", "correction", "end-of-match")
INFRACTION_KEYS = ("infraction", "player", "team", "judge", "round", "date", "details",
                   "choice")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def counts_teams(book: Rulebook) -> bool:
    """Whether what a team's players do counts for the team in this rulebook."""
    return bool(book.accumulation) or any(c.pool == "team" for c in book.conversions) \
        or any(k.lands_on == "team" for k in book.sanctions)


def case_name(infraction: str, subject: str, event: str) -> str:
    """A case's name after the infraction, the subject and the event: letters, digits,
    `.`, `_` and `-` (what a published edition's case names may hold)."""
    return _UNSAFE.sub("-", f"{infraction}-{subject}-{event}").strip("-.")[:100] or "case"


def case_from_ruling(session: Session, tournament_id: int, event_id: str) -> DraftCase:
    """The test case of the ruling(s) on infraction event `event_id` of a tournament: a
    scenario reproducing it and its replay as the expected result. Refused: an unknown
    tournament (`tournament.unknown`), an event not of the tournament (`event.no-ruling`),
    an event that is no infraction (`cases.not-an-infraction`)."""
    rulebook_store.sync(session)
    t = session.get(m.Tournament, tournament_id)
    if t is None:
        raise LedgerError("tournament.unknown", field="tournament", tournament=tournament_id)
    ev = session.scalar(select(m.Event).where(m.Event.tournament_id == t.id,
                                              m.Event.ext_id == event_id))
    if ev is None:
        raise LedgerError("event.no-ruling", field="event", event=event_id)
    if ev.kind != "infraction":
        raise LedgerError("cases.not-an-infraction", field="event", event=event_id,
                          tournament=t.name)
    try:
        book = loader.load(t.series.rulebook, t.edition)
    except RulebookError as exc:
        raise LedgerError(str(exc), field="rulebook") from exc
    scenario = _Reader(session, t, ev, book).scenario()
    text = scenario_text(scenario)
    data = plain(loader.parse_yaml(text, "case.yaml"))
    try:
        result = replay({**data, "edition": t.edition})
    except SudyaError as exc:  # the ledger took what its own replay refuses: say why
        raise LedgerError(str(exc), field="event") from exc
    offender = ev.payload.get("team") or ev.payload.get("player")
    return DraftCase(case_name(str(ev.payload.get("infraction")), str(offender), event_id),
                     text, expected_text(result))


class _Reader:
    """What the scenario of one ruling holds, read from the series' ledger."""

    def __init__(self, s: Session, t: m.Tournament, ev: m.Event, book: Rulebook) -> None:
        self.s, self.t, self.ev, self.book = s, t, ev, book
        self.tournaments = {row.id: row for row in s.scalars(
            select(m.Tournament).where(m.Tournament.series_id == t.series_id,
                                       m.Tournament.position <= t.position))}
        # each tournament's players with their teams, in the order entered
        self.entries: dict[int, dict[str, str | None]] = {tid: {} for tid in self.tournaments}
        for tid, person, team in s.execute(
                select(m.Entry.tournament_id, m.Person.handle, m.Team.handle)
                .join(m.Person, m.Person.id == m.Entry.person_id)
                .outerjoin(m.Team, m.Team.id == m.Entry.team_id)
                .where(m.Entry.tournament_id.in_(self.tournaments)).order_by(m.Entry.id)):
            self.entries[tid][person] = team
        self.staff: dict[int, dict[str, tuple[str, bool]]] = {tid: {} for tid in self.tournaments}
        for tid, handle, role, official in s.execute(
                select(m.Staff.tournament_id, m.Staff.handle, m.Staff.role, m.Staff.official)
                .where(m.Staff.tournament_id.in_(self.tournaments))):
            self.staff[tid][handle] = (role, official)
        self.events = list(s.scalars(
            select(m.Event).where(m.Event.series_id == t.series_id,
                                  m.Event.tournament_id.in_(self.tournaments),
                                  m.Event.seq <= ev.seq, m.Event.kind.in_(READ))
            .order_by(m.Event.seq)))
        self.ruled: dict[int, list[str]] = {}
        for event_row, subject in s.execute(
                select(m.Ruling.event_id, m.Ruling.subject)
                .where(m.Ruling.series_id == t.series_id,
                       m.Ruling.event_id.in_([e.id for e in self.events
                                              if e.kind == "infraction"]))
                .order_by(m.Ruling.position)):
            self.ruled.setdefault(event_row, []).append(subject)
        self.teams: dict[str, list[str]] = {}
        for tid in sorted(self.tournaments, key=lambda i: self.tournaments[i].position):
            for person, team in self.entries[tid].items():
                if team is not None and person not in self.teams.setdefault(team, []):
                    self.teams[team].append(person)

    def team_of(self, player: str) -> str | None:
        return self.entries[self.t.id].get(player) or next(
            (team for people in self.entries.values() if (team := people.get(player))), None)

    def subjects(self) -> set[str]:
        """Whose earlier rulings the ruling may depend on."""
        payload = self.ev.payload
        found = {payload.get("team") or payload.get("player"), *self.ruled.get(self.ev.id, [])}
        found.discard(None)
        subjects: set[str] = {str(x) for x in found}
        teams_given = any(x in self.teams for x in self.ruled.get(self.ev.id, []))
        if counts_teams(self.book) or teams_given:
            for x in list(subjects):
                team = x if x in self.teams else self.team_of(x)
                if team is not None:
                    subjects |= {team, *self.teams.get(team, [])}
        return subjects

    def scenario(self) -> dict[str, Any]:
        subjects = self.subjects()
        corrected = {str(e.payload.get("of")) for e in self.events
                     if e.kind == "correction" and e.seq < self.ev.seq}
        kept: list[m.Event] = []
        for e in self.events:
            if e.kind != "infraction" or e.ext_id in corrected and e is not self.ev:
                continue
            offender = e.payload.get("team") or e.payload.get("player")
            if e is self.ev or offender in subjects or subjects.intersection(
                    self.ruled.get(e.id, [])):
                kept.append(e)
        ids = {e.ext_id for e in kept}
        people = self._people(kept)
        first = min((self.tournaments[e.tournament_id] for e in kept), key=lambda t: t.position)
        events: list[dict[str, Any]] = []
        judges: dict[str, dict[str, Any]] = {}
        for e in self.events:
            p = e.payload
            if e.kind == "tournament":
                if self.tournaments[e.tournament_id].position > first.position:
                    events.append({"id": e.ext_id, "tournament": _without_none(
                        {"date": p.get("date"), "level": p.get("level"),
                         "settings": p.get("settings") or {}})})
            elif e.kind == "infraction" and e.ext_id in ids:
                item = {"id": e.ext_id, **{k: p[k] for k in INFRACTION_KEYS
                                           if p.get(k) not in (None, {})}}
                self._judge(e, item, judges)
                events.append(item)
            elif e.kind in ("decision", "appeal") and str(p.get("of")) in ids \
                    and e.seq < self.ev.seq:
                body = _without_none(p)
                self._judge(e, body, judges)
                events.append({"id": e.ext_id, e.kind: body})
            elif e.kind == "end-of-match" and self.book.stacking is not None \
                    and e.seq < self.ev.seq and first.position <= \
                    self.tournaments[e.tournament_id].position:
                named = p.get("players")
                if named is None:
                    events.append({"id": e.ext_id, "end-of-match": _without_none(p)})
                elif mine := [x for x in named if x in people or x in self.teams]:
                    events.append({"id": e.ext_id, "end-of-match": {
                        **_without_none(p), "players": mine}})
        players = [x for x in people if x not in self.teams]
        teams = {team: members for team, members in self.teams.items() if team in people}
        out: dict[str, Any] = {"rulebook": self.book.id}
        if first.level is not None:
            out["level"] = first.level
        out["date"] = first.date
        if first.settings:
            out["settings"] = dict(first.settings)
        out["players"] = players
        if teams:
            out["teams"] = teams
        if judges:
            out["judges"] = judges
        out["events"] = events
        return out

    def _people(self, kept: list[m.Event]) -> dict[str, None]:
        """The players and teams the kept events name (their offenders, whom their rulings
        name, players named in their details), with the teams and team-mates where teams
        count; in the order entered."""
        known = {p for people in self.entries.values() for p in people} | set(self.teams)
        named: set[str] = set()
        for e in kept:
            offender = e.payload.get("team") or e.payload.get("player")
            named |= {str(offender), *self.ruled.get(e.id, [])}
            named |= {v for v in _texts(e.payload.get("details")) if v in known}
        named &= known
        if counts_teams(self.book) or any(x in self.teams for x in named):
            for x in list(named):
                team = x if x in self.teams else self.team_of(x)
                if team is not None and (counts_teams(self.book) or x == team):
                    named |= {team, *self.teams.get(team, [])}
        order = [p for tid in sorted(self.tournaments,
                                     key=lambda i: self.tournaments[i].position)
                 for p in self.entries[tid]] + list(self.teams)
        return dict.fromkeys(x for x in order if x in named)

    def _judge(self, e: m.Event, item: dict[str, Any],
               judges: dict[str, dict[str, Any]]) -> None:
        """The event's judge among the scenario's judges, with the role held there (a judge
        the tournament's staff does not list is left out of the event)."""
        judge = item.get("judge")
        if judge is None:
            return
        held = self.staff[e.tournament_id].get(judge) or next(
            (people[judge] for people in self.staff.values() if judge in people), None)
        if held is None:
            del item["judge"]
            return
        role, official = held
        judges.setdefault(judge, {"role": role, **({"official": True} if official else {})})


def _without_none(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if v is not None}


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [x for v in value for x in _texts(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _texts(v)]
    return []


def _dump(doc: Any) -> str:
    yaml = YAML(typ="rt")
    yaml.width = 100
    yaml.indent(mapping=2, sequence=4, offset=2)
    buf = io.StringIO()
    yaml.dump(doc, buf)
    return buf.getvalue()


def _event_style(event: dict[str, Any], flow: Any) -> Any:
    """An event on one line where it fits, else a key a line (its details on one)."""
    one = flow(event)
    if _dump(CommentedSeq([one])).count("\n") == 1:
        return one
    return CommentedMap((k, flow(v)) for k, v in event.items())


def scenario_text(scenario: dict[str, Any]) -> str:
    """A scenario as the bundled cases are written: the keys in block style, each event (and
    list of players, each judge) on a line of its own."""
    def flow(value: Any) -> Any:
        if isinstance(value, dict):
            out = CommentedMap((k, flow(v)) for k, v in value.items())
            out.fa.set_flow_style()
            return out
        if isinstance(value, list):
            seq = CommentedSeq(flow(v) for v in value)
            seq.fa.set_flow_style()
            return seq
        return value

    doc = CommentedMap()
    for key, value in scenario.items():
        if key in ("judges", "teams"):
            doc[key] = CommentedMap((k, flow(v)) for k, v in value.items())
        elif key == "events":
            doc[key] = CommentedSeq(_event_style(v, flow) for v in value)
        else:
            doc[key] = flow(value)
    return _dump(doc)


__all__ = ["case_from_ruling", "counts_teams", "scenario_text"]
