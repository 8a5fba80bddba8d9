"""People by name and who sits where: search, a round's pairings, and their import.

A player is shown by their display name wherever they appear; the handle stays their id (in
URLs, forms and the ledger). Search folds case and «ё» into «е», so «петр» finds «Пётр».

A round's pairings come from a CSV file: `table,player_a,player_b`, or `table,team_a,team_b`
in a team event. An import replaces the round's pairings as a whole, in one transaction: every
row or none; a file with bad rows is refused with the line and the reason of each, and
leaves what was stored as it was. Pairings are not ledger events (no ruling depends on them),
so a re-import may replace them; each row keeps who imported it and when.

The current round is the later of the latest round with pairings and the round the clock
last started: pairings are imported before a round starts, and a round may start before its
pairings are in.
"""

from __future__ import annotations

import csv
import datetime as dt
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.imports import ImportRejected
from sudya.app.ledger import Actor, Ledger, LedgerError
from sudya.app.readback import plain_rows
from sudya.app.views import PairingsView, PairingView, PeopleNamesView, PersonView, SideView
from sudya.domain.errors import SudyaError

PLAYER_COLUMNS = ("table", "player_a", "player_b")
TEAM_COLUMNS = ("table", "team_a", "team_b")
MAX_ROWS = 10_000  # tables in one round: far more than any hall holds
MAX_TABLE = 100_000  # as a registered seat (Ledger.add_player)
MAX_ROUND = 1000  # as the round clock (services.clock)


def fold(text: str) -> str:
    """Text as search compares it: composed (NFC: «е» + U+0308 is «ё»), case folded, «ё»
    read as «е», spaces collapsed."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().replace("ё", "е").split())


@dataclass(frozen=True)
class _Entry:
    handle: str
    name: str
    team: str | None
    team_name: str | None
    seat: int | None


def _tournament(s: Session, tournament: int) -> m.Tournament:
    t = s.get(m.Tournament, tournament) if 0 < tournament <= 2**31 - 1 else None
    if t is None:
        raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
    return t


def _entries(s: Session, tournament: int, only: Collection[str] | None = None
             ) -> list[_Entry]:
    """The tournament's players in the order they entered, with their teams and seats
    (`only`: the players of these handles, and the members of the teams among them)."""
    query = (select(m.Person.handle, m.Person.name, m.Team.handle, m.Team.name,
                    m.Entry.table_no)
             .join(m.Entry, m.Entry.person_id == m.Person.id)
             .outerjoin(m.Team, m.Team.id == m.Entry.team_id)
             .where(m.Entry.tournament_id == tournament).order_by(m.Entry.id))
    if only is not None:
        handles = list(only)
        query = query.where(m.Person.handle.in_(handles) | m.Team.handle.in_(handles))
    return [_Entry(handle, name or handle, team, team_name or team, seat)
            for handle, name, team, team_name, seat in plain_rows(s, query)]


def pairing_rounds(s: Session, *, tournament: int) -> list[int]:
    """Every round of the tournament that has pairings, in order."""
    return list(s.scalars(select(m.Pairing.round).where(m.Pairing.tournament_id == tournament)
                          .distinct().order_by(m.Pairing.round)))


def current_round(s: Session, *, tournament: int) -> int | None:
    """The latest round with pairings or the round the clock last started, the later one."""
    paired = s.scalar(select(func.max(m.Pairing.round))
                      .where(m.Pairing.tournament_id == tournament))
    started = s.scalar(select(m.RoundClock.round)
                       .where(m.RoundClock.tournament_id == tournament)
                       .order_by(m.RoundClock.id.desc()).limit(1))
    known = [r for r in (paired, started) if r is not None]
    return max(known) if known else None


def _pairings(s: Session, tournament: int, round: int | None) -> list[m.Pairing]:
    if round is None:
        return []
    return list(s.scalars(select(m.Pairing).where(m.Pairing.tournament_id == tournament,
                                                  m.Pairing.round == round)
                          .order_by(m.Pairing.table_no)))


def _seated(entries: list[_Entry], rows: list[m.Pairing]) -> dict[str, int]:
    """handle -> table in a round's pairings (a team's members sit at their team's table)."""
    tables: dict[str, int] = {}
    for row in rows:
        for side in (row.player_a, row.player_b):
            tables[side] = row.table_no
    for e in entries:
        if e.team is not None and e.handle not in tables and e.team in tables:
            tables[e.handle] = tables[e.team]
    return tables


