"""What every edge shows of a ruling: one typed view, built once from the engine's `Ruling`.

`RulingView` is the scenario replay's ruling (the public contract, ../shared/spec/scenarios.md),
the JSON API's response model, the templates' object and the CLI's `--json`. Readback from
the ledger builds the same type from stored rows, so the layers cannot disagree: a mismatch is
a validation error here, not a 500 at a venue. Keys that do not apply are left unset and so
absent from the JSON (`model_dump(exclude_unset=True)`), exactly as the contract describes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from sudya.domain.engine.model import (
    FOREVER,
    ChoiceOption,
    Offered,
    PointsOption,
    Reason,
    Result,
    Roster,
    Ruling,
    Sanction,
    lifted,
)
from sudya.domain.plan import Plan
from sudya.domain.rulebook.schema import Rulebook
from sudya.i18n.messages import reason_text

Status = Literal["active", "disqualified", "suspended", "removed"]
# which status a subject shows when it holds several: suspended outranks disqualified, which
# outranks removed (regulations.md §4 E9: a player removed from the tournament)
STATUS_RANK = {"active": 0, "removed": 1, "disqualified": 2, "suspended": 3}


class View(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    def as_json(self) -> dict[str, Any]:
        """The view as the contract's JSON: unset keys absent, dates as ISO strings."""
        out: dict[str, Any] = self.model_dump(mode="json", exclude_unset=True, by_alias=True)
        return out


class SanctionView(View):
    """One sanction of a ruling."""

    kind: str
    amount: int | None = Field(default=None, description="Ore to mine; points are negative. "
                               "Absent when the kind has no amount.")
    score: str | None = Field(default=None, description="A fixed game result, the offender's "
                              "score first.")
    attached: bool = Field(default=False, description="Comes with another sanction by rule.")
    subject: str | None = Field(default=None, description="When it lands on someone other "
                                "than the ruling's subject.")
    valid_until: dt.date | None = Field(default=None, description="The last day it is valid; "
                                        "null: never expires; absent when the rulebook has "
                                        "no validity windows.")

    @classmethod
    def of(cls, s: Sanction, ruling_subject: str | None, with_validity: bool) -> SanctionView:
        """The view of an engine sanction (`ruling_subject`: None names every subject)."""
        return cls.model_validate(sanction_json(s, ruling_subject, with_validity))


class ChoiceOffer(View):
    """One named choice of a judge's-choice ruling, with the sanctions it gives."""

    choice: str
    sanctions: list[SanctionView]


class PointsChoice(View):
    points: tuple[int, int] = Field(description="The range of points, mildest first.")


class PointsOffer(View):
    """A deduction the judge picks within a range, with the sanctions that come with it."""

    choice: PointsChoice
    with_: list[str] = Field(alias="with", serialization_alias="with")

    model_config = ConfigDict(frozen=True, populate_by_name=True)


Offer = SanctionView | ChoiceOffer | PointsOffer


class ReasonView(View):
    """A reason as data: its code (a key of the message catalogues), parameters, source."""

    code: str
    params: dict[str, Any] = {}
    source: str = ""

    @classmethod
    def of(cls, r: Reason) -> ReasonView:
        return cls.model_construct(_fields_set={"code", "params", "source"}, code=r.code,
                                   params=dict(r.params), source=r.source)

    def reason(self) -> Reason:
        return Reason(self.code, self.params, self.source)


class RulingView(View):
    """One ruling, in the scenario replay format."""

    event: str = Field(description="The event that caused it.")
    subject: str
    infraction: str | None
    cause: str
    sanctions: list[SanctionView]
    pending: bool
    offered: list[Offer] | None = Field(default=None, description="While pending: what the "
                                        "rulebook offers (the table an aggravated decision "
                                        "must exceed, or the choices of a range).")
    aggravated: bool = False
    revokes: str | None = None
    resolves: str | None = None
    resolved_by: str | None = None
    applies_to: dict[str, str] | None = Field(default=None, description="Sanction kind → "
                                              "what it applies to when not the current game "
                                              "(`next-game`, `next-match`).")
    round: int | None = None
    edition: str = ""
    notes: list[str] = Field(default=[], description="The reasons in English words; never "
                             "parsed.")
    reasons: list[ReasonView] = Field(default=[], description="The reasons as codes with "
                                      "their parameters: render them from the catalogues.")

    @classmethod
    def of(cls, r: Ruling, with_validity: bool) -> RulingView:
        """The view of an engine ruling: its JSON (ruling_json), checked by this type."""
        return cls.model_validate(ruling_json(r, with_validity))

    def reason_list(self) -> list[Reason]:
        return [r.reason() for r in self.reasons]


