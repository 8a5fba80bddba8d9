"""The rulebook format: everything a penalty regulation says, as typed, immutable data.

A rulebook YAML file is loaded into :class:`Rulebook`. Formulas and conditions are parsed
here, once, and their names checked against what the rule declares.

Every refusal is a message code of `locale/codes/drafts.*.po` with its parameters, so the
web editor words it in the organiser's language: a single refusal is a pydantic error whose
`type` is the code (`_custom`); the cross-references of a whole rulebook, checked at once,
are `RefProblem`s carried by one `BrokenReferences` error. Their English text is what the
loader and the CLI show.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

from sudya.domain.rulebook.formula import Formula, FormulaError

# Names every condition and formula may use besides the infraction's declared details.
CONTEXT_NAMES = frozenset(
    {"tournament_level", "settings", "offender", "round", "amount", "earlier_count"}
)


Loc = tuple[str | int, ...]


def _custom(code: str, message: str, **ctx: Any) -> PydanticCustomError:
    """A validator's refusal as a code (pydantic reports it as the error's `type`, `ctx` as
    its parameters); `message` is its English template over `ctx` (`{name}`). `ctx["at"]`,
    where given, is the key of the model the refusal is about (`order` of `scoring`)."""
    return PydanticCustomError(code, message, ctx)


@dataclass(frozen=True)
class RefProblem:
    """A reference of a rulebook to something it does not define (or a combination that
    cannot work): its message code and parameters (ids; `choices`: the ids it may name
    instead), the key path of the offending value in the YAML as written in full (list
    items by index: ("infractions", 12, "penalty", "professional", "sanctions", 0, "kind")),
    and its English line (the loader's and the CLI's)."""

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)
    loc: Loc = ()
    text: str = ""


class BrokenReferences(ValueError):
    """Every `RefProblem` of a rulebook, raised at once; its text is their English lines."""

    def __init__(self, problems: list[RefProblem]) -> None:
        super().__init__("; ".join(p.text for p in problems))
        self.problems = tuple(problems)

    def __reduce__(self) -> tuple[Any, ...]:  # pickled (a worker process) with its problems
        return (BrokenReferences, (list(self.problems),))


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Text(Model):
    """A text in Russian (the regulation's own wording) and English."""

    ru: str
    en: str = ""

    @model_validator(mode="before")
    @classmethod
    def _from_str(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"ru": value, "en": value}
        return value

    def get(self, lang: str = "ru") -> str:
        return (self.en or self.ru) if lang == "en" else self.ru


class Note(Model):
    """An interpretation, a conflict between sources, or a remark, with where it comes from."""

    ru: str
    en: str
    source: str = ""


def _as_list(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, dict | str):
        return [value]
    return value


def _to_formula(value: Any) -> Formula:
    if isinstance(value, Formula):
        return value
    if not isinstance(value, str):
        raise _custom("draft.formula.type", "a formula or condition must be written as a string")
    try:
        return Formula(value)
    except FormulaError as exc:
        cause = exc.__cause__
        problem = cause.msg if isinstance(cause, SyntaxError) else str(exc)
        raise _custom("draft.formula.syntax", "cannot parse '{formula}': {problem}",
                      formula=value, problem=problem) from exc


# A formula or condition, parsed once at load time; in JSON it is its source text.
Expr = Annotated[
    Formula,
    PlainValidator(_to_formula),
    PlainSerializer(lambda f: f.source, return_type=str),
    WithJsonSchema({"type": "string", "description": "a formula (simpleeval syntax)"}),
]
Notes = Annotated[list[Note], BeforeValidator(_as_list)]


class Document(Model):
    title: Text
    file: str = ""


class Edition(Model):
    """One edition of the rulebook: when it was decided, what changed, when it is in force.

    `in_force_from`: `now`, `next-tournament` (from the first tournament after `date`) or a
    date; `in_force_until`: the last day it is in force, where the edition says so (without
    one it is in force until the next edition's `in_force_from`)."""

    id: str
    date: dt.date | None = None
    summary: Text | None = None
    in_force_from: Literal["now", "next-tournament"] | dt.date = "now"
    in_force_until: dt.date | None = None


class Level(Model):
    id: str
    name: Text


class Setting(Model):
    """A tournament setting rules read, e.g. whether deck lists are used."""

    name: Text
    type: Literal["bool", "int", "str"] = "bool"
    default: Any = None
    default_by_level: dict[str, Any] = {}
    source: str = ""
    interpretation: Notes = []


RoleAction = Literal["rule", "decide", "hear-appeals"]


class Role(Model):
    name: Text
    may: list[RoleAction] = []
    final: bool = False  # this role's rulings cannot be appealed
    source: str = ""
    interpretation: Notes = []


DetailType = Literal["bool", "int", "number", "str", "player", "date", "enum", "map"]


class Detail(Model):
    """A fact the rule reads from the event's `details` (a declared input)."""

    type: DetailType
    name: Text | None = None
    values: list[str] = []
    value_names: dict[str, Text] = {}  # how each enum value reads (regulations.md §4 E11)
    min: float | None = None
    max: float | None = None
    required: bool = False
    required_if: Expr | None = None
    default: Any = None
    # what the record form fills the field in with (the engine never reads it): `opponent`,
    # a `player` detail's, is the offender's opponent in the current round's pairings
    prefill: Literal["opponent"] | None = None

    @model_validator(mode="before")
    @classmethod
    def _parse(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"type": value}
        return value

    @model_validator(mode="after")
    def _check_prefill(self) -> Detail:
        if self.prefill == "opponent" and self.type != "player":
            raise _custom("draft.detail.prefill",
                          "prefill: opponent is for a detail of type player (not {type})",
                          type=self.type, at="prefill")
        return self

    @model_validator(mode="after")
    def _check_value_names(self) -> Detail:
        unknown = sorted(set(self.value_names) - set(self.values))
        if unknown:
            raise _custom("draft.detail.value-names",
                          "value_names: {unknown} not among the values ({choices})",
                          unknown=", ".join(unknown), choices=", ".join(self.values),
                          at="value_names")
        return self

    def value_text(self, value: str, lang: str = "ru") -> str:
        """An enum value in words (the value itself where the rulebook names none)."""
        name = self.value_names.get(value)
        return name.get(lang) if name is not None else value


class KindShorthand(Model):
    """A mapping with a `kind`, which YAML may write as the bare kind id."""

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"kind": value}
        return value


