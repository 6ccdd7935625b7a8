"""`etwmc lint` in CI as ruff and mypy users expect: discovery, code selection,
suppression comments, configuration, output streams, and the README's example."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conftest import slow
from etwmc import selection
from etwmc.cli import main
from etwmc.compile import compile_manifest
from etwmc.discover import discover, root_verdict
from etwmc.selection import Selection, suppressions

ROOT = Path(__file__).resolve().parents[1]
HELLO = ROOT / "examples" / "hello.man"
DEMO = ROOT / "examples" / "lint-demo"
VALID = ROOT / "tests" / "manifests" / "valid"

TYPO = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Acme" guid="{3F3A1D6B-0C7E-4C2B-9E55-6B8E2C1D4A10}" symbol="ACME"
        resourceFileName="a.dll" messageFileName="a.dll">
      <templates><template tid="Unused"><data name="X" inType="win:UInt8"/></template></templates>
      <events>
        <event value="7" symbol="Spun" level="win:Informationl"/>{comment}
      </events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
"""


def _typo(comment: str = "") -> str:
    return TYPO.replace("{comment}", comment)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository as users have them: manifests among other XML, a virtualenv, an
    ignored build folder and a hidden folder."""
    r = tmp_path / "repo"
    (r / "src").mkdir(parents=True)
    shutil.copy(HELLO, r / "src" / "hello.man")
    shutil.copy(DEMO / "src" / "widgets" / "widgets.manifest", r / "src" / "widgets.manifest")
    for name in ("pom.xml", "src/app.manifest", "src/app.config.xml"):
        shutil.copy(DEMO / name, r / name)
    (r / "src" / "notes.xml").write_text("<notes><note>not XML a manifest needs</note></notes>")
    for hidden in (".venv/lib/site-packages/pkg", "build/gen", ".cache", "vendor/x"):
        (r / hidden).mkdir(parents=True)
        (r / hidden / "broken.man").write_text(_typo())
    (r / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    (r / "env").mkdir()
    (r / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (r / "env" / "broken.man").write_text(_typo())
    (r / ".gitignore").write_text("build/\n")
    return r


def _lint(
    *args: str | Path, cwd: Path | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "etwmc", "lint", *map(str, args)],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
        timeout=120,
    )


# --------------------------------------------------------------------------- discovery


def test_a_folder_yields_its_manifests_only(repo: Path) -> None:
    found = discover([str(repo)])
    assert sorted(p.relative_to(repo).as_posix() for p in found.files) == [
        "src/hello.man",
        "src/widgets.manifest",
        "vendor/x/broken.man",
    ]
    found = discover([str(repo)], exclude=["vendor/"])
    assert [p.name for p in found.files] == ["hello.man", "widgets.manifest"]


def test_lint_of_a_repository_skips_other_xml(repo: Path) -> None:
    proc = _lint(".", "--exclude", "vendor", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr.strip().endswith("in 2 files")


def test_a_file_named_explicitly_is_always_linted(repo: Path) -> None:
    proc = _lint("pom.xml", "build/gen/broken.man", cwd=repo)
    assert proc.returncode == 1
    assert "pom.xml" in proc.stdout and "ETW008" in proc.stdout  # not a manifest: said so
    assert "build/gen/broken.man" in proc.stdout and "ETW401" in proc.stdout


def test_nothing_found_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "pom.xml").write_text("<project/>")
    proc = _lint(tmp_path)
    assert proc.returncode == 2
    assert "no manifest found" in proc.stderr
    assert _lint(tmp_path / "missing").returncode == 2


@pytest.mark.parametrize(
    ("data", "verdict"),
    [
        (
            b'<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"/>',
            True,
        ),
        (b'<assembly xmlns="urn:schemas-microsoft-com:asm.v1"><trustInfo/></assembly>', False),
        (
            b'<assembly xmlns="urn:schemas-microsoft-com:asm.v3"><assemblyIdentity/>'
            b"<instrumentation/></assembly>",
            True,
        ),
        (b"<project/>", False),
        (b"\x00\x01 not xml", None),
        (b'<!DOCTYPE x SYSTEM "/etc/passwd"><x/>', False),
    ],
)
def test_root_verdict(data: bytes, verdict: bool | None) -> None:
    assert root_verdict(data) is verdict


def test_a_broken_man_file_in_a_folder_is_still_linted(tmp_path: Path) -> None:
    (tmp_path / "broken.man").write_text('<instrumentationManifest a="x"b="y"/>')
    (tmp_path / "broken.xml").write_text('<project a="x"b="y"/>')
    proc = _lint(tmp_path)
    assert proc.returncode == 1
    assert "broken.man" in proc.stdout and "broken.xml" not in proc.stdout


# --------------------------------------------------------------------------- selection


def test_selection_by_codes_and_prefixes() -> None:
    s = Selection(select=("ETW",), ignore=("ETW4",))
    assert s.allows("ETW201") and not s.allows("ETW401")
    s = s.extended(select=["ETW401"])
    assert s.allows("ETW401") and not s.allows("ETW402")  # the longer selector decides
    assert not Selection(select=("ETW2",)).allows("ETW401")
    per_file = Selection(per_file_ignores={"legacy/*.man": ("ETW4",)}, root="/r")
    assert not per_file.allows("ETW401", "/r/legacy/a.man")
    assert per_file.allows("ETW401", "/r/src/a.man")


@slow
def test_select_and_ignore_flags(tmp_path: Path) -> None:
    man = tmp_path / "t.man"
    man.write_text(_typo())
    codes = lambda proc: set(re.findall(r" (ETW\d{3}):", proc.stdout))  # noqa: E731
    everything = codes(_lint(man))
    assert {"ETW401", "ETW480"} <= everything
    assert codes(_lint(man, "--select", "ETW40")) == {"ETW401"}
    assert codes(_lint(man, "--select", "ETW4")) == {"ETW401", "ETW480"}
    proc = _lint(man, "--ignore", "ETW48")
    assert proc.returncode == 1 and codes(proc) == {"ETW401"}
    # An error is never left out (compile fails on it): it stays, and ETW015 says why.
    proc = _lint(man, "--ignore", "ETW401,ETW48")
    assert proc.returncode == 1 and codes(proc) == {"ETW401", "ETW015"}
    assert re.search(
        r"t\.man: warning ETW015: the selection leaves out the error ETW401", proc.stdout
    )
    assert codes(_lint(man, "--ignore", "ETW4", "--extend-select", "ETW401")) >= {"ETW401"}
    assert _lint(man, "--select", "E401").returncode == 2  # not a code form


def test_suppression_comments(tmp_path: Path) -> None:
    man = tmp_path / "t.man"
    man.write_text(_typo().replace("</templates>", "</templates> <!-- etwmc: ignore[ETW480] -->"))
    proc = _lint(man)
    assert "ETW480" not in proc.stdout and "ETW401" in proc.stdout and "ETW013" not in proc.stdout
    # A comment alone on its line covers the next line with markup.
    man.write_text(
        _typo().replace(
            "      <templates>", "      <!-- etwmc: ignore[ETW4] -->\n      <templates>"
        )
    )
    proc = _lint(man)
    assert "ETW480" not in proc.stdout and "ETW401" in proc.stdout
    # An error is never hidden: lint fails as compile does, and says so at the comment.
    man.write_text(_typo(" <!-- etwmc: ignore[ETW401] -->"))
    proc = _lint(man)
    assert proc.returncode == 1 and "error ETW401" in proc.stdout
    assert re.search(
        r"t\.man:9: warning ETW015: this suppression comment covers the error ETW401", proc.stdout
    )
    assert "ETW013" not in proc.stdout
    # A suppression that hides nothing is reported.
    man.write_text(_typo(" <!-- etwmc: ignore[ETW999] -->"))
    proc = _lint(man)
    assert "ETW401" in proc.stdout and "ETW013" in proc.stdout
    # The whole file.
    man.write_text(
        _typo().replace("<instrumentation>", "<!-- etwmc: ignore-file[ETW480] --><instrumentation>")
    )
    proc = _lint(man)
    assert "ETW480" not in proc.stdout and "ETW401" in proc.stdout


def test_suppressions_cover_the_right_lines() -> None:
    lines = [
        "<a/> <!-- etwmc: ignore[ETW1] -->",
        "<!-- etwmc: ignore -->",
        "",
        "<!-- another comment -->",
        "<b/>",
        "<!-- etwmc: ignore-file[ETW2, ETW3] -->",
    ]
    found = {(s.line, s.written_at, s.selectors) for s in suppressions(lines)}
    assert found == {(1, 1, ("ETW1",)), (5, 2, ()), (0, 6, ("ETW2", "ETW3"))}


def test_a_compile_reads_its_suppression_comments_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A manifest that compiles has its diagnostics reported twice (before its outputs
    # are made, and with theirs): its lines are scanned for comments once.
    man = tmp_path / "t.man"
    man.write_text(
        _typo()
        .replace("win:Informationl", "win:Informational")
        .replace("</templates>", "</templates> <!-- etwmc: ignore[ETW480] -->")
    )
    scanned: list[int] = []

    def counted(lines: Sequence[str]) -> list[Any]:
        scanned.append(len(lines))
        return suppressions(lines)

    monkeypatch.setattr(selection, "suppressions", counted)
    result = compile_manifest(man, selection=Selection())
    assert result.ok and result.files
    assert not [d for d in result.diagnostics if d.code in ("ETW480", "ETW013")]
    assert len(scanned) == 1


def test_compile_keeps_errors_whatever_lint_ignores(tmp_path: Path) -> None:
    man = tmp_path / "t.man"
    man.write_text(_typo(" <!-- etwmc: ignore[ETW401] -->"))
    assert main(["compile", str(man), "-o", str(tmp_path / "out")]) == 1
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- configuration


@slow
def test_configuration_and_flags(tmp_path: Path) -> None:
    man = tmp_path / "src" / "t.man"
    man.parent.mkdir()
    man.write_text(_typo().replace("win:Informationl", "win:Informational"))  # ETW480 only
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'x'\n[tool.etwmc]\nwevt-version = 3\nwerror = true\n"
        "[tool.etwmc.lint]\nignore = ['ETW2']\nper-file-ignores = { 'src/*.man' = ['ETW48'] }\n"
    )
    proc = _lint("src", cwd=tmp_path)
    assert proc.returncode == 0 and "ETW480" not in proc.stdout
    proc = _lint("src", "--ignore", "ETW2", cwd=tmp_path)  # the flag replaces the list...
    assert proc.returncode == 0 and "ETW480" not in proc.stdout  # ...not per-file-ignores
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'x'\n[tool.etwmc]\nwevt-version = 3\nwerror = true\n"
        "[tool.etwmc.lint]\nignore = ['ETW48']\n"
    )
    assert _lint("src", cwd=tmp_path).returncode == 0
    proc = _lint("src", "--ignore", "ETW2", cwd=tmp_path)
    assert proc.returncode == 1 and "error ETW480" in proc.stdout  # werror from the file
    shown = _lint("--show-config", cwd=tmp_path / "src")
    assert "pyproject.toml" in shown.stdout and 'lint.ignore = ["ETW48"]' in shown.stdout
    # etwmc.toml comes first in a folder.
    (tmp_path / "etwmc.toml").write_text("[lint]\nselect = ['ETW2']\n")
    proc = _lint("src", cwd=tmp_path)
    assert proc.returncode == 0 and "ETW480" not in proc.stdout
    (tmp_path / "etwmc.toml").write_text("[lint]\nselect = ['bogus']\n")
    assert _lint("src", cwd=tmp_path).returncode == 2
    # Whatever the configuration leaves out, an error is reported and fails the lint.
    man.write_text(_typo())
    (tmp_path / "etwmc.toml").write_text("[lint]\nignore = ['ETW401']\n")
    proc = _lint("src", cwd=tmp_path)
    assert proc.returncode == 1 and "error ETW401" in proc.stdout and "ETW015" in proc.stdout


def test_compile_reads_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.etwmc]\nwevt-version = 3\npython = false\n")
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "etwmc", "compile", str(HELLO), "-o", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (out / "hello.py").exists()
    assert (out / "helloTEMP.BIN").read_bytes()[8:10] == b"\x03\x00"  # CRIM 3.1
    proc = subprocess.run(
        [sys.executable, "-m", "etwmc", "compile", "--show-config"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "wevt-version = 3" in proc.stdout and "python = false" in proc.stdout


# --------------------------------------------------------------------------- output


def test_reports_go_to_stdout_in_every_command(tmp_path: Path) -> None:
    man = tmp_path / "t.man"
    man.write_text(_typo())
    for cmd in (["lint"], ["compile", "-o", str(tmp_path / "o")]):
        proc = subprocess.run(
            [sys.executable, "-m", "etwmc", *cmd, str(man), "--format", "sarif"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        doc = json.loads(proc.stdout)
        assert doc["runs"][0]["results"], cmd
        uri = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        assert uri["artifactLocation"]["uri"] == man.as_uri()


def test_colour_follows_the_conventions(tmp_path: Path) -> None:
    man = tmp_path / "t.man"
    man.write_text(_typo())
    env = {"PATH": "/usr/bin:/bin", "FORCE_COLOR": "1"}
    run = lambda env: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "etwmc", "lint", str(man)], capture_output=True, text=True, env=env
    )
    assert "\x1b[" in run(env).stdout
    assert "\x1b[" not in run({**env, "NO_COLOR": "1"}).stdout
    assert "\x1b[" not in run({"PATH": "/usr/bin:/bin"}).stdout  # not a terminal


def test_stdin_and_several_manifests(tmp_path: Path) -> None:
    proc = _lint("-", "--stdin-filename", "piped.man", stdin=_typo())
    assert proc.returncode == 1 and "piped.man:9:40: error ETW401" in proc.stdout
    out = tmp_path / "out"
    other = tmp_path / "other.man"
    shutil.copy(VALID / "value_edges.man", other)
    assert main(["compile", str(HELLO), str(other), "-o", str(out)]) == 0
    assert {"hello.py", "other.py", "helloTEMP.BIN", "otherTEMP.BIN"} <= {
        p.name for p in out.iterdir()
    }
    proc = subprocess.run(
        [sys.executable, "-m", "etwmc", "compile", "-", "-z", "piped", "-o", str(out)],
        input=HELLO.read_text(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and (out / "piped.py").exists()
    assert main(["compile", "-", "-o", str(out)]) == 2  # no base name for it


def test_list_codes_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--list-codes", "--format", "json"]) == 0
    codes = json.loads(capsys.readouterr().out)
    assert {"code": "ETW401", "severity": "error", "summary": codes[0]["summary"]} != codes[0]
    assert any(c["code"] == "ETW401" and c["severity"] == "error" for c in codes)
    assert [c["code"] for c in codes] == sorted(c["code"] for c in codes)


def test_every_command_explains_itself(capsys: pytest.CaptureFixture[str]) -> None:
    from etwmc.commands import COMMANDS

    for command in COMMANDS:
        args = [command.name, "-?"] if command.raw else [command.name, "--help"]
        assert main(args) == 0, command.name
        text = capsys.readouterr().out
        assert "usage" in text.lower() and len(text.splitlines()) > 4, command.name
    assert main(["--help"]) == 0
    top = capsys.readouterr().out
    flat = " ".join(top.split())  # argparse wraps long summaries
    assert all(c.name in top and c.summary in flat for c in COMMANDS)


def test_guid_braces(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["guid", "--braces", "System.Runtime"]) == 0
    assert capsys.readouterr().out == "{49592c0f-5a05-516d-aa4b-a64e02026c89}\n"


# --------------------------------------------------------------------------- README


@pytest.mark.parametrize("page", ["README.md", "docs/linting.md", "docs/getting-started.md"])
def test_the_documented_lint_example_reproduces_exactly(page: str) -> None:
    """Each page shows the run in examples/lint-demo, its output as printed."""
    text = (ROOT / page).read_text(encoding="utf-8")
    assert "examples/lint-demo" in text
    block = re.search(
        r"```console\n(?:\$ cd examples/lint-demo\n)?(\$ etwmc lint src/\n.*?)```", text, re.S
    )
    assert block
    lines = block.group(1).splitlines()
    proc = _lint("src/", cwd=ROOT / "examples" / "lint-demo")
    assert (proc.stdout + proc.stderr).splitlines() == lines[1:]
