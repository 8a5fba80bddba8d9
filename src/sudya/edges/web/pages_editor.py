"""The rulebook editor (issue 17): an organiser writes a rulebook's YAML — from a bundled one
or from nothing — sees what is wrong beside its line as they type, its catalogue per level,
the «было / стало» table against the edition in force, runs its test cases, and publishes.

Who may: a user who organises some tournament (`accounts.manages_any`): the organisers
choose the regulations their tournaments run under. Publishing goes through the core
(`PublishRulebook`, app.rulebook_store.publish), for one series the organiser organises — in
force in its tournaments only, never for everyone — only when the draft loads, lint finds no
error and every case passes; a published edition is never changed, only followed by another.
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import Response
from starlette.datastructures import FormData, UploadFile

from sudya.app import rulebook_store
from sudya.app.access import Standing, organised_series
from sudya.app.accounts import AuthError, manages_any
from sudya.app.rulebook_cases import DraftCase, Outcome, folder, run_draft
from sudya.domain.commands import PublishRulebook
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook import drafts, loader
from sudya.domain.rulebook.schema import Rulebook
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, forbid, get_ctx

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext
MAX_CASES = 50


def _editor(ctx: Ctx, tournament: str = "") -> Standing | None:
    """Who may use the editor: organisers write rulebooks; a tournament's head judge (who
    may hear appeals there) also turns a decision of its college into the next edition's
    precedent (003). Returns the user's standing in the tournament when it had to be looked
    up to decide. (Publishing is refused by the core itself.)"""
    if ctx.read(manages_any, ctx.need_user()):
        return None
    tid = forms.whole_number(tournament)
    if tid is not None:
        try:
            found: Standing | None = ctx.standing(tid)
        except AuthError:
            found = None
        if found is not None and found.roles.can("hear-appeals"):
            return found
    raise forbid(_("Only a tournament's organiser writes rulebooks."))


@dataclass
class Draft:
    """What the editor's form holds."""

    text: str = ""
    start: str = ""  # the rulebook it was started from ("" for an empty one)
    cases: list[DraftCase] = field(default_factory=list)
    in_force_from: str = ""
    summary: str = ""
    next_tournament: bool = False  # in force from the next tournament (a precedent's way)
    tournament: str = ""  # the tournament whose college decision the precedent comes from
    series: str = ""  # the series the edition is for (its id; a precedent's: its tournament's)


def _bundled_cases(rid: str) -> list[DraftCase]:
    where = folder(rid)
    out = []
    for path in sorted(where.glob("*.yaml")) if where.is_dir() else []:
        name = path.name.removesuffix(".yaml")
        expected, error = path.with_name(f"{name}.expected.json"), path.with_name(
            f"{name}.error.txt")
        if expected.is_file():
            out.append(DraftCase(name, path.read_text("utf-8"), expected.read_text("utf-8")))
        elif error.is_file():
            out.append(DraftCase(name, path.read_text("utf-8"), error.read_text("utf-8"),
                                 refusal=True))
    return out


def _current_text(ctx: Ctx, rid: str) -> str | None:
    """The text of a rulebook's newest edition: stored in the ledger, or the bundled file."""
    try:
        stored = ctx.read(rulebook_store.editions, rid)
        return ctx.read(rulebook_store.text_of, rid, stored[-1].edition) if stored else None
    except SudyaError:
        return None


def _read(form: FormData) -> tuple[FormData, Draft]:

    names, scenarios, expected = ([str(v) for v in form.getlist(k)]
                                  for k in ("case_name", "case_scenario", "case_expected"))
    refusals = {str(v) for v in form.getlist("case_refusal")}
    cases = []
    for i, (name, scenario, want) in enumerate(zip(names, scenarios, expected, strict=False)):
        if scenario.strip() or want.strip():
            cases.append(DraftCase(name.strip() or f"case-{i + 1}", scenario, want,
                                   refusal=str(i) in refusals))
    upload = form.get("case_file")
    upload_expected = form.get("case_file_expected")
    if isinstance(upload, UploadFile) and upload.filename:
        scenario = upload.file.read().decode("utf-8", "replace")
        want = ""
        refusal = False
        if isinstance(upload_expected, UploadFile) and upload_expected.filename:
            want = upload_expected.file.read().decode("utf-8", "replace")
            refusal = upload_expected.filename.endswith(".txt")
        stem = upload.filename.rsplit("/", 1)[-1].removesuffix(".yaml").removesuffix(".yml")
        cases.append(DraftCase(stem, scenario, want, refusal=refusal))
    draft = Draft(text=str(form.get("text", "")).replace("\r\n", "\n"),
                  start=str(form.get("from", "")), cases=cases[:MAX_CASES],
                  in_force_from=str(form.get("in_force_from", "")).strip(),
                  summary=str(form.get("summary", "")).strip(),
                  next_tournament=form.get("next_tournament") == "1",
                  tournament=str(form.get("tournament", "")).strip(),
                  series=str(form.get("series", "")).strip())
    return form, draft


