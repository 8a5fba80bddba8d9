"""The rulebook format: everything a penalty regulation says, as typed, immutable data.

A rulebook YAML file is loaded into :class:`Rulebook`. Formulas and conditions are parsed
here, once, and their names checked against what the rule declares.
"""

from __future__ import annotations

import datetime as dt
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

from sudya.domain.rulebook.formula import Formula, FormulaError

# Names every condition and formula may use besides the infraction's declared details.
CONTEXT_NAMES = frozenset(
    {"tournament_level", "settings", "offender", "round", "amount", "earlier_count"}
)


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
        raise ValueError("a formula or condition must be written as a string")
    try:
        return Formula(value)
    except FormulaError as exc:
        raise ValueError(str(exc)) from exc


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
            raise ValueError("prefill: opponent is for a detail of type player")
        return self

    @model_validator(mode="after")
    def _check_value_names(self) -> Detail:
        unknown = sorted(set(self.value_names) - set(self.values))
        if unknown:
            raise ValueError(f"value_names: {', '.join(unknown)} not among the values")
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
        if self.default is not None and self.default not in self.options:
            raise ValueError(f"default {self.default!r} is not one of the options "
                             f"({', '.join(self.options) or 'none'})")
        unknown = sorted(set(self.option_names) - set(self.options))
        if unknown:
            raise ValueError(f"option_names: {', '.join(unknown)} is not an option")
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
        raise ValueError("a fraction must be written as a string such as \"1/3\" or \"0.33\"")
    try:
        frac = Fraction(value)
    except (ValueError, ZeroDivisionError) as exc:
        raise ValueError(f"not a fraction: {value!r}") from exc
    if not 0 <= frac <= 1:
        raise ValueError(f"a rate must lie between 0 and 1, got {value!r}")
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
            raise ValueError(f"floor belongs to omw and ogw, not {value['id']}")
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
            raise ValueError("effects, next_match and tiebreakers need kind: match-points")
        if self.kind == "match-points" and self.order is not None:
            raise ValueError("order needs kind: points (match-points is ordered by "
                             "match_points, then the tiebreakers)")
        if self.order is not None and not self.order:
            raise ValueError("order names at least one key")
        if any(tb.id == "omw" for tb in self.tiebreakers) and self.win <= 0:
            raise ValueError("tiebreaker omw needs win > 0 (match-win rates divide by it)")
        ids = [tb.id for tb in self.tiebreakers]
        if len(set(ids)) != len(ids):
            raise ValueError("each tiebreaker is named once (each is one column of the table)")
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
        kinds = {k.id for k in self.sanctions}
        levels = {lv.id for lv in self.levels}
        problems: list[str] = []

        def kind(ref: str, where: str) -> None:
            if ref not in kinds:
                problems.append(f"{where}: sanction kind {ref!r} is not defined")

        for k in self.sanctions:
            for att in k.comes_with:
                kind(att.kind, f"sanctions.{k.id}.comes_with")
            if k.issued_only_by:
                kind(k.issued_only_by.otherwise, f"sanctions.{k.id}.issued_only_by.otherwise")
            if k.lost_while:
                kind(k.lost_while.held, f"sanctions.{k.id}.lost_while.held")
                kind(k.lost_while.becomes, f"sanctions.{k.id}.lost_while.becomes")
        for ref in self.ladder:
            kind(ref, "ladder")
        for conv in self.conversions:
            kind(conv.source_kind, "conversions.from")
            kind(conv.to, "conversions.to")
        seen: set[str] = set()
        for inf in self.infractions:
            where = f"infractions.{inf.id}"
            if inf.id in seen:
                problems.append(f"{where}: defined twice")
            seen.add(inf.id)
            names = inf.names() | frozenset(self.common_details)
            for path, outcome in _outcomes(inf):
                for sub, spec in _specs(outcome):
                    kind(spec.kind, f"{where}.{path}{sub}")
                    for f in (spec.formula, spec.when, *(w.when for w in spec.waived_when)):
                        _check_names(f, names, f"{where}.{path}{sub}", problems)
                        _check_settings(f, self.settings, f"{where}.{path}{sub}", problems)
                    if spec.kind in kinds:
                        _check_status(spec, self.kind(spec.kind), f"{where}.{path}{sub}",
                                      problems)
            for f in _conditions(inf):
                _check_names(f, names, where, problems)
                _check_settings(f, self.settings, where, problems)
            if inf.only_by:
                for role in inf.only_by.roles:
                    if role not in self.roles:
                        problems.append(f"{where}.only_by: role {role!r} is not defined")
            if inf.freezes_result:
                kind(inf.freezes_result.annul_with, f"{where}.freezes_result.annul_with")
            if isinstance(inf.penalty, dict):
                for lv in inf.penalty:
                    if lv not in levels:
                        problems.append(f"{where}.penalty: level {lv!r} is not defined")
            if inf.applies:
                for lv in inf.applies.levels:
                    if lv not in levels:
                        problems.append(f"{where}.applies.levels: level {lv!r} is not defined")
                for s in inf.applies.settings:
                    if s not in self.settings:
                        problems.append(f"{where}.applies.settings: setting {s!r} is not defined")
        for inf in self.infractions:
            if inf.cancels:
                for ref in inf.cancels.infractions:
                    if ref not in seen:
                        problems.append(f"infractions.{inf.id}.cancels: {ref!r} is not defined")
        declared = set(self.common_details).union(*(inf.details for inf in self.infractions))
        for k in self.sanctions:
            if k.scope != "tournament" and k.status is None:
                problems.append(f"sanctions.{k.id}.scope: only a sanction with a status "
                                "keeps its bearer out")
            if k.term is not None:
                detail = self.common_details.get(k.term.detail)
                if detail is None or detail.type != "date":
                    problems.append(f"sanctions.{k.id}.term: {k.term.detail!r} is not a "
                                    "declared common detail of type date")
            for carry in k.carry_over:
                if carry.detail not in declared:
                    problems.append(f"sanctions.{k.id}.carry_over: {carry.detail!r} is not a "
                                    "declared detail")
        if self.stacking:
            for name in self.stacking.given_with:
                detail = self.common_details.get(name)
                if detail is None or detail.type != "bool":
                    problems.append(f"stacking.given_with: {name!r} is not a declared common "
                                    "detail of type bool")
        for i, acc in enumerate(self.accumulation):
            _check_names(acc.when, CONTEXT_NAMES, f"accumulation[{i}].when", problems)
            _check_settings(acc.when, self.settings, f"accumulation[{i}].when", problems)
        if self.scoring:
            for ref in self.scoring.effects:
                kind(ref, "scoring.effects")
            if self.scoring.next_match:
                for name in self.scoring.next_match.details:
                    if name not in declared:
                        problems.append(f"scoring.next_match.details: {name!r} is not a "
                                        "declared detail")
        if self.appeals:
            for role in self.appeals.heard_by:
                if role not in self.roles:
                    problems.append(f"appeals.heard_by: role {role!r} is not defined")
        if problems:
            raise ValueError("; ".join(problems))
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
    out: list[tuple[str, Outcome]] = []
    if isinstance(inf.penalty, Outcome):
        out.append(("penalty", inf.penalty))
    elif isinstance(inf.penalty, dict):
        out.extend((f"penalty.{lv}", o) for lv, o in inf.penalty.items() if o is not None)
    for i, o in enumerate(inf.repeats or []):
        out.append((f"repeats[{i}]", o))
    if isinstance(inf, Infraction):
        for i, var in enumerate(inf.variants):
            out.extend((f"variants[{i}].{p}", o) for p, o in _outcomes(var))
    return out


