"""The dashboard makes ready only the rulings it shows (issue 16, the read side): those
waiting for a decision, the latest ten and the one just recorded — not every ruling of the
tournament, which a long day makes hundreds of. Counted, not timed: each ruling made ready
for a page goes through `web.views.ruling`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_testkit import main_of

from sudya.app.ledger import Ledger
from sudya.edges.web import views

PLAYERS = ("alisa", "boris", "vera", "gleb", "dasha", "egor")


def test_the_dashboard_makes_ready_the_rulings_it_shows(
        signed_in: Callable[[str], TestClient], ledger: Ledger,
        monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(24):
        ledger.record(tournament=1, infraction="procedure.minor", player=PLAYERS[i % 6],
                      judge="sudya", round=1 + i // 6, event_id=f"many-{i}")
    made: list[str] = []
    real = views.ruling

    def counted(book: Any, r: dict[str, Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
        made.append(r["event"])
        return real(book, r, *args, **kwargs)

    monkeypatch.setattr(views, "ruling", counted)
    head = signed_in("glavsud")
    page = head.get("/t/1?recorded=many-3")
    assert page.status_code == 200
    assert main_of(page.text).text()
    assert {f"many-{i}" for i in range(14, 24)} <= set(made)  # the latest ten
    # the demo's pending rulings, the latest ten and the one the notice tells of
    assert len(set(made)) == len(made) <= 10 + 1 + 5, made
    assert "many-3" in made and "many-0" not in made