def _problem_view(p: drafts.Problem, lang: str, book: Rulebook | None) -> dict[str, Any]:
    return {"line": p.line, "column": p.column, "path": p.path, "severity": p.severity,
            "message": i18n.source(p.text(lang, book))}


def _report(ctx: Ctx, draft: Draft) -> dict[str, Any]:
    """The check of a draft as the page shows it: problems by line, the catalogue, the
    «было / стало» table and whether it may be published."""
    lang = i18n.current_lang.get()
    checked = drafts.check(draft.text, lang)
    book = checked.book
    problems = [_problem_view(p, lang, book) for p in checked.problems()]
    report: dict[str, Any] = {
        "checked": checked, "problems": problems,
        "bad_lines": sorted({p["line"] for p in problems if p["line"]}),
        "errors": sum(1 for p in problems if p["severity"] == "error"),
        "warnings": sum(1 for p in problems if p["severity"] == "warning"),
        "catalogue": drafts.catalogue(book, lang) if book is not None else None,
        "diff": None, "base": None, "reasons": _reasons(checked)}
    if book is not None:
        base_text = _current_text(ctx, book.id)
        if base_text is not None:
            base = _base_book(base_text)
            if base is not None:
                report["base"] = {"id": base.id, "edition": base.edition}
                report["diff"] = [_diff_view(r) for r in drafts.diff(base, book, lang)]
    return report


@functools.lru_cache(maxsize=16)
def _base_book(text: str) -> Rulebook | None:
    """An edition in force, loaded once (every check as one types compares against it)."""
    try:
        return loader.load_text(text, "edition")
    except SudyaError:
        return None


def _diff_view(row: drafts.DiffRow) -> dict[str, Any]:
    changes = {"penalty": _("penalty"), "repeats": _("repeats"), "name": _("name"),
               "added": _("infraction added"), "removed": _("infraction removed")}
    return {"name": row.name, "id": row.infraction, "change": row.change,
            "change_text": changes[row.change], "level": row.level_name or _("all levels"),
            "before": row.before or "—", "after": row.after or "—"}


def _reasons(checked: drafts.DraftCheck) -> list[str]:
    """Why a draft cannot be published yet (empty: it may, once its cases pass)."""
    if not checked.loads:
        return [_("The rulebook does not load: mend the errors beside their lines.")]
    n = len(checked.lint_errors)
    if n:
        return [i18n.ngettext("Lint finds %(num)s error.", "Lint finds %(num)s errors.", n)]
    return []


def _case_views(outcomes: list[Outcome] | None) -> list[dict[str, Any]] | None:
    if outcomes is None:
        return None
    return [{"name": o.name, "passed": o.passed, "problems": o.problems[:10],
             "more": max(0, len(o.problems) - 10)} for o in outcomes]


def _run_cases(draft: Draft, checked: drafts.DraftCheck) -> list[Outcome] | None:
    if not checked.loads or not draft.cases:
        return None if not checked.loads else []
    try:
        return run_draft(draft.text, draft.cases)
    except SudyaError as exc:  # the draft itself refused by the replay's loader
        return [Outcome(c.name, FilePath(c.name), [str(exc)]) for c in draft.cases]


def _page(ctx: Ctx, draft: Draft, *, status: int = 200, block: str | None = None,
          outcomes: list[Outcome] | None = None, refused: list[str] | None = None,
          errors: dict[str, str] | None = None) -> Response:
    return ctx.render(
        "rulebook_editor.html", status=status, block=block, draft=draft,
        report=_report(ctx, draft), cases=_case_views(outcomes), refused=refused or [],
        errors=errors or {}, bundled=loader.bundled_ids(),
        series=[] if draft.tournament else ctx.read(organised_series, ctx.actor()),
        today=dt.date.today().isoformat())


