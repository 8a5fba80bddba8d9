"""The judge's form has the same limits as the API: both go through the one decoder
(sudya.domain.commands); a refusal stands beside its field and nothing is recorded."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from web_testkit import csrf_of

from sudya.app.ledger import Ledger

BERSERK = 1  # the demo's berserk tournament
RECORD = f"/t/{BERSERK}/record?infraction=gameplay.missed-trigger&player=boris"


def events(ledger: Ledger) -> int:
    from sudya.app.queries import rulings_json

    with ledger.factory() as s:
        return len(rulings_json(s, BERSERK))


@pytest.mark.parametrize(("field", "value", "beside"), [
    ("details.card", "К" * 1001, 'id="card-error"'),  # longer than a fact may be
    ("details.card", "Аккения\x01", 'id="card-error"'),  # a control character
    ("round", "1001", 'name="round" inputmode="numeric" value="1001" aria-invalid="true"'),
])
def test_the_form_refuses_what_the_api_refuses(
        signed_in: Callable[[str], TestClient], ledger: Ledger, field: str, value: str,
        beside: str) -> None:
    client = signed_in("sudya")
    before = events(ledger)
    data = {"csrf": csrf_of(client, RECORD), "infraction": "gameplay.missed-trigger",
            "player": "boris", "details.opponent": "alisa", field: value}
    for step in ("preview", "confirm"):
        page = client.post(f"/t/{BERSERK}/record/{step}", data=data)
        assert page.status_code == 422, (step, page.text[:300])
        assert beside in page.text, (step, field)
    assert events(ledger) == before
