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
