"""An organiser's list of players or teams, read from an uploaded CSV or XLSX file.

Organisers keep their lists in Excel or Google Sheets and upload what it saves: a CSV with
commas, or with semicolons (Russian Excel, where the comma is the decimal mark), or with tabs
(Excel's «Unicode text»); in UTF-8, with or without a BOM, or in cp1251 (Russian Windows
Excel); or the XLSX itself. `read_roster` reads all of these into typed rows and names every
bad row by its line — the row number a spreadsheet shows, the header being line 1 — and its
field, without raising: the caller shows a preview (what will be added, each bad row named)
and then imports every row or none. Only a file that cannot be read as a list at all raises
`SudyaError(code, field="file")`.

Values are checked by the same rules the commands use (`sudya.domain.commands`: `Handle`,
`Name`), so the preview refuses exactly what adding the row would refuse, and shows a handle
in its one spelling (`sudya.domain.handles`).

Limits, so a wrong or hostile upload is refused quickly: 2 MB per file (20 MB unpacked for
an XLSX, which is a zip), 5,000 rows that are not blank (a big event has a few hundred
players).
"""

from __future__ import annotations

import codecs
import csv
import dataclasses
import datetime as dt
import functools
import io
import re
import unicodedata
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, overload

from pydantic import TypeAdapter, ValidationError

from sudya.domain import handles
from sudya.domain.commands import Gender, Handle, Name, error_of
from sudya.domain.errors import SudyaError

MAX_BYTES = 2 * 1024 * 1024
MAX_UNPACKED = 20 * 1024 * 1024  # an XLSX's parts together, unzipped: no zip bombs
MAX_ROWS = 5_000
# as commands.AddPlayer.table and AddTeam.members allow (tests/imports check they agree)
MIN_TABLE, MAX_TABLE = 1, 100_000
MAX_MEMBERS = 500

Kind = Literal["players", "teams"]
Format = Literal["csv", "xlsx"]

# what a column may be called, per kind: compared trimmed, case-folded, with ё as е. The
# English names are the CLI's CSV format (docs/ledger.en.md, «CSV formats for sudya import»).
HEADERS: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "players": {
        "handle": ("handle", "nick", "nickname", "login", "id", "ник", "никнейм", "логин"),
        "name": ("name", "full name", "player", "имя", "фио", "ф.и.о.", "ф. и. о.", "игрок",
                 "имя игрока", "фамилия и имя", "имя и фамилия"),
        "team": ("team", "club", "clan", "команда", "клуб", "клан"),
        "table": ("table", "table no", "стол", "номер стола", "№ стола"),
        "gender": ("gender", "sex", "пол"),
    },
    "teams": {
        "handle": ("handle", "nick", "login", "id", "team", "ник", "ник команды", "логин",
                   "команда"),
        "name": ("name", "team name", "название", "название команды", "имя"),
        "members": ("members", "players", "roster", "состав", "игроки", "участники",
                    "члены команды"),
    },
}
# how a list may write a gender (compared stripped, case-folded, without a final dot)
GENDERS: Mapping[str, Gender] = {
    **dict.fromkeys(("m", "male", "man", "м", "муж", "мужской", "мужчина"), "m"),
    **dict.fromkeys(("f", "female", "woman", "ж", "жен", "женский", "женщина"), "f"),
}
DELIMITERS = (",", ";", "\t")  # in this order of preference when a header cannot tell
MEMBER_SEPARATORS = re.compile(r"[\s,;]+")
WHOLE = re.compile(r"[0-9]+(?:[.,]0*)?")  # `5`, and `5.0` / `5,0` as a spreadsheet writes it
ZIP = b"PK\x03\x04"
OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # Excel 97-2003 (.xls), or an encrypted .xlsx
NOT_TEXT = (b"%PDF", b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"\x1f\x8b", b"Rar!", b"7z\xbc\xaf")


@dataclass(frozen=True)
class PlayerRow:
    """A player as the file gives them: the handle normalised, empty cells as None."""

    line: int
    handle: str
    name: str | None = None
    team: str | None = None
    table: int | None = None
    gender: Gender | None = None


@dataclass(frozen=True)
class TeamRow:
    """A team as the file gives it: handles normalised, the members in the file's order."""

    line: int
    handle: str
    name: str | None = None
    members: tuple[str, ...] = ()


@dataclass(frozen=True)
class RowProblem:
    """What is wrong with one row: its line, the field and a message code with parameters."""

    line: int
    field: str
    code: str
    params: Mapping[str, Any] = dataclasses.field(default_factory=dict, hash=False)

    def error(self) -> SudyaError:
        """The problem as an error, to render in the reader's language like any other."""
        return SudyaError(self.code, field=self.field, **self.params)