def sanction_json(s: Sanction, ruling_subject: str | None, with_validity: bool
                  ) -> dict[str, Any]:
    """A sanction as the contract's JSON: only the keys that apply (SanctionView's shape)."""
    out: dict[str, Any] = {"kind": s.kind}
    if s.amount is not None:
        out["amount"] = s.amount
    if s.score is not None:
        out["score"] = s.score
    if s.attached:
        out["attached"] = True
    if ruling_subject is not None and s.subject != ruling_subject:
        out["subject"] = s.subject
    if with_validity:
        until = s.valid_until
        out["valid_until"] = None if until is None or until == FOREVER else until.isoformat()
    return out


def ruling_json(r: Ruling, with_validity: bool, texts: dict[int, str] | None = None,
                reasons: dict[int, tuple[list[str], list[dict[str, Any]]]] | None = None
                ) -> dict[str, Any]:
    """A ruling as the contract's JSON (RulingView's shape, which RulingView.of checks).

    `texts`: English texts of reasons already rendered in this batch, by the reason's id
    (the engine shares one reason object among the rulings of an infraction). `reasons`: for
    a writer that dumps what it is given at once and keeps every ruling alive meanwhile, the
    `notes` and `reasons` lists already made, by the id of the ruling's notes (the engine
    shares one tuple of them among the rulings whose reasons are the same), given again."""
    out: dict[str, Any] = {
        "event": r.event, "subject": r.subject, "infraction": r.infraction,
        "cause": r.cause,
        "sanctions": [sanction_json(s, r.subject, with_validity) for s in r.sanctions],
        "pending": r.pending,
    }
    if r.offered is not None:
        out["offered"] = [offer_json(o, with_validity) for o in r.offered]
    if r.aggravated:
        out["aggravated"] = True
    # (each asked by name, not by getattr in a loop: a season's output is 100,000s of these)
    if r.revokes is not None:
        out["revokes"] = r.revokes
    if r.resolves is not None:
        out["resolves"] = r.resolves
    if r.resolved_by is not None:
        out["resolved_by"] = r.resolved_by
    if r.applies_to is not None:
        out["applies_to"] = r.applies_to
    if r.round is not None:
        out["round"] = r.round
    out["edition"] = r.edition
    made = reasons.get(id(r.notes)) if reasons is not None else None
    if made is None:
        if texts is None:
            texts = {}
        notes = []
        for n in r.notes:  # the engine shares one reason among an infraction's rulings
            nid = id(n)
            text = texts.get(nid)
            if text is None:
                text = texts[nid] = reason_text(n)
            notes.append(text)
        made = (notes, [n.as_json() for n in r.notes])
        if reasons is not None:
            reasons[id(r.notes)] = made
    out["notes"], out["reasons"] = made
    return out


def offer_json(raw: Offered, with_validity: bool) -> dict[str, Any]:
    """One thing a pending ruling offers as the contract's JSON (an Offer's shape, made as
    sanction_json makes a sanction's: a clan season holds 10,000s of pending rulings); JSON
    read back from the ledger is checked by its view."""
    if isinstance(raw, Sanction):
        return sanction_json(raw, None, with_validity)
    if isinstance(raw, ChoiceOption):
        return {"choice": raw.choice,
                "sanctions": [sanction_json(s, None, with_validity) for s in raw.sanctions]}
    if isinstance(raw, PointsOption):
        return {"choice": {"points": [raw.least, raw.most]}, "with": list(raw.with_)}
    return _offer(raw, with_validity).as_json()


