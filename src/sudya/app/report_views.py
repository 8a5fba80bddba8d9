"""What the paper reports show: typed read models, one per report, in the report's language.

A report is a document in one language: its rulebook names, causes and reasons are rendered
once, by the service that builds it (`services.reports`), from the message catalogues and the
rulebook's own wording; ids and codes stay beside the words (`kind`, `infraction`,
`reason_codes`) so a program reading the JSON never parses text. The HTML page, the PDF, the
JSON and the CSV of a report all come from the one view (`sudya.edges.reports` renders them).
Words of the page itself (headings, column labels, statuses) come from the page catalogue
(locale/ru.po) when the report is rendered.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from sudya.app.views import DisqualificationView, ReasonView, StatementView, View

Lang = Literal["ru", "en"]


class EventInfo(View):
    """The tournament a report is about: its rulebook and edition, level, date, series."""

    id: int
    name: str
    series: str
    position: int = Field(description="Its place in the series: 0, 1, 2…")
    rulebook: str
    rulebook_title: str
    edition: str
    level: str | None
    level_name: str | None
    date: dt.date
    chain_head: str | None = Field(default=None, description="The series' hash chain head "
                                   "as the report was made: a copy on paper, outside the "
                                   "database, that `sudya audit verify --head` checks later.")
    chain_seq: int = Field(default=0, description="The series' last event then.")


class StaffMember(View):
    """A person working at the tournament, with every role they hold: a judge's of the staff
    list (the rulebook's), an organiser's or scorekeeper's account."""

    handle: str
    name: str
    roles: list[str]
    role_names: list[str]
    official: bool = Field(default=False, description="An official representative (a role "
                           "some sanctions need).")


class ReportSanction(View):
    """A sanction as the report names it."""

    kind: str
    name: str
    amount: int | None = None
    amount_text: str = ""
    score: str | None = None
    attached: bool = False
    subject: str | None = Field(default=None, description="Who bears it, when not the "
                                "ruling's subject.")
    subject_name: str | None = None
    valid_until: dt.date | None = None
    revoked: bool = Field(default=False, description="Revoked since (an appeal, a "
                          "correction, a cancellation).")
    state: str | None = Field(default=None, description="In a player's record: valid, "
                              "expired, revoked or recorded on the day asked.")


class ReportRuling(View):
    """One ruling of the tournament, in the order the engine gave them."""

    event: str
    at: dt.datetime | None = Field(description="When its event was recorded (UTC).")
    round: int | None
    table: int | None = Field(description="The subject's table in that round (the round's "
                              "pairings, else the seat registered); null: unknown.")
    subject: str
    subject_name: str
    infraction: str | None
    infraction_name: str
    cause: str
    cause_text: str
    judge: str | None
    judge_name: str | None
    sanctions: list[ReportSanction]
    reasons: list[str] = Field(description="The reasons in the report's language.")
    reason_codes: list[ReasonView] = Field(description="The same reasons as codes.")
    source: str = Field(default="", description="Where the rule is written, in words.")
    pending: bool = False
    aggravated: bool = False
    revokes: str | None = None
    resolves: str | None = None
    resolved_by: str | None = None
    note: str = Field(default="", description="The judge's account of the incident.")


class AppealEntry(View):
    """An appeal: the request (if a player filed one) and the head judge's decision."""

    event: str = Field(description="The appealed ruling's event.")
    subject: str
    subject_name: str
    infraction_name: str
    reason: str = Field(default="", description="The appellant's reason, as written.")
    filed_by: str | None = None
    filed_at: dt.datetime | None = None
    outcome: str | None = Field(default=None, description="upheld, overturned, frivolous; "
                                "null: not decided yet.")
    outcome_text: str = ""
    decision: str | None = Field(default=None, description="The decision's event.")
    decided_by: str | None = None
    decided_by_name: str | None = None
    decided_at: dt.datetime | None = None
    sanctions: list[ReportSanction] = Field(default=[], description="What a frivolous "
                                            "appeal gave the appellant.")


class DecisionEntry(View):
    """A decision on a pending ruling (the college's, or the judge's choice)."""

    event: str
    of: str = Field(description="The pending ruling's event.")
    subject: str
    subject_name: str
    infraction_name: str
    decided_by: str | None
    decided_by_name: str | None
    at: dt.datetime | None
    sanctions: list[ReportSanction]


class CorrectionEntry(View):
    """A correction of a mistaken record: a ruling's or a result's."""

    event: str
    of: str
    what: Literal["ruling", "result"]
    about: str = Field(description="Whom the corrected record was about, in words.")
    reason: str
    by: str | None
    by_name: str | None
    at: dt.datetime | None


class StatusEntry(View):
    """A disqualification, removal or suspension, and who issued it."""

    event: str
    subject: str
    subject_name: str
    kind: str
    name: str
    status: str = Field(description="disqualified, suspended or removed.")
    round: int | None
    judge: str | None
    judge_name: str | None
    at: dt.datetime | None
    revoked: bool = False


class OpenItem(View):
    """Something still waiting at the time of the report."""

    what: Literal["ruling", "appeal", "incident"]
    ref: str = Field(description="The event (a ruling, an appealed ruling) or the "
                     "incident's number.")
    subject: str
    subject_name: str
    text: str


class Count(View):
    """How many times an infraction was ruled, or a sanction given."""

    id: str
    name: str
    count: int


class StandingLine(View):
    """A player's or team's line of the standings, with the penalties it holds."""

    subject: str
    name: str
    place: int | None
    status: str
    values: dict[str, str] = Field(description="Column key -> the value as printed.")
    penalties: list[str] = Field(description="The sanctions held, in words, with counts.")


class StandingsTable(View):
    columns: list[str] = Field(description="Column keys, in order (labels: page catalogue).")
    rows: list[StandingLine] = Field(description="The first lines of the table, as many as "
                                     "the report's `standings` asks (all of them: `all`).")
    total: int = Field(description="How many lines the whole table has.")


class JudgeReportView(View):
    """The judge report of a tournament (issue «Отчёты на бумаге»)."""

    lang: Lang
    made_at: dt.datetime
    event: EventInfo
    staff: list[StaffMember]
    rulings: list[ReportRuling]
    appeals: list[AppealEntry]
    decisions: list[DecisionEntry]
    corrections: list[CorrectionEntry]
    statuses: list[StatusEntry] = Field(description="Disqualifications, removals, "
                                        "suspensions.")
    open: list[OpenItem]
    by_infraction: list[Count]
    by_sanction: list[Count] = Field(description="Counts per sanction kind: the levels of "
                                     "the penalty ladder.")
    standings: int | Literal["all"] = Field(
        description="How much of the standings the report holds: the first N places (16 "
                    "unless asked otherwise), `all`, or 0 for none.")
    players: StandingsTable | None
    teams: StandingsTable | None


class SlipView(View):
    """A penalty slip: one ruling, for the player who got it."""

    lang: Lang
    event: EventInfo
    ruling: ReportRuling


class SlipsView(View):
    """The slips of one event's rulings (an event may rule on more than one player)."""

    lang: Lang
    event: EventInfo
    slips: list[SlipView]


class RecordLine(View):
    """One ruling of a player's record in the series."""

    tournament: str
    date: dt.date
    event: str
    infraction: str | None
    infraction_name: str
    cause: str
    cause_text: str
    judge: str | None
    sanctions: list[ReportSanction]
    reasons: list[str]
    judge_name: str | None = Field(default=None, description="The judge by name (the staff "
                                   "list's, else the account's); None: by their id.")
    pending: bool = False
    resolved_by: str | None = None


class PlayerRecordView(View):
    """A player's record across the series, for print."""

    lang: Lang
    made_at: dt.datetime
    series: str
    rulebook_title: str
    handle: str
    name: str
    on: dt.date = Field(description="The day the sanctions' states are given for.")
    lines: list[RecordLine]


class DqStatement(View):
    """A statement about the disqualification, with its role in words."""

    statement: StatementView
    role_name: str


class Signature(View):
    """A line to sign: who signs, and in what capacity."""

    name: str
    capacity: str


class DqReportView(View):
    """The report of a disqualification or suspension: the event that gave it, its rulings,
    the statements (player, opponent, witnesses, the head judge's facts and decision) and the
    lines to sign."""

    lang: Lang
    made_at: dt.datetime
    event: EventInfo
    dq: DisqualificationView
    sanction_names: list[str] = Field(description="The sanctions that disqualified or "
                                      "suspended, in words.")
    rulings: list[ReportRuling]
    statements: list[DqStatement]
    head_judges: list[StaffMember]
    signatures: list[Signature]


class SheetTable(View):
    """One table of a round as posted at a venue: both sides' names and handles."""

    table: int
    a: str
    a_name: str
    b: str
    b_name: str


class SheetName(View):
    """A player's line of the alphabetical list: their table and opponent."""

    handle: str
    name: str
    table: int | None = Field(description="None: the player has the bye.")
    opponent_name: str | None = None


class RoundSheetView(View):
    """What a round puts on paper (issue 36): the pairings by table, the same by name as
    posted at a venue, and a result slip per table for the players to fill in and sign."""

    lang: Lang
    event: EventInfo
    round: int
    part: Literal["tables", "names", "slips"]
    tables: list[SheetTable]
    names: list[SheetName]
    bye: str | None = None
    bye_name: str | None = None