@router.get("/rulebooks/editor")
def editor(ctx: C, start: Annotated[str, Query(alias="from")] = "") -> Response:
    """The editor, on an empty draft or on the edition in force of rulebook `from`."""
    _editor(ctx)
    rid = start.strip()
    draft = Draft(start=rid)
    if rid:
        text = _current_text(ctx, rid)
        if text is None:
            raise AuthError(_("No such rulebook."), status=404)
        draft.text = text
        if rid in loader.bundled_ids():
            draft.cases = _bundled_cases(rid)
        # the one series of the organiser's judged by this rulebook, chosen for them
        judged_by = [s for s in ctx.read(organised_series, ctx.actor()) if s.rulebook == rid]
        if len(judged_by) == 1:
            draft.series = str(judged_by[0].id)
    return _page(ctx, draft)


@router.get("/t/{tid}/precedents/{event}")
def precedent(ctx: C, tid: int, event: Annotated[str, Path(max_length=100)]) -> Response:
    """A decision of the college on a case the regulation does not cover, as a draft rule of
    the next edition, in force from the next tournament (003: «на следующий турнир данный
    прецедент вносится в данную систему»), to edit and publish; not for aggravation."""
    st = _editor(ctx, str(tid)) or ctx.standing(tid)
    t, book = st.tournament, st.book
    try:
        text = ctx.read(rulebook_store.precedent_draft, tournament=tid, decision_event=event)
    except SudyaError as exc:
        raise AuthError(i18n.error(exc), status=422) from None
    draft = Draft(text=text, start=book.id, next_tournament=True, tournament=str(tid),
                  summary=_("Precedent: the decision %(event)s of %(tournament)s",
                            event=event, tournament=t.name))
    if book.id in loader.bundled_ids():
        draft.cases = _bundled_cases(book.id)
    return _page(ctx, draft)


def _fragment(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


@router.post("/rulebooks/editor/check")
def check(ctx: C, request: Request, posted: forms.Posted) -> Response:
    """The draft checked: under htmx the report alone (problems, catalogue, diff)."""
    form, draft = _read(posted)
    _editor(ctx, draft.tournament)
    ctx.check_csrf(str(form.get("csrf", "")))
    return _page(ctx, draft, block="report" if _fragment(request) else None)


@router.post("/rulebooks/editor/cases")
def cases(ctx: C, request: Request, posted: forms.Posted) -> Response:
    """The draft's cases replayed under it."""
    form, draft = _read(posted)
    _editor(ctx, draft.tournament)
    ctx.check_csrf(str(form.get("csrf", "")))
    checked = drafts.check(draft.text, i18n.current_lang.get())
    outcomes = _run_cases(draft, checked)
    return _page(ctx, draft, outcomes=outcomes,
                 block="cases_result" if _fragment(request) else None)


@router.post("/rulebooks/editor/publish")
def publish(ctx: C, request: Request, posted: forms.Posted) -> Response:
    """Publish the draft as a new edition: refused, with the reasons beside the button,
    unless it loads, lint finds no error and every case passes."""
    actor = ctx.actor()
    form, draft = _read(posted)
    ctx.check_csrf(str(form.get("csrf", "")))
    checked = drafts.check(draft.text, i18n.current_lang.get())
    reasons = _reasons(checked)
    outcomes = _run_cases(draft, checked) if not reasons else None
    failing = [o.name for o in outcomes or [] if not o.passed]
    if failing:
        reasons.append(_("Cases fail: %(names)s.", names=", ".join(failing)))
    in_force: dt.date | None = None  # None: from the next tournament
    try:
        if draft.in_force_from and not draft.next_tournament:
            in_force = dt.date.fromisoformat(draft.in_force_from)
    except ValueError:
        reasons.append(_("In force from: a date YYYY-MM-DD."))
    if not draft.summary:
        reasons.append(_("Say in a line what the edition changes."))
    series = forms.whole_number(draft.series)
    if reasons:
        return _page(ctx, draft, status=422, outcomes=outcomes, refused=reasons)
    try:  # the core refuses one who may not publish (organisers; the head judge for the
        # precedent of their tournament's college)
        view = ctx.app.handle(views.command(
            PublishRulebook, text=draft.text, in_force_from=in_force, summary=draft.summary,
            cases={c.name: (c.scenario, c.expected) for c in draft.cases},
            series=None if draft.tournament else series),
            actor, forms.whole_number(draft.tournament))
    except AuthError:
        raise
    except SudyaError as exc:
        if exc.field == "series":  # beside the series' choice
            return _page(ctx, draft, status=422, outcomes=outcomes,
                         errors={"series": i18n.error(exc)})
        return _page(ctx, draft, status=422, outcomes=outcomes,
                     refused=[i18n.error(exc)])
    book = checked.book
    assert book is not None
    return ctx.render("rulebook_published.html", rid=book.id, edition=view.edition,
                      title=i18n.text(book.title))