Status = Literal["disqualified", "suspended", "removed"]
Scope = Literal["tournament", "series"]


class SanctionSpec(KindShorthand):
    """One sanction a table gives: a kind plus its parameters."""

    kind: str
    amount: int | None = None
    formula: Expr | None = None  # amount computed from the details
    amount_from_choice: bool = False  # the judge/college sets the amount: choice {amount: N}
    score: str | None = None
    when: Expr | None = None  # only when this condition holds
    waived_when: Annotated[list[Waiver], BeforeValidator(_as_list)] = []
    subject: Literal["offender", "team"] | None = None
    # the status this sanction gives its bearer here, where its kind gives none (a removal
    # of the player, not of a model: §4 E9) or another scope than its kind's (§4 E7)
    status: Status | None = None
    scope: Scope | None = None
    replacement: Replacement | None = None  # who may take a removed player's place
    note: Text | None = None


class Replacement(Model):
    """A removed player may be replaced, by a player of the same army and/or the coach."""

    by: list[Literal["same-army", "coach"]]
    note: Note


class Waiver(Model):
    """A condition under which a sanction is not given (e.g. the captains agree to count)."""

    when: Expr
    note: Note



class PointsRange(Model):
    """A judge's choice of a point deduction `{points: -N}` with N in [least, most]."""

    least: int
    most: int
    kind: str = "points"
    with_: list[SanctionSpec] = Field(default=[], alias="with")
    name: Text | None = None  # how the range reads to people («штраф от 4 до 8 очков»)

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Outcome(Model):
    """What a table cell gives: fixed sanctions, or a choice the judge makes."""

    sanctions: list[SanctionSpec] = []
    options: dict[str, list[SanctionSpec]] = {}
    # the option given when the judge names none, at once (nothing is held pending)
    default: str | None = None
    option_names: dict[str, Text] = {}  # how an option reads to people (`min`: «минимум»)
    points: PointsRange | None = None
    amount: bool = False  # choice {amount: N} required for amount_from_choice sanctions
    note: Text | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if isinstance(value, str | list):
            return {"sanctions": _as_list(value)}
        return value

    @model_validator(mode="after")
    def _check_options(self) -> Outcome:
        if self.default is not None and not self.options:
            raise _custom("draft.outcome.default-no-options",
                          "default '{default}' is not one of the options (none)",
                          default=self.default, at="default")
        if self.default is not None and self.default not in self.options:
            raise _custom("draft.outcome.default",
                          "default '{default}' is not one of the options ({choices})",
                          default=self.default, choices=", ".join(self.options), at="default")
        unknown = sorted(set(self.option_names) - set(self.options))
        if unknown:
            raise _custom("draft.outcome.option-names",
                          "option_names: {unknown} is not an option ({choices})",
                          unknown=", ".join(unknown), choices=", ".join(self.options),
                          at="option_names")
        return self

    @property
    def is_choice(self) -> bool:
        return bool(self.options) or self.points is not None


class Applicability(Model):
    levels: list[str] = []
    settings: dict[str, Any] = {}


class NoPenalty(Model):
    """A condition under which the infraction is recorded with no penalty."""

    when: Expr
    note: Note