def _offer(raw: Offered, with_validity: bool) -> Offer:
    if isinstance(raw, Sanction):
        return SanctionView.of(raw, None, with_validity)
    if isinstance(raw, ChoiceOption):
        return ChoiceOffer(choice=raw.choice,
                           sanctions=[SanctionView.of(s, None, with_validity)
                                      for s in raw.sanctions])
    if isinstance(raw, PointsOption):
        return PointsOffer(choice=PointsChoice(points=(raw.least, raw.most)),
                           with_=list(raw.with_))
    if "kind" in raw:
        return SanctionView.model_validate(raw)
    if isinstance(raw.get("choice"), dict):
        return PointsOffer.model_validate(raw)
    return ChoiceOffer.model_validate(raw)


class SubjectView(View):
    """A player or team after all events: status, sanctions by kind, points and ore."""

    status: Status
    sanctions: dict[str, int]
    points: int
    ore: int


class StandingRow(View):
    """A player's or team's line; the fields depend on how the rulebook scores."""

    model_config = ConfigDict(frozen=True, extra="allow")
    place: int | None = None
    status: str | None = None
    matches: int | None = None
    wins: int | None = None
    draws: int | None = None
    losses: int | None = None
    annulled: int | None = None
    frozen: int | None = None
    games: int | None = None
    games_won: int | None = None
    games_lost: int | None = None
    match_points: int | float | None = None
    game_points: int | float | None = None
    deductions: int | float | None = None
    card_points: int | float | None = None
    total: int | float | None = None


class StandingsView(View):
    players: dict[str, StandingRow]
    teams: dict[str, StandingRow]


class StandingsPageView(StandingsView):
    """One page of the players' table (in table order, with their places in the whole
    table), every team; `total` players are listed (those found, with `q`), `pages` pages of
    `limit`, this is `page`; the page's first line is line `offset` + 1."""

    total: int
    page: int
    limit: int
    pages: int
    offset: int
    q: str = ""
    columns: list[str] = Field(default_factory=list, description="The keys of a player's "
                               "line, in the order the scoring gives them.")
    team_columns: list[str] = Field(default_factory=list, description="A team's, likewise.")


class RulebookRef(View):
    id: str
    edition: str


class ReplayResult(View):
    """The replay result (the conformance contract)."""

    rulebook: RulebookRef
    rulings: list[RulingView]
    subjects: dict[str, SubjectView]
    standings: StandingsView | None = None


def offered_json(r: Ruling, with_validity: bool) -> list[dict[str, Any]] | None:
    """What a pending ruling offers, as stored JSON."""
    if r.offered is None:
        return None
    return [offer_json(o, with_validity) for o in r.offered]


def rulings_view(book: Rulebook, rulings: Iterable[Ruling]) -> list[RulingView]:
    with_validity = book.validity is not None
    return [RulingView.of(r, with_validity) for r in rulings]


def subjects_view(book: Rulebook, roster: Roster, rulings: Iterable[Ruling]
                  ) -> dict[str, SubjectView]:
    """Per player and team: status, sanctions by kind, points and ore (revoked ones left out)."""
    return {sid: SubjectView.model_validate(v)
            for sid, v in subjects_json(book, roster, rulings).items()}


def subjects_json(book: Rulebook, roster: Roster, rulings: Iterable[Ruling]
                  ) -> dict[str, dict[str, Any]]:
    """The subjects as the contract's JSON (SubjectView's shape)."""
    # every player and team, in the roster's order (a clan season's roster is 100,000s: one
    # comprehension, not a call each)
    tally: dict[str, dict[str, Any]] = {
        sid: {"status": "active", "sanctions": {}, "points": 0, "ore": 0}
        for sid in (*roster.players, *roster.teams)}
    # each kind's tally and status, looked up once a kind (a season has 100,000s of sanctions)
    facts: dict[str, tuple[str | None, str | None]] = {}
    # a suspension lifted by a decision no longer makes its bearer suspended (§4 E13)
    if any(k.term for k in book.sanctions):
        rulings = list(rulings)
        lifted_terms = lifted(rulings)
    else:
        lifted_terms = set()
    for r in rulings:
        for s in r.sanctions:
            if s.revoked:
                continue
            e = tally.get(s.subject)
            if e is None:  # a subject the roster does not name: after those it does
                e = tally[s.subject] = {"status": "active", "sanctions": {}, "points": 0,
                                        "ore": 0}
            e["sanctions"][s.kind] = e["sanctions"].get(s.kind, 0) + 1
            found = facts.get(s.kind)
            if found is None:
                kind = book.kind(s.kind)
                found = facts[s.kind] = (kind.tally, kind.status)
            adds_to, kind_status = found
            if adds_to == "points":
                e["points"] += s.amount or 0
            elif adds_to == "ore":
                e["ore"] += s.amount or 0
            # a sanction's own status where the table gave one (a player's removal, §4 E9)
            status = s.status or kind_status
            if lifted_terms and (s.subject, r.event) in lifted_terms and \
                    status == "suspended":
                status = None  # the disqualification it came with still stands
            if status is not None and STATUS_RANK[status] > STATUS_RANK[e["status"]]:
                e["status"] = status
    return tally


