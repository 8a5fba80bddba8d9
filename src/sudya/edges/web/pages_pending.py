"""Pending rulings: the judge's choice within a range, the college's decision on aggravation,
and appeals waiting for the head judge. Only roles that may `decide` see this page."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from starlette.datastructures import FormData

from sudya.app.accounts import Roles
from sudya.app.common import command
from sudya.app.ledger import LedgerError, Recorded
from sudya.app.queries import rulings_json, tournament_summary
from sudya.app.views import TournamentView
from sudya.domain.engine.model import FROZEN, TERM_LIFTED
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook.schema import Rulebook
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, get_ctx

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext


def render(ctx: Ctx, t: TournamentView, book: Rulebook, roles: Roles, *, status: int = 200,
           errors: dict[str, dict[str, str]] | None = None,
           values: dict[str, Any] | None = None, decided: str | None = None,
           appealed: str | None = None) -> Response:
    from sudya.edges.web.pages_appeals import appeal_context

    summary = ctx.read(tournament_summary, t.id)
    rulings = ctx.read(rulings_json, t.id)
    items = views.rulings(book, [r for r in rulings if r["pending"]], names=summary.names)
    frozen = views.rulings(book, [r for r in rulings if _frozen(r)], names=summary.names)
    terms = views.rulings(book, _terms(book, rulings), names=summary.names)
    # flags are notes for officials that come with other sanctions, not a punishment
    kinds = sorted((k for k in book.sanctions if not k.flag), key=lambda k: k.rank)
    appeals = appeal_context(ctx, t, book, roles, summary, rulings, appealable=False)
    shown = {r["event"] for r in (*items, *frozen, *terms)} | {
        f"appeal/{a['event']}" for a in appeals["awaiting"]}
    problems = views.unshown(errors, shown)
    page = ctx.render(
        "pending.html", status=status, t=t, book=book, roles=roles,
        ranges=[r for r in items if not r.get("aggravated")],
        aggravated=[r for r in items if r.get("aggravated")], frozen=frozen, terms=terms,
        kinds=[{"id": k.id, "name": i18n.text(k.name), "amount": k.amount != "none",
                "required": k.amount == "required", "unit": views.unit_name(book, k.id)}
               for k in kinds],
        errors=errors or {}, values=values or {}, decided=decided, appealed=appealed,
        problems=problems, **appeals)
    return views.show_whole_page(ctx.request, page, problems)


@router.get("/t/{tid}/pending")
def pending(ctx: C, tid: int, decided: str | None = None,
            appealed: str | None = None) -> Response:
    st = ctx.standing(tid, "decide")
    return render(ctx, st.tournament, st.book, st.roles, decided=decided, appealed=appealed)


@router.post("/t/{tid}/pending/decide")
def decide(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    st = ctx.standing(tid)  # the core refuses one who may not decide
    t, book, roles = st.tournament, st.book, st.roles
    ctx.check_csrf(str(form.get("csrf", "")))
    key = views.form_key(form)
    of = str(form.get("of", ""))
    rulings = ctx.read(rulings_json, tid)
    target = next((r for r in rulings if (r["pending"] or _frozen(r)) and r["event"] == of),
                  None)
    if target is None and form.get("term"):  # a suspension's term (§4 E13)
        target = next((r for r in _terms(book, rulings) if r["event"] == of), None)
    values: dict[str, Any] = {"form": "decide", "of": of,
                              "choice": str(form.get("choice", "")),
                              "choice_points": str(form.get("choice_points", "")),
                              "sanctions": [str(k) for k in form.getlist("sanction")],
                              "amounts": {}}
    if target is None:
        if key is not None and _stored_already(ctx, tid, book, roles, rulings, form, key):
            return views.done(request, f"/t/{tid}/pending")  # a double submit
        errors = {"of": _("This ruling no longer waits for a decision.")}
        if not any(r["event"] == of for r in rulings):  # no ruling of this tournament's
            refused = _sent_as_it_is(ctx, tid, book, roles, of, form, key)
            if refused is None:
                return views.done(request, f"/t/{tid}/pending?decided={of}")
            errors = {"of": refused}
    else:
        args, errors, values["amounts"] = _decision(book, target, form)
        if not errors:
            try:
                _execute(ctx, tid, roles, of, args, key)
            except views.REFUSED as exc:
                field = views.error_field(exc.field, ("choice", "sanctions"), "of")
                errors[field] = _refusal(book, target, exc)
            else:
                return views.done(request, f"/t/{tid}/pending?decided={of}")
    return render(ctx, t, book, roles, status=422, errors={of: errors}, values=values)


def _decision(book: Rulebook, target: dict[str, Any], form: FormData
              ) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """The decision a form asks for on a pending ruling: its arguments, the form's errors and
    the amounts as typed."""
    errors: dict[str, str] = {}
    amounts: dict[str, str] = {}
    args: dict[str, Any] = {}
    if form.get("term"):  # a suspension's term: set its last day, or lift it (§4 E13)
        if form.get("term") == "lift":
            args["lift"] = True
        else:
            try:
                args["until"] = dt.date.fromisoformat(str(form.get("until", "")).strip())
            except ValueError:
                errors["until"] = _("Enter the last day of the term (a date).")
        return args, errors, amounts
    if _frozen(target):  # a frozen fight: release it or annul it (§4 E18)
        result = str(form.get("result", ""))
        if result not in ("release", "annul"):
            errors["result"] = _("Choose: count the result or annul the fight.")
        args["result"] = result
        return args, errors, amounts
    if target.get("aggravated"):
        decided: list[dict[str, Any]] = []
        for kind in [str(k) for k in form.getlist("sanction")]:
            try:
                spec = book.kind(kind)
            except KeyError:
                errors["sanctions"] = _("Unknown sanction: %(kind)s.", kind=kind)
                continue
            raw = str(form.get(f"amount.{kind}", "")).strip()
            amounts[kind] = raw
            item: dict[str, Any] = {"kind": kind}
            if raw:
                try:
                    item["amount"] = int(raw)
                except ValueError:
                    errors["sanctions"] = _("%(name)s: the amount is a whole number.",
                                            name=i18n.text(spec.name))
            elif spec.amount == "required":
                errors["sanctions"] = _("%(name)s: enter the amount.",
                                        name=i18n.text(spec.name))
            decided.append(item)
        if not decided and not errors:
            errors["sanctions"] = _("Choose the sanctions the college decided.")
        args["sanctions"] = decided
    else:
        choice, problem = views.parse_choice(form)
        if problem:
            errors["choice"] = problem
        elif choice is None:
            errors["choice"] = _("Choose one.")
        args["choice"] = choice
    return args, errors, amounts


def _execute(ctx: Ctx, tid: int, roles: Roles, of: str, args: dict[str, Any],
             key: str | None) -> Recorded:
    """The decision through the core, as the signed-in judge."""
    cmd = command("decision", {"of": of, "judge": roles.judge_handle,
                               "sanctions": args.get("sanctions"),
                               "choice": args.get("choice"), "date": None,
                               "result": args.get("result"), "until": args.get("until"),
                               "lift": args.get("lift", False)})
    recorded: Recorded = ctx.app.handle(cmd, ctx.actor(), tid, key=key)
    return recorded


def _sent_as_it_is(ctx: Ctx, tid: int, book: Rulebook, roles: Roles, of: str,
                   form: FormData, key: str | None) -> str | None:
    """A decision on an event with no ruling in this tournament (another tournament's, or
    none at all), sent as the form has it: the core's refusal in words (None: stored)."""
    choice, _problem = views.parse_choice(form)
    try:
        _execute(ctx, tid, roles, of, {"choice": choice}, key)
    except views.REFUSED as exc:
        return _refusal(book, None, exc)
    return None