class AlsoPenalise(Model):
    """A second player is penalised too (e.g. both could control a trigger)."""

    detail: str = "opponent"
    when: Expr
    note: Note | None = None



class Reduction(Model):
    """An amount the college may reduce (e.g. halved once on repentance)."""

    kind: str
    when: Expr
    formula: Expr
    once_per_subject: bool = False
    note: Note



class Cancels(Model):
    """This infraction's penalty cancels earlier rulings for the same thing."""

    infractions: list[str]
    same: list[str] = []  # detail names that must match; "round" means the same round
    # whose rulings: the offender's, or either player's (the offender's and the other
    # player's: the one the detail `opponent` names, or who the same event penalised too)
    players: Literal["offender", "either"] = "offender"
    opponent: str = "opponent"
    # `earlier`: rulings recorded before this one; `either`: also those recorded after it
    # (whichever was recorded first, §4 E14)
    order: Literal["earlier", "either"] = "earlier"
    note: Note


class OnlyBy(Model):
    """Only judges of these roles may give this infraction's penalty (004: «по усмотрению
    главного судьи»); a report by anyone else, or naming no judge, is refused."""

    roles: list[str]
    note: Note


class Freeze(Model):
    """The fight's result is frozen (not counted) until a decision releases or annuls it
    (003 «Техническое поражение» п.7: «Результаты боя замораживаются до выяснения»)."""

    when: Expr | None = None
    annul_with: str  # the sanction kind a decision that annuls the fight gives
    note: Note


class Variant(Model):
    """A different table for the same infraction when a condition holds."""

    when: Expr
    name: Text | None = None
    penalty: dict[str, Outcome | None] | Outcome | None = None
    repeats: list[Outcome] | None = None
    no_penalty_when: Annotated[list[NoPenalty], BeforeValidator(_as_list)] = []
    note: Note | None = None


class Infraction(Model):
    id: str
    category: str | None = None
    name: Text
    description: Text | None = None
    items: dict[str, Text] = {}  # lettered sub-items (а, б, в...) as the regulation lists them
    source: str
    applies: Applicability | None = None
    details: dict[str, Detail] = {}
    penalty: dict[str, Outcome | None] | Outcome | None = None
    repeats: list[Outcome] | None = None
    variants: Annotated[list[Variant], BeforeValidator(_as_list)] = []
    no_penalty_when: Annotated[list[NoPenalty], BeforeValidator(_as_list)] = []
    also_penalise: AlsoPenalise | None = None
    reductions: Annotated[list[Reduction], BeforeValidator(_as_list)] = []
    cancels: Cancels | None = None
    sums: list[str] = []  # details whose earlier totals are named earlier_<detail>
    # infractions of one group count together as earlier offences (003 «Назначение каторги»:
    # attacks by an undeclared character, whichever the target, §4 E15)
    repeat_group: str | None = None
    only_by: OnlyBy | None = None
    freezes_result: Freeze | None = None
    before_calling_judge: Text | None = None
    interpretation: Notes = []
    conflicts: Notes = []
    notes: Notes = []

    def names(self) -> frozenset[str]:
        """Every name a formula or condition of this infraction may use."""
        return (
            frozenset(self.details)
            | CONTEXT_NAMES
            | {f"earlier_{name}" for name in self.sums}
        )


class Authority(Model):
    """Who may issue a sanction kind, and what is given instead when they may not."""

    roles: list[str]
    official: bool = False
    levels: list[str] = []
    otherwise: str
    note: Note


class Attachment(KindShorthand):
    """A sanction that always comes with another (or only when a condition holds)."""

    kind: str
    amount: int | None = None
    when: Expr | None = None


class LostWhile(Model):
    """The sanction turns into another while its bearer holds a valid `held` sanction."""

    held: str
    becomes: str
    note: Note


class CarryOver(Model):
    """Given between games or matches, the sanction applies to the next one."""

    detail: str
    applies_to: Literal["next-game", "next-match"]
    by_judge: bool = False  # the judge chose to carry it (shown as the judge's decision)
    note: Note


class Term(Model):
    """A sanction that runs for a term set by someone outside the tournament (002: «Срок
    приостановления членства определяет координатор»): the last day comes from the report's
    `detail`, or a later decision sets it; without one it runs until lifted by a decision.
    While it runs, its bearer is refused in every later tournament under this rulebook."""

    detail: str = "until"
    note: Note