Row = TypeVar("Row", PlayerRow, TeamRow)


@dataclass(frozen=True)
class RosterFile(Generic[Row]):
    """A list as read: every row that is not blank (bad ones too, so a preview can show
    them) and the problems found, in line order. Import it only when `ok`."""

    kind: Kind
    format: Format
    rows: tuple[Row, ...]
    problems: tuple[RowProblem, ...]
    # field -> its header as written, for a preview to name the column as the file does
    columns: Mapping[str, str] = dataclasses.field(default_factory=dict, hash=False)
    ignored_columns: tuple[str, ...] = ()  # headers of the columns nobody reads
    encoding: str | None = None  # of a CSV: utf-8, cp1251 or utf-16
    delimiter: str | None = None  # of a CSV

    @property
    def ok(self) -> bool:
        """Nothing to correct: every row may be imported."""
        return not self.problems

    @property
    def bad_lines(self) -> frozenset[int]:
        """The lines a preview marks."""
        return frozenset(p.line for p in self.problems)

    def problems_at(self, line: int) -> tuple[RowProblem, ...]:
        """What is wrong with one line, to show beside it."""
        return tuple(p for p in self.problems if p.line == line)


@overload
def read_roster(data: bytes, filename: str, kind: Literal["players"]) -> RosterFile[PlayerRow]:
    ...


@overload
def read_roster(data: bytes, filename: str, kind: Literal["teams"]) -> RosterFile[TeamRow]:
    ...


