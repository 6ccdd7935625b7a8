"""`etwmc lint`: formats, exit codes, folders, --werror, and the documented JSON/SARIF shapes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from etwmc.cli import main

GOOD = """<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Acme-Demo" guid="{11111111-2222-3333-4444-555555555555}" symbol="ACME_DEMO"
              resourceFileName="demo.dll" messageFileName="demo.dll">
      <events><event value="1" level="win:Informational" symbol="Hello"/></events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
"""
BAD = GOOD.replace('level="win:Informational"', 'level="win:Nope"')


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    good = tmp_path / "good.man"
    bad = tmp_path / "sub" / "bad.man"
    bad.parent.mkdir()
    good.write_text(GOOD)
    bad.write_text(BAD)
    return good, bad


def test_clean_file_exits_0(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", str(files[0])]) == 0
    assert "0 errors" in capsys.readouterr().err


def test_error_exits_1_with_location(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint", str(files[1])]) == 1
    out = capsys.readouterr().out
    first = next(line for line in out.splitlines() if "ETW401" in line)
    assert first.startswith(f"{files[1]}:6:")
    assert " error ETW401: " in first and "win:Nope" in first


def test_folder_is_searched(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", str(files[0].parent)]) == 1
    captured = capsys.readouterr()
    assert "bad.man" in captured.out and "in 2 files" in captured.err


def test_missing_path_is_usage_error(tmp_path: Path) -> None:
    assert main(["lint", str(tmp_path / "nope.man")]) == 2


def test_bad_option_is_usage_error() -> None:
    assert main(["lint", "--format", "xml", "x.man"]) == 2


def test_json_format(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--format", "json", str(files[1])]) == 1
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, list) and data
    first = next(d for d in data if d["code"] == "ETW401")
    assert set(first) >= {"code", "severity", "file", "line", "column", "message"}
    assert first["code"] == "ETW401" and first["severity"] == "error" and first["line"] == 6
    assert isinstance(first["column"], int) and first["column"] > 1


def test_werror_promotes_warnings(tmp_path: Path) -> None:
    f = tmp_path / "w.man"
    # A second culture that lacks a string the first defines is a warning.
    f.write_text(
        GOOD.replace('symbol="Hello"', 'symbol="Hello" message="$(string.hi)"').replace(
            "</instrumentationManifest>",
            '<localization><resources culture="en-US"><stringTable><string id="hi" value="Hi"/>'
            '</stringTable></resources><resources culture="de-DE"><stringTable/></resources>'
            "</localization></instrumentationManifest>",
        )
    )
    assert main(["lint", "--format", "json", str(f)]) == 0
    assert main(["lint", "--werror", str(f)]) == 1


def test_github_annotations(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    main(["lint", "--format", "github", str(files[1])])
    line = next(x for x in capsys.readouterr().out.splitlines() if "ETW401" in x)
    assert line.startswith(f"::error file={files[1]},line=6,col=")
    assert "title=ETW401::" in line


def _check_sarif_structure(doc: dict) -> None:  # type: ignore[type-arg]
    """The parts of the SARIF 2.1.0 schema a consumer (GitHub code scanning) relies on."""
    assert doc["version"] == "2.1.0"
    assert doc["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(doc["runs"], list) and len(doc["runs"]) == 1
    run = doc["runs"][0]
    driver = run["tool"]["driver"]
    assert isinstance(driver["name"], str) and driver["name"]
    rules = driver["rules"]
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids))
    for r in rules:
        assert r["shortDescription"]["text"]
        assert r["defaultConfiguration"]["level"] in ("none", "note", "warning", "error")
        # Code scanning links a finding to its rule's page and shows the rule's help.
        assert r["helpUri"] == f"https://etwmc.github.io/etwmc/rules/{r['id']}/"
        assert r["fullDescription"]["text"] and "\n" not in r["fullDescription"]["text"]
        assert r["help"]["text"] and r["helpUri"] in r["help"]["markdown"]
    for res in run["results"]:
        assert res["level"] in ("none", "note", "warning", "error")
        assert isinstance(res["message"]["text"], str) and res["message"]["text"]
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        for loc in res["locations"]:
            phys = loc["physicalLocation"]
            assert isinstance(phys["artifactLocation"]["uri"], str)
            region = phys.get("region", {})
            for key in ("startLine", "startColumn"):
                if key in region:
                    assert isinstance(region[key], int) and region[key] >= 1


def test_sarif_structure(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    main(["lint", "--format", "sarif", str(files[0].parent)])
    doc = json.loads(capsys.readouterr().out)
    _check_sarif_structure(doc)
    results = doc["runs"][0]["results"]
    assert any(r["ruleId"] == "ETW401" and r["level"] == "error" for r in results)


def test_sarif_with_no_results_is_valid(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    main(["lint", "--format", "sarif", str(files[0])])
    doc = json.loads(capsys.readouterr().out)
    _check_sarif_structure(doc)


def test_output_file(files: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    assert main(["lint", "--format", "json", "-o", str(out), str(files[1])]) == 1
    assert "ETW401" in {d["code"] for d in json.loads(out.read_text())}


def test_module_entry_point_runs(files: tuple[Path, Path]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "etwmc", "lint", str(files[1])], capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert "ETW401" in proc.stdout and "Traceback" not in proc.stderr


def test_internal_error_is_reported_not_raised(
    monkeypatch: pytest.MonkeyPatch, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    import etwmc.commands.lint

    def boom(*a: object, **k: object) -> object:
        raise RuntimeError("synthetic failure")

    monkeypatch.setattr(etwmc.commands.lint, "lint_file", boom)
    assert main(["lint", str(files[0])]) == 2
    err = capsys.readouterr().err
    assert "internal error" in err and "please report" in err and "Traceback" not in err


# What a lint of a manifest named on the command line must not import: each is needed
# on another path only (the folder walk's pathspec, the binary readers and writers'
# PE and header generators, a compile, message text files' reader), or is never needed
# at run time (Jinja and black, which the compiled template and the layout functions
# replace; the runtime; dataclasses, which etwmc.record replaces), or belongs to another
# path (an internal error's traceback).
_NOT_ON_THE_LINT_PATH = (
    "black", "jinja2", "pathspec", "etwmc.wevt.reader", "traceback", "etwmc.runtime",
    "etwmc.mctext", "etwmc.header", "etwmc.pe", "etwmc.compile", "socket", "dataclasses",
)  # fmt: skip


@pytest.mark.parametrize("name", ["real_world_forms.man", "sixteen_providers.man"])
def test_a_lint_imports_only_what_it_uses(tmp_path: Path, name: str) -> None:
    manifest = Path(__file__).resolve().parent / "manifests" / "valid" / name
    probe = (
        "import sys, io, contextlib\n"
        "from etwmc.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['lint', {str(manifest)!r}]) == 0\n"
        f"print(sorted(m for m in sys.modules if m in {_NOT_ON_THE_LINT_PATH!r}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path
    ).stdout
    assert out.strip() == "[]"