class Unit(Model):
    """How an amount of a sanction is written: «75 руды», «−5 очков», "5 points".

    Russian gives the forms for 1, 2–4 and 5 (одно очко, два очка, пять очков), English the
    singular and the plural.
    """

    ru: Annotated[list[str], Field(min_length=3, max_length=3)]
    en: Annotated[list[str], Field(min_length=2, max_length=2)]

    def form(self, amount: int, lang: str = "ru") -> str:
        n = abs(amount)
        if lang == "en":
            return self.en[0] if n == 1 else self.en[1]
        if n % 10 == 1 and n % 100 != 11:
            return self.ru[0]
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return self.ru[1]
        return self.ru[2]

    def text(self, amount: int, lang: str = "ru") -> str:
        """The amount with its unit; a deduction with a true minus sign («−5 очков»)."""
        number = f"−{-amount}" if amount < 0 else str(amount)
        return f"{number} {self.form(amount, lang)}"


class SanctionKind(Model):
    id: str
    name: Text
    description: Text | None = None
    rank: int
    comes_with: Annotated[list[Attachment], BeforeValidator(_as_list)] = []
    status: Status | None = None
    # how long its status keeps the bearer out: this tournament, or the rest of the series
    scope: Scope = "tournament"
    lands_on: Literal["offender", "team"] = "offender"
    flag: bool = False  # a note for officials: not counted as a punishment
    tally: Literal["points", "ore"] | None = None
    amount: Literal["none", "required", "optional"] = "none"
    unit: Unit | None = None  # how its amount is written (E11: «75 руды», «−5 очков»)
    expires: bool = True
    issued_only_by: Authority | None = None
    term: Term | None = None
    lost_while: LostWhile | None = None
    carry_over: Annotated[list[CarryOver], BeforeValidator(_as_list)] = []
    source: str = ""
    interpretation: Notes = []


class RepeatPolicy(Model):
    """How a repeat of the same infraction by the same subject is punished."""

    mode: Literal["escalate", "table"]
    scope: Literal["tournament", "validity"] = "tournament"
    source: str = ""
    note: Note | None = None


class Stacking(Model):
    """N penalties of one rank for N different infractions give the next rank."""

    at: Literal["end-of-match"] = "end-of-match"
    count: int = 3
    counts_attached: bool = False
    counts_derived: bool = True
    consumes: bool = True
    # the common details a stacking penalty is given with (each true): given `at` the end of
    # the match, it is given between matches, and a sanction's `carry_over` for such a detail
    # names what it applies to (e.g. the next game)
    given_with: list[str] = []
    source: str = ""
    interpretation: Notes = []


class Conversion(Model):
    """N sanctions of one kind convert into one of another (2 warnings = 1 yellow card)."""

    source_kind: str = Field(alias="from")
    count: int
    to: str
    pool: Literal["team", "subject"] = "team"
    source: str = ""
    interpretation: Notes = []

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Accumulation(Model):
    """A team is sanctioned when N punished violations of it or its members are valid at once."""

    count: int
    ignore: list[str] = []  # sanction kinds that do not make a ruling count
    gives: list[SanctionSpec]
    # a ruling counts only when this holds in the tournament it was made in (its settings)
    when: Expr | None = None
    source: str = ""
    interpretation: Notes = []


class Validity(Model):
    months: int
    between_stages_detail: str = "between_stages"
    next_tournament_detail: str = "next_tournament"
    source: str = ""
    interpretation: Notes = []


class Aggravation(Model):
    """While a subject holds a valid sanction, the next one must be stricter: decided later."""

    decided_by: list[str] = []  # roles
    source: str = ""
    interpretation: Notes = []


class Appeals(Model):
    heard_by: list[str]
    frivolous: Outcome | None = None
    source: str = ""
    interpretation: Notes = []


ScoreEffect = Literal["lose-game", "lose-match", "void"]
RulingCause = Literal["table", "repeat", "stacking", "conversion", "accumulation",
                      "aggravation", "discretion", "decision", "appeal", "cancellation",
                      "correction"]


def _fraction(value: Any) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise _custom("draft.fraction.type",
                      'a fraction must be written as a string such as "1/3" or "0.33"')
    try:
        frac = Fraction(value)
    except (ValueError, ZeroDivisionError) as exc:
        raise _custom("draft.fraction.invalid", "not a fraction: '{value}'",
                      value=value) from exc
    if not 0 <= frac <= 1:
        raise _custom("draft.fraction.range", "a rate must lie between 0 and 1, got '{value}'",
                      value=value)
    return value


class NextMatch(Model):
    """Rulings whose result effects land on the subject's match of the next round."""

    details: list[str] = []  # a ruling whose details hold one of these (true), e.g. between matches
    causes: list[RulingCause] = []  # rulings of these causes, e.g. stacking at the end of a match
    note: Note | None = None


