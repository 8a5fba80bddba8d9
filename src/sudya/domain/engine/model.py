"""What the engine reads and writes: events in, rulings out."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

FOREVER = dt.date.max
# causes of the rulings other rulings trigger (they use up or count what those gave)
DERIVED = ("stacking", "conversion", "accumulation")


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a ruling is what it is, as data: a stable code, its parameters and the source.

    Text is rendered only at the edge, from the catalogues (`sudya.i18n.messages`) and from the
    rulebook's own wording; nothing parses it back. Parameters are plain JSON values.
    """

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"code": self.code, "params": dict(self.params), "source": self.source}

    def __reduce__(self) -> tuple[Any, ...]:
        # a snapshot holds one per note of every ruling: rebuilt by the constructor, twice
        # as fast to unpickle as dataclasses' __setstate__ for frozen classes (which looks
        # the fields up again for each object)
        return Reason, (self.code, self.params, self.source)


@dataclass(frozen=True, slots=True)
class Judge:
    id: str
    role: str
    official: bool = False


@dataclass(slots=True)
class Roster:
    """The people of a series: players, teams (with their members) and judges."""

    players: list[str]
    teams: dict[str, list[str]] = field(default_factory=dict)
    judges: dict[str, Judge] = field(default_factory=dict)
    team_of: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for team, members in self.teams.items():
            for member in members:
                self.team_of.setdefault(member, team)


@dataclass(frozen=True, slots=True)
class Tournament:
    index: int
    date: dt.date
    level: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Offence:
    """A judge reports an infraction by a player (or a team)."""

    id: str
    infraction: str
    offender: str
    judge: str | None = None
    round: int | None = None
    date: dt.date | None = None
    details: dict[str, Any] = field(default_factory=dict)
    choice: Any = None


@dataclass(frozen=True, slots=True)
class EndOfMatch:
    """The end of a match: stacking checks for `players` (a table's), or for everyone."""

    id: str
    round: int | None = None
    players: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class NewTournament:
    id: str
    date: dt.date
    level: str | None = None
    settings: dict[str, Any] | None = None
    rulebook: Any = None  # the edition in force from this tournament, when it changes


@dataclass(frozen=True, slots=True)
class Replacement:
    """A removed player's place taken by another: a player of the same army, or the coach."""

    removed: str
    by: str
    army: str | None = None
    coach: bool = False


@dataclass(frozen=True, slots=True)
class RosterChange:
    """People join the series: players, a team's members (for this tournament), judges;
    a removed player replaced."""

    id: str
    players: tuple[str, ...] = ()
    teams: dict[str, list[str]] = field(default_factory=dict)
    judges: dict[str, Judge] = field(default_factory=dict)
    replacements: tuple[Replacement, ...] = ()


@dataclass(frozen=True, slots=True)
class Correction:
    """A judge corrects a mistaken record: the rulings of event `of` stop counting."""

    id: str
    of: str
    judge: str | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Decision:
    """The college's or a judge's decision on a pending ruling; or on a frozen fight's
    result (`result`: release or annul it, §4 E18); or on a sanction's term (`until` sets
    its last day, `lift` ends it, §4 E13)."""

    id: str
    of: str
    judge: str | None = None
    sanctions: list[dict[str, Any]] | None = None
    choice: Any = None
    date: dt.date | None = None
    result: str | None = None
    until: dt.date | None = None
    lift: bool = False


@dataclass(frozen=True, slots=True)
class Appeal:
    id: str
    of: str
    outcome: str
    judge: str | None = None
    choice: Any = None


@dataclass(frozen=True, slots=True)
class Result:
    id: str
    players: tuple[str, str]
    score: tuple[int, int]
    round: int | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        return Result, (self.id, self.players, self.score, self.round)  # as Reason's


Event = (Offence | EndOfMatch | NewTournament | Decision | Appeal | Result | Correction
         | RosterChange)


