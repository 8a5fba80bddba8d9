"""The rulebook editor (issues 17, 39): an organiser changes a rulebook — a copy of a bundled
one, or from nothing — in a form (the infraction table as a grid of penalties per level chosen
from the rulebook's own kinds, the rules of repeats, stacking, validity and conversions as
fields, a new infraction with its source and text), or as YAML «для опытных»: both edit one
draft, the YAML text the form's changes are written into (domain.rulebook.form). They see what
is wrong beside its cell or line, the «было / стало» table against the edition in force, run
the test cases (results in words; a failing case accepts the draft's new result, a case comes
from a recorded ruling, is edited or deleted), and publish from a date, having seen what
changes for the tournaments of the series.

Who may: a user who organises some tournament (`accounts.manages_any`): the organisers
choose the regulations their tournaments run under. Publishing goes through the core
(`PublishRulebook`, app.rulebook_store.publish), for one series the organiser organises — in
force in its tournaments only, never for everyone — only when the draft loads, lint finds no
error and every case passes; a published edition is never changed, only followed by another.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import Response
from starlette.datastructures import FormData, UploadFile

from sudya.app import rulebook_store
from sudya.app.access import Standing, organised_series
from sudya.app.accounts import AuthError, manages_any
from sudya.app.rulebook_cases import DraftCase, Outcome, folder, outcome_texts, run_draft
from sudya.app.ruling_case import case_from_ruling
from sudya.domain.commands import PublishRulebook
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook import drafts, loader
from sudya.domain.rulebook import form as editing
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


def _stored_cases(ctx: Ctx, rid: str) -> list[DraftCase]:
    """The cases the newest stored edition of a rulebook of one's own was published with."""
    try:
        stored = ctx.read(rulebook_store.stored_cases, rid)
    except SudyaError:
        return []
    return [DraftCase(name, scenario, expected, refusal=not expected.lstrip().startswith("{"))
            for name, (scenario, expected) in stored.items()]


def _cases_of(ctx: Ctx, rid: str) -> list[DraftCase]:
    """A bundled rulebook's own cases; one's own rulebook's: those it was published with."""
    return _bundled_cases(rid) if loader.edition_files(rid) else _stored_cases(ctx, rid)


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


# ---------------------------------------------------------------------- the form's changes
RULEBOOK_LINE = r"(?m)^(rulebook:[ \t]*)([^\s#]+)"


def _posted_changes(posted: FormData, prefix: str) -> dict[str, str]:
    """The form's fields `prefix|…` whose value differs from the value the page showed
    (`was|prefix|…`): only what the organiser changed in the form is written into the text,
    so a change typed meanwhile in the YAML is kept."""
    out = {}
    for name, value in posted.multi_items():
        if name.startswith(prefix + "|") and isinstance(value, str):
            was = posted.get("was|" + name)
            if was is not None and str(was) != value:
                out[name.removeprefix(prefix + "|")] = value
    return out


def _not_loaded() -> str:
    return _("The form's changes were not written: the YAML does not load. Mend it first "
             "(the problems say where).")


def _choosable(book: Rulebook) -> set[str]:
    """What a penalty cell may be set to: a kind of the rulebook, or no penalty."""
    return {k.id for k in book.sanctions} | {editing.NONE}