class Tiebreaker(Model):
    """A tiebreaker after match points; the rulebook's order is the order they break ties in.

    `omw`: opponents' match-win percentage, each opponent's rate at least `floor` (default 0);
    `gw`: the player's game-win percentage (games won of games played); `ogw`: opponents'
    game-win percentage, each opponent's rate at least `floor` (default 1/3, as in the MTG
    tournament rules); `buchholz`: the sum of the opponents' match points; `sb`
    (Sonneborn–Berger): the match points of the opponents beaten, and half those of the
    opponents drawn with. `floor` belongs to `omw` and `ogw` only.
    """

    id: Literal["omw", "gw", "ogw", "buchholz", "sb"]
    floor: Annotated[str, BeforeValidator(_fraction)] = "0"  # least rate counted per opponent
    source: str = ""
    note: Note | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = {"id": value}
        if isinstance(value, dict) and "floor" not in value:
            if value.get("id") == "ogw":  # MTG: each opponent's game-win rate at least 1/3
                value = {**value, "floor": "1/3"}
        elif isinstance(value, dict) and value.get("id") in ("gw", "buchholz", "sb"):
            raise _custom("draft.tiebreaker.floor",
                          "floor belongs to omw and ogw, not {tiebreaker}",
                          tiebreaker=value["id"], at="floor")
        return value


class Scoring(Model):
    """How game results score (used by standings).

    `points`: a result is a game scored on a shared scale (each side's points count).
    `match-points`: a result is a match (or fight) scored in games won; the winner gets `win`
    points, a draw `draw`, a loss `loss`; `effects` say what sanction kinds do to the match of
    the round they are given in (or of the next round, see `next_match`).
    """

    kind: Literal["points", "match-points"]
    scale: int | None = None  # points shared in a game (e.g. 20)
    win: int = 3
    draw: int = 1
    loss: int = 0
    effects: dict[str, ScoreEffect] = {}  # sanction kind -> what it does to the match
    next_match: NextMatch | None = None
    tiebreakers: Annotated[list[Tiebreaker], BeforeValidator(_as_list)] = []
    # `points`: the keys of a line the table is ordered by, the higher first, each breaking
    # the ties of the ones before, then the id (default: total); `match-points` is ordered by
    # match_points, then the tiebreakers
    order: list[Literal["total", "game_points", "deductions"]] | None = None
    # statuses whose bearers take no place: listed after everyone placed, with `place: null`
    unplaced: list[Status] = []
    source: str = ""
    interpretation: Notes = []

    @model_validator(mode="after")
    def _check(self) -> Scoring:
        if self.kind == "points" and (self.effects or self.tiebreakers or self.next_match):
            at = next(k for k in ("effects", "next_match", "tiebreakers") if getattr(self, k))
            raise _custom("draft.scoring.needs-match-points",
                          "effects, next_match and tiebreakers need kind: match-points",
                          at=at)
        if self.kind == "match-points" and self.order is not None:
            raise _custom("draft.scoring.order-needs-points",
                          "order needs kind: points (match-points is ordered by "
                          "match_points, then the tiebreakers)", at="order")
        if self.order is not None and not self.order:
            raise _custom("draft.scoring.order-empty", "order names at least one key",
                          at="order")
        if any(tb.id == "omw" for tb in self.tiebreakers) and self.win <= 0:
            raise _custom("draft.scoring.omw-win",
                          "tiebreaker omw needs win > 0 (match-win rates divide by it)",
                          at="win")
        ids = [tb.id for tb in self.tiebreakers]
        twice = next((i for n, i in enumerate(ids) if i in ids[:n]), None)
        if twice is not None:
            raise _custom("draft.scoring.tiebreaker-twice",
                          "each tiebreaker is named once (each is one column of the table): "
                          "{tiebreaker} is named twice", tiebreaker=twice, at="tiebreakers")
        return self


class DeckFormat(Model):
    """Deck construction of one format (the numbers a deck list is checked against)."""

    name: Text
    main_min: int | None = None
    main_max: int | None = None
    additional_max: int | None = None
    copies: int = 3
    horde_unlimited: bool = True  # «Орда»: no limit on copies
    restricted_max: int = 1  # default limit for a card the card list marks restricted
    source: str = ""
    interpretation: Notes = []


class SquadRules(Model):
    """Squad building: crystals per seat, flyers, uniqueness, terrain (000 §7.4)."""

    budgets: dict[str, dict[Literal["gold", "silver"], int]]
    flyer_limit: int
    unique: bool = True
    one_terrain: bool = True
    source: str = ""
    interpretation: Notes = []


class JudgeCall(Model):
    """What a player must do before calling a judge, and what may follow."""

    reason: Text
    requirement: Text
    penalty: Text