def read_roster(data: bytes, filename: str,
                kind: Kind) -> RosterFile[PlayerRow] | RosterFile[TeamRow]:
    """Read a players' or teams' list; SudyaError(field="file") if it is no list at all."""
    if kind not in HEADERS:
        raise SudyaError("roster.unknown-kind", field="kind", kind=kind)
    if len(data) > MAX_BYTES:
        raise _refused("roster.too-large", filename, max_mb=MAX_BYTES // (1024 * 1024))
    if not data.strip():
        raise _refused("roster.empty", filename)
    if data.startswith(ZIP):
        sheet = _Table("xlsx", _xlsx_records(data, filename))
    elif data.startswith(OLE):
        raise _refused("roster.old-excel", filename)
    else:
        text, encoding = _decode(data, filename)
        delimiter = _delimiter(text, kind)
        sheet = _Table("csv", _csv_records(text, delimiter, filename), encoding, delimiter)
    if kind == "players":
        return _read(sheet, "players", _player, filename)
    return _read(sheet, "teams", _team, filename)


@dataclass
class _Table:
    """The records of a file, each with the line a spreadsheet shows it on."""

    format: Format
    records: Iterator[tuple[int, list[str]]]
    encoding: str | None = None
    delimiter: str | None = None


def _refused(code: str, filename: str, **params: Any) -> SudyaError:
    return SudyaError(code, field="file", where=filename, **params)


# --------------------------------------------------------------------------- the rows


def _read(sheet: _Table, kind: Kind,
          make: Callable[[int, Mapping[str, str]], tuple[Row, list[RowProblem]]],
          filename: str) -> RosterFile[Row]:
    """The header (the first row that is not blank), then every row under it."""
    header = next(((line, cells) for line, cells in sheet.records if any(cells)), None)
    if header is None:
        raise _refused("roster.empty", filename)
    at, columns, ignored = _columns(header[1], kind, filename)
    rows: list[Row] = []
    problems: list[RowProblem] = []
    for line, cells in sheet.records:
        if not any(cells):
            continue  # a blank line separates nothing and adds nobody
        if len(rows) == MAX_ROWS:
            raise _refused("roster.too-many-rows", filename, max=MAX_ROWS)
        values = {name: cells[i] if i < len(cells) else "" for name, i in at.items()}
        row, found = make(line, values)
        rows.append(row)
        problems += found
    if not rows:
        raise _refused("roster.no-rows", filename)
    problems += _repeated(rows)
    order = list(HEADERS[kind])
    problems.sort(key=lambda p: (p.line, order.index(p.field) if p.field in order else 0))
    return RosterFile(kind=kind, format=sheet.format, rows=tuple(rows),
                      problems=tuple(problems), columns=columns, ignored_columns=ignored,
                      encoding=sheet.encoding, delimiter=sheet.delimiter)


def _player(line: int, values: Mapping[str, str]) -> tuple[PlayerRow, list[RowProblem]]:
    found: list[RowProblem] = []
    handle = _handle(line, "handle", values["handle"], found)
    team = handles.normal(values.get("team", ""))
    if team:
        _check(_handle_adapter(), team, line, "team", found)
    table = _table(line, values.get("table", ""), found)
    raw = values.get("gender", "")
    try:
        sex = gender(raw)
    except ValueError:
        found.append(RowProblem(line, "gender", "roster.gender", {"value": raw.strip()}))
        sex = None
    return PlayerRow(line, handle, _name(line, values.get("name", ""), found), team or None,
                     table, sex), found


def gender(raw: str) -> Gender | None:
    """A gender as a list writes it («м», «ж», «муж.», «female»…): `m`, `f`, or None for an
    empty cell; ValueError for anything else."""
    text = unicodedata.normalize("NFKC", raw).strip().casefold().rstrip(".")
    if not text:
        return None
    found = GENDERS.get(text)
    if found is None:
        raise ValueError(raw)
    return found


def _team(line: int, values: Mapping[str, str]) -> tuple[TeamRow, list[RowProblem]]:
    found: list[RowProblem] = []
    handle = _handle(line, "handle", values["handle"], found)
    members: list[str] = []
    for raw in MEMBER_SEPARATORS.split(values.get("members", "")):
        member = handles.normal(raw)
        if not member:
            continue
        if member in members:
            found.append(RowProblem(line, "members", "roster.member-twice",
                                    {"handle": member}))
            continue
        _check(_handle_adapter(), member, line, "members", found)
        members.append(member)
    if len(members) > MAX_MEMBERS:
        found.append(RowProblem(line, "members", "value.too-many", {"max": MAX_MEMBERS}))
    return TeamRow(line, handle, _name(line, values.get("name", ""), found),
                   tuple(members)), found


def _handle(line: int, name: str, raw: str, found: list[RowProblem]) -> str:
    """The handle in its one spelling, a problem beside it if it cannot be one."""
    handle = handles.normal(raw)
    _check(_handle_adapter(), handle, line, name, found)
    return handle


def _name(line: int, raw: str, found: list[RowProblem]) -> str | None:
    name = raw.strip()
    if not name:
        return None
    _check(_name_adapter(), name, line, "name", found)
    return name


def _table(line: int, raw: str, found: list[RowProblem]) -> int | None:
    text = unicodedata.normalize("NFKC", raw).strip()
    if not text:
        return None
    number = int(re.split("[.,]", text)[0]) if WHOLE.fullmatch(text) else None
    if number is None or not MIN_TABLE <= number <= MAX_TABLE:
        found.append(RowProblem(line, "table", "roster.table-number",
                                {"value": text, "min": MIN_TABLE, "max": MAX_TABLE}))
        return None
    return number


def _check(adapter: TypeAdapter[str], value: str, line: int, name: str,
           found: list[RowProblem]) -> None:
    """Validate a value as the command would, and note its first problem."""
    try:
        adapter.validate_python(value)
    except ValidationError as exc:
        error = error_of(exc, name)
        found.append(RowProblem(line, name, error.code, dict(error.params)))


@functools.cache
def _handle_adapter() -> TypeAdapter[str]:
    return TypeAdapter(Handle)


@functools.cache
def _name_adapter() -> TypeAdapter[str]:
    return TypeAdapter(Name)


def _repeated(rows: Sequence[PlayerRow] | Sequence[TeamRow]) -> list[RowProblem]:
    """A handle on two lines is one person twice, or two people the organiser confused:
    both lines are named, so either can be corrected."""
    lines: dict[str, list[int]] = {}
    for row in rows:
        if row.handle:
            lines.setdefault(row.handle, []).append(row.line)
    return [RowProblem(line, "handle", "roster.handle-twice",
                       {"handle": handle, "lines": tuple(at)})
            for handle, at in lines.items() if len(at) > 1 for line in at]


# --------------------------------------------------------------------------- the header


def _header_key(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")
    return " ".join(text.split()).strip(" :*")


@functools.cache
def _aliases(kind: str) -> dict[str, str]:
    return {_header_key(alias): name for name, aliases in HEADERS[kind].items()
            for alias in aliases}


def _columns(cells: Sequence[str], kind: Kind,
             filename: str) -> tuple[dict[str, int], dict[str, str], tuple[str, ...]]:
    """field -> column index, field -> header as written, and the headers nobody reads."""
    aliases = _aliases(kind)
    at: dict[str, int] = {}
    written: dict[str, str] = {}
    ignored: list[str] = []
    for i, cell in enumerate(cells):
        name = aliases.get(_header_key(cell))
        if name is None:
            if cell.strip():
                ignored.append(cell.strip())
        elif name in at:
            raise _refused("roster.column-twice", filename,
                           columns=[written[name], cell.strip()])
        else:
            at[name], written[name] = i, cell.strip()
    expected = [aliases_[0] for aliases_ in HEADERS[kind].values()]
    if not at:
        raise _refused("roster.no-header", filename, expected=expected)
    if "handle" not in at:
        raise _refused("roster.no-handle-column", filename, columns=[c.strip() for c in cells
                                                                    if c.strip()],
                       expected=list(HEADERS[kind]["handle"]))
    return at, written, tuple(ignored)


# --------------------------------------------------------------------------- CSV


def _decode(data: bytes, filename: str) -> tuple[str, str]:
    """The text and its encoding: UTF-8 (a BOM or not), else cp1251; UTF-16 by its BOM."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            raise _refused("roster.not-a-table", filename) from None
    if data.startswith(NOT_TEXT) or b"\x00" in data:
        raise _refused("roster.not-a-table", filename)
    try:
        text, encoding = data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        # cp1251 gives a letter for almost any byte: binary comes through, and is told
        # apart below by its control characters
        try:
            text, encoding = data.decode("cp1251"), "cp1251"
        except UnicodeDecodeError:
            raise _refused("roster.not-a-table", filename) from None
    controls = sum(1 for ch in text if ch < " " and ch not in "\t\r\n")
    if controls * 100 > len(text):
        raise _refused("roster.not-a-table", filename)
    return text, encoding


def _delimiter(text: str, kind: Kind) -> str:
    """The delimiter that splits the header into the most known column names.

    Not csv.Sniffer: given one line with both `;` and `,` («Ник;Фамилия, имя»), it picks by a
    fixed preference; the header's names decide here, with quotes honoured, and the number
    of cells (then DELIMITERS' order) only when names cannot.
    """
    aliases = _aliases(kind)

    def score(delimiter: str) -> tuple[int, int, int]:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter,
                            skipinitialspace=True)
        try:
            header = next((cells for cells in reader if any(c.strip() for c in cells)), [])
        except csv.Error:
            return (-1, 0, 0)
        known = sum(1 for cell in header if _header_key(cell) in aliases)
        return (known, sum(1 for cell in header if cell.strip()), -DELIMITERS.index(delimiter))

    return max(DELIMITERS, key=score)


def _csv_records(text: str, delimiter: str, filename: str) -> Iterator[tuple[int, list[str]]]:
    # a record is a spreadsheet's row even when a quoted cell holds line breaks, and a blank
    # line is a row too: records are counted, not lines of text
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter,
                        skipinitialspace=True)
    try:
        for line, cells in enumerate(reader, start=1):
            yield line, [cell.strip() for cell in cells]
    except csv.Error:  # a cell beyond the csv module's field limit (128 KB)
        raise _refused("roster.not-a-table", filename) from None


# --------------------------------------------------------------------------- XLSX


def _xlsx_records(data: bytes, filename: str) -> Iterator[tuple[int, list[str]]]:
    """The first worksheet's rows, numbered as Excel numbers them (blank rows included)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = archive.infolist()
            if not any(p.filename == "xl/workbook.xml" for p in parts):
                raise _refused("roster.not-a-table", filename)  # a .docx, an .ods, a zip
            if sum(p.file_size for p in parts) > MAX_UNPACKED:
                raise _refused("roster.too-large-unpacked", filename,
                               max_mb=MAX_UNPACKED // (1024 * 1024))
    except zipfile.BadZipFile:
        raise _refused("roster.not-a-table", filename) from None
    return _sheet_rows(data, filename)


def _sheet_rows(data: bytes, filename: str) -> Iterator[tuple[int, list[str]]]:
    import openpyxl  # only when a spreadsheet comes: most callers read CSV or nothing

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception:  # openpyxl raises what its parsers meet in a damaged file
        raise _refused("roster.not-a-table", filename) from None
    try:
        if not book.worksheets:
            raise _refused("roster.empty", filename)
        sheet = book.worksheets[0]
        # the stored size may be wrong (some programs write A1): read every row there is
        sheet.reset_dimensions()
        for line, values in enumerate(sheet.iter_rows(values_only=True), start=1):
            yield line, [_cell(value) for value in values]
    except SudyaError:
        raise
    except Exception:
        raise _refused("roster.not-a-table", filename) from None
    finally:
        book.close()


def _cell(value: object) -> str:
    """A cell as the text a CSV would hold: a whole float (a table 5.0) without `.0`."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return str(value).strip()
