"""The engine is pure: it imports nothing that does I/O (architecture guide, habit 1)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import sudya

SRC = Path(sudya.__file__).parent
PURE = [*sorted((SRC / "domain" / "engine").glob("*.py")),
        SRC / "domain" / "rulebook" / "schema.py", SRC / "domain" / "errors.py"]
ALLOWED = {"__future__", "ast", "calendar", "collections", "dataclasses", "datetime",
           "fractions", "threading",
           "heapq", "bisect",
           "math", "difflib",
           "typing", "simpleeval", "pydantic", "pydantic_core"}
ALLOWED_SUDYA = ("sudya.domain.engine", "sudya.domain.errors", "sudya.domain.rulebook.schema",
                 "sudya.domain.rulebook.formula")
# errors.py renders its text from the catalogues when asked (a call-time import)
RENDERED_BY = {"errors.py": ("sudya.i18n.messages",)}


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_engine_modules_import_only_pure_modules() -> None:
    offenders = {}
    for path in PURE:
        bad = sorted(
            name for name in imports(path)
            if not (name.split(".")[0] in ALLOWED or name.startswith(ALLOWED_SUDYA)
                    or name in RENDERED_BY.get(path.name, ()))
        )
        if bad:
            offenders[path.name] = bad
    assert offenders == {}


def test_importing_the_engine_loads_no_io_library() -> None:
    engine = ", ".join(f"sudya.domain.engine.{p.stem}" for p in PURE
                       if p.parent.name == "engine" and p.stem != "__init__")
    code = (
        f"import sys, {engine}, sudya.domain.rulebook.schema\n"
        "bad = [m for m in ('ruamel', 'yaml', 'typer', 'rich', 'sqlalchemy', 'fastapi',"
        " 'httpx', 'sudya.domain.rulebook.loader', 'sudya.app.scenario') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""


def test_purity_check_would_catch_an_io_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import sqlite3\nfrom pathlib import Path\n", encoding="utf-8")
    assert imports(bad) == {"sqlite3", "pathlib"}
