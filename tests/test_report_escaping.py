"""Human-readable reports (lint's and diff's text and github formats) show control
characters from file names and manifest text as escapes: a line feed in a file name
cannot forge a report line, and ESC/OSC/CSI sequences never reach the terminal.  The
JSON and SARIF reports keep the text exact (JSON escapes it)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest

from etwmc.cli import main
from etwmc.diagnostics import Diagnostic, Severity, Span, render_text, visible

ROOT = Path(__file__).resolve().parents[1]
TYPO = ROOT / "examples" / "lint-demo" / "src" / "acme" / "events.man"

# A level reference whose text forges a report line and carries C1 OSC and CSI
# sequences (XML 1.0 allows U+0080-U+009F, and a character reference gives a line feed).
HOSTILE_LEVEL = (
    "win:Info&#10;src/x.man:1:1: error ETW999: forged"
    "&#x9d;0;pwned&#x9c;&#x9b;31mred&#x2028;&#x202e;"
)
FILE_NAMES = ["evil\nx.man:1:1: error ETW999: forged.man", "title\x1b]0;pwned\x07.man"]
# What may remain in a report line: printable text (a tab or a control never).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    text = TYPO.read_text(encoding="utf-8").replace("win:Informationl", HOSTILE_LEVEL)
    for name in FILE_NAMES:
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _lint(capsys: pytest.CaptureFixture[str], *args: str | Path) -> str:
    main(["lint", *map(str, args)])
    return capsys.readouterr().out


def test_the_text_report_shows_controls_as_escapes(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _lint(capsys, folder)
    lines = out.splitlines()
    assert len(lines) == len(FILE_NAMES)  # one diagnostic per file (ETW127, without a hint)
    assert not _CONTROL.search(out.replace("\n", ""))
    for line in lines:
        assert line.startswith(visible(str(folder)) + "/")
        assert "ETW999" not in line.split(": ", 1)[0]  # no forged location
    assert any("evil\\nx.man:1:1: error ETW999: forged.man:41:38:" in line for line in lines)
    assert any("title\\x1b]0;pwned\\x07.man:41:38:" in line for line in lines)
    assert "win:Info\\nsrc/x.man:1:1: error ETW999: forged\\x9d0;pwned\\x9c\\x9b31mred" in out
    assert "\\u2028\\u202e" in out


def test_the_github_report_shows_controls_as_escapes(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _lint(capsys, "--format", "github", folder)
    lines = out.splitlines()
    assert len(lines) == len(FILE_NAMES) and all(line.startswith("::error ") for line in lines)
    assert not _CONTROL.search(out.replace("\n", ""))
    assert "%0A" not in out  # no multi-line annotation made by the input either
    assert any("file=" + str(folder) + "/evil\\nx.man%3A1%3A1%3A" in line for line in lines)


def test_json_and_sarif_keep_the_text_exact(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = json.loads(_lint(capsys, "--format", "json", folder))
    assert sorted(Path(d["file"]).name for d in found) == sorted(FILE_NAMES)
    assert all("forged\u009d0;pwned\u009c\u009b31mred" in d["message"] for d in found)
    assert all("win:Info\nsrc/x.man" in d["message"] for d in found)
    sarif = json.loads(_lint(capsys, "--format", "sarif", folder))
    uris = [
        unquote(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for r in sarif["runs"][0]["results"]
    ]
    assert sorted(u.rsplit("/", 1)[1] for u in uris) == sorted(FILE_NAMES)


def test_the_diff_report_shows_controls_as_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old.man"
    shutil.copy(ROOT / "examples" / "hello.man", old)
    new = tmp_path / FILE_NAMES[0]
    new.write_text(
        old.read_text(encoding="utf-8").replace(
            'level="win:Informational"', 'level="win:Error"', 1
        ),
        encoding="utf-8",
    )
    for fmt in ("text", "github"):
        assert main(["diff", "--format", fmt, str(old), str(new)]) == 1
        out = capsys.readouterr().out
        assert out and not _CONTROL.search(out.replace("\n", ""))
        assert "evil\\nx.man" in out


def test_colour_keeps_only_its_own_sequences() -> None:
    d = Diagnostic("ETW401", Severity.ERROR, Span("a\x1b[2Jb.man", 3, 4), "m\x1b]0;t\x07", "h\n")
    out = render_text([d], colour=True)
    assert set(re.findall(r"\x1b\[[0-9;]*m", out)) <= {
        "\x1b[1m", "\x1b[0m", "\x1b[2m", "\x1b[1;31m",
    }  # fmt: skip
    assert "\x1b]" not in out and "\x1b[2J" not in out
    assert "a\\x1b[2Jb.man:3:4" in out and "m\\x1b]0;t\\x07" in out and "h\\n" in out


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain é 中 C:\\src\\a.man", "plain é 中 C:\\src\\a.man"),
        ("a\nb\rc\td", "a\\nb\\rc\\td"),
        ("\x00\x1b\x7f\x85\x9b\x9d", "\\x00\\x1b\\x7f\\x85\\x9b\\x9d"),
        ("\u2028\u2029\u202e\u2066\u200f", "\\u2028\\u2029\\u202e\\u2066\\u200f"),
    ],
)
def test_visible(text: str, shown: str) -> None:
    assert visible(text) == shown


def test_a_usage_error_names_the_paths_visibly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "no\nmanifests\x1b[2J"
    empty.mkdir()
    assert main(["lint", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "no\\nmanifests\\x1b[2J" in err and "\x1b" not in err
