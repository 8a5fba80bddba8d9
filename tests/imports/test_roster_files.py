"""Issue 36: an organiser's list of players (or teams), uploaded as Excel or Google Sheets save
it — commas, semicolons or tabs; UTF-8, UTF-8 with a BOM or cp1251; or the XLSX itself — is
read into rows, each bad row named by the line a spreadsheet shows (the header is line 1) and
the field; a file that is no list at all is refused with a code. Every file is made here."""

from __future__ import annotations

import ast
import io
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from pydantic import TypeAdapter, ValidationError

from sudya.domain import commands as c
from sudya.domain import roster_files
from sudya.domain.errors import SudyaError
from sudya.domain.roster_files import (
    MAX_ROWS,
    PlayerRow,
    RosterFile,
    RowProblem,
    TeamRow,
    read_roster,
)
from sudya.i18n.messages import LANGS, catalogue, render


def csv_bytes(lines: list[str], encoding: str = "utf-8", end: str = "\r\n") -> bytes:
    return end.join(lines).encode(encoding) + end.encode(encoding)


def xlsx_bytes(rows: list[list[Any]]) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def codes(roster: RosterFile[Any]) -> list[tuple[int, str, str]]:
    return [(p.line, p.field, p.code) for p in roster.problems]


def refusal(data: bytes, name: str = "list.csv", kind: str = "players") -> SudyaError:
    with pytest.raises(SudyaError) as info:
        read_roster(data, name, kind)  # type: ignore[call-overload]
    assert info.value.field == "file"
    return info.value


# --------------------------------------------------------------------------- formats


def test_a_comma_file_in_utf8_with_the_cli_headers() -> None:
    data = csv_bytes(["handle,name,team,table", "ivan,Ivan Petrov,dragons,5",
                      "OLGA,Ольга,,12", "boris,,,"])
    roster = read_roster(data, "players.csv", "players")
    assert roster.ok and roster.format == "csv"
    assert (roster.encoding, roster.delimiter) == ("utf-8", ",")
    assert roster.rows == (PlayerRow(2, "ivan", "Ivan Petrov", "dragons", 5),
                           PlayerRow(3, "olga", "Ольга", None, 12),
                           PlayerRow(4, "boris", None, None, None))
    assert roster.columns == {"handle": "handle", "name": "name", "team": "team",
                              "table": "table"}
    assert roster.ignored_columns == ()


def test_a_semicolon_file_in_cp1251_with_russian_headers() -> None:
    """Russian Excel's «CSV (разделители — точки с запятой)»: cp1251 and `;`."""
    data = csv_bytes(["Ник;Имя;Команда;Стол", "vasya;Василий Ёлкин;Драконы;3",
                      "петя;Пётр Щукин;;4"], encoding="cp1251")
    roster = read_roster(data, "Участники.csv", "players")
    assert roster.ok
    assert (roster.encoding, roster.delimiter) == ("cp1251", ";")
    assert roster.rows == (PlayerRow(2, "vasya", "Василий Ёлкин", "драконы", 3),
                           PlayerRow(3, "петя", "Пётр Щукин", None, 4))
    assert roster.columns["handle"] == "Ник"


def test_utf8_with_a_bom_and_headers_written_loosely() -> None:
    """A BOM is not part of the first header; case, spaces, `ё` and a colon are not either."""
    data = b"\xef\xbb\xbf" + csv_bytes([" НИК ;ФИО;  Номер   стола: ;Примечание",
                                         "anna;Анна Сергеевна Котова;7;без колоды"])
    roster = read_roster(data, "list.csv", "players")
    assert roster.ok and roster.encoding == "utf-8"
    assert roster.rows == (PlayerRow(2, "anna", "Анна Сергеевна Котова", None, 7),)
    assert roster.ignored_columns == ("Примечание",)
    assert "\ufeff" not in roster.columns["handle"]