def replay_result(book: Rulebook, roster: Roster, rulings: list[Ruling],
                  results: list[tuple[Result, int]]) -> ReplayResult:
    """The replay result, from rulings however they were obtained (engine or ledger)."""
    return ReplayResult.model_validate(replay_json(book, roster, rulings, results))


def replay_json(book: Rulebook, roster: Roster, rulings: list[Ruling],
                results: list[tuple[Result, int]]) -> dict[str, Any]:
    """The replay result as the contract's JSON (ReplayResult's shape, built without
    validating each ruling: a season's output is large)."""
    from sudya.domain.standings import standings  # standings are optional output

    with_validity = book.validity is not None
    texts: dict[int, str] = {}
    out: dict[str, Any] = {
        "rulebook": {"id": book.id, "edition": book.edition},
        "rulings": [ruling_json(r, with_validity, texts) for r in rulings],
        "subjects": subjects_json(book, roster, rulings),
    }
    table = standings(book, roster, rulings, results)
    if table is not None:
        out["standings"] = table
    return out


JSON_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS


def _member(key: str, value: Any) -> memoryview:
    """`"key": value` as an indented document writes a key of its own (json.dumps' indent=2):
    dumped as a document of that key alone, which orjson indents so, its braces left off
    (neither indented again nor copied: a season's subjects and standings are 10s of MB)."""
    return memoryview(orjson.dumps({key: value}, option=JSON_OPTIONS))[2:-2]


# a batch of rulings dumped as {"rulings": [...]} is indented as the whole document indents
# them (two levels down): these are its brackets, left off
_HEAD, _TAIL = len(b'{\n  "rulings": ['), len(b"\n  ]\n}")


def replay_json_chunks(book: Rulebook, roster: Roster, rulings: list[Ruling],
                       results: list[tuple[Result, int]], batch: int = 500
                       ) -> Iterator[bytes | memoryview]:
    """The replay result as JSON text, in pieces: the bytes `json.dumps(replay_json(...),
    ensure_ascii=False, indent=2)` would give, one batch of rulings at a time, so a season's
    output is never held whole (neither as dicts nor as text). A piece cut from orjson's
    text is a view of it, not a copy (a season's pieces add up to 100s of MB)."""
    from sudya.domain.standings import standings

    with_validity = book.validity is not None
    texts: dict[int, str] = {}
    # the JSON of reasons already made (written at once, so a shared list is never changed)
    reasons: dict[int, tuple[list[str], list[dict[str, Any]]]] = {}
    yield b"{\n"
    yield _member("rulebook", {"id": book.id, "edition": book.edition})
    if not rulings:
        yield b',\n  "rulings": []'
    else:
        yield b',\n  "rulings": ['
        for start in range(0, len(rulings), batch):
            # a batch as one indented list, one level deep, its brackets left off: each
            # ruling's text indented two levels after a line end, one orjson call a batch
            part = orjson.dumps({"rulings": [ruling_json(r, with_validity, texts, reasons)
                                             for r in rulings[start:start + batch]]},
                                option=JSON_OPTIONS)
            if start:
                yield b","
            yield memoryview(part)[_HEAD:-_TAIL]
        yield b"\n  ]"
    yield b",\n"
    yield _member("subjects", subjects_json(book, roster, rulings))
    table = standings(book, roster, rulings, results)
    if table is not None:
        yield b",\n"
        yield _member("standings", table)
    yield b"\n}\n"


