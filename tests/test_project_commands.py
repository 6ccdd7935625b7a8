"""The project's manifests from the command line: ``etwmc lint`` with no path, ``etwmc
compile [--check [--diff]]`` with no manifest, and the version in the generated
module's first line (``--no-version-comment``, ``version-comment = false``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from codegen_helpers import HELLO

from etwmc import outputs
from etwmc.buildhooks import generate, options_from_config
from etwmc.cli import EXIT_USAGE, main
from etwmc.compile import compile_manifest
from etwmc.config import find_config

BROKEN = HELLO.read_text().replace('template="HelloArgs"', 'template="NoSuchTemplate"')
PYPROJECT = """\
[project]
name = "acme"
version = "1.0"

[tool.etwmc]
manifests = ["src/acme/*.man"]
package = "acme._etw"
"""


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A src-layout project whose configuration names src/acme/hello.man; a broken
    manifest lies outside the configured patterns.  The current folder is its root."""
    (tmp_path / "src" / "acme").mkdir(parents=True)
    shutil.copy(HELLO, tmp_path / "src" / "acme" / "hello.man")
    (tmp_path / "attic").mkdir()
    (tmp_path / "attic" / "old.man").write_text(BROKEN)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def _outputs(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


# --------------------------------------------------------------------------- lint


def test_lint_without_a_path_lints_the_configured_manifests(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint"]) == 0
    assert "0 errors, 0 warnings, 0 notes in 1 file" in capsys.readouterr().err
    # The broken manifest outside the patterns is what a folder search would find.
    assert main(["lint", "."]) == 1
    assert "attic/old.man" in capsys.readouterr().out


def test_lint_without_a_path_reports_the_configured_manifests_errors(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "src" / "acme" / "hello.man").write_text(BROKEN)
    assert main(["lint"]) == 1
    out = capsys.readouterr().out
    assert "src/acme/hello.man:" in out and "old.man" not in out


def test_lint_without_a_path_names_files_from_the_current_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "src" / "acme" / "hello.man").write_text(BROKEN)
    (project / "docs").mkdir()
    monkeypatch.chdir(project / "docs")
    assert main(["lint"]) == 1
    assert "../src/acme/hello.man:" in capsys.readouterr().out


def test_lint_without_a_path_or_configuration_searches_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["lint"]) == 2  # nothing to lint: a usage error, as for `etwmc lint .`
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.man").write_text(BROKEN)
    capsys.readouterr()
    assert main(["lint"]) == 1
    assert "sub/bad.man" in capsys.readouterr().out
    shutil.copy(HELLO, tmp_path / "sub" / "bad.man")
    assert main(["lint"]) == 0


def test_lint_without_a_path_and_a_pattern_matching_nothing_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "src" / "acme" / "hello.man").unlink()
    assert main(["lint"]) == 2
    assert "matches no file" in capsys.readouterr().err


# --------------------------------------------------------------------------- compile