class Rulebook(Model):
    id: str
    title: Text
    edition: str
    editions: list[Edition] = []
    documents: dict[str, Document] = {}
    levels: list[Level] = []
    settings: dict[str, Setting] = {}
    roles: dict[str, Role] = {}
    common_details: dict[str, Detail] = {}  # inputs every infraction of this rulebook reads
    sanctions: list[SanctionKind]
    ladder: list[str] = []
    repeats: RepeatPolicy
    no_penalty_after_disqualification: Note | None = None
    stacking: Stacking | None = None
    conversions: list[Conversion] = []
    accumulation: list[Accumulation] = []
    validity: Validity | None = None
    aggravation: Aggravation | None = None
    appeals: Appeals | None = None
    scoring: Scoring | None = None
    infractions: list[Infraction]
    judge_calls: list[JudgeCall] = []
    formats: dict[str, DeckFormat] = {}
    squad: SquadRules | None = None
    notes: Notes = []

    @model_validator(mode="after")
    def _check_references(self) -> Rulebook:
        """Every reference to a sanction kind, a level, a role, a setting, a detail or an
        infraction the rulebook does not define, all at once (`BrokenReferences`)."""
        kinds = [k.id for k in self.sanctions]
        levels = [lv.id for lv in self.levels]
        problems: list[RefProblem] = []

        def problem(code: str, loc: Loc, text: str, **params: Any) -> None:
            problems.append(RefProblem(code, params, loc, text))

        def kind(ref: str, where: str, loc: Loc) -> None:
            if ref not in kinds:
                problem("draft.ref.kind", loc, f"{where}: sanction kind {ref!r} is not defined",
                        kind=ref, choices=tuple(kinds))

        for n, k in enumerate(self.sanctions):
            at: Loc = ("sanctions", n)
            for i, att in enumerate(k.comes_with):
                kind(att.kind, f"sanctions.{k.id}.comes_with", (*at, "comes_with", i, "kind"))
            if k.issued_only_by:
                kind(k.issued_only_by.otherwise, f"sanctions.{k.id}.issued_only_by.otherwise",
                     (*at, "issued_only_by", "otherwise"))
            if k.lost_while:
                kind(k.lost_while.held, f"sanctions.{k.id}.lost_while.held",
                     (*at, "lost_while", "held"))
                kind(k.lost_while.becomes, f"sanctions.{k.id}.lost_while.becomes",
                     (*at, "lost_while", "becomes"))
        for i, ref in enumerate(self.ladder):
            kind(ref, "ladder", ("ladder", i))
        for i, conv in enumerate(self.conversions):
            kind(conv.source_kind, "conversions.from", ("conversions", i, "from"))
            kind(conv.to, "conversions.to", ("conversions", i, "to"))
        seen: set[str] = set()
        for n, inf in enumerate(self.infractions):
            where = f"infractions.{inf.id}"
            at = ("infractions", n)
            if inf.id in seen:
                problem("draft.ref.infraction-twice", (*at, "id"), f"{where}: defined twice",
                        id=inf.id)
            seen.add(inf.id)
            names = inf.names() | frozenset(self.common_details)
            for path, out_loc, outcome in _outcome_locs(inf):
                for sub, spec_loc, spec in _spec_locs(outcome):
                    here, loc = f"{where}.{path}{sub}", (*at, *out_loc, *spec_loc)
                    kind(spec.kind, here, (*loc, "kind"))
                    formulas: list[tuple[Loc, Formula | None]] = [
                        ((*loc, "formula"), spec.formula), ((*loc, "when"), spec.when),
                        *(((*loc, "waived_when", i, "when"), w.when)
                          for i, w in enumerate(spec.waived_when))]
                    for f_loc, f in formulas:
                        _check_names(f, names, here, f_loc, problems)
                        _check_settings(f, self.settings, here, f_loc, problems)
                    if spec.kind in kinds:
                        _check_status(spec, self.kind(spec.kind), here, loc, problems)
            for f_loc, f in _condition_locs(inf):
                _check_names(f, names, where, (*at, *f_loc), problems)
                _check_settings(f, self.settings, where, (*at, *f_loc), problems)
            if inf.only_by:
                for i, role in enumerate(inf.only_by.roles):
                    if role not in self.roles:
                        problem("draft.ref.role", (*at, "only_by", "roles", i),
                                f"{where}.only_by: role {role!r} is not defined",
                                role=role, choices=tuple(self.roles))
            if inf.freezes_result:
                kind(inf.freezes_result.annul_with, f"{where}.freezes_result.annul_with",
                     (*at, "freezes_result", "annul_with"))
            if isinstance(inf.penalty, dict):
                for lv in inf.penalty:
                    if lv not in levels:
                        problem("draft.ref.level", (*at, "penalty", lv),
                                f"{where}.penalty: level {lv!r} is not defined",
                                level=lv, choices=tuple(levels))
            if inf.applies:
                for i, lv in enumerate(inf.applies.levels):
                    if lv not in levels:
                        problem("draft.ref.level", (*at, "applies", "levels", i),
                                f"{where}.applies.levels: level {lv!r} is not defined",
                                level=lv, choices=tuple(levels))
                for s in inf.applies.settings:
                    if s not in self.settings:
                        problem("draft.ref.setting", (*at, "applies", "settings", s),
                                f"{where}.applies.settings: setting {s!r} is not defined",
                                setting=s, choices=tuple(self.settings))
        for n, inf in enumerate(self.infractions):
            if inf.cancels:
                for i, ref in enumerate(inf.cancels.infractions):
                    if ref not in seen:
                        problem("draft.ref.infraction",
                                ("infractions", n, "cancels", "infractions", i),
                                f"infractions.{inf.id}.cancels: {ref!r} is not defined",
                                infraction=ref, choices=tuple(sorted(seen)))
        declared = set(self.common_details).union(*(inf.details for inf in self.infractions))

        def common(name: str, type_: str, where: str, loc: Loc) -> None:
            detail = self.common_details.get(name)
            if detail is None or detail.type != type_:
                problem("draft.ref.common-detail", loc,
                        f"{where}: {name!r} is not a declared common detail of type {type_}",
                        detail=name, type=type_,
                        choices=tuple(n for n, d in self.common_details.items()
                                      if d.type == type_))

        for n, k in enumerate(self.sanctions):
            if k.scope != "tournament" and k.status is None:
                problem("draft.ref.scope-no-status", ("sanctions", n, "scope"),
                        f"sanctions.{k.id}.scope: only a sanction with a status keeps its "
                        "bearer out", kind=k.id)
            if k.term is not None:
                common(k.term.detail, "date", f"sanctions.{k.id}.term",
                       ("sanctions", n, "term", "detail"))
            for i, carry in enumerate(k.carry_over):
                if carry.detail not in declared:
                    problem("draft.ref.detail", ("sanctions", n, "carry_over", i, "detail"),
                            f"sanctions.{k.id}.carry_over: {carry.detail!r} is not a "
                            "declared detail", detail=carry.detail, choices=tuple(sorted(declared)))
        if self.stacking:
            for i, name in enumerate(self.stacking.given_with):
                common(name, "bool", "stacking.given_with", ("stacking", "given_with", i))
        for i, acc in enumerate(self.accumulation):
            loc = ("accumulation", i, "when")
            _check_names(acc.when, CONTEXT_NAMES, f"accumulation[{i}].when", loc, problems)
            _check_settings(acc.when, self.settings, f"accumulation[{i}].when", loc, problems)
        if self.scoring:
            for ref in self.scoring.effects:
                kind(ref, "scoring.effects", ("scoring", "effects", ref))
            if self.scoring.next_match:
                for i, name in enumerate(self.scoring.next_match.details):
                    if name not in declared:
                        problem("draft.ref.detail", ("scoring", "next_match", "details", i),
                                f"scoring.next_match.details: {name!r} is not a declared "
                                "detail", detail=name, choices=tuple(sorted(declared)))
        if self.appeals:
            for i, role in enumerate(self.appeals.heard_by):
                if role not in self.roles:
                    problem("draft.ref.role", ("appeals", "heard_by", i),
                            f"appeals.heard_by: role {role!r} is not defined",
                            role=role, choices=tuple(self.roles))
        if problems:
            raise BrokenReferences(problems)
        return self

    # Lookups used on every event are built once.
    def model_post_init(self, __context: Any) -> None:
        object.__setattr__(self, "_kinds", {k.id: k for k in self.sanctions})
        object.__setattr__(self, "_infractions", {i.id: i for i in self.infractions})
        # an infraction -> the key its repeats are counted under (its group's, or its own)
        object.__setattr__(self, "_repeat_keys", {
            i.id: f"group:{i.repeat_group}" if i.repeat_group else i.id
            for i in self.infractions})
        # an infraction -> the infractions that cancel it even when recorded before it
        cancelled_by: dict[str, list[Infraction]] = {}
        for inf in self.infractions:
            if inf.cancels is not None and inf.cancels.order == "either":
                for target in inf.cancels.infractions:
                    cancelled_by.setdefault(target, []).append(inf)
        object.__setattr__(self, "_cancelled_by", cancelled_by)

    def kind(self, kind_id: str) -> SanctionKind:
        kinds: dict[str, SanctionKind] = self._kinds  # type: ignore[attr-defined]
        return kinds[kind_id]

    def repeat_key(self, infraction_id: str) -> str:
        """The key an infraction's earlier offences are counted under: its repeat group's
        (infractions of a group count together), or its own id."""
        keys: dict[str, str] = self._repeat_keys  # type: ignore[attr-defined]
        return keys.get(infraction_id, infraction_id)

    def cancelled_by(self, infraction_id: str) -> list[Infraction]:
        """The infractions whose penalty cancels one of `infraction_id` recorded after it."""
        found: dict[str, list[Infraction]] = self._cancelled_by  # type: ignore[attr-defined]
        return found.get(infraction_id, [])

    def infraction(self, infraction_id: str) -> Infraction | None:
        infs: dict[str, Infraction] = self._infractions  # type: ignore[attr-defined]
        return infs.get(infraction_id)

    def level_ids(self) -> list[str]:
        return [lv.id for lv in self.levels]


