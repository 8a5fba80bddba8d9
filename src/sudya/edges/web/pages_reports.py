"""Reports on paper in the web app: the judge report, penalty slips, a player's record.

Each page is the report's own HTML document (`sudya.edges.reports`, the template the PDF is printed
from), with its PDF, CSV and JSON beside it; the browser's print uses the same print
stylesheet. The judge report is for the head judge (who hears appeals) and the organiser; a
slip and a player's record for the player and the staff of the tournament's series.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import Response

from sudya.app.accounts import AuthError, readable_record, staff_series
from sudya.app.report_views import JudgeReportView, Lang
from sudya.app.reports import (
    TOP_STANDINGS,
    Standings,
    dq_report,
    judge_report,
    penalty_slips,
    player_record,
    round_sheet,
    standings_option,
)
from sudya.app.views import TournamentView
from sudya.app.views import View as ReportView
from sudya.edges import reports
from sudya.edges.web import i18n
from sudya.edges.web.context import Ctx, forbid, get_ctx

router = APIRouter(include_in_schema=False)
api_router = APIRouter(prefix="/api/v1", tags=["api"])
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext
BIGGEST_ID = 2**31 - 1
Handle = Annotated[str, Path(min_length=1, max_length=100)]
EventId = Annotated[str, Path(min_length=1, max_length=100)]


def _lang() -> Lang:
    return "en" if i18n.current_lang.get() == "en" else "ru"


def _officer(ctx: Ctx, tid: int) -> TournamentView:
    """The head judge (who hears appeals) or the organiser."""
    return ctx.standing(tid, "audit", _("Only the head judge or the organiser prints the "
                                        "judge report.")).tournament


def _css_url() -> str:
    return f"/reports/report.{reports.stylesheet_hash()}.css"


def _links(path: str, *, pdf: bool = True, csv: str | None = None, json: str | None = None,
           back: str) -> dict[str, str]:
    other = "en" if _lang() == "ru" else "ru"
    links = {"back": back, "other_lang": f"{path}?lang={other}"}
    if pdf:
        links["pdf"] = f"{path}.pdf"
    if csv:
        links["csv"] = csv
    if json:
        links["json"] = json
    return links


def _page(view: ReportView, links: dict[str, str]) -> Response:
    return Response(reports.render_html(view, css_url=_css_url(), links=links),
                    media_type="text/html; charset=utf-8")


def _pdf(view: ReportView, name: str) -> Response:
    return Response(reports.render_pdf(view), media_type="application/pdf",
                    headers={"Content-Disposition": f'inline; filename="{name}.pdf"'})


# ---------------------------------------------------------------------- the stylesheet
@router.get("/reports/{name}")
def stylesheet(name: str) -> Response:
    """The print stylesheet: by its content hash for good, by its plain name briefly."""
    if name == f"report.{reports.stylesheet_hash()}.css":
        cache = "public, max-age=31536000, immutable"
    elif name == "report.css":
        cache = "public, max-age=300"
    else:
        raise AuthError(_("Not found."), status=404)
    return Response(reports.STYLESHEET.read_bytes(), media_type="text/css; charset=utf-8",
                    headers={"Cache-Control": cache})


# ---------------------------------------------------------------------- the judge report
StandingsQuery = Annotated[str | None, Query(
    max_length=10, description="How much of the standings: the first N places (16 by "
                               "default), `all` or `none`.")]


def _places(standings: str | None) -> Standings:
    return TOP_STANDINGS if standings is None else standings_option(standings)


@router.get("/t/{tid}/report.pdf")
def judge_pdf(ctx: C, tid: int, standings: StandingsQuery = None) -> Response:
    _officer(ctx, tid)
    view = ctx.read(judge_report, tournament=tid, lang=_lang(), standings=_places(standings))
    return _pdf(view, f"judge-report-{tid}-{view.lang}")


@router.get("/t/{tid}/report.csv")
def judge_csv(ctx: C, tid: int) -> Response:
    _officer(ctx, tid)
    view = ctx.read(judge_report, tournament=tid, lang=_lang())
    return Response(reports.judge_csv(view), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition":
                             f'attachment; filename="judge-report-{tid}-{view.lang}.csv"'})


@router.get("/t/{tid}/report")
def judge_page(ctx: C, tid: int, standings: StandingsQuery = None) -> Response:
    _officer(ctx, tid)
    view = ctx.read(judge_report, tournament=tid, lang=_lang(), standings=_places(standings))
    path = f"/t/{tid}/report"
    asked = "" if standings is None else f"standings={view.standings or 'none'}"
    links = _links(path, back=f"/t/{tid}", csv=f"{path}.csv",
                   json=f"/api/v1/tournaments/{tid}/report?lang={view.lang}"
                        + (f"&{asked}" if asked else ""))
    if asked:  # the PDF and the other language keep the standings asked for
        links["pdf"] += f"?{asked}"
        links["other_lang"] += f"&{asked}"
    links.update(slips=f"/t/{tid}/slips/", dq=f"/t/{tid}/report/dq/",
                 standings_all=f"{path}?standings=all",
                 standings_all_pdf=f"{path}.pdf?standings=all")
    return _page(view, links)


# ---------------------------------------------------------------------- the DQ report
def _dq(ctx: Ctx, tid: int, event: str) -> ReportView:
    ctx.standing(tid, "audit", _("Only the head judge or the organiser prints the "
                                 "disqualification report."))
    return ctx.read(dq_report, tournament=tid, event=event, lang=_lang())


@router.get("/t/{tid}/report/dq/{event}.pdf")
def dq_pdf(ctx: C, tid: int, event: EventId) -> Response:
    return _pdf(_dq(ctx, tid, event), f"dq-report-{tid}-{event}")


@router.get("/t/{tid}/report/dq/{event}")
def dq_page(ctx: C, tid: int, event: EventId) -> Response:
    return _page(_dq(ctx, tid, event),
                 _links(f"/t/{tid}/report/dq/{event}", back=f"/t/{tid}/report"))


# ---------------------------------------------------------------------- slips
def _slips(ctx: Ctx, tid: int, event: str) -> ReportView:
    """The slips of an event: every one for the series' staff, a player's own for them."""
    user = ctx.need_user()
    t = ctx.standing(tid).tournament
    if t.series.id in ctx.read(staff_series, user):
        return ctx.read(penalty_slips, tournament=tid, event=event, lang=_lang())
    if user.person_handle is None:
        raise forbid(_("Only the player and the staff of this series print this slip."))
    return ctx.read(penalty_slips, tournament=tid, event=event, lang=_lang(),
                         subject=user.person_handle)


@router.get("/t/{tid}/slips/{event}.pdf")
def slip_pdf(ctx: C, tid: int, event: EventId) -> Response:
    return _pdf(_slips(ctx, tid, event), f"slip-{tid}-{event}")


@router.get("/t/{tid}/slips/{event}")
def slip_page(ctx: C, tid: int, event: EventId) -> Response:
    return _page(_slips(ctx, tid, event), _links(f"/t/{tid}/slips/{event}", back=f"/t/{tid}"))


# ---------------------------------------------------------------------- a player's record
def _record(ctx: Ctx, tid: int, handle: str) -> ReportView:
    user = ctx.need_user()
    t = ctx.standing(tid).tournament
    ctx.read(readable_record, user, t, handle)  # the player, or staff of this series
    return ctx.read(player_record, tournament=tid, handle=handle, on=dt.date.today(),
                         lang=_lang())


@router.get("/t/{tid}/people/{handle}/record.pdf")
def record_pdf(ctx: C, tid: int, handle: Handle) -> Response:
    return _pdf(_record(ctx, tid, handle), f"record-{handle}")


@router.get("/t/{tid}/people/{handle}/record")
def record_page(ctx: C, tid: int, handle: Handle) -> Response:
    return _page(_record(ctx, tid, handle),
                 _links(f"/t/{tid}/people/{handle}/record", back=f"/t/{tid}/people/{handle}"))


# ---------------------------------------------------------------------- the JSON API
@api_router.get("/tournaments/{tid}/report", response_model=JudgeReportView,
                summary="The judge report (head judge, organiser)",
                description="Everything the printed judge report shows, in `lang`: the event, "
                            "the staff, every ruling with its time, round, table, judge, "
                            "sanctions and reasons (in words and as codes), appeals, "
                            "decisions, corrections, disqualifications and suspensions, what "
                            "is still open, counts and the standings with the penalties "
                            "held: their first 16 places, or as `standings` asks "
                            "(`all`, `none`, a number). The same view as /t/{tid}/report "
                            "and its PDF and CSV.",
                responses={401: {"description": "Not signed in."},
                           403: {"description": "Not the head judge or the organiser."},
                           404: {"description": "No such tournament."}})
def api_report(ctx: C, tid: Annotated[int, Path(ge=1, le=BIGGEST_ID)],
               lang: Annotated[Literal["ru", "en"] | None,
                               Query(description="ru (default) or en")] = None,
               standings: StandingsQuery = None) -> JudgeReportView:
    if ctx.user is None:
        raise AuthError("auth.sign-in-first", status=401)
    _officer(ctx, tid)
    return ctx.read(judge_report, tournament=tid, lang=lang or _lang(),
                    standings=_places(standings))


# ---------------------------------------------------------------------- a round on paper
Part = Literal["tables", "names", "slips"]


def _round_sheet(ctx: Ctx, tid: int, part: Part, round: int | None) -> ReportView:
    """A round's pairings (by table, by name) or result slips: for the tournament's staff."""
    ctx.standing(tid, "view-all")
    return ctx.read(round_sheet, tournament=tid, round=round, part=part, lang=_lang())


@router.get("/t/{tid}/round/{part}.pdf")
def round_pdf(ctx: C, tid: int, part: Part,
              round: Annotated[int | None, Query(ge=1, le=1000)] = None) -> Response:
    view = _round_sheet(ctx, tid, part, round)
    return _pdf(view, f"round-{tid}-{part}")


@router.get("/t/{tid}/round/{part}")
def round_page(ctx: C, tid: int, part: Part,
               round: Annotated[int | None, Query(ge=1, le=1000)] = None) -> Response:
    view = _round_sheet(ctx, tid, part, round)
    number = getattr(view, "round", round)
    links = _links(f"/t/{tid}/round/{part}", back=f"/t/{tid}/pairings?round={number}")
    links["pdf"] = f"/t/{tid}/round/{part}.pdf?round={number}"
    return _page(view, links)
