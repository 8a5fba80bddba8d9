"""The rulebook editor (issue 17): errors beside their line as one types, lint, «было / стало»,
the cases, and publishing refused unless the draft loads, lints clean and passes its cases."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from web_testkit import csrf_of

from sudya.domain.rulebook import loader

TINY = (Path(__file__).parents[1] / "rulebooks" / "data" / "tiny.yaml").read_text("utf-8")
CASE = """rulebook: tiny
date: 2026-05-01
level: low
players: [ann]
events:
  - {id: e1, infraction: noise, player: ann, round: 1}
"""


@pytest.fixture(autouse=True)
def _forget_published() -> Iterator[None]:
    yield
    loader.keep_stored(set())  # what this test published is its database's, not the next's


def _editor(signed_in: Callable[[str], TestClient]) -> tuple[TestClient, str]:
    c = signed_in("glavsud")
    return c, csrf_of(c, "/rulebooks/editor")


def test_only_organisers_open_the_editor(signed_in: Callable[[str], TestClient],
                                         client: TestClient) -> None:
    assert client.get("/rulebooks/editor", follow_redirects=False).status_code == 303
    assert signed_in("sudya").get("/rulebooks/editor").status_code == 403
    page = signed_in("glavsud").get("/rulebooks")
    assert 'href="/rulebooks/editor"' in page.text


def test_a_broken_yaml_shows_its_error_beside_the_line(
        signed_in: Callable[[str], TestClient]) -> None:
    c, csrf = _editor(signed_in)
    broken = TINY.replace("  - {id: low,", "  - {id: low\n  - {id: x,")
    r = c.post("/rulebooks/editor/check", data={"text": broken, "csrf": csrf},
               headers={"HX-Request": "true"})
    assert r.status_code == 200
    assert "<html" not in r.text  # the report alone
    assert 'data-line="7"' in r.text and "Ошибка YAML" in r.text
    assert "disabled" in r.text.split('id="publish"')[1].split(">")[0]
    # a key the format does not know: its key path and line, in Russian
    extra = TINY.replace('    source: "tiny §1"', '    source: "tiny §1"\n    bogus: 1')
    r = c.post("/rulebooks/editor/check", data={"text": extra, "csrf": csrf},
               headers={"HX-Request": "true"})
    assert "infractions[noise].bogus" in r.text and "Ключ «bogus» здесь не предусмотрен" in r.text
    assert 'data-line="18"' in r.text


def test_lint_errors_block_publishing(signed_in: Callable[[str], TestClient]) -> None:
    c, csrf = _editor(signed_in)
    text = TINY.replace("{low: caution, high: warning}", "{low: caution}")
    r = c.post("/rulebooks/editor/check", data={"text": text, "csrf": csrf},
               headers={"HX-Request": "true"})
    assert "infractions.noise.penalty" in r.text and 'data-line="18"' in r.text
    assert "Проверка находит 1 ошибку." in r.text
    r = c.post("/rulebooks/editor/publish", data={"text": text, "csrf": csrf,
                                                   "summary": "x", "in_force_from": "2027-01-01"})
    assert r.status_code == 422


def test_the_diff_against_the_edition_in_force(signed_in: Callable[[str], TestClient]) -> None:
    c, csrf = _editor(signed_in)
    page = c.get("/rulebooks/editor?from=berserk")
    assert page.status_code == 200 and "berserk-basics" in page.text
    text = page.text.split('name="text"', 1)[1].split(">", 1)[1].split("</textarea>")[0]
    text = html.unescape(text)
    assert "infractions:" in text
    r = c.post("/rulebooks/editor/check", data={"text": text, "csrf": csrf, "from": "berserk"},
               headers={"HX-Request": "true"})
    assert "Ничего не изменилось" in r.text  # the same text as the edition in force
    assert 'class="catalogue"' in r.text


def test_a_failing_case_blocks_publishing(signed_in: Callable[[str], TestClient]) -> None:
    c, csrf = _editor(signed_in)
    data = {"text": TINY, "csrf": csrf, "case_name": "noise", "case_scenario": CASE,
            "case_expected": '{"rulings": []}'}
    r = c.post("/rulebooks/editor/cases", data=data, headers={"HX-Request": "true"})
    assert r.status_code == 200 and "noise" in r.text and "ожидали 0 решений, получили 1" in r.text
    r = c.post("/rulebooks/editor/publish", data={**data, "summary": "first",
                                                   "in_force_from": "2027-01-01"})
    assert r.status_code == 422 and "noise" in r.text.split('id="publish-reasons"')[1]


def test_a_draft_that_passes_is_published_and_opens_again_in_the_editor(
        signed_in: Callable[[str], TestClient]) -> None:
    c, csrf = _editor(signed_in)
    text = TINY.replace("id: tiny", "id: tiny-club")
    case = CASE.replace("rulebook: tiny", "rulebook: tiny-club")
    expected = c.post("/rulebooks/editor/cases", data={
        "text": text, "csrf": csrf, "case_name": "noise", "case_scenario": case,
        "case_expected": '{"rulings": []}'})
    assert "ожидали 0 решений, получили 1" in expected.text
    data = {"text": text, "csrf": csrf, "case_name": "noise", "case_scenario": case,
            "case_expected": '{"rulings": [{"event": "e1", "subject": "ann", '
                             '"infraction": "noise", "cause": "table", '
                             '"sanctions": [{"kind": "caution"}]}], "subjects": {"ann": {}}}',
            "summary": "Первая редакция", "in_force_from": "2027-01-01", "confirm": "1"}
    r = c.post("/rulebooks/editor/publish", data=data)
    assert r.status_code == 200, r.text
    assert "Редакция 1 регламента tiny-club опубликована" in r.text
    assert "tiny-club" in c.get("/rulebooks").text
    page = c.get("/rulebooks/editor?from=tiny-club")
    assert page.status_code == 200 and "Крошечный регламент" in page.text
    # the next draft against the published edition: «было / стало» per infraction and level
    changed = text.replace("{low: caution, high: warning}", "{low: warning, high: warning}")
    changed = changed.replace("  - id: digging", "  - id: digging-x")
    r = c.post("/rulebooks/editor/check", data={"text": changed, "csrf": csrf},
               headers={"HX-Request": "true"})
    rows = [" | ".join(td.split("<")[0].strip() for td in tr.split("<td>")[1:])
            for tr in r.text.split('id="diff"')[1].split("</table>")[0].split("<tr")[2:]]
    assert "Шум | Низкий | пенальти | Замечание | Предупреждение" in rows
    assert "Подкоп | Высокий | нарушение добавлено | — | Каторга [depth * 10]" in rows
    assert "Подкоп | Низкий | нарушение удалено | Каторга [depth * 10] | —" in rows


BERSERK_TEXT = (Path(__file__).parents[2] / "src" / "sudya" / "domain" / "rulebook" / "bundled"
                / "berserk.yaml").read_text("utf-8")
HARSH = BERSERK_TEXT.replace(
    "penalty: {amateur: caution, professional: warning, highest: warning}",
    "penalty: {amateur: disqualification, professional: disqualification, "
    "highest: disqualification}", 1)


def test_a_bundled_rulebook_is_published_only_for_a_series_of_the_organisers(
        signed_in: Callable[[str], TestClient]) -> None:
    """Issue 35: the editor asks for which series; a bundled rulebook without one is refused
    beside that choice; with one, the edition is that series' alone, and the rulebook's page
    says so."""
    c, csrf = _editor(signed_in)
    page = c.get("/rulebooks/editor?from=berserk").text
    found = re.search(r'<option value="(\d+)"( selected)?>Кубок «Берсерк» \(berserk\)</option>',
                      html.unescape(page))
    assert found is not None, page.split('id="series"')[1][:600]
    assert found.group(2)  # the organiser's one berserk series, chosen for them
    data = {"text": HARSH, "csrf": csrf, "summary": "Замедление — дисквалификация",
            "in_force_from": "2027-01-01"}
    r = c.post("/rulebooks/editor/publish", data=data)
    assert r.status_code == 422
    beside = html.unescape(r.text.split('id="series-error"')[1].split("</p>")[0])
    assert "встроенный регламент berserk общий для всех серий" in beside
    r = c.post("/rulebooks/editor/publish", data={**data, "series": found.group(1),
                                                   "confirm": "1"})
    assert r.status_code == 200, r.text
    assert "Редакция 2 регламента berserk опубликована" in r.text
    listing = html.unescape(c.get("/rulebooks/berserk").text)
    assert "2</a> <span class=\"muted\">(только серия «Кубок «Берсерк»»)</span>" in listing


def test_an_editor_case_never_reads_a_file_of_the_server(
        signed_in: Callable[[str], TestClient], tmp_path: Path) -> None:
    """A case names its rulebook by id: a path in it is not opened (it would tell whether the
    file exists and what it holds)."""
    c, csrf = _editor(signed_in)
    text = TINY.replace("id: tiny", "id: tiny-club")
    there = tmp_path / "elsewhere.yaml"
    there.write_text(text, encoding="utf-8")  # a file of the same id: once taken as the draft
    case = CASE.replace("rulebook: tiny", f"rulebook: {there}")
    r = c.post("/rulebooks/editor/cases", data={
        "text": text, "csrf": csrf, "case_name": "probe", "case_scenario": case,
        "case_expected": '{"rulings": []}'})
    assert r.status_code == 200
    shown = html.unescape(r.text)
    assert "✗ probe" in shown and f"называет регламент {there}, а хранится с регламентом " \
        "tiny-club" in shown