def _outcomes(inf: Infraction | Variant) -> list[tuple[str, Outcome]]:
    return [(path, o) for path, _loc, o in _outcome_locs(inf)]


def _outcome_locs(inf: Infraction | Variant) -> list[tuple[str, Loc, Outcome]]:
    """Every table cell of an infraction: its path in words (`variants[0].penalty.low`), its
    key path in the YAML (list items by index) and the outcome."""
    out: list[tuple[str, Loc, Outcome]] = []
    if isinstance(inf.penalty, Outcome):
        out.append(("penalty", ("penalty",), inf.penalty))
    elif isinstance(inf.penalty, dict):
        out.extend((f"penalty.{lv}", ("penalty", lv), o)
                   for lv, o in inf.penalty.items() if o is not None)
    for i, o in enumerate(inf.repeats or []):
        out.append((f"repeats[{i}]", ("repeats", i), o))
    if isinstance(inf, Infraction):
        for i, var in enumerate(inf.variants):
            out.extend((f"variants[{i}].{p}", ("variants", i, *loc), o)
                       for p, loc, o in _outcome_locs(var))
    return out


def _specs(outcome: Outcome) -> list[tuple[str, SanctionSpec]]:
    return [(sub, s) for sub, _loc, s in _spec_locs(outcome)]


