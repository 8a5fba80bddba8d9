"""The judge's phone with no network (issue 37): the record form that works offline, and the
app's own offline page.

`/t/ID/record/offline` is the record form made to be kept on the phone (the service worker
keeps it while the judge is online, static/sw.js, and serves it for a record link it has no
copy of): every infraction with the ruling on a first offence at the tournament's level, as
the engine rules it with no history (sudya.app.offline), the players with their tables; the
judge picks, sees the preliminary ruling, and the infraction goes to the phone's outbox
(static/outbox.js) — sent when the network is back, ruled by the server with the whole
history, and its ruling shown beside the preliminary one. `/offline` is what a page the phone
never kept shows instead of the browser's error.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import Response

from sudya.app.offline import first_offences
from sudya.app.people import tournament_people
from sudya.app.recording import current_round
from sudya.edges.web import i18n, views
from sudya.edges.web.context import Ctx, get_ctx

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext


@router.get("/offline")
def offline(ctx: C) -> Response:
    """The app's own page for a page the phone has no copy of, with no network."""
    return ctx.render("offline.html")


@router.get("/t/{tid}/record/offline")
def record_offline(ctx: C, tid: int) -> Response:
    st = ctx.standing(tid, "rule")
    t, book = st.tournament, st.book
    first = first_offences(book.id, t.edition, t.level, t.settings)
    infractions: list[dict[str, Any]] = []
    for inf in book.infractions:
        ruled = first.get(inf.id)
        if ruled is None:
            ruling = None
        elif ruled.pending:
            ruling = _("the judge chooses")
        elif ruled.kinds:
            ruling = " + ".join(views.kind_name(book, k) for k in ruled.kinds)
        else:
            ruling = _("no penalty")
        infractions.append({"id": inf.id, "name": i18n.text(inf.name),
                            "category": inf.category or "", "ruling": ruling})
    people = ctx.read(tournament_people, tournament=tid)
    return ctx.render("record_offline.html", t=t, book=book, infractions=infractions,
                      people=people, round=ctx.read(current_round, tid))
