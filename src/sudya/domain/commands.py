"""What a judge asks the system to do, as typed commands, and the one decoder of raw input.

Every edge hands raw input here — the scenario replay (YAML/JSON), the JSON API, the HTML
forms, the CLI — and so does the ledger when it reads back what it stored: `decode(kind, raw)`
gives a frozen command or raises `CommandError(code, field, params)`. The limits of what a
person may type (round ≤ 1000, string lengths, integer ranges, how deep the facts of a rule
may nest) are written once, here. `known(command, roster)` checks the names a command uses
against the people of the series, and `command.event(id)` is what the engine rules on.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Container, Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from sudya.domain import handles
from sudya.domain.engine import model as e
from sudya.domain.errors import SudyaError
from sudya.domain.plan import Plan
from sudya.domain.rulebook.schema import Rulebook

MAX_ROUND = 1000
MAX_NUMBER = 10**9  # larger numbers in facts or choices are typing mistakes
MAX_TEXT = 1000
MAX_NOTE = 2000  # a judge's account of an incident, in their own words
MAX_ID = 100
MAX_POINTS = 100_000  # a game's or a match's score, one side's
FIRST_DAY, LAST_DAY = dt.date(1900, 1, 1), dt.date(2999, 12, 31)  # validity windows fit
MAX_DEPTH = 4


class CommandError(SudyaError):
    """Input that is not a command: a stable code, the field's path and the parameters."""

    code = "command"


def _custom(code: str, **params: Any) -> PydanticCustomError:
    return PydanticCustomError(code, code, params)


# control characters (C0 and DEL) in an id, and in a text (where tabs and line ends may be);
# one regular expression search instead of a loop over the characters (every event's ids
# go through these: a season's replay decodes 100,000 events)
_ID_CONTROL = re.compile("[\x00-\x1f\x7f]")
_TEXT_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def plain_id(value: str) -> str:
    if _ID_CONTROL.search(value):
        raise _custom("text.control-characters")
    if not value.strip():
        raise _custom("value.required")
    return value


def plain_text(value: str) -> str:
    if _TEXT_CONTROL.search(value):
        raise _custom("text.control-characters")
    return value


