"""`sudya report` over the scene's SQLite file, run in this process as the console script
runs it (tests/cli/cli_kit.py): the judge report of a tournament with rulings, of one with
none, the DQ report of a suspension, a slip and a record; bad input is one line and exit 2."""

from __future__ import annotations

import io
from pathlib import Path

from cli_kit import run
from pypdf import PdfReader
from report_scene import BERSERK, EMPTY, SUSPENSION


def run_all(cwd: Path, *commands: tuple[object, ...]) -> list[tuple[int, str, str]]:
    """The commands one after another; (exit code, stdout, stderr) each."""
    return [(r.returncode, r.stdout, r.stderr) for r in (run(cwd, *c) for c in commands)]


def pdf_text(path: Path) -> str:
    reader = PdfReader(io.BytesIO(path.read_bytes()))
    return " ".join(" ".join((p.extract_text() or "").split()) for p in reader.pages)


def test_the_report_commands_write_their_files(scene_url: str, tmp_path: Path) -> None:
    db = ("--db", scene_url)
    runs = run_all(
        tmp_path,
        ("report", BERSERK, "--pdf", "judge.pdf", "--csv", "judge.csv", "--json", "judge.json",
         *db),
        ("report", "judge", EMPTY, "--html", "empty.html", "--lang", "en", *db),
        ("report", "dq", BERSERK, SUSPENSION, "--pdf", "dq.pdf", "--json", "-", *db),
    )
    for code, _out, err in runs:
        assert code == 0 and err == "", err
    judge = pdf_text(tmp_path / "judge.pdf")
    assert "Судейский отчёт: Этап 1" in judge and "Приостановление членства" in judge
    assert "Дарья Волкова" in judge and "Замедленный темп игры" in judge
    assert (tmp_path / "judge.csv").read_text("utf-8").startswith("event,at,round")
    assert '"Дарья Волкова"' in (tmp_path / "judge.json").read_text("utf-8")
    empty = (tmp_path / "empty.html").read_text("utf-8")
    assert "Judge report: Этап 2" in empty and "No rulings yet." in empty
    dq = pdf_text(tmp_path / "dq.pdf")
    assert "Отчёт о приостановлении членства: Дарья Волкова" in dq
    assert "Я сорвалась" in dq and "подпись" in dq
    assert '"status": "suspended"' in runs[2][1]  # --json - : the view on stdout


def test_bad_input_is_one_line_and_exit_2(scene_url: str, tmp_path: Path) -> None:
    db = ("--db", scene_url)
    cases = [
        (("report", 99, "--pdf", "x.pdf", *db), "tournament"),
        (("report", "dq", BERSERK, "e13", "--pdf", "x.pdf", *db), "event"),
        (("report", BERSERK, "--pdf", "x.pdf", "--lang", "de", *db), "--lang"),
        (("report", BERSERK, *db), "--pdf"),
        (("report", "slip", BERSERK, "e99", "--pdf", "x.pdf", *db), "event"),
    ]
    runs = run_all(tmp_path, *(args for args, _field in cases))
    for (args, field), (code, out, err) in zip(cases, runs, strict=True):
        assert code == 2, (args, code, err)
        assert out == "" and "Traceback" not in err, (args, err)
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"sudya: {field}: "), (args, err)
    assert not (tmp_path / "x.pdf").exists()