def test_a_tab_separated_file() -> None:
    data = csv_bytes(["handle\tname\ttable", "ivan\tIvan, the Terrible\t1",
                      "olga\tOlga; Sr.\t2"], end="\n")
    roster = read_roster(data, "list.txt", "players")
    assert roster.ok and roster.delimiter == "\t"
    assert [r.name for r in roster.rows] == ["Ivan, the Terrible", "Olga; Sr."]


def test_utf16_as_excel_saves_unicode_text() -> None:
    data = "handle\tname\r\nivan\tИван\r\n".encode("utf-16")
    roster = read_roster(data, "list.txt", "players")
    assert roster.encoding == "utf-16"
    assert roster.rows == (PlayerRow(2, "ivan", "Иван"),)


def test_quoted_cells_keep_their_semicolons_and_commas() -> None:
    semicolons = csv_bytes(['"Ник";"Имя";"Стол"', '"ivan";"Петров; Иван";"1"',
                            'olga;"Котова, Ольга";2'])
    roster = read_roster(semicolons, "list.csv", "players")
    assert roster.ok and roster.delimiter == ";"
    assert [r.name for r in roster.rows] == ["Петров; Иван", "Котова, Ольга"]
    # commas between the columns, `;` only inside quotes: the header still decides
    commas = csv_bytes(['handle,name,"notes; misc"', 'ivan,"Петров; Иван","a;b;c"'])
    roster = read_roster(commas, "list.csv", "players")
    assert roster.ok and roster.delimiter == ","
    assert roster.rows == (PlayerRow(2, "ivan", "Петров; Иван"),)
    assert roster.ignored_columns == ("notes; misc",)


def test_a_header_with_both_separators_is_read_by_its_names() -> None:
    """csv.Sniffer would prefer `,` here; the known names say `;`."""
    data = csv_bytes(["Ник;Фамилия, имя;Стол", "ivan;Петров, Иван;1"])
    roster = read_roster(data, "list.csv", "players")
    assert roster.delimiter == ";"
    assert roster.ignored_columns == ("Фамилия, имя",)
    assert roster.rows == (PlayerRow(2, "ivan", None, None, 1),)


def test_an_xlsx_with_numbers_in_its_cells() -> None:
    data = xlsx_bytes([["Ник", "Имя", "Команда", "Стол"],
                       ["ivan", "Иван Петров", "Dragons", 5],
                       [None, None, None, None],
                       ["olga", "Ольга", None, 7.0],
                       [12345, None, None, 2.5]])
    roster = read_roster(data, "list.bin", "players")  # the content says XLSX, not the name
    assert roster.format == "xlsx" and roster.encoding is None
    assert roster.rows == (PlayerRow(2, "ivan", "Иван Петров", "dragons", 5),
                           PlayerRow(4, "olga", "Ольга", None, 7),
                           PlayerRow(5, "12345", None, None, None))
    assert codes(roster) == [(5, "table", "roster.table-number")]
    assert roster.problems[0].params["value"] == "2.5"