def _apply(posted: FormData, draft: Draft) -> dict[str, str]:
    """Write the form's changes into the draft's text (and carry its cases over a new id):
    what could not be written, by field name, in the reader's language."""
    errors: dict[str, str] = {}
    cells = _posted_changes(posted, "cell")
    rules = _posted_changes(posted, "rule")
    meta = _posted_changes(posted, "meta")
    if not (cells or rules or meta):
        _carry_cases(draft, posted)
        return errors
    lang = i18n.current_lang.get()
    checked = _check(draft.text, lang)
    book = checked.book
    if book is None:
        return {"form": _not_loaded()}
    data = editing.parsed(draft.text)
    index = {inf.id: i for i, inf in enumerate(book.infractions)}
    levels = book.level_ids()
    kinds = _choosable(book)
    for name, value in cells.items():
        # ID|LEVEL, or ID|LEVEL|N for the Nth kind of a list of kinds given together
        inf_id, _sep, level = name.rpartition("|")
        part = None
        if level.isdigit():
            part, (inf_id, _sep, level) = int(level), inf_id.rpartition("|")
        if inf_id not in index or value not in kinds or (part is not None
                                                         and value == editing.NONE):
            errors["cell|" + name] = _("Choose a penalty of the list.")
            continue
        if part is None:
            draft.text = editing.set_cell(draft.text, index[inf_id], level, value, levels)
        else:
            draft.text = editing.set_part(draft.text, index[inf_id], level, part, value,
                                          levels)
    fields = {editing.field_name(f.keys): f for g in editing.rules(book, data, lang)
              for f in g.fields}
    for name, value in rules.items():
        found = fields.get(name)
        if found is None:
            continue
        try:
            typed = editing.typed(found.kind, value)
        except ValueError:
            errors["rule|" + name] = _("A whole number.")
            continue
        if found.kind == "int" and not 0 < typed <= 1000:
            errors["rule|" + name] = _("A whole number from 1 to 1000.")
            continue
        draft.text = editing.set_value(draft.text, found.keys, typed)
    if "id" in meta:
        new_id = meta["id"].strip().lower()
        if not editing.ID.match(new_id):
            errors["meta|id"] = _("Latin small letters, digits, dots and hyphens, such as "
                                  "berserk-club.")
        else:
            draft.text = editing.set_value(draft.text, ("id",), new_id)
    if "title" in meta:
        title = " ".join(meta["title"].split())
        if not title:
            errors["meta|title"] = _("The rulebook needs a name.")
        else:
            draft.text = editing.set_value(draft.text, ("title", "ru"), title)
    _carry_cases(draft, posted)
    return errors


def _carry_cases(draft: Draft, posted: FormData) -> None:
    """A renamed copy keeps its cases: a case naming the rulebook the draft was started from
    (or the id it had on the page) names the draft's id now."""
    try:
        data = editing.parsed(draft.text)
    except SudyaError:
        return
    new_id = data.get("id") if isinstance(data, dict) else None
    if not isinstance(new_id, str):
        return
    former = {draft.start, str(posted.get("was|meta|id", ""))} - {"", new_id}
    if not former:
        return
    named = "|".join(re.escape(f) for f in sorted(former))
    expected_id = re.compile(r'("rulebook"\s*:\s*\{\s*"id"\s*:\s*")(?:' + named + r')(")')
    for i, case in enumerate(draft.cases):
        found = re.search(RULEBOOK_LINE, case.scenario)
        if found is not None and found.group(2).strip("'\"") in former:
            scenario = case.scenario[:found.start(2)] + new_id + case.scenario[found.end(2):]
            expected = expected_id.sub(lambda m: m.group(1) + new_id + m.group(2),
                                       case.expected, count=1)
            draft.cases[i] = DraftCase(case.name, scenario, expected, case.refusal)


def _new_infraction(posted: FormData, draft: Draft) -> dict[str, str]:
    """Add the infraction of the form «Добавить нарушение» to the draft: what is missing or
    wrong, by field name."""
    errors: dict[str, str] = {}
    checked = _check(draft.text, i18n.current_lang.get())
    book = checked.book
    if book is None:
        return {"form": _not_loaded()}
    new_id = str(posted.get("new_id", "")).strip().lower()
    name = " ".join(str(posted.get("new_name", "")).split())
    source = " ".join(str(posted.get("new_source", "")).split())
    description = str(posted.get("new_text", "")).strip()
    if not editing.ID.match(new_id):
        errors["new_id"] = _("Latin small letters, digits, dots and hyphens, such as "
                             "club.phone.")
    elif book.infraction(new_id) is not None:
        errors["new_id"] = _("The rulebook already has an infraction %(id)s.", id=new_id)
    if not name:
        errors["new_name"] = _("Name the infraction as the regulation does.")
    if not source:
        errors["new_source"] = _("Say where the regulation says it (a document and its "
                                 "point).")
    kinds = _choosable(book)
    levels = book.level_ids() or ["*"]
    penalty = {lv: str(posted.get(f"new_pen|{lv}", editing.NONE)) for lv in levels}
    for lv, value in penalty.items():
        if value not in kinds:
            errors[f"new_pen|{lv}"] = _("Choose a penalty of the list.")
    if not errors:
        draft.text = editing.add_infraction(draft.text, editing.NewInfraction(
            new_id, name, source, description, penalty))
    return errors