class RecordSanctionView(View):
    """A sanction of a person's record, with its state on the day asked."""

    kind: str
    amount: int | None
    attached: bool
    valid_until: dt.date | None
    state: Literal["valid", "expired", "revoked", "recorded"]


class RecordEntryView(View):
    """One ruling in a person's record, with the state of each of their sanctions."""

    series: str
    tournament: str
    date: dt.date
    event: str
    infraction: str | None
    cause: str
    judge: str | None
    rulebook: str
    edition: str
    sanctions: list[RecordSanctionView]
    notes: list[str] = Field(description="The reasons in English words; never parsed.")
    reasons: list[ReasonView]
    pending: bool = Field(default=False, description="Waits for a decision (a judge's "
                          "choice, the college's decision): it gives nothing yet.")
    resolves: str | None = Field(default=None, description="A decision: the event of the "
                                 "pending ruling it settles.")
    resolved_by: str | None = Field(default=None, description="A pending ruling settled "
                                    "since: the event of the decision (or of the appeal or "
                                    "correction that revoked it).")


class SeriesView(View):
    """A series (championship): its name and the rulebook it is judged by."""

    id: int
    name: str
    rulebook: str


class TournamentView(View):
    """A tournament as the edges name it: the pages, the API's lists and the CLI."""

    id: int
    name: str
    series: SeriesView
    position: int = Field(description="Its place in the series: 0, 1, 2…")
    edition: str
    level: str | None
    date: dt.date
    settings: dict[str, Any]
    plan: Plan = Field(default_factory=Plan, description="How it is run: rounds, pairing, "
                       "match points, tie-breakers, a top cut (unset: the rulebook's).")


class EntrantView(View):
    """A player registered for a tournament, as its summary lists them."""

    handle: str = Field(description="The player's id (in URLs, forms and the ledger).")
    name: str = Field(description="The display name (the handle when none was given).")
    team: str | None = Field(default=None, description="Their team's id in this tournament.")


class JudgeView(View):
    """A judge of a tournament: their role, and whether they are its official judge."""

    handle: str
    name: str
    role: str
    official: bool


class TournamentBrief(View):
    """A tournament as a list names it (the API's tournaments)."""

    id: int
    name: str
    series: str
    rulebook: str
    edition: str
    level: str | None
    date: dt.date


class TournamentSummaryView(TournamentBrief):
    """A tournament with its people: the players in the order they entered, the teams with
    their members, everyone's display name and the judges (no rulings: a page that shows
    some reads them itself, `services.queries.tournament_rulings`)."""

    settings: dict[str, Any]
    players: list[EntrantView]
    teams: dict[str, list[str]]
    names: dict[str, str] = Field(description="handle -> display name, of every player "
                                  "and team.")
    judges: list[JudgeView]

    def handles(self) -> list[str]:
        """The players' ids, in the order they entered."""
        return [p.handle for p in self.players]


class PeopleNamesView(View):
    """Everyone's display name and the teams with their members: what a page shows of a
    tournament's people when it has read its players already (the same two fields as
    `TournamentSummaryView`, without the rest of the summary)."""

    teams: dict[str, list[str]]
    names: dict[str, str] = Field(description="handle -> display name, of every player "
                                  "and team.")


class UserView(View):
    """A signed-in account: who it is, and the player it is (if any)."""

    id: int
    username: str
    display_name: str
    person_handle: str | None
    lang: str


class DecklistView(View):
    """A registered deck list, with what its newest check found (None: never checked)."""

    id: int
    tournament_id: int
    player: str
    format: str | None
    text: str
    created_by: str
    created_at: dt.datetime
    findings: list[dict[str, Any]] | None


class PersonView(View):
    """A player of a tournament as the pages and the API name them; the handle is the id."""

    handle: str = Field(description="The player's id (in URLs, forms and the ledger).")
    name: str = Field(description="The display name (the handle when none was given).")
    team: str | None = Field(default=None, description="Their team's id in this tournament.")
    team_name: str | None = Field(default=None, description="Their team's name.")
    table: int | None = Field(default=None, description="Their table in `round` (from the "
                              "round's pairings), or the seat they were registered with when "
                              "the round has no pairings; null: none known.")
    round: int | None = Field(default=None, description="The round `table` is of (null for a "
                              "registered seat).")


