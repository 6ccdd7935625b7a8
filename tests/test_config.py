"""The configuration as ruff users expect it: one model for the command line and the
build plugins, unknown keys refused with a did-you-mean, ``--config`` and ``--isolated``,
and the project's manifests and output folders resolved from the configuration file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from etwmc.buildhooks import ConfigError, options_from_config, parse_options
from etwmc.cli import main
from etwmc.config import (
    KEY_HELP,
    LINT_KEY_HELP,
    Config,
    ConfigFileError,
    find_config,
    load_config,
    read_pyproject,
)
from etwmc.options import KEYS as COMPILE_KEYS

ROOT = Path(__file__).resolve().parents[1]
HELLO = ROOT / "examples" / "hello.man"
# A manifest with one warning (ETW480: a template no event uses) and no error.
WARNS = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Acme" guid="{3F3A1D6B-0C7E-4C2B-9E55-6B8E2C1D4A10}" symbol="ACME"
        resourceFileName="a.dll" messageFileName="a.dll">
      <templates><template tid="Unused"><data name="X" inType="win:UInt8"/></template></templates>
      <events><event value="7" symbol="Spun" level="win:Informational"/></events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
"""


def _run(
    *args: str, cwd: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A src-layout project with one manifest."""
    (tmp_path / "src" / "acme" / "events").mkdir(parents=True)
    (tmp_path / "src" / "acme" / "events" / "hello.man").write_text(HELLO.read_text())
    return tmp_path


# --------------------------------------------------------------------------- unknown keys


@pytest.mark.parametrize("command", ["lint", "compile"])
def test_a_misspelt_top_level_key_is_a_usage_error_with_a_suggestion(
    project: Path,
    command: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (project / "pyproject.toml").write_text(
        "[project]\nname = 'acme'\n[tool.etwmc]\nwerorr = true\nwevt-versoin = 3\n"
    )
    status, out, err = _run(
        command, "src/acme/events/hello.man", "-o", str(project / "out"),
        cwd=project, capsys=capsys, monkeypatch=monkeypatch,
    )  # fmt: skip
    assert status == 2 and out == ""
    assert "[tool.etwmc]" in err and "pyproject.toml" in err
    assert "'werorr' (did you mean 'werror'?)" in err
    assert "'wevt-versoin' (did you mean 'wevt-version'?)" in err
    assert not (project / "out").exists()


def test_unknown_keys_in_every_table_are_refused_alike(tmp_path: Path) -> None:
    cases = {
        "etwmc.toml": ("pytohn = false\n", "'pytohn' (did you mean 'python'?)"),
        "pyproject.toml": (
            "[tool.etwmc.lint]\nselct = ['ETW4']\n",
            "[tool.etwmc.lint]: unknown key 'selct' (did you mean 'select'?)",
        ),
    }
    for name, (text, expected) in cases.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / name).write_text(text)
        with pytest.raises(ConfigFileError) as e:
            find_config(folder)
        assert expected in str(e.value)
    (tmp_path / "lint.toml").write_text("[lint]\nper_file_ignore = {}\n")
    with pytest.raises(ConfigFileError, match=r"\[lint\]: .*did you mean 'per-file-ignores'"):
        load_config(tmp_path / "lint.toml")
    # A key with nothing close is still named, with the keys there are.
    (tmp_path / "lint.toml").write_text("colour = 'always'\n")
    with pytest.raises(ConfigFileError, match=r"unknown key 'colour'; the keys are: manifests"):
        load_config(tmp_path / "lint.toml")


def test_keys_written_with_underscores_are_the_same_keys(tmp_path: Path) -> None:
    (tmp_path / "etwmc.toml").write_text("wevt_version = 3\n[lint]\nextend_ignore = ['ETW4']\n")
    config = find_config(tmp_path)
    assert config.options().version == 3
    assert "ETW4" in config.selection().ignore


def test_every_key_has_its_help_and_every_documented_key_is_read(tmp_path: Path) -> None:
    assert set(KEY_HELP) == {"manifests", "package", "lint", *COMPILE_KEYS}
    for help in (*KEY_HELP.values(), *LINT_KEY_HELP.values()):
        assert help.type and help.default and help.meaning
    (tmp_path / "src" / "p").mkdir(parents=True)
    (tmp_path / "src" / "p" / "a.man").write_text("")
    values = {
        "manifests": "['src/p/*.man']", "package": "'p._etw'", "wevt-version": "3",
        "legacy-template-ids": "true", "python": "true", "binaries": "true",
        "resource-dll": "true", "c-header": "'km'", "werror": "true",
        "version-comment": "false",
    }  # fmt: skip
    lint = {
        "select": "['ETW4']", "ignore": "['ETW401']", "extend-select": "['ETW2']",
        "extend-ignore": "['ETW203']", "exclude": "['third_party/']",
        "per-file-ignores": "{ 'legacy/*.man' = ['ETW2'] }",
    }  # fmt: skip
    assert set(values) | {"lint"} == set(KEY_HELP) and set(lint) == set(LINT_KEY_HELP)
    text = "".join(f"{k} = {v}\n" for k, v in values.items())
    text += "[lint]\n" + "".join(f"{k} = {v}\n" for k, v in lint.items())
    (tmp_path / "etwmc.toml").write_text(text)
    config = find_config(tmp_path)
    options = config.options()
    assert (options.version, options.c_header, options.resource_dll) == (3, "km", True)
    assert options.version_comment is False
    assert config.selection().select == ("ETW4", "ETW2")
    assert config.exclude() == ("third_party/",)
    assert config.outputs() == {tmp_path / "src/p/a.man": tmp_path / "src/p/_etw"}


def test_wrong_values_are_reported_when_the_file_is_read(tmp_path: Path) -> None:
    for text, expected in [
        ("wevt-version = 4\n", "'wevt-version' must be 3 or 5"),
        ("manifests = []\n", "'manifests' must be a glob pattern"),
        ("package = '1bad'\n", "'package' must be a dotted package name"),
        ("lint = 3\n", "'lint' must be a table"),
        ("[lint]\nselect = ['bogus']\n", "'bogus' is not a code"),
    ]:
        (tmp_path / "etwmc.toml").write_text(text)
        with pytest.raises(ConfigFileError, match=expected):
            find_config(tmp_path)


# --------------------------------------------------------------------------- one model


def test_the_hatch_hook_table_and_tool_etwmc_are_read_as_one(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        "[tool.hatch.build.hooks.etwmc]\nmanifests = ['src/acme/*.man']\npackage = 'acme._etw'\n"
        "dependencies = ['x']\nenable-by-default = true\n"  # hatchling's own keys
        "[tool.etwmc]\nwerror = true\n[tool.etwmc.lint]\nignore = ['ETW480']\n"
    )
    (tmp_path / "src" / "acme").mkdir(parents=True)
    (tmp_path / "src" / "acme" / "a.man").write_text("")
    for config in (find_config(tmp_path), load_config(pyproject)):
        assert config.manifests == ("src/acme/*.man",) and config.package == "acme._etw"
        assert config.options().werror and "ETW480" in config.selection().ignore
        assert config.outputs() == {tmp_path / "src/acme/a.man": tmp_path / "src/acme/_etw"}
    # The build plugin reads the same model: [tool.etwmc]'s werror applies to the build.
    hook = {"manifests": "src/acme/*.man", "package": "acme._etw", "require-runtime-features": []}
    project = read_pyproject(pyproject, hook=hook)
    assert project is not None
    assert options_from_config(project).werror is True
    for text, expected in [
        (
            "[tool.hatch.build.hooks.etwmc]\nwerror = false\n[tool.etwmc]\nwerror = true\n",
            "'werror' set in both [tool.etwmc] and [tool.hatch.build.hooks.etwmc]",
        ),
        (
            "[tool.hatch.build.hooks.etwmc]\npakage = 'a'\n",
            "[tool.hatch.build.hooks.etwmc]: unknown key 'pakage' (did you mean 'package'?)",
        ),
        (
            "[tool.hatch.build.hooks.etwmc.lint]\nignore = []\n",
            "the lint settings go in [tool.etwmc.lint]",
        ),
    ]:
        pyproject.write_text(text)
        with pytest.raises(ConfigFileError) as e:
            find_config(tmp_path)
        assert expected in str(e.value)


def test_a_plugin_table_gets_the_same_suggestions() -> None:
    with pytest.raises(ConfigError, match=r"\[t\]: unknown key 'werorr' \(did you mean 'werror'"):
        parse_options({"manifests": "x", "package": "p", "werorr": True}, "[t]")


def test_the_project_outputs_are_resolved_from_the_configuration_file(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "pyproject.toml").write_text(
        "[tool.etwmc]\nmanifests = ['src/acme/events/*.man']\npackage = 'acme.events._etw'\n"
    )
    monkeypatch.chdir(project / "src" / "acme")  # the command runs in a subfolder
    config = find_config()
    assert config.root == project
    assert config.outputs() == {
        project / "src/acme/events/hello.man": project / "src/acme/events/_etw"
    }
    # A flat layout puts the outputs beside the package.
    flat = project / "flat"
    (flat / "acme").mkdir(parents=True)
    (flat / "x.man").write_text("")
    (flat / "etwmc.toml").write_text("manifests = 'x.man'\npackage = 'acme._etw'\n")
    assert find_config(flat).outputs() == {flat / "x.man": flat / "acme" / "_etw"}
    # Without manifests there is nothing; manifests without a package cannot be placed.
    assert Config().outputs() == {}
    (flat / "etwmc.toml").write_text("manifests = 'x.man'\n")
    with pytest.raises(ConfigFileError, match="'manifests' needs 'package'"):
        find_config(flat).outputs()
    (flat / "etwmc.toml").write_text("manifests = 'nothing/*.man'\npackage = 'p'\n")
    with pytest.raises(ConfigFileError, match="matches no file"):
        find_config(flat).outputs()
    (flat / "etwmc.toml").write_text("manifests = '../*.man'\npackage = 'p'\n")
    with pytest.raises(ConfigFileError, match="must stay inside the project"):
        find_config(flat).outputs()


def test_show_config_names_the_project_manifests(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "etwmc.toml").write_text("manifests = ['src/**/*.man']\npackage = 'acme._etw'\n")
    status, out, _ = _run(
        "compile", "--show-config", cwd=project, capsys=capsys, monkeypatch=monkeypatch
    )
    assert status == 0
    assert 'manifests = ["src/**/*.man"]\npackage = "acme._etw"\n' in out


# --------------------------------------------------------------------------- --config, --isolated


def test_config_names_the_file_and_its_folder_anchors_the_paths(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "src" / "acme" / "events" / "warn.man").write_text(WARNS)  # ETW480, a warning
    (project / "ci").mkdir()
    (project / "ci" / "pyproject.toml").write_text("[tool.etwmc.lint]\nselect = ['ETW1']\n")
    # Paths in the file are relative to its folder (the project), not to where etwmc runs.
    (project / "strict.toml").write_text(
        "werror = true\n[lint]\nper-file-ignores = { 'src/acme/events/warn.man' = ['ETW4'] }\n"
    )
    (project / "werror.toml").write_text("werror = true\n")
    ci = project / "ci"

    def lint(*args: str) -> tuple[int, str, str]:
        return _run("lint", "../src", *args, cwd=ci, capsys=capsys, monkeypatch=monkeypatch)

    status, out, _ = lint()
    assert status == 0 and out == ""  # the nearest file selects ETW1 only
    status, out, _ = lint("--config", "../strict.toml", "--show-config")
    assert status == 0 and "strict.toml" in out and "werror = true" in out
    status, out, _ = lint("--config", "../strict.toml")
    assert status == 0 and out == ""
    status, out, _ = lint("--config", "../werror.toml")
    assert status == 1 and "warn.man" in out and "ETW480" in out
    status, out, _ = lint("--config", "../ci/pyproject.toml", "--extend-select", "ETW4")
    assert status == 0 and "ETW480" in out


def test_config_errors_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    for flag, expected in [
        ("missing.toml", "cannot be read"),
        ("pyproject.toml", "has no [tool.etwmc] or [tool.hatch.build.hooks.etwmc] table"),
    ]:
        status, _, err = _run(
            "lint", str(HELLO), "--config", flag, cwd=tmp_path, capsys=capsys,
            monkeypatch=monkeypatch,
        )  # fmt: skip
        assert status == 2 and expected in err
    status, _, err = _run(
        "compile", str(HELLO), "--config", "x.toml", "--isolated", cwd=tmp_path, capsys=capsys,
        monkeypatch=monkeypatch,
    )  # fmt: skip
    assert status == 2 and "not allowed with argument" in err


@pytest.mark.parametrize("command", ["lint", "compile"])
def test_isolated_reads_no_configuration(
    tmp_path: Path,
    command: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "etwmc.toml").write_text("this is not = toml = at all\n")
    args = [command, str(HELLO), "-o", str(tmp_path / "out")]
    status, _, err = _run(*args, cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch)
    assert status == 2 and "cannot be read" in err
    status, _, err = _run(*args, "--isolated", cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch)
    assert status == 0, err


def test_the_build_fails_on_a_warning_when_tool_etwmc_says_werror(tmp_path: Path) -> None:
    """The hatchling hook applies [tool.etwmc]'s werror, as `etwmc compile` does."""
    from etwmc.buildhooks import BuildFailed, generate

    (tmp_path / "src" / "acme").mkdir(parents=True)
    (tmp_path / "src" / "acme" / "w.man").write_text(WARNS)
    (tmp_path / "pyproject.toml").write_text("[tool.etwmc]\nwerror = true\n")
    hook = {"manifests": "src/acme/w.man", "package": "acme._etw"}
    project = read_pyproject(tmp_path / "pyproject.toml", hook=hook)
    assert project is not None
    with pytest.raises(BuildFailed, match="ETW480"):
        generate(tmp_path, options_from_config(project), out_dir=tmp_path / "scratch")
    cli = subprocess.run(
        [sys.executable, "-m", "etwmc", "compile", "src/acme/w.man", "-o", "out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cli.returncode == 1 and "ETW480" in cli.stdout