def _form_view(report: dict[str, Any], text: str) -> dict[str, Any] | None:
    """The grid and the rules of a draft that loads, each problem beside its cell or field
    (the rest stay in the list of problems by line)."""
    book = report["checked"].book
    if book is None:
        return None
    lang = i18n.current_lang.get()
    data = editing.parsed(text)
    grid = editing.grid(book, data, lang)
    beside: dict[str, list[str]] = {}
    levels = {lv for lv, _name in grid.levels}
    for p in report["checked"].problems():
        keys = p.keys
        if len(keys) >= 2 and keys[0] == "infractions" and isinstance(keys[1], int) \
                and keys[1] < len(book.infractions):
            inf = book.infractions[keys[1]]
            spot = f"row|{inf.id}"
            if len(keys) >= 4 and keys[2] == "penalty" and keys[3] in levels:
                spot = f"cell|{inf.id}|{keys[3]}"
            elif len(keys) >= 3 and keys[2] == "penalty" and "*" in levels:
                spot = f"cell|{inf.id}|*"
            beside.setdefault(spot, []).append(i18n.source(p.text(lang, book)))
        elif keys:
            beside.setdefault("rule|" + editing.field_name(keys), []).append(
                i18n.source(p.text(lang, book)))
    groups = [{"title": i18n.code(g.title, dict(g.params)),
               "fields": [{"name": editing.field_name(f.keys), "label": i18n.code(f.label),
                           "kind": f.kind, "value": f.value,
                           "choices": [(c.id, i18n.code(c.name) if f.kind == "choice"
                                        else c.name) for c in f.choices]}
                          for f in g.fields]} for g in editing.rules(book, data, lang)]
    return {"grid": grid, "rules": groups, "beside": beside, "id": book.id,
            "title": book.title.ru, "none": editing.NONE}


def _problem_view(p: drafts.Problem, lang: str, book: Rulebook | None) -> dict[str, Any]:
    return {"line": p.line, "column": p.column, "path": p.path, "severity": p.severity,
            "message": i18n.source(p.text(lang, book))}


def _report(ctx: Ctx, draft: Draft) -> dict[str, Any]:
    """The check of a draft as the page shows it: problems by line, the catalogue, the
    «было / стало» table and whether it may be published."""
    lang = i18n.current_lang.get()
    checked = _check(draft.text, lang)
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


@functools.lru_cache(maxsize=8)
def _check(text: str, lang: str) -> drafts.DraftCheck:
    """A draft checked, kept for the few texts of the requests at hand: one change in the
    form checks the same text several times (before writing, the report, the cases)."""
    return drafts.check(text, lang)


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


def _case_views(outcomes: list[Outcome] | None, book: Rulebook | None
                ) -> list[dict[str, Any]] | None:
    """Each case's result beside it in words (None: not run), in the draft's cases' order."""
    if outcomes is None:
        return None
    lang = i18n.current_lang.get()
    views = []
    for i, o in enumerate(outcomes):
        said = outcome_texts(o, book, lang)
        views.append({"name": o.name, "passed": o.passed, "problems": said[:10],
                      "more": max(0, len(said) - 10), "index": i})
    return views


def _run_cases(draft: Draft, checked: drafts.DraftCheck) -> list[Outcome] | None:
    if not checked.loads or not draft.cases:
        return None if not checked.loads else []
    try:
        return run_draft(draft.text, draft.cases)
    except SudyaError as exc:  # the draft itself refused by the replay's loader
        return [Outcome(c.name, FilePath(c.name), [str(exc)]) for c in draft.cases]