class SideView(View):
    """One side of a table: a player, or a team with its players."""

    handle: str
    name: str
    team: bool = Field(default=False, description="The side is a team (a team event).")
    players: list[PersonView] = Field(description="The player; a team's members.")


class PairingView(View):
    """One table of a round: who plays whom."""

    table: int
    a: SideView
    b: SideView


class TableResultView(View):
    """What a round's table counts as: the score entered (the table's first side first), or
    the result a penalty gave without one (`penalty`: a match loss, a fixed score)."""

    score_a: int
    score_b: int
    penalty: bool = Field(default=False, description="Given by a penalty, not entered.")
    loser: str | None = Field(default=None, description="With `penalty`: who lost the match "
                                                        "to it (None: both).")


class GameView(View):
    """One game of a team table (the captains' matchups): `a` of the table's first team."""

    game: int
    a: str
    b: str
    defender: str | None = Field(default=None, description="`a`, `b` or none.")


class ReportView(View):
    """A result a player reported for a table of a round, waiting for the opponent or
    disputed: the table's first side's games first."""

    table: int
    reporter: str
    score_a: int
    score_b: int
    disputed: bool = False


class MyMatchView(View):
    """A player's match of a round, as they see it to report its result: their table and
    opponent, the result entered (their games first), or what was reported and by whom."""

    round: int
    table: int
    opponent: str
    opponent_name: str
    entered: tuple[int, int] | None = Field(default=None, description="Mine first.")
    reported: tuple[int, int] | None = Field(default=None, description="Mine first.")
    reported_by_me: bool = False
    disputed: bool = False


class PairingsView(View):
    """A round's tables, as the last import of the round stored them."""

    round: int | None = Field(description="The round shown (by default the current one).")
    current_round: int | None = Field(description="The latest round with pairings or the "
                                      "round the clock last started, whichever is later.")
    rounds: list[int] = Field(description="Every round that has pairings.")
    tables: list[PairingView]
    imported_by: str | None = Field(default=None, description="Who imported the round.")
    imported_at: dt.datetime | None = Field(default=None, description="When.")


class IncidentView(View):
    """An incident a judge reported: waiting for a judge who may rule, or settled."""

    id: int
    subject: str = Field(description="The player's (or team's) handle.")
    name: str = Field(description="Their display name.")
    table: int | None = None
    round: int | None = None
    text: str = Field(description="The reporting judge's account, in their own words.")
    filed_by: str
    filed_at: dt.datetime
    settled_at: dt.datetime | None = Field(default=None, description="Null: still waiting.")
    settled_by: str | None = None
    event: str | None = Field(default=None, description="The ruling recorded for it (its "
                              "event); null when settled without a penalty.")
    note: str = Field(default="", description="What the judge who settled it wrote.")


class StatementView(View):
    """A statement about a disqualification or suspension, as stored (append-only)."""

    id: int
    event: str = Field(description="The event whose ruling disqualified or suspended.")
    role: Literal["player", "opponent", "witness", "head-judge"]
    author: str = Field(description="Whose statement it is.")
    text: str
    rule_cited: str | None = Field(default=None, description="The head judge's: the rule "
                                   "cited.")
    decision: str | None = Field(default=None, description="The head judge's: the decision.")
    written_by: str = Field(description="The account that typed it.")
    written_at: dt.datetime


class DisqualificationView(View):
    """An event whose ruling disqualified or suspended someone: what needs a report."""

    event: str
    seq: int = Field(description="Its place in the series.")
    infraction: str | None = None
    round: int | None = None
    judge: str | None = None
    at: dt.datetime = Field(description="When it was recorded.")
    subjects: list[str] = Field(description="Who was disqualified or suspended (handles).")
    names: list[str] = Field(description="Their display names, in the same order.")
    kinds: list[str] = Field(description="The sanctions (kinds) that did it.")
    status: Literal["disqualified", "suspended"]
    revoked: bool = Field(description="Revoked since (an appeal, a correction).")
    statements: int = Field(description="How many statements it has.")
    head_judge: bool = Field(description="The head judge's statement is among them.")


