"""``etwmc lint FILE.mc``: message text files get the diagnostics ``etwmc mc`` reports,
in every report format, with the same selection and exit codes as manifests."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from etwmc.cli import main

GOOD = "MessageId=1\nSymbolicName=ONE\nLanguage=English\nOne\n.\n"
BAD = "MessageId=1\nSeverity=Fatal\nLanguage=English\nOne\n.\nMessageId=2\n"


def _file(tmp_path: Path, text: str, name: str = "m.mc") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_clean_message_text_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", str(_file(tmp_path, GOOD))]) == 0
    assert "0 errors, 0 warnings, 0 notes in 1 file" in capsys.readouterr().err


def test_errors_with_places(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _file(tmp_path, BAD)
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:2:10: error ETW912:" in out and f"{path}:6:1: error ETW904:" in out


def test_selection_and_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    warned = _file(
        tmp_path, "MessageId=1 ;note\nSymbolicName=ONE\nLanguage=English\nOne\n. \n.\n", "w.mc"
    )
    assert main(["lint", "--ignore", "ETW906", "--format", "json", str(warned)]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [(d["code"], d["line"], d["column"]) for d in found] == [("ETW907", 5, 1)]
    assert main(["lint", "--select", "ETW906", "--format", "json", str(warned)]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [(d["code"], d["line"], d["column"]) for d in found] == [("ETW906", 1, 13)]
    path = _file(tmp_path, BAD)
    assert main(["lint", "--format", "sarif", str(path)]) == 1
    sarif = json.loads(capsys.readouterr().out)
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"ETW904", "ETW912"}


def test_warnings_fail_with_werror(tmp_path: Path) -> None:
    path = _file(tmp_path, GOOD.replace("MessageId=1", "MessageId=1 ;note"))
    assert main(["lint", str(path)]) == 0
    assert main(["lint", "--werror", str(path)]) == 1


def test_standard_input_named_mc(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(BAD.encode()))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["lint", "--stdin-filename", "messages.mc", "-"]) == 1
    assert "messages.mc:2:10: error ETW912:" in capsys.readouterr().out


# --------------------------------------------------------------------------- folders


def test_a_folder_search_finds_message_text_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from etwmc.discover import discover

    sub = tmp_path / "src"
    sub.mkdir()
    good = _file(sub, GOOD.replace("MessageId=1", "messageid = 1"), "Good.MC")
    bad = _file(sub, BAD, "bad.mc")
    utf16 = sub / "wide.mc"
    utf16.write_bytes(b"\xff\xfe" + (";// wide\r\n" + GOOD).encode("utf-16-le"))
    header_only = _file(sub, "LanguageNames=(German=0x407:MSG00407)\n", "names.mc")
    _file(sub, "not a message text file\nMessageIdX = 3\n", "other.mc")  # skipped
    (sub / "ignored").mkdir()
    _file(sub / "ignored", BAD, "x.mc")
    (sub / ".gitignore").write_text("ignored/\n")
    assert discover([str(tmp_path)]).files == sorted([good, bad, header_only, utf16])
    assert main(["lint", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert f"{bad}:2:10: error ETW912:" in captured.out
    assert "other.mc" not in captured.out and "x.mc" not in captured.out
    assert captured.err.strip().endswith("in 4 files")
    bad.unlink()
    assert main(["lint", str(tmp_path)]) == 0


def test_a_message_text_file_that_is_not_a_regular_file_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    _file(tmp_path, GOOD)
    os.mkfifo(tmp_path / "pipe.mc")
    assert main(["lint", str(tmp_path)]) == 2  # ETW014: the folder was not all read
    out = capsys.readouterr().out
    assert f"{tmp_path / 'pipe.mc'}: error ETW014:" in out and "named pipe" in out


def test_the_pre_commit_hook_takes_every_extension_a_folder_search_looks_at() -> None:
    import re

    import yaml

    from etwmc.discover import SEARCHED_SUFFIXES

    root = Path(__file__).resolve().parents[1]
    hooks = yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    files = re.compile(next(h for h in hooks if h["id"] == "etwmc-lint")["files"])
    assert ".mc" in SEARCHED_SUFFIXES
    for suffix in SEARCHED_SUFFIXES:
        assert files.search(f"src/name{suffix}") and files.search(f"src/NAME{suffix.upper()}")