def _page(ctx: Ctx, draft: Draft, *, status: int = 200, block: str | None = None,
          outcomes: list[Outcome] | None = None, refused: list[str] | None = None,
          errors: dict[str, str] | None = None, preview: dict[str, Any] | None = None,
          new: dict[str, str] | None = None) -> Response:
    report = _report(ctx, draft)
    return ctx.render(
        "rulebook_editor.html", status=status, block=block, draft=draft, report=report,
        form=_form_view(report, draft.text) if block is None else None,
        cases=_case_views(outcomes, report["checked"].book), refused=refused or [],
        errors=errors or {}, bundled=loader.bundled_ids(), preview=preview, new=new or {},
        series=[] if draft.tournament else ctx.read(organised_series, ctx.actor()),
        today=dt.date.today().isoformat())


@router.get("/rulebooks/editor")
def editor(ctx: C, start: Annotated[str, Query(alias="from")] = "",
           case: Annotated[str, Query(max_length=120)] = "") -> Response:
    """The editor, on an empty draft or on the edition in force of rulebook `from`; `case`
    (TOURNAMENT:EVENT) adds a test case made from that recorded ruling."""
    _editor(ctx)
    rid = start.strip()
    draft = Draft(start=rid)
    if rid:
        text = _current_text(ctx, rid)
        if text is None:
            raise AuthError(_("No such rulebook."), status=404)
        draft.text = text
        draft.cases = _cases_of(ctx, rid)
        # the one series of the organiser's judged by this rulebook, chosen for them
        judged_by = [s for s in ctx.read(organised_series, ctx.actor()) if s.rulebook == rid]
        if len(judged_by) == 1:
            draft.series = str(judged_by[0].id)
    tid, _sep, event = case.partition(":")
    if forms.whole_number(tid) is not None and event:
        ctx.standing(int(tid))  # the ruling is of a tournament the user may see
        try:
            draft.cases.append(ctx.read(case_from_ruling, int(tid), event))
        except SudyaError as exc:
            raise AuthError(i18n.error(exc), status=422) from None
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
    draft.cases = _cases_of(ctx, book.id)
    return _page(ctx, draft)