def _people(entries: list[_Entry], rows: list[m.Pairing], round: int | None
            ) -> list[PersonView]:
    if rows:  # the round's pairings say where everyone sits (not paired: no table)
        tables = _seated(entries, rows)
        return [PersonView(handle=e.handle, name=e.name, team=e.team, team_name=e.team_name,
                           table=tables.get(e.handle), round=round if e.handle in tables
                           else None) for e in entries]
    return [PersonView(handle=e.handle, name=e.name, team=e.team, team_name=e.team_name,
                       table=e.seat) for e in entries]


def tournament_people(s: Session, *, tournament: int, round: int | None = None
                      ) -> list[PersonView]:
    """The tournament's players with their names, teams and tables in `round` (by default
    the current round), in the order they entered."""
    _tournament(s, tournament)
    if round is None:
        round = current_round(s, tournament=tournament)
    return _people(_entries(s, tournament), _pairings(s, tournament, round), round)


def search_people(s: Session, *, tournament: int, q: str, round: int | None = None
                  ) -> list[PersonView]:
    """Players whose name or handle holds `q` (case and «ё» folded), or who sit at table `q`
    in `round` (the current one by default): those at the table first, in the order they
    entered, then the names that begin with it, then the rest, each by name. An empty `q`
    finds everyone."""
    people = tournament_people(s, tournament=tournament, round=round)
    needle = fold(q)
    if not needle:
        return people
    table = int(needle) if needle.isascii() and needle.isdigit() and len(needle) < 7 else None
    found: list[tuple[int, str, PersonView]] = []
    for p in people:
        name, handle = fold(p.name), fold(p.handle)
        words = name.split() + [handle]
        if table is not None and p.table == table:
            rank = 0
        elif any(w.startswith(needle) for w in words) or name.startswith(needle):
            rank = 1
        elif needle in name or needle in handle:
            rank = 2
        else:
            continue
        found.append((rank, name, p))
    # those at the table in the order they entered (a table's sides), the others by name
    return [p for _rank, _name, p in sorted(found, key=lambda f: (f[0], f[1] if f[0] else ""))]


def opponent_of(s: Session, *, tournament: int, player: str, round: int | None = None
                ) -> str | None:
    """The player's opponent in `round` (by default the current round): the other side of
    their table in the round's pairings, or at a team table the player the captains matched
    them with; None when they are not seated (a bye, no pairings, no matchups yet)."""
    _tournament(s, tournament)
    if round is None:
        round = current_round(s, tournament=tournament)
    if round is None:
        return None
    for table in (m.Pairing, m.Matchup):  # a player's own table, else their team's game
        row = s.execute(select(table.player_a, table.player_b).where(
            table.tournament_id == tournament, table.round == round,
            or_(table.player_a == player, table.player_b == player)).limit(1)).first()
        if row is not None:
            return str(row.player_b if row.player_a == player else row.player_a)
    return None


def staff_names(s: Session, *, tournament: int, handles: Collection[str | None]
                ) -> dict[str, str]:
    """handle -> display name of judges and other accounts (who recorded, who typed): the
    tournament's staff list's name, else the account's; a handle with no name of its own
    is left out (the page shows the handle)."""
    wanted = {h for h in handles if h}
    if not wanted:
        return {}
    names = {u: n for u, n in s.execute(select(m.User.username, m.User.display_name)
                                        .where(m.User.username.in_(wanted))) if n and n != u}
    names.update({h: n for h, n in s.execute(
        select(m.Staff.handle, m.Staff.name).where(m.Staff.tournament_id == tournament,
                                                   m.Staff.handle.in_(wanted)))
        if n and n != h})
    return names


def genders(s: Session, *, handles: Collection[str]) -> dict[str, str]:
    """handle -> `m` or `f` of the people whose gender is known (for the Russian pages'
    agreement); the others are left out."""
    wanted = set(handles)
    if not wanted:
        return {}
    return {h: g for h, g in s.execute(select(m.Person.handle, m.Person.gender)
                                       .where(m.Person.handle.in_(wanted),
                                              m.Person.gender.is_not(None)))}


def person_name(s: Session, *, handle: str) -> str | None:
    """A person's display name (None: no person by this handle)."""
    return s.scalar(select(m.Person.name).where(m.Person.handle == handle))


def display_names(s: Session, *, tournament: int,
                  only: Collection[str] | None = None) -> dict[str, str]:
    """handle -> display name of every player and team of the tournament (`only`: of those
    of these handles, players or teams: a page of a large table names its own lines)."""
    entries = _entries(s, tournament, only)
    return names_and_teams((e.handle, e.name, e.team, e.team_name) for e in entries)[0]