def _specs(outcome: Outcome) -> list[tuple[str, SanctionSpec]]:
    out = [(f".sanctions[{i}]", s) for i, s in enumerate(outcome.sanctions)]
    for name, specs in outcome.options.items():
        out.extend((f".options.{name}[{i}]", s) for i, s in enumerate(specs))
    if outcome.points:
        out.extend((f".points.with[{i}]", s) for i, s in enumerate(outcome.points.with_))
    return out


def _conditions(inf: Infraction) -> list[Formula | None]:
    out: list[Formula | None] = [np.when for np in inf.no_penalty_when]
    out += [d.required_if for d in inf.details.values()]
    if inf.also_penalise:
        out.append(inf.also_penalise.when)
    if inf.freezes_result:
        out.append(inf.freezes_result.when)
    for red in inf.reductions:
        out += [red.when, red.formula]
    for var in inf.variants:
        out.append(var.when)
        out += [np.when for np in var.no_penalty_when]
    return out


def _check_settings(f: Formula | None, settings: dict[str, Setting], where: str,
                    problems: list[str]) -> None:
    if f is None:
        return
    for name in sorted(f.settings - set(settings)):
        problems.append(f"{where}: {f.source!r} reads settings[{name!r}], which the rulebook "
                        "does not declare")


def _check_status(spec: SanctionSpec, kind: SanctionKind, where: str,
                  problems: list[str]) -> None:
    status = spec.status or kind.status
    if spec.scope is not None and status is None:
        problems.append(f"{where}.scope: only a sanction with a status keeps its bearer out")
    if spec.replacement is not None and status != "removed":
        problems.append(f"{where}.replacement: only a removed player is replaced "
                        "(status: removed)")


def _check_names(f: Formula | None, names: frozenset[str], where: str,
                 problems: list[str]) -> None:
    if f is None:
        return
    unknown = sorted(f.names - names)
    if unknown:
        problems.append(
            f"{where}: {f.source!r} uses {', '.join(unknown)}, which the rule does not declare"
        )


SanctionSpec.model_rebuild()