def _spec_locs(outcome: Outcome) -> list[tuple[str, Loc, SanctionSpec]]:
    """Every sanction of a table cell: its path in words, its key path and the sanction."""
    out: list[tuple[str, Loc, SanctionSpec]] = [
        (f".sanctions[{i}]", ("sanctions", i), s) for i, s in enumerate(outcome.sanctions)]
    for name, specs in outcome.options.items():
        out.extend((f".options.{name}[{i}]", ("options", name, i), s)
                   for i, s in enumerate(specs))
    if outcome.points:
        out.extend((f".points.with[{i}]", ("points", "with", i), s)
                   for i, s in enumerate(outcome.points.with_))
    return out


def _condition_locs(inf: Infraction) -> list[tuple[Loc, Formula | None]]:
    """Every condition and formula of an infraction outside its table cells, with its key
    path."""
    out: list[tuple[Loc, Formula | None]] = [
        (("no_penalty_when", i, "when"), np.when) for i, np in enumerate(inf.no_penalty_when)]
    out += [(("details", name, "required_if"), d.required_if)
            for name, d in inf.details.items()]
    if inf.also_penalise:
        out.append((("also_penalise", "when"), inf.also_penalise.when))
    if inf.freezes_result:
        out.append((("freezes_result", "when"), inf.freezes_result.when))
    for i, red in enumerate(inf.reductions):
        out += [(("reductions", i, "when"), red.when), (("reductions", i, "formula"),
                                                          red.formula)]
    for i, var in enumerate(inf.variants):
        out.append((("variants", i, "when"), var.when))
        out += [(("variants", i, "no_penalty_when", j, "when"), np.when)
                for j, np in enumerate(var.no_penalty_when)]
    return out


def _check_settings(f: Formula | None, settings: dict[str, Setting], where: str, loc: Loc,
                    problems: list[RefProblem]) -> None:
    if f is None:
        return
    for name in sorted(f.settings - set(settings)):
        problems.append(RefProblem(
            "draft.ref.setting-read", {"formula": f.source, "setting": name,
                                       "choices": tuple(settings)}, loc,
            f"{where}: {f.source!r} reads settings[{name!r}], which the rulebook does not "
            "declare"))


def _check_status(spec: SanctionSpec, kind: SanctionKind, where: str, loc: Loc,
                  problems: list[RefProblem]) -> None:
    status = spec.status or kind.status
    if spec.scope is not None and status is None:
        problems.append(RefProblem(
            "draft.ref.scope-no-status", {"kind": kind.id}, (*loc, "scope"),
            f"{where}.scope: only a sanction with a status keeps its bearer out"))
    if spec.replacement is not None and status != "removed":
        problems.append(RefProblem(
            "draft.ref.replacement", {"kind": kind.id}, (*loc, "replacement"),
            f"{where}.replacement: only a removed player is replaced (status: removed)"))


def _check_names(f: Formula | None, names: frozenset[str], where: str, loc: Loc,
                 problems: list[RefProblem]) -> None:
    if f is None:
        return
    unknown = sorted(f.names - names)
    if unknown:
        problems.append(RefProblem(
            "draft.ref.names", {"formula": f.source, "names": ", ".join(unknown),
                                "choices": tuple(sorted(names))}, loc,
            f"{where}: {f.source!r} uses {', '.join(unknown)}, which the rule does not declare"))


SanctionSpec.model_rebuild()
