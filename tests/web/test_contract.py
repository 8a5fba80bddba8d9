"""One contract for a ruling: what the API answers is what its OpenAPI schema says.

The views (sudya.app.views) are the scenario output, the API's response models and the pages'
objects. These tests validate real outputs against the schema the app publishes, so a field
whose type differs between layers (a dict where a string was declared) fails here, not as a
500 at a venue.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from fastapi.testclient import TestClient

from sudya.adapters.scenario_file import load_scenario_file
from sudya.app import demo
from sudya.app.scenario import replay
from sudya.app.settings import Settings
from sudya.app.views import ReplayResult
from sudya.domain.errors import ScenarioError
from sudya.edges.web.app import create_app

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted((ROOT / "tests" / "scenarios").glob("*/*.yaml")) + sorted(
    (ROOT.parent / "shared" / "scenarios").glob("*.yaml"))
API = "/api/v1"
BERSERK = 1  # the demo's first tournament: berserk, professional


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("contract") / "demo.db"
    demo.build(path).dispose()  # closing checkpoints the WAL into the file
    return path


@pytest.fixture(scope="module")
def openapi(template: Path) -> dict[str, Any]:
    app = create_app(Settings(database_url=f"sqlite:///{template}", secret="test"))
    schema: dict[str, Any] = app.openapi()
    app.state.ledger.db.dispose()
    return schema


def validator(openapi: dict[str, Any], component: str) -> Any:
    """A validator for one of the published components (its $refs resolved in the document)."""
    return jsonschema_rs.validator_for(
        {"$ref": f"#/components/schemas/{component}", "components": openapi["components"]})


def response_schema(openapi: dict[str, Any], path: str, method: str,
                    status: str = "200") -> dict[str, Any]:
    content = openapi["paths"][path][method]["responses"][status]["content"]
    schema: dict[str, Any] = content["application/json"]["schema"]
    return {**schema, "components": openapi["components"]}


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_scenario_output_matches_the_published_replay_schema(
        openapi: dict[str, Any], path: Path) -> None:
    try:
        result = replay(load_scenario_file(path))
    except ScenarioError:
        return  # a refusal: its shape is the error's, tested with the error cases
    errors = [f"{'/'.join(map(str, e.instance_path))}: {e.message}"
              for e in validator(openapi, "ReplayResult").iter_errors(result)]
    assert errors == []
    # the JSON is exactly the typed view's: read as a ReplayResult and written again
    assert ReplayResult.model_validate(result).as_json() == result


@pytest.fixture()
def client(template: Path, tmp_path: Path) -> Iterator[TestClient]:
    db = tmp_path / "demo.db"
    shutil.copyfile(template, db)
    with TestClient(create_app(Settings(database_url=f"sqlite:///{db}",
                                        secret="test"))) as c:
        yield c


def bearer(client: TestClient, username: str) -> dict[str, str]:
    r = client.post(f"{API}/login", json={"username": username, "password": demo.PASSWORD})
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def test_a_carry_over_ruling_is_recorded_and_the_tournament_reads_back(
        client: TestClient, openapi: dict[str, Any]) -> None:
    """002: a game loss given between games applies to the next game (`applies_to`)."""
    judge = bearer(client, "sudya")
    body = {"infraction": "deck.invalid-decklist", "player": "gleb", "round": 3,
            "details": {"between_games": True}, "idempotency_key": "carry-1"}
    first = client.post(f"{API}/tournaments/{BERSERK}/infractions", json=body, headers=judge)
    assert first.status_code == 200, first.text
    ruling = first.json()["rulings"][0]
    assert ruling["subject"] == "gleb" and ruling["cause"] == "table"
    assert [s["kind"] for s in ruling["sanctions"]] == ["game-loss", "warning"]
    assert ruling["applies_to"] == {"game-loss": "next-game"}
    assert "rulebook.note" in [r["code"] for r in ruling["reasons"]]

    retry = client.post(f"{API}/tournaments/{BERSERK}/infractions", json=body, headers=judge)
    assert retry.status_code == 200, retry.text
    assert retry.json()["rulings"] == first.json()["rulings"]

    whole = client.get(f"{API}/tournaments/{BERSERK}", headers=judge)
    assert whole.status_code == 200, whole.text
    stored = [r for r in whole.json()["rulings"] if r["event"] == ruling["event"]]
    assert [r["applies_to"] for r in stored] == [{"game-loss": "next-game"}]
    schema = response_schema(openapi, "/api/v1/tournaments/{tid}", "get")
    assert list(jsonschema_rs.validator_for(schema).iter_errors(whole.json())) == []
    record_schema = response_schema(openapi, "/api/v1/tournaments/{tid}/infractions", "post")
    assert list(jsonschema_rs.validator_for(record_schema).iter_errors(first.json())) == []


def test_an_idempotency_key_is_bound_to_what_was_sent(client: TestClient) -> None:
    """A retry answers the first result; the same key for another request is refused, so a
    ruling is never answered as another's and never silently lost."""
    judge = bearer(client, "sudya")
    url = f"{API}/tournaments/{BERSERK}/infractions"
    boris = {"infraction": "procedure.minor", "player": "boris", "round": 3,
             "idempotency_key": "k1"}
    first = client.post(url, json=boris, headers=judge)
    assert first.status_code == 200, first.text
    again = client.post(url, json=boris, headers=judge)
    assert again.json() == first.json()

    vera = {**boris, "player": "vera"}
    refused = client.post(url, json=vera, headers=judge)
    assert refused.status_code == 409, refused.text
    [item] = refused.json()["detail"]
    assert (item["type"], item["loc"]) == ("key.reused", ["body", "idempotency_key"])

    head_judge = bearer(client, "glavsud")  # the same key and body from another person
    other = client.post(url, json=boris, headers=head_judge)
    assert other.status_code == 409 and other.json()["detail"][0]["type"] == "key.reused"

    whole = client.get(f"{API}/tournaments/{BERSERK}", headers=judge).json()
    recorded = [r for r in whole["rulings"] if r["infraction"] == "procedure.minor"
                and r["event"] == first.json()["event"]]
    assert [r["subject"] for r in recorded] == ["boris"]
    fresh = client.post(url, json={**vera, "idempotency_key": "k2"}, headers=judge)
    assert fresh.status_code == 200 and fresh.json()["rulings"][0]["subject"] == "vera"