def test_an_xlsx_with_blank_rows_above_and_below() -> None:
    """Rows keep Excel's numbers; blank and formatted-but-empty rows at the end are no rows."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet["A3"], sheet["B3"] = "handle", "table"
    sheet["A4"], sheet["B4"] = "ivan", 3
    sheet["A6"], sheet["B6"] = "ivan", 4
    sheet["C40"].font = openpyxl.styles.Font(bold=True)
    out = io.BytesIO()
    book.save(out)
    roster = read_roster(out.getvalue(), "list.xlsx", "players")
    assert [r.line for r in roster.rows] == [4, 6]
    assert codes(roster) == [(4, "handle", "roster.handle-twice"),
                             (6, "handle", "roster.handle-twice")]


def test_teams_with_their_members() -> None:
    data = csv_bytes(["Ник команды;Название;Состав",
                      'dragons;Красные драконы;"ivan, olga; Boris  anna"',
                      "owls;Совы;petr petr",
                      "bears;;"])
    roster = read_roster(data, "teams.csv", "teams")
    assert roster.rows == (TeamRow(2, "dragons", "Красные драконы",
                                   ("ivan", "olga", "boris", "anna")),
                           TeamRow(3, "owls", "Совы", ("petr",)),
                           TeamRow(4, "bears", None, ()))
    assert codes(roster) == [(3, "members", "roster.member-twice")]
    # the CLI's English headers too
    cli = read_roster(csv_bytes(["handle,name,members", "owls,Owls,a b"]), "t.csv", "teams")
    assert cli.rows == (TeamRow(2, "owls", "Owls", ("a", "b")),)


def test_a_bad_member_is_named_with_its_team() -> None:
    data = csv_bytes(["handle;members", "owls;ivan ivаn"])  # the second: a Cyrillic «а»
    roster = read_roster(data, "teams.csv", "teams")
    assert codes(roster) == [(2, "members", "handle.mixed-scripts")]
    assert roster.problems[0].params["handle"] == "ivаn"


# --------------------------------------------------------------------------- row problems


def test_the_same_handle_twice_names_both_lines() -> None:
    data = csv_bytes(["handle,name", "ivan,Иван", "olga,Ольга", "IVAN,Иван Второй"])
    roster = read_roster(data, "list.csv", "players")
    assert not roster.ok
    assert codes(roster) == [(2, "handle", "roster.handle-twice"),
                             (4, "handle", "roster.handle-twice")]
    assert roster.problems[0].params == {"handle": "ivan", "lines": (2, 4)}
    assert roster.bad_lines == {2, 4}
    assert len(roster.rows) == 3  # the preview shows them all


@pytest.mark.parametrize("table", ["x", "0", "100001", "2.5", "-3", "1e3", "５x"])
def test_a_table_that_is_not_a_whole_number_from_1_to_100000(table: str) -> None:
    data = csv_bytes(["handle,table", f"ivan,{table}"])
    roster = read_roster(data, "list.csv", "players")
    assert codes(roster) == [(2, "table", "roster.table-number")]
    assert roster.rows == (PlayerRow(2, "ivan"),)


@pytest.mark.parametrize(("table", "number"), [("1", 1), ("100000", 100000), (" 7 ", 7),
                                                ("8.0", 8), ("9,0", 9), ("０１２", 12)])
def test_a_table_written_as_a_spreadsheet_writes_it(table: str, number: int) -> None:
    data = csv_bytes(["handle;table", f"ivan;{table}"])
    assert read_roster(data, "list.csv", "players").rows == (PlayerRow(2, "ivan", table=number),)


def test_a_missing_handle_is_named_and_blank_lines_are_skipped() -> None:
    data = csv_bytes(["handle,name,table", "ivan,Иван,1", "", ",Безымянный,2", "  ,  ,  ",
                      "", "olga,Ольга,3"])
    roster = read_roster(data, "list.csv", "players")
    assert [r.line for r in roster.rows] == [2, 4, 7]
    assert codes(roster) == [(4, "handle", "value.required")]
    assert roster.problems_at(4)[0].error().code == "value.required"


def test_a_bad_handle_is_shown_normalised_with_its_refusal() -> None:
    data = csv_bytes(["handle,team", "ＩＶＡＮ,", "ivаn,", "a.b,Red Dragons", "x" * 101 + ","])
    roster = read_roster(data, "list.csv", "players")
    assert [r.handle for r in roster.rows][:3] == ["ivan", "ivаn", "a.b"]
    assert codes(roster) == [(3, "handle", "handle.mixed-scripts"),
                             (4, "team", "handle.characters"),
                             (5, "handle", "text.too-long")]
    assert roster.problems[0].params == {"handle": "ivаn"}
    assert roster.problems[2].params == {"max": c.MAX_ID}


def test_a_name_as_the_commands_take_it() -> None:
    data = csv_bytes(["handle;name", "ivan;" + "я" * 201, 'olga;"Ольга\nКотова"'])
    roster = read_roster(data, "list.csv", "players")
    assert codes(roster) == [(2, "name", "text.too-long"),
                             (3, "name", "text.control-characters")]


def test_a_cell_with_a_line_break_is_one_row_of_the_spreadsheet() -> None:
    data = csv_bytes(['handle,name', 'ivan,"Иван', 'Петров"', 'olga,Ольга', 'olga,'])
    roster = read_roster(data, "list.csv", "players")
    assert [r.line for r in roster.rows] == [2, 3, 4]
    assert {p.line for p in roster.problems if p.code == "roster.handle-twice"} == {3, 4}


def test_five_hundred_players() -> None:
    """The size real events have: read whole, in order, nothing refused."""
    lines = ["Ник;Имя;Команда;Стол"]
    lines += [f"игрок{i};Игрок Номер {i};;{i // 2 + 1}" for i in range(500)]
    roster = read_roster(csv_bytes(lines, encoding="cp1251"), "big.csv", "players")
    assert roster.ok and len(roster.rows) == 500
    assert roster.rows[0] == PlayerRow(2, "игрок0", "Игрок Номер 0", None, 1)
    assert roster.rows[-1] == PlayerRow(501, "игрок499", "Игрок Номер 499", None, 250)
    sheet = read_roster(xlsx_bytes([["handle", "name", "table"]] + [
        [f"p{i}", f"Player {i}", i + 1] for i in range(500)]), "big.xlsx", "players")
    assert sheet.ok and [r.table for r in sheet.rows] == list(range(1, 501))


# --------------------------------------------------------------------------- file problems


def test_no_handle_column() -> None:
    error = refusal(csv_bytes(["Имя;Стол", "Иван;1"]))
    assert error.code == "roster.no-handle-column"
    assert error.params["columns"] == ["Имя", "Стол"]


def test_no_header_row() -> None:
    error = refusal(csv_bytes(["ivan;Иван;1", "olga;Ольга;2"]))
    assert error.code == "roster.no-header"


def test_two_columns_for_one_field() -> None:
    error = refusal(csv_bytes(["Ник;Логин;Имя", "a;b;c"]))
    assert (error.code, error.params["columns"]) == ("roster.column-twice", ["Ник", "Логин"])


@pytest.mark.parametrize("data", [b"", b"\r\n\r\n  \n", b"\xef\xbb\xbf\r\n",
                                  xlsx_bytes([])])
def test_an_empty_file(data: bytes) -> None:
    assert refusal(data).code == "roster.empty"


def test_a_header_and_nothing_under_it() -> None:
    assert refusal(csv_bytes(["handle,name", "", ","])).code == "roster.no-rows"


def test_binary_files_are_no_table() -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    assert refusal(png, "photo.csv").code == "roster.not-a-table"
    noise = bytes((i * 7919) % 251 + 1 for i in range(4000))  # no NUL, not UTF-8
    assert refusal(noise, "noise.csv").code == "roster.not-a-table"
    assert refusal(bytes(100), "zeros.csv").code == "roster.not-a-table"
    docx = io.BytesIO()
    with zipfile.ZipFile(docx, "w") as z:
        z.writestr("word/document.xml", "<w:document/>")
    assert refusal(docx.getvalue(), "list.xlsx").code == "roster.not-a-table"
    broken = xlsx_bytes([["handle"], ["ivan"]])[:600]
    assert refusal(broken, "list.xlsx").code == "roster.not-a-table"
    old = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512)
    assert refusal(old, "list.xls").code == "roster.old-excel"


def test_the_limits() -> None:
    big = csv_bytes(["handle,name"] + [f"p{i},{'x' * 100}" for i in range(21_000)])
    assert len(big) > roster_files.MAX_BYTES
    error = refusal(big)
    assert (error.code, error.params) == ("roster.too-large", {"max_mb": 2})
    many = csv_bytes(["handle"] + [f"p{i}" for i in range(MAX_ROWS + 1)])
    assert refusal(many).code == "roster.too-many-rows"
    assert read_roster(csv_bytes(["handle"] + [f"p{i}" for i in range(MAX_ROWS)]), "x.csv",
                       "players").ok
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("xl/workbook.xml", "<workbook/>")
        z.writestr("xl/worksheets/sheet1.xml", " " * (roster_files.MAX_UNPACKED + 1))
    assert len(bomb.getvalue()) < roster_files.MAX_BYTES
    assert refusal(bomb.getvalue(), "bomb.xlsx").code == "roster.too-large-unpacked"


def test_an_unknown_kind() -> None:
    with pytest.raises(SudyaError) as info:
        read_roster(b"handle\nivan\n", "x.csv", "judges")  # type: ignore[call-overload]
    assert (info.value.code, info.value.field) == ("roster.unknown-kind", "kind")


# --------------------------------------------------------------------------- agreement


def test_the_limits_are_those_of_the_commands() -> None:
    table = TypeAdapter(c.Table)
    assert table.validate_python(roster_files.MAX_TABLE) == roster_files.MAX_TABLE
    assert table.validate_python(roster_files.MIN_TABLE) == roster_files.MIN_TABLE
    for outside in (roster_files.MIN_TABLE - 1, roster_files.MAX_TABLE + 1):
        with pytest.raises(ValidationError):
            table.validate_python(outside)
    members = [f"p{i}" for i in range(roster_files.MAX_MEMBERS)]
    c.AddTeam(handle="t", members=members)
    with pytest.raises(ValidationError):
        c.AddTeam(handle="t", members=[*members, "one-more"])


def test_every_code_renders_in_both_languages() -> None:
    """The codes the module names (a scan of its source) and those its row checks give,
    each rendered in Russian and English; a refusal and a row problem rendered whole."""
    source = Path(roster_files.__file__).read_text(encoding="utf-8")
    named = {node.value for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Constant) and isinstance(node.value, str)
             and node.value.startswith("roster.")}
    assert len(named) == 15
    players = read_roster(csv_bytes([
        "handle;name;team;table;пол", "ivan;;;x;", "ivan;;;;", ";Безымянный;;;", "ivаn;;a b;;",
        "x" * 101 + ";" + "я" * 201 + ";;;", 'olga;"a\nb";;;', "nina;;;;жен.", "ira;;;;z"]),
        "p.csv", "players")
    teams = read_roster(csv_bytes(["handle;members", "t;a a", "u;" + " ".join(
        f"p{i}" for i in range(501))]), "t.csv", "teams")
    met = [(p.code, p.params) for p in (*players.problems, *teams.problems)]
    assert {code for code, _ in met} == {
        "roster.handle-twice", "roster.table-number", "value.required", "handle.mixed-scripts",
        "handle.characters", "text.too-long", "text.control-characters",
        "roster.member-twice", "value.too-many", "roster.gender"}
    for lang in LANGS:
        assert named | {code for code, _ in met} <= set(catalogue(lang)), lang
    for code, params in met:
        texts = {lang: render(code, params, lang) for lang in LANGS}
        assert texts["ru"] != texts["en"] and all("{" not in t for t in texts.values())
    error = refusal(csv_bytes(["Имя;Стол", "Иван;1"]), "Участники.csv")
    assert error.render("ru") == ("Участники.csv: file: нет столбца с ником (есть: Имя, Стол); "
                                  "назовите его одним из: handle, nick, nickname, login, id, "
                                  "ник, никнейм, логин")
    assert error.render("en").startswith("Участники.csv: file: no handle column")
    problem = RowProblem(3, "table", "roster.table-number", {"value": "x", "min": 1,
                                                               "max": 100000})
    assert problem.error().render("ru") == \
        "table: номер стола — целое число от 1 до 100000, а не «x»"