def _stored_already(ctx: Ctx, tid: int, book: Rulebook, roles: Roles,
                    rulings: list[dict[str, Any]], form: FormData, key: str) -> bool:
    """This very form was stored before (a double submit): the ledger answers a retry of the
    same key with its first answer, and refuses the same key for anything else."""
    of = str(form.get("of", ""))
    settled = next((r for r in rulings
                    if r["event"] == of and r.get("resolved_by")), None)
    if settled is None:
        return False
    args, errors, _amounts = _decision(book, settled, form)
    if errors:
        return False
    try:
        _execute(ctx, tid, roles, of, args, key)
    except LedgerError:  # decided by another form: the engine refuses a second decision
        return False
    return True  # the ledger's first answer (Recorded.retried): nothing new was stored


def _frozen(r: dict[str, Any]) -> bool:
    """A ruling that holds its fight's result frozen until a decision (§4 E18)."""
    return not r.get("resolved_by") and any(
        x.get("code") == FROZEN for x in r.get("reasons", []))


def _terms(book: Rulebook, rulings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rulings with a sanction that runs for a term and was not lifted (§4 E13), each with
    the term a decision set (`term_until`), if any."""
    kinds = {k.id for k in book.sanctions if k.term is not None}
    if not kinds:
        return []
    decided: dict[str, list[dict[str, Any]]] = {}
    for r in rulings:
        if r["cause"] == "decision" and r.get("resolves"):
            decided.setdefault(r["resolves"], []).append(r)
    out = []
    for r in rulings:
        if r.get("revoked") or not any(s["kind"] in kinds for s in r["sanctions"]):
            continue
        codes = [x for d in decided.get(r["event"], []) for x in d.get("reasons", [])]
        if any(x.get("code") == TERM_LIFTED for x in codes):
            continue
        until = [x["params"].get("until") for x in codes if x.get("code") == "term.set"]
        out.append({**r, "term_until": until[-1] if until else None})
    return out


def _refusal(book: Rulebook, target: dict[str, Any] | None, exc: SudyaError) -> str:
    """The engine's refusal in the reader's language, with sanction names, not ids."""
    if exc.code == "decision.not-stricter" and target is not None:
        table = " + ".join(s["name"] for s in views.sanctions(book, target.get("offered", [])))
        return _("Not stricter than the table (%(table)s): the college must decide a "
                 "stricter sanction.", table=table or "—")
    return i18n.error(exc, book)