def test_compile_check_without_a_manifest_checks_the_build_plugins_outputs(
    project: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    target = project / "src" / "acme" / "_etw"
    assert main(["compile", "--check"]) == 1
    out, err = capsys.readouterr()
    for name in ("__init__.py", "hello.py", "helloTEMP.BIN", "hello_MSG00001.bin", "hello.rc"):
        assert f"src/acme/_etw/{name}: missing" in out
    assert "regenerate with: etwmc compile\n" in err
    assert not target.exists()

    # What an editable build writes is what --check compares with.
    built = generate(project, options_from_config(find_config(project)), out_dir=None)
    assert built.files
    assert main(["compile", "--check"]) == 0

    # The outputs of a regular build are the same bytes.
    scratch = tmp_path_factory.mktemp("wheel")
    generate(project, options_from_config(find_config(project)), out_dir=scratch)
    assert _outputs(scratch / "acme" / "_etw") == _outputs(target)

    (target / "helloTEMP.BIN").write_bytes(b"CRIM")
    (target / "hello.rc").unlink()
    capsys.readouterr()
    assert main(["compile", "--check"]) == 1
    out = capsys.readouterr().out
    assert "helloTEMP.BIN: differs" in out and "hello.rc: missing" in out
    assert "hello.py" not in out


def test_compile_without_a_manifest_writes_what_the_build_writes(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    assert main(["compile"]) == 0
    target = project / "src" / "acme" / "_etw"
    written = _outputs(target)
    scratch = tmp_path_factory.mktemp("wheel")
    generate(project, options_from_config(find_config(project)), out_dir=scratch)
    assert written == _outputs(scratch / "acme" / "_etw")
    assert main(["compile", "--check"]) == 0


def test_compile_without_a_manifest_needs_the_package_as_the_build_does(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The command line reads the project's build settings as the build plugins do, so
    # a configuration without 'package' gets the build's own message.
    (project / "pyproject.toml").write_text(PYPROJECT.replace('package = "acme._etw"\n', ""))
    assert main(["compile"]) == EXIT_USAGE
    assert "'package' must be a dotted package name" in capsys.readouterr().err
    assert not (project / "src" / "acme" / "_etw").exists()


def test_compile_check_uses_the_configured_options(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compile"]) == 0
    with (project / "pyproject.toml").open("a") as f:
        f.write('c-header = "um"\n')
    assert main(["compile", "--check"]) == 1
    assert "hello.h: missing" in capsys.readouterr().out
    assert main(["compile"]) == 0 and (project / "src" / "acme" / "_etw" / "hello.h").is_file()
    assert main(["compile", "--check"]) == 0


def test_compile_without_a_manifest_reports_errors_and_usage(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "src" / "acme" / "hello.man").write_text(BROKEN)
    assert main(["compile", "--check"]) == 1
    assert capsys.readouterr().out.startswith("src/acme/hello.man:")
    (project / "docs").mkdir()
    monkeypatch.chdir(project / "docs")  # the diagnostics name the file from here
    assert main(["compile", "--check"]) == 1
    assert capsys.readouterr().out.startswith("../src/acme/hello.man:")
    (project / "src" / "acme" / "hello.man").write_bytes(HELLO.read_bytes())
    assert main(["compile", "--check"]) == 1
    assert "../src/acme/_etw/hello.py: missing" in capsys.readouterr().out
    monkeypatch.chdir(project)
    (project / "src" / "acme" / "hello.man").write_text(BROKEN)
    for flags in (["-o", "out"], ["-z", "x"], ["--module", "m"]):
        assert main(["compile", "--check", *flags]) == 2
        assert "-o, -z and --module" in capsys.readouterr().err
    (project / "pyproject.toml").write_text("[project]\nname = 'acme'\n")
    assert main(["compile", "--check"]) == 2
    assert "give at least one manifest" in capsys.readouterr().err


# --------------------------------------------------------------------------- the version


def _first_line(path: Path) -> str:
    return path.read_text().splitlines()[0]


def test_no_version_comment_leaves_the_version_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    assert main(["compile", str(HELLO), "-o", str(out)]) == 0
    assert _first_line(out / "hello.py") == (
        f"# Generated by etwmc {outputs.__version__}: do not edit, regenerate with `etwmc compile`."
    )
    assert main(["compile", str(HELLO), "-o", str(out), "--check", "--no-version-comment"]) == 1
    assert main(["compile", str(HELLO), "-o", str(out), "--no-version-comment"]) == 0
    first = (out / "hello.py").read_bytes()
    assert _first_line(out / "hello.py") == (
        "# Generated by etwmc: do not edit, regenerate with `etwmc compile`."
    )
    assert main(["compile", str(HELLO), "-o", str(out), "--check"]) == 1  # --check honours it
    assert main(["compile", str(HELLO), "-o", str(out), "--check", "--no-version-comment"]) == 0
    # Another etwmc version writes the same bytes: committed outputs survive an upgrade.
    monkeypatch.setattr(outputs, "__version__", "99.0.0")
    assert main(["compile", str(HELLO), "-o", str(out), "--check", "--no-version-comment"]) == 0
    assert main(["compile", str(HELLO), "-o", str(out), "--no-version-comment"]) == 0
    assert (out / "hello.py").read_bytes() == first
    assert main(["compile", str(HELLO), "-o", str(out), "--check"]) == 1


def test_the_version_comment_key_is_read_by_the_cli_and_the_build_plugins(
    project: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    with (project / "pyproject.toml").open("a") as f:
        f.write("version-comment = false\n")
    scratch = tmp_path_factory.mktemp("wheel")
    generate(project, options_from_config(find_config(project)), out_dir=scratch)
    assert _first_line(scratch / "acme" / "_etw" / "hello.py") == (
        "# Generated by etwmc: do not edit, regenerate with `etwmc compile`."
    )
    assert main(["compile"]) == 0
    assert _first_line(project / "src" / "acme" / "_etw" / "hello.py").startswith(
        "# Generated by etwmc: "
    )
    assert main(["compile", "--check"]) == 0
    # A configured manifest compiled by name gets the key too, and the command that
    # regenerates spells it for wherever it runs.
    out = project / "out"
    assert main(["compile", "src/acme/hello.man", "-o", str(out)]) == 0
    assert _first_line(out / "hello.py").startswith("# Generated by etwmc: ")
    (out / "hello.py").write_text("")
    capsys.readouterr()
    assert main(["compile", "src/acme/hello.man", "-o", str(out), "--check"]) == 1
    assert "--no-version-comment" in capsys.readouterr().err
    assert main(["compile", "--show-config"]) == 0
    assert "version-comment = false" in capsys.readouterr().out


# --------------------------------------------------------------------------- --diff


def test_check_diff_shows_what_would_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["compile", str(HELLO), "-o", str(out)]) == 0
    module = out / "hello.py"
    text = module.read_text()
    module.write_text(text.replace("def write_", "def old_write_", 1))
    (out / "helloTEMP.BIN").write_bytes(b"CRIM\0\0")
    (out / "hello.rc").unlink()
    capsys.readouterr()
    assert main(["compile", str(HELLO), "-o", str(out), "--check", "--diff"]) == 1
    report = capsys.readouterr().out
    shown = str(out / "hello.py")
    assert f"--- a/{shown}\n+++ b/{shown}\n@@ " in report
    new_line = next(line for line in text.splitlines() if line.startswith("def write_"))
    assert f"\n-{new_line.replace('def write_', 'def old_write_')}\n+{new_line}\n" in report
    size = len((out / "helloTEMP.BIN").read_bytes())
    planned = len(compile_manifest(HELLO).files["helloTEMP.BIN"])
    assert f"Binary file {out / 'helloTEMP.BIN'} differs: {size} bytes on disk, " in report
    assert f"{planned} bytes planned" in report
    # A missing text output is diffed from nothing.
    assert f"--- /dev/null\n+++ b/{out / 'hello.rc'}\n@@ -0,0 +1," in report
    # Files that are current get no diff.
    assert "hello_MSG00001.bin:" not in report
    # Without --diff, the summary alone.
    assert main(["compile", str(HELLO), "-o", str(out), "--check"]) == 1
    assert "@@" not in capsys.readouterr().out


def test_diff_output_cannot_carry_terminal_sequences_or_forge_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["compile", str(HELLO), "-o", str(out)]) == 0
    forged = "\x1b]0;title\x07\x1b[2J\rhello.py: current\u2028etwmc: 0 outputs are stale\x0b"
    with (out / "hello.py").open("a", encoding="utf-8") as f:
        f.write(forged + "\n")
    capsys.readouterr()
    assert main(["compile", str(HELLO), "-o", str(out), "--check", "--diff"]) == 1
    report = capsys.readouterr().out
    assert "\x1b" not in report and "\x07" not in report and "\r" not in report
    assert "\u2028" not in report and "\x0b" not in report
    assert "\n-\\x1b]0;title\\x07\\x1b[2J\\rhello.py: current\\u2028etwmc" in report
    assert not any(line.startswith("hello.py: current") for line in report.splitlines())


def test_diff_needs_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(HELLO), "-o", str(tmp_path), "--diff"]) == 2
    assert "--diff" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_stale_report_escapes_the_folder_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out\x1b[2J\n"
    assert main(["compile", str(HELLO), "-o", str(out)]) == 0
    (out / "hello.py").write_text("")
    capsys.readouterr()
    assert main(["compile", str(HELLO), "-o", str(out), "--check", "--diff"]) == 1
    captured = capsys.readouterr()
    for text in (captured.out, captured.err):
        assert "\x1b" not in text and "out\\x1b[2J\\n" in text