def names_and_teams(rows: Iterable[tuple[str, str, str | None, str | None]]
                    ) -> tuple[dict[str, str], dict[str, list[str]]]:
    """From (handle, display name, team, team's name) rows in entry order: handle -> display
    name of every player and team (a player's own name wins over a team's of the same handle;
    a team without a name is named by its handle), and each team's players in entry order."""
    names: dict[str, str] = {}
    teams: dict[str, list[str]] = {}
    for handle, name, team, team_name in rows:
        names[handle] = name
        if team is not None:
            teams.setdefault(team, []).append(handle)
            names.setdefault(team, team_name or team)
    return names, teams


def people_names(people: list[PersonView]) -> PeopleNamesView:
    """The display names and teams of players already read (`tournament_people`,
    `round_tables`), as `queries.tournament_summary` gives them, without reading them again."""
    names, teams = names_and_teams((p.handle, p.name, p.team, p.team_name) for p in people)
    return PeopleNamesView(names=names, teams=teams)


def round_pairings(s: Session, *, tournament: int, round: int | None = None) -> PairingsView:
    """The tables of `round` (by default the current round), each side with its players."""
    return round_tables(s, tournament=tournament, round=round)[0]


def round_tables(s: Session, *, tournament: int, round: int | None = None
                 ) -> tuple[PairingsView, list[PersonView]]:
    """The tables of `round` (by default the current round) and the tournament's players with
    their tables in it (`round_pairings` and `tournament_people` of that round, the entries
    and pairings read once for both)."""
    _tournament(s, tournament)
    current = current_round(s, tournament=tournament)
    if round is None:
        round = current
    entries = _entries(s, tournament)
    rows = _pairings(s, tournament, round)
    everyone = _people(entries, rows, round)
    people = {p.handle: p for p in everyone}
    teams: dict[str, list[PersonView]] = {}
    team_names: dict[str, str] = {}
    for e in entries:
        if e.team is not None:
            teams.setdefault(e.team, []).append(people[e.handle])
            team_names[e.team] = e.team_name or e.team

    def side(handle: str) -> SideView:
        if handle in people:
            return SideView(handle=handle, name=people[handle].name, players=[people[handle]])
        if handle in teams:
            return SideView(handle=handle, name=team_names[handle], team=True,
                            players=teams[handle])
        # registered when imported, gone since (a roster change): shown by the handle
        return SideView(handle=handle, name=handle, players=[])

    tables = [PairingView(table=r.table_no, a=side(r.player_a), b=side(r.player_b))
              for r in rows]
    first = rows[0] if rows else None
    at = first.created_at if first else None
    if at is not None and at.tzinfo is None:  # SQLite keeps no zone: the rows are UTC
        at = at.replace(tzinfo=dt.UTC)
    return PairingsView(round=round, current_round=current,
                        rounds=pairing_rounds(s, tournament=tournament), tables=tables,
                        imported_by=first.created_by if first else None,
                        imported_at=at), everyone


def set_names(ledger: Ledger, *, names: dict[str, str], actor: Actor | None = None) -> None:
    """Give persons their display names (a team's members are created named by their
    handles); an unknown handle is refused and nothing is renamed."""
    actor = actor or Actor()
    with ledger.uow().begin() as s:
        for handle, name in names.items():
            name = " ".join(name.split())
            if not name or len(name) > 200:
                raise LedgerError("value.required" if not name else "text.too-long",
                                  field="name", max=200)
            person = s.scalar(select(m.Person).where(m.Person.handle == handle))
            if person is None:
                raise LedgerError("person.unknown", field="handle", person=handle)
            person.name = name


# ---------------------------------------------------------------------- the import
def read_pairings_file(path: Path) -> str:
    """A pairings file's text (UTF-8, a byte-order mark allowed)."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise SudyaError("import.unreadable", where=str(path), error=exc.strerror) from exc
    except UnicodeDecodeError:
        raise SudyaError("import.not-utf8", where=str(path)) from None


def decode_upload(data: bytes, where: str) -> str:
    """An uploaded pairings file's text (UTF-8, a byte-order mark allowed)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SudyaError("import.not-utf8", where=where) from None


def _shown(value: str) -> str:
    """A cell as a message quotes it: printable, at most 40 characters."""
    text = "".join(c if c.isprintable() else "\ufffd" for c in value)
    return text if len(text) <= 40 else text[:39] + "…"


