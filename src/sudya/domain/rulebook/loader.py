"""Reading rulebook files: YAML 1.2 with line numbers, validated into a Rulebook."""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import ruamel.yaml
from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.constructor import ConstructorError, RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.reader import ReaderError

from sudya.domain.errors import RulebookError
from sudya.domain.rulebook.schema import Rulebook

BUNDLED = Path(__file__).parent / "bundled"
# ruamel reads YAML in pure Python (about 100 kB a second here): a bigger file is no rulebook
# or scenario but a mistake, and reading it would take minutes
MAX_YAML_BYTES = 1_000_000
MAX_DEPTH = 100  # nesting levels; ruamel recurses per level and fails near 300
MAX_ALIASED = 100_000  # values aliases may add: a "billion laughs" file expands without end


def read_text(path: Path, limit: int) -> str:
    """A UTF-8 text file of at most `limit` bytes (a leading byte order mark is dropped)."""
    try:
        with path.open("rb") as f:
            data = f.read(limit + 1)  # never more: /dev/zero is a file too
    except OSError as exc:
        raise RulebookError("file.unreadable", where=str(path),
                            error=exc.strerror or type(exc).__name__) from exc
    if len(data) > limit:
        raise RulebookError("file.too-large", where=str(path), most=limit)
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise RulebookError("file.not-utf8", where=f"{path}:{line}", byte=data[exc.start],
                            offset=exc.start) from exc


def read_yaml(path: Path) -> Any:
    """Read a YAML 1.2 file keeping line numbers (round-trip mode)."""
    return parse_yaml(read_text(path, MAX_YAML_BYTES), str(path))


class _GuardedComposer(Composer):
    """Refuses what would exhaust the stack or memory: deep nesting, alias bombs, cycles."""

    def __init__(self, loader: Any = None) -> None:
        super().__init__(loader=loader)
        self.warn_double_anchors = False  # a warning would be a second line on stderr
        self.open_sizes: list[int] = []  # values in each collection being composed
        self.sizes: dict[int, int] = {}  # id(node) -> values in it, aliases expanded
        self.aliased = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.parser.peek_event()
        if parent is None and self.resolver.processing_version != (1, 2):
            version = ".".join(str(n) for n in self.resolver.processing_version)
            raise ComposerError(None, None, f"only YAML 1.2 is read (the file declares "
                                f"%YAML {version})", event.start_mark)
        if isinstance(event, AliasEvent):
            node = self.anchors.get(event.anchor)
            if node is not None:
                size = self.sizes.get(id(node))
                if size is None:
                    raise ComposerError(None, None, f"the alias *{event.anchor} is inside the "
                                        "value it names", event.start_mark)
                self.aliased += size
                if self.aliased > MAX_ALIASED:
                    raise ComposerError(None, None, f"aliases expand to more than "
                                        f"{MAX_ALIASED:,} values", event.start_mark)
                if self.open_sizes:
                    self.open_sizes[-1] += size
            return super().compose_node(parent, index)
        if len(self.open_sizes) >= MAX_DEPTH:
            raise ComposerError(None, None, f"nested too deeply (at most {MAX_DEPTH} levels)",
                                event.start_mark)
        self.open_sizes.append(1)
        node = super().compose_node(parent, index)
        size = self.open_sizes.pop()
        self.sizes[id(node)] = size
        if self.open_sizes:
            self.open_sizes[-1] += size
        return node


class _GuardedConstructor(RoundTripConstructor):
    """A value ruamel cannot build (`2026-13-45`, `0x_`, `!!bool x`) is an error at its line."""

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except YAMLError:
            raise
        except Exception as exc:  # ValueError, KeyError, IndexError... from ruamel's builders
            raise ConstructorError(None, None, _unreadable(node, exc), node.start_mark) from exc


def _unreadable(node: Any, exc: Exception) -> str:
    """`cannot read '2026-13-45' as a timestamp: month must be in 1..12`."""
    value = node.value if isinstance(node.value, str) else ""
    shown = (repr(value) if len(value) <= 40
             else f"{value[:20]!r}... ({len(value):,} characters)") if value else "a value"
    kind = str(node.tag).rpartition(":")[2] or "value"
    text = f"cannot read {shown} as {'an' if kind[0] in 'aeiou' else 'a'} {kind}"
    if isinstance(exc, ValueError):
        reason = str(exc).splitlines()[0] if str(exc) else ""
        if "integer string conversion" in reason:
            reason = "too many digits"
        return f"{text}: {reason}" if reason else text
    return text


