"""The rulebook browser (public): the infraction table per level, sources, interpretations,
conflicts between sources, the rulebook-wide rules, roles and the linter's notes."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import Response

from sudya.app import rulebook_store
from sudya.app.accounts import AuthError, manages_any
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.describe import explain, note_text, outcome_text, special_rules
from sudya.domain.rulebook.lint import lint_book
from sudya.domain.rulebook.schema import Rulebook
from sudya.edges.web import i18n
from sudya.edges.web.context import Ctx, get_ctx

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext


def _actions() -> dict[str, str]:
    return {"rule": _("give rulings and penalties"), "decide": _("decide pending rulings"),
            "hear-appeals": _("decide appeals")}


@router.get("/rulebooks")
def rulebooks(ctx: C) -> Response:
    books = []
    for rid in loader.bundled_ids():
        book = loader.load(rid)
        books.append({"id": rid, "title": i18n.text(book.title), "edition": book.edition,
                      "editions": sorted(loader.edition_files(rid)),
                      "levels": [i18n.text(lv.name) for lv in book.levels],
                      "infractions": len(book.infractions)})
    return ctx.render("rulebooks.html", books=books,
                      may_edit=ctx.read(manages_any, ctx.user))


@router.get("/rulebooks/{rid}")
def rulebook(ctx: C, rid: str, level: str | None = None,
             edition: str | None = None) -> Response:
    try:  # bundled and stored editions, each series' own named by its series
        editions = ctx.read(rulebook_store.editions, rid)
    except SudyaError:
        raise AuthError(_("No such rulebook."), status=404) from None
    numbers = {e.edition for e in editions}
    book = loader.load(rid, edition if edition in numbers else None)
    lang = i18n.current_lang.get()
    levels = [{"id": lv.id, "name": i18n.text(lv.name)} for lv in book.levels]
    current = level if level in book.level_ids() else (levels[0]["id"] if levels else None)
    infractions = []
    for inf in book.infractions:
        exp = explain(book, inf, lang)
        cite = i18n.source  # citations named in words: no «regulations.md §4 E9» (§4 E11)
        infractions.append({
            "id": inf.id, "name": exp.name, "source": cite(exp.source),
            "description": exp.description,
            "cell": exp.cells.get(current or "*", exp.cells.get("*", "")),
            "lines": [cite(n) for n in exp.lines],
            "interpretations": [cite(n) for n in exp.interpretations],
            "conflicts": [cite(n) for n in exp.conflicts], "notes": [cite(n) for n in exp.notes]})
    return ctx.render(
        "rulebook.html", book=book, rid=rid, title=i18n.text(book.title),
        editions=editions, levels=levels, level=current, infractions=infractions,
        documents=[{"id": d, "title": i18n.text(doc.title)} for d, doc in book.documents.items()],
        special=[i18n.source(n) for n in [*special_rules(book, lang),
                                          *(note_text(n, lang) for n in book.notes)]],
        appeals=_appeals(book, lang), roles=_roles(book, lang),
        lint=[{"severity": f.severity, "where": _where(book, f.where),
               "message": i18n.source(f.message)} for f in lint_book(book, lang)])


def _sections() -> dict[str, str]:
    return {"appeals": _("appeals"), "scoring": _("scoring"), "stacking": _("stacking"),
            "validity": _("validity windows"), "aggravation": _("aggravation"),
            "accumulation": _("accumulation"), "squad": _("squad building"),
            "formats": _("format"), "conversions": _("conversion")}


def _where(book: Rulebook, path: str) -> str:
    """Where in the rulebook a linter note is, by the names people read (§4 E11: no ids):
    `roles.head-judge` is «Главный судья», `infractions.hoops` the infraction's name."""
    section, _dot, key = path.partition(".")
    if section == "infractions" and (inf := book.infraction(key)) is not None:
        return i18n.text(inf.name)
    if section == "roles" and key in book.roles:
        return i18n.text(book.roles[key].name)
    if section in ("sanctions", "conversions"):
        try:
            name = i18n.text(book.kind(key).name)
        except KeyError:
            return path
        return name if section == "sanctions" else f"{_sections()[section]}: {name}"
    if section == "settings" and key in book.settings:
        return i18n.text(book.settings[key].name)
    if section in _sections():
        return _sections()[section] + (f": {key}" if key else "")
    return path


def _roles(book: Rulebook, lang: str) -> list[dict[str, Any]]:
    actions = _actions()
    return [{"id": rid, "name": i18n.text(role.name),
             "may": [actions.get(a, a) for a in role.may], "final": role.final,
             "source": i18n.source(role.source),
             "interpretations": [i18n.source(note_text(n, lang)) for n in role.interpretation]}
            for rid, role in book.roles.items()]


def _appeals(book: Rulebook, lang: str) -> dict[str, Any] | None:
    if book.appeals is None:
        return None
    a = book.appeals
    return {"heard_by": [i18n.text(book.roles[r].name) for r in a.heard_by if r in book.roles],
            "frivolous": outcome_text(book, a.frivolous, lang) if a.frivolous else None,
            "source": i18n.source(a.source),
            "interpretations": [i18n.source(note_text(n, lang)) for n in a.interpretation]}