def _columns(reader: csv.DictReader[str], where: str) -> tuple[str, str, bool]:
    """The two sides' columns and whether they name teams, from the header."""
    have = [c.strip() for c in reader.fieldnames or []]
    reader.fieldnames = have
    if "table" in have and "team_a" in have and "team_b" in have and "player_a" not in have:
        return "team_a", "team_b", True
    missing = [c for c in PLAYER_COLUMNS if c not in have]
    if missing:
        raise SudyaError("import.missing-columns", where=where, columns=missing,
                         expected=list(PLAYER_COLUMNS))
    return "player_a", "player_b", False


def _check_row(row: dict[str | Any, Any], col_a: str, col_b: str, teams: bool,
               known: set[str], seen_tables: dict[int, int], seen_sides: dict[str, int]
               ) -> tuple[int, str, str]:
    """A row's table and sides, or the first thing wrong with it (SudyaError)."""
    def cell(name: str) -> str:
        value = row.get(name)
        return value.strip() if isinstance(value, str) else ""

    text = cell("table")
    if not text:
        raise SudyaError("value.required", field="table")
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise SudyaError("import.not-whole", field="table")
    table = int(text)
    if not 0 < table <= MAX_TABLE:
        raise SudyaError("table.out-of-range", field="table")
    sides = []
    for column in (col_a, col_b):
        handle = cell(column)
        if not handle:
            raise SudyaError("value.required", field=column)
        if handle not in known:
            raise SudyaError("pairing.unknown-team" if teams else "pairing.unknown-player",
                             field=column, handle=_shown(handle))
        sides.append(handle)
    a, b = sides
    if a == b:
        raise SudyaError("pairing.same-both", field=col_b, handle=_shown(a))
    if table in seen_tables:
        raise SudyaError("pairing.table-twice", field="table", table=table,
                         line=seen_tables[table])
    for column, handle in ((col_a, a), (col_b, b)):
        if handle in seen_sides:
            raise SudyaError("pairing.seated-twice", field=column, handle=_shown(handle),
                             line=seen_sides[handle])
    return table, a, b


def import_pairings(ledger: Ledger, *, tournament: int, round: int, text: str,
                    where: str = "", actor: Actor | None = None) -> int:
    """Replace round `round`'s pairings with the rows of a CSV text, in one transaction;
    any bad row refuses the whole file (ImportRejected: each line and its reason)."""
    actor = actor or Actor()
    if not 1 <= round <= MAX_ROUND:
        raise LedgerError("value.between", field="round", least=1, most=MAX_ROUND)
    reader = csv.DictReader(text.removeprefix("\ufeff").splitlines())
    col_a, col_b, teams = _columns(reader, where)
    with ledger.uow().begin() as s:
        # the tournament's row is the import's lock (PostgreSQL): two imports of a round
        # replace it one after the other (SQLite: BEGIN IMMEDIATE already does)
        t = s.get(m.Tournament, tournament, with_for_update=True) \
            if 0 < tournament <= 2**31 - 1 else None
        if t is None:
            raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
        entries = _entries(s, tournament)
        known = ({e.team for e in entries if e.team is not None} if teams
                 else {e.handle for e in entries})
        problems: list[tuple[int, SudyaError]] = []
        rows: list[tuple[int, str, str]] = []
        seen_tables: dict[int, int] = {}
        seen_sides: dict[str, int] = {}
        for row in reader:
            line = reader.line_num
            if len(rows) + len(problems) >= MAX_ROWS:
                raise SudyaError("pairing.too-many", where=where, most=MAX_ROWS)
            try:
                table, a, b = _check_row(row, col_a, col_b, teams, known, seen_tables,
                                         seen_sides)
            except SudyaError as exc:
                problems.append((line, exc))
                continue
            seen_tables[table] = line
            seen_sides.setdefault(a, line)
            seen_sides.setdefault(b, line)
            rows.append((table, a, b))
        if problems:
            raise ImportRejected(problems)
        if not rows:
            raise SudyaError("pairing.empty", where=where)
        s.execute(delete(m.Pairing).where(m.Pairing.tournament_id == tournament,
                                          m.Pairing.round == round))
        stamp = m.now()
        s.add_all(m.Pairing(tournament_id=tournament, round=round, table_no=table,
                            player_a=a, player_b=b, created_at=stamp, created_by=actor.name,
                            request_id=actor.request_id) for table, a, b in rows)
    return len(rows)


__all__ = ["fold", "current_round", "pairing_rounds", "tournament_people", "search_people",
           "display_names", "genders", "names_and_teams", "opponent_of", "person_name",
           "people_names",
           "round_pairings", "round_tables", "set_names", "staff_names",
           "read_pairings_file", "decode_upload", "import_pairings", "ImportRejected",
           "PLAYER_COLUMNS", "TEAM_COLUMNS"]