def parse_yaml(text: str, name: str) -> Any:
    """Parse YAML 1.2 (round-trip, with line numbers); anything wrong is one RulebookError."""
    yaml = YAML(typ="rt")
    yaml.Composer = _GuardedComposer
    yaml.Constructor = _GuardedConstructor
    try:
        return yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = str(exc.problem or exc.context or type(exc).__name__)
        if exc.context and problem.startswith("but "):  # "expected ..., but found ..."
            problem = f"{exc.context}, {problem}"
        raise RulebookError("yaml.malformed", where=f"{name}{line}", problem=problem) from exc
    except ReaderError as exc:
        at = text.count("\n", 0, exc.position) + 1
        what = (f"the character U+{exc.character:04X} is not allowed"
                if isinstance(exc.character, int) else str(exc.reason))
        raise RulebookError("yaml.malformed", where=f"{name}:{at}", problem=what) from exc
    except YAMLError as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise RulebookError("yaml.malformed", where=name, problem=first) from exc
    except RecursionError as exc:  # the guards above should make this unreachable
        raise RulebookError("yaml.malformed", where=name, problem="nested too deeply") from exc


def keys_of(data: Any, loc: Sequence[str | int]) -> list[str | int]:
    """A finding's key path as keys of the YAML tree, as far as the tree has them: a list
    item named by its `id` (or, failing that, by its index written as digits)."""
    keys: list[str | int] = []
    node = data
    for part in loc:
        if isinstance(node, list) and isinstance(part, str):
            found = next((i for i, item in enumerate(node)
                          if isinstance(item, dict) and str(item.get("id")) == part), None)
            if found is None and part.isdigit():
                found = int(part)
            if found is None:
                break
            part = found
        keys.append(part)
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
    return keys


def line_of(data: Any, loc: Sequence[str | int]) -> int | None:
    """The 1-based line of the deepest key of `loc` that exists in the YAML tree."""
    line: int | None = None
    node = data
    for key in loc:
        if isinstance(node, CommentedMap) and key in node:
            pos = node.lc.key(key) if hasattr(node.lc, "key") else None
            if pos:
                line = pos[0] + 1
            node = node[key]
        elif isinstance(node, CommentedSeq) and isinstance(key, int) and key < len(node):
            pos = node.lc.item(key)
            if pos:
                line = pos[0] + 1
            node = node[key]
        else:
            break
    return line


def _readable_loc(data: Any, loc: Sequence[str | int]) -> str:
    """Key path with list items named by their `id` where they have one."""
    parts: list[str] = []
    node = data
    for key in loc:
        if isinstance(key, int):
            item = node[key] if isinstance(node, list) and key < len(node) else None
            ident = item.get("id") if isinstance(item, dict) else None
            parts.append(f"[{key}]" if ident is None else f"[{ident}]")
        else:
            parts.append(("." if parts else "") + str(key))
        if isinstance(node, dict | list):
            try:
                node = node[key]  # type: ignore[index]
            except (KeyError, IndexError, TypeError):
                node = None
    return "".join(parts)


def validate(data: Any, name: str) -> Rulebook:
    """Turn parsed YAML into a Rulebook, or raise one error naming file, line and key path."""
    if not isinstance(data, dict):
        raise RulebookError("rulebook.not-mapping", where=name)
    try:
        return Rulebook.model_validate(_plain(data))
    except ValidationError as exc:
        problems = _problems(data, name, exc)
        shown = "; ".join(problems[:5])
        if len(problems) > 5:
            raise RulebookError("rulebook.invalid-more", shown=shown, more=len(problems) - 5,
                                problems=problems) from exc
        raise RulebookError("rulebook.invalid", shown=shown, problems=problems) from exc