def _plain_json(value: Any, depth: int = 0, at: str = "") -> Any:
    """The facts of a rule: small numbers, short texts, shallow structures (`at`: the path
    inside the facts, so the refusal names the fact itself)."""
    if depth > MAX_DEPTH:
        raise _custom("value.too-deep", depth=MAX_DEPTH, at=at)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value) or abs(value) > MAX_NUMBER:
            raise _custom("value.number-out-of-range", limit=MAX_NUMBER, at=at)
        return value
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise _custom("text.too-long", max=MAX_TEXT, at=at)
        if any((ord(ch) < 32 and ch not in "\t\n\r") or ord(ch) == 127 for ch in value):
            raise _custom("text.control-characters", at=at)
        return value
    if isinstance(value, dt.date):
        # a YAML timestamp is a datetime, which compares with no date: its day is checked
        if not FIRST_DAY <= _date(value) <= LAST_DAY:
            raise _custom("date.out-of-range", first=str(FIRST_DAY), last=str(LAST_DAY),
                          at=at)
        return value.isoformat()
    if isinstance(value, list | tuple):
        if len(value) > 100:
            raise _custom("value.too-many", max=100, at=at)
        return [_plain_json(v, depth + 1, f"{at}.{i}" if at else str(i))
                for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        if len(value) > 100:
            raise _custom("value.too-many", max=100, at=at)
        return {str(k): _plain_json(v, depth + 1, f"{at}.{k}" if at else str(k))
                for k, v in value.items()}
    raise _custom("value.not-plain", at=at)


def _date(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.date()
    return value


def _score(value: Any) -> Any:
    """A score as people write it ("12-8") or as the ledger stores it ([12, 8])."""
    if isinstance(value, str):
        parts = value.split("-")
        if len(parts) != 2 or not all(p.strip().isascii() and p.strip().isdigit()
                                      for p in parts):
            raise _custom("score.malformed", score=value)
        return [int(p) for p in parts]
    return value


Id = Annotated[str, Strict(), Field(min_length=1, max_length=MAX_ID),
               AfterValidator(plain_id)]
Text = Annotated[str, Strict(), Field(max_length=MAX_TEXT), AfterValidator(plain_text)]
Note = Annotated[str, Strict(), Field(max_length=MAX_NOTE), AfterValidator(plain_text)]
Round = Annotated[int, Strict(), Field(ge=0, le=MAX_ROUND)]
Number = Annotated[int, Strict(), Field(ge=-MAX_NUMBER, le=MAX_NUMBER)]
Points = Annotated[int, Strict(), Field(ge=0, le=MAX_POINTS)]
Day = Annotated[dt.date, BeforeValidator(_date), Field(ge=FIRST_DAY, le=LAST_DAY)]
Facts = Annotated[dict[str, Any], AfterValidator(_plain_json)]
Choice = Annotated[
    Id | dict[Literal["points", "amount"], Number] | None,
    Field(description="The judge's choice where the rule offers one: a "
                                    "sanction id, `min`/`max` of a range, `{points: -N}` or "
                                    "`{amount: N}`.")]


class Command(BaseModel):
    """A request to the ledger; `kind` names it in the stored event."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: ClassVar[str]

    def payload(self) -> dict[str, Any]:
        """The command as the ledger stores it (plain JSON)."""
        out: dict[str, Any] = self.model_dump(mode="json")
        return out


class NewTournament(Command):
    """A tournament of the series begins (its rulebook edition is in force from it on)."""

    kind: ClassVar[str] = "tournament"
    date: Day
    level: Id | None = None
    settings: dict[str, Any] | None = Field(default=None, description="None: as before.")
    edition: str | None = None

    def event(self, id: str, rulebook: Any = None) -> e.NewTournament:
        return e.NewTournament(id=id, date=self.date, level=self.level,
                               settings=None if self.settings is None else dict(self.settings),
                               rulebook=rulebook)


class JudgeIn(Command):
    role: Id
    official: bool = False


class ChangeRoster(Command):
    """People join the series: players, a team's members (for this tournament), judges; or
    a removed player's place is taken (`replace`, `by`, and `army` or `coach`)."""

    kind: ClassVar[str] = "roster"
    players: list[Id] = []
    teams: dict[str, list[Id]] = {}
    judges: dict[str, JudgeIn] = {}
    replace: Id | None = Field(default=None, description="A removed player to replace.")
    by: Id | None = Field(default=None, description="Who takes the removed player's place.")
    army: Text | None = Field(default=None, description="The army both play (the same).")
    coach: bool = Field(default=False, description="The replacement is the team's coach.")

    @model_validator(mode="after")
    def _replacement(self) -> ChangeRoster:
        if (self.replace is None) != (self.by is None):
            raise _custom("replacement.both-players")
        if self.replace is None and (self.army is not None or self.coach):
            raise _custom("replacement.both-players")
        return self

    def payload(self) -> dict[str, Any]:
        out = super().payload()
        if self.replace is None:  # stored as before when no one is replaced
            for key in ("replace", "by", "army", "coach"):
                out.pop(key, None)
        return out

    def event(self, id: str) -> e.RosterChange:
        return e.RosterChange(
            id=id, players=tuple(self.players),
            teams={t: list(members) for t, members in self.teams.items()},
            judges={h: e.Judge(id=h, role=j.role, official=j.official)
                    for h, j in self.judges.items()},
            replacements=() if self.replace is None or self.by is None else (
                e.Replacement(removed=self.replace, by=self.by, army=self.army,
                              coach=self.coach),))


class RecordInfraction(Command):
    """A judge reports an infraction by a player (or a team)."""

    kind: ClassVar[str] = "infraction"
    infraction: Id = Field(description="An infraction id from the tournament's rulebook.")
    player: Id | None = None
    team: Id | None = Field(default=None, description="For a team (clan) violation.")
    judge: Id | None = None
    round: Round | None = None
    date: Day | None = None
    details: Facts = Field(default_factory=dict,
                           description="The facts the rule reads (see the rulebook).")
    choice: Choice = None
    note: Note = Field(default="", description="The judge's account of what happened "
                       "(free text, at most 2000 characters), kept with the ruling.")

    @model_validator(mode="after")
    def _one_offender(self) -> RecordInfraction:
        if self.player is None and self.team is None:
            raise _custom("offender.required")
        if self.player is not None and self.team is not None:
            raise _custom("offender.both")
        return self

    def payload(self) -> dict[str, Any]:
        out = super().payload()
        if not self.note:  # stored as before when the judge wrote nothing
            out.pop("note", None)
        return out

    @property
    def offender(self) -> str:
        offender = self.team or self.player
        assert offender is not None
        return offender

    def event(self, id: str) -> e.Offence:
        return e.Offence(id=id, infraction=self.infraction, offender=self.offender,
                         judge=self.judge, round=self.round, date=self.date,
                         details=dict(self.details), choice=_choice(self.choice))


class EndMatch(Command):
    """The end of a match or round: stacking checks for every player, or for the players
    (or teams) of one table whose match ended."""

    kind: ClassVar[str] = "end-of-match"
    round: Round | None = None
    players: list[Id] | None = Field(
        default=None, min_length=1, max_length=100,
        description="The players (or teams) whose match ended, e.g. a table's pair; "
                    "none: every player (the end of the round).")

    def payload(self) -> dict[str, Any]:
        out = super().payload()
        if self.players is None:  # stored as before for the end of a round
            out.pop("players", None)
        return out

    def event(self, id: str) -> e.EndOfMatch:
        return e.EndOfMatch(id=id, round=self.round,
                            players=None if self.players is None else tuple(self.players))


class Appeal(Command):
    """The head judge's decision on an appeal against the rulings of event `of`."""

    kind: ClassVar[str] = "appeal"
    of: Id = Field(description="The event whose rulings are appealed.")
    outcome: Literal["upheld", "overturned", "frivolous"]
    judge: Id | None = None
    choice: Choice = None

    def event(self, id: str) -> e.Appeal:
        return e.Appeal(id=id, of=self.of, outcome=self.outcome, judge=self.judge,
                        choice=_choice(self.choice))


class DecidedSanction(Command):
    """A sanction the college (or a judge) decides."""

    kind_: Id = Field(alias="kind", serialization_alias="kind")
    amount: Number | None = None
    score: Annotated[str, Field(pattern=r"^[0-9]{1,3}-[0-9]{1,3}$")] | None = None
    valid_until: Day | None = None

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Decide(Command):
    """The college's or a judge's decision on a pending ruling."""

    kind: ClassVar[str] = "decision"
    of: Id = Field(description="The event of the pending ruling.")
    judge: Id | None = None
    sanctions: list[DecidedSanction] | None = Field(
        default=None, max_length=20,
        description="For an aggravated ruling: the sanctions decided (must be stricter than "
                    "the table's).")
    choice: Choice = None
    date: Day | None = None
    result: Literal["release", "annul"] | None = Field(
        default=None, description="For a ruling that froze its fight's result: release the "
                                  "result (it counts) or annul the fight.")
    until: Day | None = Field(default=None, description="For a sanction that runs for a "
                              "term (a suspension): its last day.")
    lift: bool = Field(default=False, description="For a sanction that runs for a term: "
                       "lift it now.")

    @model_validator(mode="before")
    @classmethod
    def _past_tense(cls, value: Any) -> Any:
        # «released» / «annulled», as people also write what the decision did
        if isinstance(value, Mapping) and value.get("result") in ("released", "annulled"):
            value = {**value, "result": {"released": "release",
                                         "annulled": "annul"}[value["result"]]}
        return value

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = self.model_dump(mode="json", by_alias=True)
        for key in ("result", "until"):  # stored as before where not decided
            if out.get(key) is None:
                out.pop(key, None)
        if not out.get("lift"):
            out.pop("lift", None)
        return out

    def event(self, id: str) -> e.Decision:
        sanctions = None if self.sanctions is None else [
            {k: v for k, v in s.model_dump(mode="python", by_alias=True).items()
             if v is not None or k == "kind"} for s in self.sanctions]
        return e.Decision(id=id, of=self.of, judge=self.judge, sanctions=sanctions,
                          choice=_choice(self.choice), date=self.date, result=self.result,
                          until=self.until, lift=self.lift)


class Correct(Command):
    """A judge corrects a mistaken record: the rulings of event `of` stop counting."""

    kind: ClassVar[str] = "correction"
    of: Id = Field(description="The event whose rulings were recorded by mistake.")
    judge: Id | None = None
    reason: Text = ""

    def event(self, id: str) -> e.Correction:
        return e.Correction(id=id, of=self.of, judge=self.judge, reason=self.reason)


class RecordResult(Command):
    """A game or match result, as the scorekeeper reports it."""

    kind: ClassVar[str] = "result"
    players: tuple[Id, Id]
    score: Annotated[tuple[Points, Points], BeforeValidator(_score)]
    round: Round | None = None

    @model_validator(mode="after")
    def _two_players(self) -> RecordResult:
        if self.players[0] == self.players[1]:
            raise _custom("result.same-player")
        return self

    def event(self, id: str) -> e.Result:
        return e.Result(id=id, players=self.players, score=self.score, round=self.round)


MAX_STATEMENT = 4000  # a statement about a disqualification, in its author's words
MAX_AUTHOR = 200
MAX_RULE = 200  # the rule the head judge cites («002 §3.2»)
MAX_DECISION = 2000
StatementRole = Literal["player", "opponent", "witness", "head-judge"]
STATEMENT_ROLES: tuple[StatementRole, ...] = ("player", "opponent", "witness", "head-judge")


def _said(value: str) -> str:
    value = plain_text(value).strip()
    if not value:
        raise _custom("value.required")
    return value


def _line(value: str) -> str:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise _custom("text.control-characters")
    return value.strip()


class AddStatement(BaseModel):
    """A statement about a disqualification or suspension (services.statements): the
    event it is about, whose it is (`role`, `author`), what it says; the head judge's also
    the rule cited and the decision. Not a ledger event: it changes no ruling."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    tournament: Annotated[int, Strict(), Field(ge=1, le=2**31 - 1)]
    event: Id = Field(description="The event whose ruling disqualified or suspended.")
    role: StatementRole = Field(description="Whose statement: the disqualified player's own, "
                                "the opponent's, a witness's, or the head judge's.")
    author: Annotated[str, Strict(), Field(max_length=MAX_AUTHOR),
                      AfterValidator(_line)] = Field(
        default="", description="Whose statement it is (a name or handle); the player's by "
                                "default for `player`, the head judge's for `head-judge`.")
    text: Annotated[str, Strict(), Field(max_length=MAX_STATEMENT), AfterValidator(_said)] = \
        Field(description="The statement (the head judge's: the facts), at most 4000 "
                          "characters.")
    rule_cited: Annotated[str, Strict(), Field(max_length=MAX_RULE),
                          AfterValidator(_line)] | None = Field(
        default=None, description="The head judge's only, and required there: the rule "
                                  "cited.")
    decision: Annotated[str, Strict(), Field(max_length=MAX_DECISION),
                        AfterValidator(plain_text)] | None = Field(
        default=None, description="The head judge's only, and required there: the "
                                  "decision.")
    idempotency_key: Id | None = None


def decode_statement(raw: Any) -> AddStatement:
    """Raw input (a form, the API's body) as a statement; CommandError naming the field."""
    if not isinstance(raw, Mapping):
        raise CommandError("value.wrong-type", type="map")
    try:
        return AddStatement.model_validate(dict(raw))
    except ValidationError as exc:
        raise error_of(exc) from None


KINDS: dict[str, type[Command]] = {c.kind: c for c in (
    NewTournament, ChangeRoster, RecordInfraction, EndMatch, Appeal, Decide, Correct,
    RecordResult)}


def _choice(choice: Any) -> Any:
    return dict(choice) if isinstance(choice, Mapping) else choice


# pydantic's own error types -> our codes (and the parameters their texts name)
PYDANTIC_CODES = {
    "missing": "value.required", "string_type": "value.wrong-type",
    "int_type": "value.not-whole", "int_parsing": "value.not-whole",
    "int_from_float": "value.not-whole", "bool_type": "value.wrong-type",
    "bool_parsing": "value.wrong-type", "dict_type": "value.wrong-type",
    "list_type": "value.wrong-type", "tuple_type": "value.wrong-type",
    "model_type": "value.wrong-type", "model_attributes_type": "value.wrong-type",
    "string_too_long": "text.too-long", "string_too_short": "value.required",
    "too_long": "value.too-many", "too_short": "value.too-few",
    "less_than_equal": "value.too-large", "greater_than_equal": "value.too-small",
    "extra_forbidden": "field.unknown", "literal_error": "value.not-one-of",
    "date_type": "date.invalid", "date_parsing": "date.invalid",
    "date_from_datetime_parsing": "date.invalid", "date_from_datetime_inexact": "date.invalid",
    "string_pattern_mismatch": "value.malformed", "union_tag_invalid": "value.wrong-type",
}
# whole-command checks name the field a person would correct
FIELD_OF = {"offender.required": ["player"], "offender.both": ["team"],
            "result.same-player": ["players"], "replacement.both-players": ["by"]}
TYPE_NAMES = {"string_type": "str", "bool_type": "bool", "bool_parsing": "bool",
              "dict_type": "map", "list_type": "list", "tuple_type": "list",
              "model_type": "map", "model_attributes_type": "map"}


def error_of(exc: ValidationError, prefix: str = "") -> CommandError:
    """The first problem of a pydantic validation as a CommandError (its field path)."""
    errors = exc.errors(include_url=False)
    # a union reports every branch: the branch whose error is our own code says most
    first = next((x for x in errors if x["type"] not in PYDANTIC_CODES), errors[0])
    kind = first["type"]
    path = [str(p) for p in first["loc"] if not _is_branch(p)] or FIELD_OF.get(kind, [])
    field = ".".join([*([prefix] if prefix else []), *path])
    ctx = dict(first.get("ctx") or {})
    if kind in PYDANTIC_CODES:
        code = PYDANTIC_CODES[kind]
        params: dict[str, Any] = {}
        bound = ctx.get("le", ctx.get("ge"))
        if code in ("value.too-large", "value.too-small") and not isinstance(bound, int | float):
            return CommandError("date.out-of-range", field=field, first=str(FIRST_DAY),
                                last=str(LAST_DAY))  # the only bounds that are not numbers
        if code == "value.wrong-type":
            params["type"] = TYPE_NAMES.get(kind, "map")
        elif code == "value.too-large":
            params["max"] = float(ctx.get("le", 0))
        elif code == "value.too-small":
            params["min"] = float(ctx.get("ge", 0))
        elif code == "text.too-long":
            params["max"] = ctx.get("max_length", 0)
        elif code in ("value.too-many", "value.too-few"):
            params["max"] = ctx.get("max_length", ctx.get("min_length", 0))
        elif code == "value.not-one-of":
            params["values"] = [v.strip("'") for v in str(ctx.get("expected", "")).split(
                " or ")] if ctx.get("expected") else []
        elif code == "date.invalid":
            params["value"] = repr(first.get("input"))[:60]
        return CommandError(code, field=field, **params)
    inner = ctx.pop("at", "")  # a refusal inside the facts names the fact
    return CommandError(kind, field=".".join(p for p in (field, inner) if p), **ctx)


def _is_branch(part: Any) -> bool:
    """Union branches in an error path (`str`, `dict[...]`, `function-after[...]`)."""
    text = str(part)
    return any(text.startswith(p) for p in ("str", "dict[", "function-", "tuple[", "int",
                                            "constrained-", "lax-", "strict-", "nullable"))


def decode(kind: str, raw: Any, prefix: str = "") -> Command:
    """Raw input (a mapping of plain values) as the command `kind`; CommandError if not."""
    cls = KINDS.get(kind)
    if cls is None:
        raise CommandError("event.kind-unknown", kind=kind)
    if not isinstance(raw, Mapping):
        raise CommandError("value.wrong-type", field=prefix, type="map")
    try:
        return cls.model_validate(dict(raw))
    except ValidationError as exc:
        raise error_of(exc, prefix) from None


def known(cmd: Command, roster: e.Roster, players: Container[str] | None = None) -> None:
    """The people a command names are people of the series (`players`: the roster's players
    as a set or mapping, when the caller keeps one: a season's roster is long)."""
    entered: Container[str] = set(roster.players) if players is None else players
    judge = getattr(cmd, "judge", None)
    if judge is not None and judge not in roster.judges:
        raise CommandError("judge.unknown", field="judge", judge=judge)
    if isinstance(cmd, RecordInfraction):
        if cmd.team is not None and cmd.team not in roster.teams:
            raise CommandError("team.unknown", field="team", team=cmd.team)
        if cmd.player is not None and cmd.player not in roster.team_of and \
                cmd.player not in entered:
            raise CommandError("player.unknown", field="player", player=cmd.player)
    elif isinstance(cmd, RecordResult):
        for i, p in enumerate(cmd.players):
            if p not in entered:
                raise CommandError("player.unknown", field=f"players.{i}", player=p)
    elif isinstance(cmd, EndMatch) and cmd.players is not None:
        for i, p in enumerate(cmd.players):
            if p not in entered and p not in roster.teams:
                raise CommandError("player.unknown", field=f"players.{i}", player=p)
    elif isinstance(cmd, ChangeRoster) and cmd.replace is not None and \
            cmd.replace not in entered:
        raise CommandError("player.unknown", field="replace", player=cmd.replace)


# ---------------------------------------------------------------- the common case, at once
# A season's file is 100,000 events, nearly all of them infractions and results written the
# plain way; through pydantic each costs more than the engine's ruling on it. These take only
# what `decode` certainly accepts, with what `fits` and `known` certainly pass, and give the
# very event `decode(...).event(id)` gives; anything else (a wrong type, a limit, an unknown
# name, a field they do not take) is None, and the caller decides it the full way, which
# refuses it with its field-named error (tests/scenarios/test_fast_decode.py holds them to it).
_QUICK_INFRACTION = frozenset(("infraction", "player", "team", "round", "details", "choice"))
_QUICK_RESULT = frozenset(("players", "score", "round"))


def _is_id(value: Any) -> bool:
    """`value` passes `Id` (a text of 1-100 characters, no control character, not blank)."""
    return (type(value) is str and 0 < len(value) <= MAX_ID
            and _ID_CONTROL.search(value) is None and not value.isspace())


def _is_round(value: Any) -> bool:
    return value is None or (type(value) is int and 0 <= value <= MAX_ROUND)


def quick_event(kind: str, raw: Mapping[str, Any], id: str, book: Rulebook, roster: e.Roster,
                players: Container[str]) -> e.Event | None:
    """The event of a plain infraction or result naming known people and ids of `book`, as
    `decode`, `fits`, `known` and `event(id)` give it; None for anything else. `roster` and
    `players` are decoded ones (every name in them passes `Id`)."""
    if type(raw) is not dict:
        return None
    if kind == "infraction":
        return _quick_offence(raw, id, book, roster, players)
    if kind == "result":
        return _quick_result(raw, id, players)
    return None


def _quick_offence(raw: dict[str, Any], id: str, book: Rulebook, roster: e.Roster,
                   players: Container[str]) -> e.Offence | None:
    if not _QUICK_INFRACTION.issuperset(raw):
        return None
    # raw values, each checked below before it is used (hence Any)
    infraction: Any = raw.get("infraction")
    player: Any = raw.get("player")
    team: Any = raw.get("team")
    round_, choice = raw.get("round"), raw.get("choice")
    if not _is_id(infraction) or book.infraction(infraction) is None or not _is_round(round_):
        return None
    if (player is None) == (team is None) or not (choice is None or _is_id(choice)):
        return None
    # a name of the roster passes `Id`: the roster was decoded so (a season names its people
    # 100,000s of times: the membership is the check, and a text the roster lacks is None)
    if player is not None and not (type(player) is str and (player in roster.team_of
                                                            or player in players)):
        return None
    if team is not None and not (type(team) is str and team in roster.teams):
        return None
    details = raw.get("details")
    if details:  # most infractions state no facts
        if type(details) is not dict or not all(type(k) is str for k in details):
            return None
        try:
            details = _plain_json(details)
        except PydanticCustomError:
            return None
    elif "details" not in raw or type(details) is dict:
        details = {}
    else:
        return None  # an empty list (or such) is not a mapping of facts
    offender = team or player
    assert offender is not None  # one of them is a name (checked above)
    return e.Offence(id=id, infraction=infraction, offender=offender, round=round_,
                     details=details, choice=choice)


def _quick_result(raw: dict[str, Any], id: str, players: Container[str]) -> e.Result | None:
    if not _QUICK_RESULT.issuperset(raw) or "players" not in raw or "score" not in raw:
        return None
    pair, score, round_ = raw["players"], raw["score"], raw.get("round")
    if type(pair) is not list or len(pair) != 2 or not _is_round(round_):
        return None
    a, b = pair
    # (the roster's names pass `Id`, as in _quick_offence)
    if type(a) is not str or type(b) is not str or a == b or a not in players or \
            b not in players:
        return None
    if type(score) is not str:
        return None
    try:
        own, other = _score(score)
    except PydanticCustomError:
        return None
    if not (0 <= own <= MAX_POINTS and 0 <= other <= MAX_POINTS):
        return None
    return e.Result(id=id, players=(a, b), score=(own, other), round=round_)


SETTING_TYPES: dict[str, type | tuple[type, ...]] = {"bool": bool, "int": int, "str": str}


def fits(cmd: Command, book: Rulebook, field: str = "") -> None:
    """The ids a command uses exist in the rulebook (levels, settings, infractions)."""
    if isinstance(cmd, NewTournament):
        levels = book.level_ids()
        if cmd.level is not None and cmd.level not in levels:
            raise CommandError("level.unknown", field=_at(field, "level"), level=cmd.level,
                               levels=list(levels))
        settings(book, cmd.settings, _at(field, "settings"))
    elif isinstance(cmd, RecordInfraction) and book.infraction(cmd.infraction) is None:
        raise unknown_infraction(book, cmd.infraction)


def unknown_infraction(book: Rulebook, given: str, field: str = "infraction") -> CommandError:
    """The refusal of an infraction id the rulebook has not: with the Cyrillic letters typed
    in a Latin id named, or the nearest id the rulebook has («did you mean»)."""
    from sudya.domain.errors import unknown_infraction as refusal

    code, params = refusal((i.id for i in book.infractions), given, book.id)
    return CommandError(code, field=field, **params)


def settings(book: Rulebook, raw: Any, field: str = "settings") -> dict[str, Any]:
    """Tournament settings the rulebook declares, each of its declared type."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise CommandError("value.wrong-type", field=field, type="map")
    for key, value in raw.items():
        spec = book.settings.get(key)
        if spec is None:
            raise CommandError("setting.unknown-in", field=f"{field}.{key}", setting=key,
                               settings=list(book.settings) or ["—"])
        wanted = SETTING_TYPES[spec.type]
        if not isinstance(value, wanted) or (spec.type == "int" and isinstance(value, bool)):
            raise CommandError("value.wrong-type", field=f"{field}.{key}", type=spec.type)
    return dict(raw)


def _at(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


# ---------------------------------------------------------------- what is not a ledger event
# Setting up a series, a tournament, its people and the accounts: commands too, each with one
# handler and one permission (sudya.app.access), but not events the engine rules on (their
# ledger events, where they make one, are the roster changes and tournaments above).
Name = Annotated[str, Strict(), Field(min_length=1, max_length=200), AfterValidator(plain_id)]


def _handle(value: str) -> str:
    """A person's or team's handle in its one spelling (sudya.domain.handles)."""
    value = handles.normal(value)
    wrong = handles.problem(value)
    if wrong is not None:
        raise _custom(wrong, handle=value)
    return value


# a handle a person or team is registered under: normalised, one script, no separators
Handle = Annotated[str, Strict(), Field(min_length=1, max_length=MAX_ID),
                   AfterValidator(plain_id), AfterValidator(_handle)]
Table = Annotated[int, Strict(), Field(ge=1, le=100_000)]
Gender = Literal["m", "f"]  # a person's, where known (Russian agreement only)


class Setup(BaseModel):
    """A command that is no ledger event of its own kind: it sets something up, or is done
    beside the ledger (an appeal request, a statement, the round clock…)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class CreateSeries(Setup):
    """A series (a championship, a league) under a rulebook."""

    name: Name
    rulebook: Id


class CreateTournament(Setup):
    """A tournament of a series (by id or name); with `new_series_rulebook`, a series of that
    name is created with it when it does not exist yet."""

    series: Annotated[int, Strict(), Field(ge=1)] | Name
    name: Name
    date: Day
    level: Id | None = None
    settings: dict[str, Any] | None = None
    edition: Id | None = None
    new_series_rulebook: Id | None = None
    plan: Plan | None = None


class PairRound(Setup):
    """Sudya pairs a Swiss round from the standings (again, while it has no result); `seed`
    makes round 1's random order another one."""

    round: Annotated[int, Strict(), Field(ge=1, le=100)]
    seed: Annotated[int, Strict(), Field(ge=0, le=2**31 - 1)] | None = None


class PairTopCut(Setup):
    """The top cut's first round: the best `size` of the standings in a bracket (1 v 8,
    4 v 5, 2 v 7, 3 v 6), as round `round`."""

    round: Annotated[int, Strict(), Field(ge=1, le=100)]
    size: Literal[2, 4, 8]


class DropPlayer(Setup):
    """A player drops after a round (no more pairings), or is entered again (`after` None)."""

    player: Handle
    after: Annotated[int, Strict(), Field(ge=0, le=100)] | None


class Game(BaseModel):
    """One game of a team table: the first team's player, the second team's, and which side
    defended (a format with a defender and an attacker; none otherwise)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    a: Handle
    b: Handle
    defender: Literal["a", "b"] | None = None


class SetMatchups(Setup):
    """The captains' matchups of a team table in a round, entered by a judge: its games in
    the order matched. Each player once, every player of both teams (the smaller, when one
    has a reserve) seated; replaces what the table had, until a game has its result."""

    round: Annotated[int, Strict(), Field(ge=1, le=100)]
    table: Table
    games: list[Game] = Field(min_length=1, max_length=50)


class ReportResult(Setup):
    """A player reports the result of their own match of a round (a tournament whose plan
    lets players report): the reporter's games first. Waits for the opponent."""

    round: Annotated[int, Strict(), Field(ge=1, le=100)]
    score: Annotated[tuple[Points, Points], BeforeValidator(_score)]


class ConfirmResult(Setup):
    """The opponent answers a result reported for their match: agreed, it is entered as a
    scorekeeper would enter it; disputed, a judge enters it."""

    round: Annotated[int, Strict(), Field(ge=1, le=100)]
    agree: bool


class SetPlan(Setup):
    """A tournament's plan changed (rounds, pairing, match points, tie-breakers, top cut)."""

    plan: Plan


class AddPlayer(Setup):
    """A person registered for a tournament (created on first sight), maybe in a team."""

    handle: Handle
    name: Name | None = None
    team: Id | None = None
    table: Table | None = None
    gender: Gender | None = Field(
        default=None, description="`m` or `f` where known, for the Russian pages' "
        "agreement («дисквалифицирован», «дисквалифицирована»); unknown: a neutral form.")


class AddTeam(Setup):
    """A team (clan) of the series, with its members for this tournament."""

    handle: Handle
    name: Name | None = None
    members: list[Handle] = Field(default_factory=list, max_length=500)


class AddJudge(Setup):
    """A judge on the tournament's staff, with a role the rulebook defines."""

    handle: Handle
    role: Id
    official: bool = False
    name: Name | None = None


class ReplacePlayer(Setup):
    """A removed player's place taken (regulations.md §4 E9); a replacement not registered
    yet is registered with it (named `name`)."""

    replace: Id
    by: Handle
    name: Name | None = None
    army: Text | None = None
    coach: bool = False


class CorrectResult(Setup):
    """A result entered by mistake stops counting; with `score`, the right one is entered."""

    of: Id
    score: Annotated[tuple[Points, Points], BeforeValidator(_score)] | None = None
    judge: Id | None = None
    reason: Text = ""


class AddUser(Setup):
    """An account (its password hashed), with roles in tournaments: all of it or nothing.
    Without a password, a one-time code that sets it is the answer (an invitation)."""

    username: Id
    password: Annotated[str, Strict(), Field(min_length=8, max_length=200)] | None = None
    display_name: Name | None = None
    person: Id | None = None
    roles: list[tuple[Annotated[int, Strict(), Field(ge=1)], Id]] = Field(default_factory=list)


class AssignRole(Setup):
    """An existing account given a role (organiser, scorekeeper, player) in a tournament."""

    username: Id
    role: Id


ExtraRole = Literal["organiser", "scorekeeper", "player"]


class ImportRoster(Setup):
    """An organiser's list of players or teams (a CSV or XLSX file as uploaded), every row
    or none; `dry_run`: only say what would be added and which rows are refused."""

    kind: Literal["players", "teams"]
    filename: Annotated[str, Strict(), Field(max_length=200)] = ""
    data: Annotated[bytes, Field(max_length=2 * 1024 * 1024)]
    dry_run: bool = False


class InviteUser(Setup):
    """A new account made by a tournament's organiser, with a role in it: no password yet —
    a one-time code the organiser hands over sets it (`/welcome`), so no password passes
    through anyone else."""

    username: Id
    display_name: Name | None = None
    person: Id | None = None
    role: ExtraRole | None = None


class RemoveRole(Setup):
    """An account's role in a tournament taken away (the account stays)."""

    username: Id
    role: ExtraRole


class ResetPassword(Setup):
    """A one-time code that sets a new password for an account of the tournament (a judge
    who forgot theirs): the old password keeps working until the code is used."""

    username: Id


class AllowSeries(Setup):
    """An account may start series of its own from the web app (the owner of the database
    lets the first organiser of an install)."""

    username: Id


class FileAppeal(Setup):
    """A player (or staff for them) appeals the rulings of `event` to the head judge."""

    event: Id
    appellant: Id
    reason: Annotated[str, Strict(), Field(max_length=1000), AfterValidator(plain_text)] = ""


class ImportPairings(Setup):
    """A round's pairings from a CSV (player, opponent, table…)."""

    round: Annotated[int, Strict(), Field(ge=1, le=MAX_ROUND)]
    text: Annotated[str, Strict(), Field(max_length=5_000_000)]
    where: Text = ""


class StartRound(Setup):
    """The round clock: a round starts now and lasts `minutes`."""

    round: Round
    minutes: Annotated[int, Strict(), Field(ge=1, le=24 * 60)]


class RegisterDecklist(Setup):
    """A player's deck list as handed in, with what its check found (codes)."""

    player: Id
    text: Annotated[str, Strict(), Field(max_length=20_000)]
    fmt: Id | None = None
    findings: list[Any] = Field(default_factory=list)


class FileIncident(Setup):
    """A judge notes an incident to rule on later (or for the report)."""

    subject: Id
    text: Note
    table: Table | None = None
    round: Round | None = None


class SettleIncident(Setup):
    """An incident settled: by the ruling of `event`, or without a penalty."""

    incident: Annotated[int, Strict(), Field(ge=1)]
    event: Id | None = None
    note: Note = ""


class VerifyLedger(Setup):
    """`sudya audit verify` for a tournament's series: the chain and the rulings replayed."""


class PublishRulebook(Setup):
    """A rulebook edition published into the ledger for a series (by id or name; or the
    series of the tournament it is sent in), in force in that series' tournaments from a date
    (or the next tournament), after its cases pass. Only the administrator publishes without
    a series, and never a bundled rulebook: that one is never changed for everyone."""

    text: Annotated[str, Strict(), Field(max_length=2_000_000)]
    in_force_from: Day | None = None
    summary: Note
    cases: dict[str, Any] | None = None
    series: Annotated[int, Strict(), Field(ge=1)] | Name | None = None


class Undo(Setup):
    """A judge takes back their own ruling moments after recording it (a correction)."""

    event: Id
    reason: Text = ""


SETUP: tuple[type[Any], ...] = (
    CreateSeries, CreateTournament, AddPlayer, AddTeam, AddJudge, ReplacePlayer, CorrectResult,
    AddUser, AssignRole, FileAppeal, AddStatement, ImportPairings, StartRound, RegisterDecklist,
    FileIncident, SettleIncident, VerifyLedger, PublishRulebook, Undo, InviteUser, RemoveRole,
    ResetPassword, AllowSeries, ImportRoster, SetPlan, PairRound, DropPlayer, PairTopCut,
    SetMatchups, ReportResult, ConfirmResult)