class RulebookProblem(View):
    """One thing wrong with (or worth a note in) a rulebook text: the loader's refusal or a
    lint finding, with the line and key path it is about."""

    severity: Literal["error", "warning", "note"]
    code: str = Field(default="", description="The lint finding's code; empty for the "
                      "loader's refusal.")
    where: str = Field(default="", description="The key path, e.g. infractions.noise.penalty.")
    line: int | None = None
    message: str


class CaseResultView(View):
    """One of the rulebook's own test cases, run against the text."""

    name: str
    passed: bool
    problems: list[str] = []


class RulebookCheckView(View):
    """What the publishing gate found of a rulebook text (services.rulebook_store.check_text):
    does it load, what its lint says, and how its own cases ran."""

    name: str
    rulebook: str | None = Field(default=None, description="Its id, when it loads.")
    edition: str | None = None
    loads: bool
    problems: list[RulebookProblem] = []
    cases: list[CaseResultView] = []

    @property
    def errors(self) -> list[RulebookProblem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        """It may be published: it loads, lints without errors and passes its cases."""
        return self.loads and not self.errors and all(c.passed for c in self.cases)


class RosterRowView(View):
    """One row of an uploaded list, as the preview shows it."""

    line: int
    handle: str
    name: str | None = None
    team: str | None = None
    table: int | None = None
    gender: Literal["m", "f"] | None = None
    members: list[str] = Field(default_factory=list)


class RosterProblemView(View):
    """What is wrong with a row of an uploaded list: its line, field and message code."""

    line: int
    field: str
    code: str
    params: dict[str, Any] = Field(default_factory=dict)


class RosterImportView(View):
    """An uploaded list of players or teams: every row, each problem, and whether it was
    imported (all rows, or none)."""

    kind: str
    count: int
    imported: bool
    rows: list[RosterRowView]
    problems: list[RosterProblemView]


class PairingRowView(View):
    """One table of a round Sudya paired: `a` is the higher placed."""

    table: int
    a: str
    b: str


class PairedRoundView(View):
    """A round Sudya paired: its tables, the bye, and what a judge should know (codes with
    the players concerned: `pairing.rematch`, `pairing.bye-moved`)."""

    round: int
    tables: list[PairingRowView]
    bye: str | None = None
    warnings: list[tuple[str, list[str]]] = Field(default_factory=list)


class PasswordCodeView(View):
    """A one-time code that sets an account's password (an invitation, a reset), as the
    organiser is shown it once: only its hash is kept."""

    username: str
    code: str
    expires_at: dt.datetime


class AccountView(View):
    """An account as its organiser sees it: its roles, never its password hash."""

    username: str
    display_name: str
    person: str | None = None
    roles: list[tuple[int, str]] = Field(default_factory=list, description="(tournament, "
                                         "role): organiser, scorekeeper, player, or the "
                                         "judge's role on the staff list")
    may_start_series: bool = False
    code_pending: bool = Field(default=False, description="An invitation or a reset not "
                               "used yet.")


class SeriesChoiceView(View):
    """A series one may publish a rulebook edition for (the editor's choice)."""

    id: int
    name: str
    rulebook: str


class TournamentEditionView(View):
    """A tournament judged by a rulebook, with the edition it keeps (the editor's «what
    changes» before publishing: a created tournament keeps its edition)."""

    id: int
    name: str
    series: str
    date: dt.date
    edition: str


class EditionView(View):
    """One edition of a rulebook: kept in the ledger (`stored`) or shipped as a file."""

    rulebook: str
    edition: str
    stored: bool = Field(description="Published into the ledger (else a bundled file).")
    decided: dt.date | None = Field(default=None, description="The day it was decided or "
                                    "published.")
    in_force_from: dt.date | None = Field(description="Its first day in force; null with "
                                          "from_next_tournament, or for an edition in force "
                                          "at once.")
    from_next_tournament: bool = False
    in_force_until: dt.date | None = None
    summary: str = ""
    sha256: str | None = None
    published_by: str | None = None
    published_at: dt.datetime | None = None
    series: str | None = Field(default=None, description="The series it was published for: "
                               "in force only in that series' tournaments (null: in every "
                               "series).")