def _problems(data: Any, name: str, exc: ValidationError) -> list[str]:
    """One line per problem: file, line and key path (union branches reported once)."""
    problems: list[str] = []
    seen: set[str] = set()
    for err in exc.errors():
        # pydantic adds union branch names to loc; keep only keys present in the data
        raw = [p for p in err["loc"] if not (isinstance(p, str) and "[" in p)]
        loc = _existing(data, raw)
        line = line_of(data, loc)
        where = f"{name}:{line}" if line else name
        path = _readable_loc(data, loc)
        if err["type"] == "missing" and raw and raw[-1] not in loc:
            path = f"{path}.{raw[-1]}" if path else str(raw[-1])
        if path in seen:
            continue
        seen.add(path)
        message = err["msg"].removeprefix("Value error, ")
        parts = message.split("; ") if err["type"] == "value_error" else [message]
        for part in parts:
            problems.append(f"{where}: {path}: {part}" if path else f"{where}: {part}")
    return problems


def _existing(data: Any, loc: Sequence[Any]) -> list[Any]:
    out: list[Any] = []
    node = data
    for key in loc:
        in_dict = isinstance(node, dict) and key in node
        if in_dict or (isinstance(node, list) and isinstance(key, int) and key < len(node)):
            node = node[key]
            out.append(key)
        elif isinstance(node, dict | list):
            continue  # a union branch tag such as 'list[...]'; skip it
        else:
            break
    return out


def _plain(data: Any) -> Any:
    """ruamel's commented containers as plain dicts and lists."""
    if isinstance(data, dict):
        return {str(k): _plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_plain(v) for v in data]
    return data


def load_text(text: str, name: str = "<text>") -> Rulebook:
    """Load a rulebook from its YAML text (the web editor's draft); errors name `name`."""
    if len(text.encode("utf-8")) > MAX_YAML_BYTES:
        raise RulebookError("file.too-large", where=name, most=MAX_YAML_BYTES)
    return validate(parse_yaml(text.removeprefix("\ufeff"), name), name)


def load_file(path: str | Path) -> Rulebook:
    """Load a rulebook from a file path."""
    p = Path(path)
    return load_known(read_text(p, MAX_YAML_BYTES), str(p))


def load_known(text: str, name: str) -> Rulebook:
    """A rulebook from its text, through the compiled cache (`cache_dir`).

    ruamel reads YAML in pure Python: berserk takes 0.2-0.8 s to parse and 0.03 s to
    validate, and every process (a server's restart, each CLI call) parsed it again. So the
    parsed tree of a text that loaded and validated is kept, as JSON, under the text's SHA-256
    and the parser's version; the next process validates that instead of parsing. A text not
    in the cache (new or edited), or whose cached tree no longer validates (the schema
    changed), is parsed for real, so every error still names its line.
    """
    key = _cache_key(text)
    cached = _cache_read(key)
    if cached is not None:
        try:
            return Rulebook.model_validate(cached)
        except ValidationError:
            pass  # the schema changed since: the real parse below names the lines
    data = parse_yaml(text, name)
    book = validate(data, name)
    _cache_write(key, _plain(data))
    return book


# ------------------------------------------------------------------ the compiled cache
# What is cached is data, never code: JSON of the plain tree `validate` reads, which pydantic
# checks again on every load (nothing is unpickled). The folder must be the user's own and
# writable by no one else, or it is not used: only this app writes there.
_CACHE_FORMAT = "1"


def cache_dir() -> Path | None:
    """Where compiled rulebooks are kept: SUDYA_RULEBOOK_CACHE (empty or `off`: nowhere),
    else `$XDG_CACHE_HOME/sudya/domain/rulebook` (`~/.cache/…`). None when it cannot be made, or
    is not a folder of this user's that only they may write to."""
    setting = os.environ.get("SUDYA_RULEBOOK_CACHE")
    if setting is not None and setting.strip() in ("", "off"):
        return None
    try:
        if setting:
            folder = Path(setting)
        else:
            base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
            folder = Path(base) / "sudya" / "rulebooks"
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = folder.stat()
    except (OSError, RuntimeError):  # RuntimeError: no home directory to be found
        return None
    if st.st_uid != os.getuid() or st.st_mode & 0o022:
        return None  # someone else could put a rulebook of their own there
    return folder


@functools.lru_cache(maxsize=1)
def _parser_version() -> str:
    """What the cached tree depends on besides the text: this module (its guards and
    `_plain`), ruamel's version and the cache's format."""
    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update(f"\0{ruamel.yaml.__version__}\0{_CACHE_FORMAT}".encode())
    return h.hexdigest()