def _fragment(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


def _posted(ctx: Ctx, posted: FormData) -> tuple[FormData, Draft, dict[str, str]]:
    """The posted draft, the form's changes written into it (and what could not be)."""
    form, draft = _read(posted)
    _editor(ctx, draft.tournament)
    ctx.check_csrf(str(form.get("csrf", "")))
    return form, draft, _apply(form, draft)


@router.post("/rulebooks/editor/check")
def check(ctx: C, request: Request, posted: forms.Posted) -> Response:
    """The draft checked: under htmx (the YAML typed) the report alone (problems, catalogue,
    diff)."""
    _form, draft, errors = _posted(ctx, posted)
    return _page(ctx, draft, errors=errors, block="report" if _fragment(request) else None)


@router.post("/rulebooks/editor/apply")
def apply(ctx: C, posted: forms.Posted) -> Response:
    """The form's changes written into the draft, which is checked and its cases run: the
    whole page (under htmx the editor's form replaces itself)."""
    _form, draft, errors = _posted(ctx, posted)
    checked = _check(draft.text, i18n.current_lang.get())
    return _page(ctx, draft, errors=errors, outcomes=_run_cases(draft, checked))


@router.post("/rulebooks/editor/add")
def add(ctx: C, posted: forms.Posted) -> Response:
    """A new infraction added to the draft from the form (refused beside its fields)."""
    form, draft, errors = _posted(ctx, posted)
    if not errors:
        errors = _new_infraction(form, draft)
    checked = _check(draft.text, i18n.current_lang.get())
    kept = {k: str(v) for k, v in form.multi_items() if k.startswith("new_") and errors}
    return _page(ctx, draft, errors=errors, status=422 if errors else 200,
                 outcomes=_run_cases(draft, checked), new=kept)


@router.post("/rulebooks/editor/cases")
def cases(ctx: C, posted: forms.Posted) -> Response:
    """The draft's cases replayed under it; `accept=N` makes case N expect what the draft
    now gives, `delete=N` removes it."""
    form, draft, errors = _posted(ctx, posted)
    delete = forms.whole_number(str(form.get("delete", "")))
    if delete is not None and 0 <= delete < len(draft.cases):
        del draft.cases[delete]
    checked = _check(draft.text, i18n.current_lang.get())
    outcomes = _run_cases(draft, checked)
    accept = forms.whole_number(str(form.get("accept", "")))
    if accept is not None and outcomes and 0 <= accept < len(outcomes) \
            and accept < len(draft.cases) and outcomes[accept].actual:
        case = draft.cases[accept]
        ran = outcomes[accept]
        draft.cases[accept] = DraftCase(case.name, case.scenario, ran.actual or "",
                                        refusal=ran.refused)
        outcomes = _run_cases(draft, checked)
    return _page(ctx, draft, outcomes=outcomes, errors=errors)


@router.post("/rulebooks/editor/publish")
def publish(ctx: C, posted: forms.Posted) -> Response:
    """Publish the draft as a new edition: refused, with the reasons beside the button,
    unless it loads, lint finds no error, every case passes and the day it is in force from
    is given; first (without `confirm=1`) what changes for the series' tournaments is shown
    with the button that publishes."""
    actor = ctx.actor()
    form, draft, errors = _posted(ctx, posted)
    checked = _check(draft.text, i18n.current_lang.get())
    reasons = _reasons(checked)
    outcomes = _run_cases(draft, checked) if not reasons else None
    failing = [o.name for o in outcomes or [] if not o.passed]
    if failing:
        reasons.append(_("Cases fail: %(names)s.", names=", ".join(failing)))
    in_force: dt.date | None = None  # None: from the next tournament
    if not draft.next_tournament:
        try:
            in_force = dt.date.fromisoformat(draft.in_force_from)
        except ValueError:
            errors["in_force_from"] = (
                _("In force from: a date YYYY-MM-DD.") if draft.in_force_from else
                _("From which day is the edition in force? Give the date (or tick «from the "
                  "next tournament»)."))
    if not draft.summary:
        errors["summary"] = _("Say in a line what the edition changes.")
    reasons += [e for k, e in errors.items() if k in ("in_force_from", "summary")]
    series = forms.whole_number(draft.series)
    if reasons or errors:
        return _page(ctx, draft, status=422, outcomes=outcomes, refused=reasons,
                     errors=errors)
    book = checked.book
    assert book is not None
    chosen = next((s for s in ctx.read(organised_series, ctx.actor()) if s.id == series),
                  None) if series is not None and not draft.tournament else None
    if series is None and not draft.tournament and loader.edition_files(book.id):
        # a bundled rulebook changes for one series, never for all (the core refuses it too)
        errors["series"] = i18n.code("rulebook.bundled-shared", {"rulebook": book.id})
    elif chosen is not None and chosen.rulebook != book.id:
        # a renamed copy is a rulebook of one's own: not the next edition of the series'
        errors["series"] = i18n.code("rulebook.not-the-series", {
            "rulebook": book.id, "series": chosen.name, "series_rulebook": chosen.rulebook})
    if errors.get("series"):
        return _page(ctx, draft, status=422, outcomes=outcomes, errors=errors)
    if form.get("confirm") != "1":
        return _page(ctx, draft, outcomes=outcomes,
                     preview=_preview(ctx, book, series, in_force))
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
    return ctx.render("rulebook_published.html", rid=book.id, edition=view.edition,
                      title=i18n.text(book.title))


def _preview(ctx: Ctx, book: Rulebook, series: int | None,
             in_force: dt.date | None) -> dict[str, Any]:
    """What publishing changes: from which day, for which series, the tournaments of the
    rulebook that are under way or ahead (each keeps the edition it was created with; only
    tournaments created afterwards, dated from that day, take the new one)."""
    since = dt.date.today() - dt.timedelta(days=3)
    chosen = next((s for s in ctx.read(organised_series, ctx.actor()) if s.id == series), None)
    return {"in_force": in_force, "series": chosen.name if chosen is not None else None,
            "tournaments": ctx.read(rulebook_store.tournaments_on, book.id, series, since),
            "rulebook": book.id}