@dataclass(slots=True, eq=False)
class Sanction:
    """One sanction given to one subject; revoked ones stop counting everywhere."""

    kind: str
    subject: str
    rank: int
    amount: int | None = None
    score: str | None = None
    attached: bool = False
    valid_until: dt.date | None = None  # None: the rulebook has no validity windows
    status: str | None = None  # what it makes its bearer: disqualified, suspended, removed
    scope: str = "tournament"  # how long that status keeps them out: or the whole series
    replaceable_by: tuple[str, ...] = ()  # a removed player's place: same-army, coach
    revoked: bool = False
    consumed: bool = False  # used up by stacking or a conversion
    seq: int = 0
    ruling: Ruling | None = None
    revoked_by: Ruling | None = None
    ref: Any = None  # the ledger's key for this sanction, once stored

    def valid_on(self, day: dt.date) -> bool:
        return not self.revoked and (self.valid_until is None or self.valid_until >= day)


# the codes of the reasons that say what a ruling does beyond its sanctions, read back by the
# views and the standings (codes are data: nothing parses their text)
FROZEN = "result.frozen"  # the fight's result is frozen until a decision (§4 E18)
TERM_LIFTED = "term.lifted"  # a decision lifted the term of a sanction (§4 E13)


def is_frozen(r: Ruling) -> bool:
    """Whether a ruling still holds its fight's result frozen (no decision on it yet)."""
    return r.resolved_by is None and not r.revoked and any(n.code == FROZEN for n in r.notes)


def lifted(rulings: Iterable[Ruling]) -> set[tuple[str, str]]:
    """(subject, event) of the rulings whose sanctions' terms a decision lifted."""
    return {(r.subject, r.resolves) for r in rulings
            if r.resolves is not None and r.cause == "decision" and not r.revoked
            and any(n.code == TERM_LIFTED for n in r.notes)}


@dataclass(frozen=True, slots=True)
class ChoiceOption:
    """One named choice of a judge's-choice range, with the sanctions it would give."""

    choice: str
    sanctions: tuple[Sanction, ...]


@dataclass(frozen=True, slots=True)
class PointsOption:
    """A deduction the judge picks between `least` and `most`, with the kinds it brings."""

    least: int
    most: int
    with_: tuple[str, ...] = ()


# what a pending ruling offers: the table's sanctions (aggravation) or the choices of a range;
# rulings read back from the ledger carry the stored JSON of the same
Offered = Sanction | ChoiceOption | PointsOption | dict[str, Any]


@dataclass(slots=True, eq=False)
class Ruling:
    event: str
    subject: str
    infraction: str | None
    cause: str
    sanctions: list[Sanction] = field(default_factory=list)
    pending: bool = False
    offered: Sequence[Offered] | None = None
    # its reasons: a tuple, shared by the rulings whose reasons are the same (most of an
    # infraction's rulings show only its source and interpretations), so never changed in
    # place: `add_notes` gives the ruling a longer one (a list of its own each was one
    # object in six of a clan season's state)
    notes: Sequence[Reason] = ()
    revokes: str | None = None
    resolves: str | None = None
    resolved_by: str | None = None
    aggravated: bool = False
    applies_to: dict[str, str] | None = None
    tournament: int = 0
    round: int | None = None
    date: dt.date | None = None
    judge: str | None = None
    edition: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    # what a derived ruling consumed; most rulings are not derived and share the empty
    # tuple (an empty list each was one object in eight of a season's state and snapshot)
    uses: Sequence[Sanction] = ()
    appealed: bool = False
    revoked: bool = False
    seq: int = 0
    ref: Any = None  # the ledger's key for this ruling, once stored

    @property
    def derived(self) -> bool:
        return self.cause in DERIVED

    def add_notes(self, *reasons: Reason) -> None:
        """More reasons after those the ruling has (a new tuple: its notes may be shared)."""
        self.notes = (*self.notes, *reasons)