def _cache_key(text: str) -> str:
    h = hashlib.sha256(_parser_version().encode())
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _cache_read(key: str) -> Any | None:
    """The cached plain tree of a text (None: none, or unreadable)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        entry = json.loads((folder / f"{key}.json").read_text("utf-8"),
                           object_hook=_decode)
    except (OSError, ValueError, TypeError, RecursionError):
        return None  # missing, or not what this module writes: parsed for real
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    return entry.get("data")


def _cache_write(key: str, data: Any) -> None:
    """Keep a validated text's plain tree (written whole or not at all; never an error: a
    cache that cannot be written only costs the next process a parse)."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        payload = json.dumps({"key": key, "data": _encode(data)}, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return  # a value JSON cannot hold as it is: parsed every time instead
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(payload)
        os.replace(tmp, folder / f"{key}.json")
    except (OSError, UnicodeError):  # a full disk; a lone surrogate in a stored text
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _encode(value: Any) -> Any:
    """The plain tree as JSON values: a date as {"$date": …}; a mapping with a key that
    starts with `$` as {"$map": [[key, value], …]}, so no data can pass for a tag."""
    if isinstance(value, dict):
        if any(k.startswith("$") for k in value):
            return {"$map": [[k, _encode(v)] for k, v in value.items()]}
        return {k: _encode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if value is None or isinstance(value, bool):
        return value
    for kind in (str, int, float):  # ruamel's subclasses (folded strings…) as plain values
        if isinstance(value, kind):
            return kind(value)
    if type(value) is dt.date:
        return {"$date": value.isoformat()}
    raise TypeError(f"not cached: {type(value).__name__}")  # a timestamp, a tagged value


def _decode(obj: dict[str, Any]) -> Any:
    if len(obj) == 1:
        if "$date" in obj:
            return dt.date.fromisoformat(obj["$date"])
        if "$map" in obj:
            return dict(obj["$map"])
    return obj


def search_path() -> list[Path]:
    """Folders holding rulebook editions: SUDYA_RULEBOOK_PATH (first) and the bundled ones."""
    extra = [Path(p) for p in os.environ.get("SUDYA_RULEBOOK_PATH", "").split(os.pathsep) if p]
    return [*extra, BUNDLED]


def bundled_ids() -> list[str]:
    """The ids of the rulebooks shipped with Sudya, found on SUDYA_RULEBOOK_PATH and stored in
    the ledger (`register`)."""
    return sorted({p.name.split(".")[0] for d in search_path() for p in d.glob("*.yaml")}
                  | set(_STORED))


# Editions kept in the ledger rather than in files: rulebook id -> edition -> (sha256, text).
# The services fill it from the database (services.rulebook_store.sync); this package reads no
# database. A stored edition wins over a file of the same number: the ledger ruled under it.
_STORED: dict[str, dict[str, tuple[str, str]]] = {}
_STORED_BOOKS: dict[str, Rulebook] = {}  # sha256 -> the loaded edition
# (id, edition) -> the scope a stored edition was published for (an organiser's series: only
# its tournaments see it); absent: every series (a bundled rulebook is never changed for all)
_SCOPE: dict[tuple[str, str], int] = {}


def register(rulebook_id: str, edition: str, text: str, sha256: str,
             scope: int | None = None) -> None:
    """Make a stored edition loadable by `load(rulebook_id, edition)` (checked: it must load),
    seen as in force only within `scope` (a series) when one is given."""
    if sha256 not in _STORED_BOOKS:
        _STORED_BOOKS[sha256] = load_known(text, stored_name(rulebook_id, edition))
    _STORED.setdefault(rulebook_id, {})[edition] = (sha256, text)
    if scope is None:
        _SCOPE.pop((rulebook_id, edition), None)
    else:
        _SCOPE[(rulebook_id, edition)] = scope


def keep_stored(present: set[tuple[str, str]]) -> None:
    """Forget the registered editions not in `present` ((id, edition) pairs): the registry
    says what the ledger holds (a test's database is dropped; another one is opened)."""
    for rid in list(_STORED):
        for number in [n for n in _STORED[rid] if (rid, n) not in present]:
            del _STORED[rid][number]
            _SCOPE.pop((rid, number), None)
        if not _STORED[rid]:
            del _STORED[rid]


def scope_of(rulebook_id: str, edition: str) -> int | None:
    """The series a stored edition is for (None: a file, or a stored edition for every one)."""
    return _SCOPE.get((rulebook_id, edition))


def stored_editions(rulebook_id: str, scope: int | None | Literal["all"] = "all"
                    ) -> dict[str, str]:
    """Edition -> sha256 of the editions of a rulebook registered from the ledger: all of them,
    or those seen within `scope` (a series' own and those for every series; None: only those
    for every series)."""
    return {n: sha for n, (sha, _text) in _STORED.get(rulebook_id, {}).items()
            if scope == "all" or _SCOPE.get((rulebook_id, n)) in (None, scope)}


def stored_text(rulebook_id: str, edition: str) -> str | None:
    """The YAML text of a registered stored edition (None: not one)."""
    found = _STORED.get(rulebook_id, {}).get(edition)
    return None if found is None else found[1]


def stored_name(rulebook_id: str, edition: str) -> str:
    """How errors name a stored edition (there is no file): `ledger:club.2`."""
    return f"ledger:{rulebook_id}.{edition}"


def editions_of(rulebook_id: str) -> list[str]:
    """Every edition number of a rulebook id, files and stored ones, oldest first."""
    return sorted({*edition_files(rulebook_id), *_STORED.get(rulebook_id, {})},
                  key=lambda n: int(n) if n.isdigit() else 0)


def edition_files(rulebook_id: str) -> dict[str, Path]:
    """Edition id -> file (`ID.yaml` is edition 1, `ID.N.yaml` edition N); earlier folders win."""
    files: dict[str, Path] = {}
    if "/" in rulebook_id or os.sep in rulebook_id or rulebook_id.endswith((".yaml", ".yml")):
        return files  # a path, not an id
    for directory in reversed(search_path()):
        files.update(_editions_in(rulebook_id, directory))
    return files


def _editions_in(rulebook_id: str, directory: Path) -> dict[str, Path]:
    try:
        stamp = directory.stat().st_mtime_ns  # a file added or removed changes it
    except OSError:
        return {}
    return dict(_editions_listed(rulebook_id, str(directory), stamp))


@functools.lru_cache(maxsize=256)
def _editions_listed(rulebook_id: str, folder: str, stamp: int) -> tuple[tuple[str, Path], ...]:
    """A folder's editions of a rulebook, listed once per state of the folder (every request
    that rules asks for its rulebook, and a listing costs a scan of the folder)."""
    directory = Path(folder)
    files: dict[str, Path] = {}
    for p in directory.glob(f"{rulebook_id}*.yaml"):
        stem = p.name[: -len(".yaml")]
        if stem == rulebook_id:
            files["1"] = p
        elif stem.startswith(rulebook_id + ".") and stem[len(rulebook_id) + 1:].isdigit():
            files[stem[len(rulebook_id) + 1:]] = p
    return tuple(files.items())


@functools.lru_cache(maxsize=64)
def _load_cached(path: str, mtime: float) -> Rulebook:
    return load_file(path)


def load(ref: str, edition: str | None = None) -> Rulebook:
    """A bundled rulebook by id (newest edition unless one is named: never one published for
    a series alone), or a file path."""
    files = edition_files(ref)
    stored = _STORED.get(ref)
    if stored:
        if edition is None:
            shared = {*files, *stored_editions(ref, None)}
            if not shared:
                raise RulebookError("rulebook.only-series-editions", rulebook=ref,
                                    editions=", ".join(editions_of(ref)))
            edition = max(shared, key=int)
        if edition in stored:
            return _STORED_BOOKS[stored[edition][0]]
        if edition not in files:
            raise RulebookError("rulebook.no-edition-of", rulebook=ref, edition=edition,
                                editions=", ".join(editions_of(ref)))
    if not files:
        p = Path(ref)
        if p.suffix in (".yaml", ".yml", ".json") and p.is_file():
            book = _load_cached(str(p.resolve()), p.stat().st_mtime)
            if edition is not None and edition != book.edition:
                raise RulebookError("rulebook.file-edition", where=ref, edition=edition,
                                    file_edition=book.edition)
            return book
        raise RulebookError("rulebook.unknown-or-file", rulebook=ref,
                            bundled=", ".join(bundled_ids()))
    if edition is None:
        edition = max(files, key=int)
    if edition not in files:
        raise RulebookError("rulebook.no-edition-of", rulebook=ref, edition=edition,
                            editions=", ".join(sorted(files)))
    path = files[edition]
    return _load_cached(str(path), path.stat().st_mtime)
