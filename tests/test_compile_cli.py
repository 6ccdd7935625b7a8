"""``etwmc compile`` from the command line and ``compile_manifest`` as a library."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from codegen_helpers import HELLO

from etwmc.cli import main
from etwmc.compile import compile_manifest

BROKEN = HELLO.read_text().replace('template="HelloArgs"', 'template="NoSuchTemplate"')


@pytest.mark.parametrize("verify", [[], ["--verify"]])
def test_compile_writes_module_and_binary_outputs(tmp_path: Path, verify: list[str]) -> None:
    assert main(["compile", str(HELLO), "-o", str(tmp_path / "out"), *verify]) == 0
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == ["hello.py", "hello.rc", "helloTEMP.BIN", "hello_MSG00001.bin"]


def test_base_and_module_options(tmp_path: Path) -> None:
    args = ["compile", str(HELLO), "-o", str(tmp_path), "-z", "greet", "--module", "greetings"]
    assert main(args) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["greet.rc", "greetTEMP.BIN", "greet_MSG00001.bin", "greetings.py"]


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        ("--no-python", ["hello.rc", "helloTEMP.BIN", "hello_MSG00001.bin"]),
        ("--no-binary", ["hello.py"]),
    ],
)
def test_no_python_no_binary(tmp_path: Path, flag: str, expected: list[str]) -> None:
    assert main(["compile", str(HELLO), "-o", str(tmp_path), flag]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == expected


def test_failed_compile_leaves_no_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    man = tmp_path / "broken.man"
    man.write_text(BROKEN)
    out = tmp_path / "out"
    assert main(["compile", str(man), "-o", str(out)]) == 1
    assert not out.exists()
    assert "NoSuchTemplate" in capsys.readouterr().out  # reports go to stdout
    result = compile_manifest(man)
    assert not result.ok and result.files == {}


@pytest.mark.parametrize("bad", [["-z", "../up"], ["--module", "not-an-identifier"]])
def test_bad_names_are_diagnostics(
    tmp_path: Path, bad: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # An unusable name is a usage error (exit 2), reported as diagnostic ETW612.
    assert main(["compile", str(HELLO), "-o", str(tmp_path), *bad]) == 2
    assert "error ETW612" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def test_check_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    man = tmp_path / "hello.man"
    shutil.copy(HELLO, man)
    out = tmp_path / "out"
    assert main(["compile", str(man), "-o", str(out), "--check"]) == 1
    assert not out.exists()
    assert main(["compile", str(man), "-o", str(out)]) == 0
    assert main(["compile", str(man), "-o", str(out), "--check"]) == 0
    man.write_text(man.read_text().replace('value="3"', 'value="4"'))
    capsys.readouterr()
    assert main(["compile", str(man), "-o", str(out), "--check"]) == 1
    out, err = capsys.readouterr()
    # Event 3 -> 4 changes three lines: the descriptor, the docstring and the provider's
    # payload layouts (the packed descriptor is made from the descriptor).  The files are
    # the report (stdout); the summary with the command that regenerates them goes to
    # stderr.
    assert "hello.py: differs (+3 -3 lines)" in out and "stale" in err and "etwmc compile" in err


def test_library_result_matches_cli_output(tmp_path: Path) -> None:
    result = compile_manifest(HELLO, base="x", module="mod")
    assert result.ok
    assert main(["compile", str(HELLO), "-o", str(tmp_path), "-z", "x", "--module", "mod"]) == 0
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == result.files


ETK = Path(__file__).resolve().parents[1].parent / "shared" / "golden" / "event-trace-kit"
needs_golden = pytest.mark.skipif(not ETK.is_dir(), reason="../shared/golden is not available")


@needs_golden
def test_legacy_template_ids_reproduce_mc_8_1(tmp_path: Path) -> None:
    """mc 8.1's outputs for wpf-etw.man (CRIM 3.1, MD5 template ids), from the command line."""
    argv = ["compile", str(ETK / "wpf-etw.man"), "-o", str(tmp_path), "--no-python"]
    assert main([*argv, "--legacy-template-ids"]) == 0
    golden = (ETK / "wpf-etw.wevt.v3-8.1-compat.bin").read_bytes()
    assert (tmp_path / "wpf-etwTEMP.BIN").read_bytes() == golden
    msg = (ETK / "wpf-etw.msg.v3-8.1-compat.bin").read_bytes()
    assert (tmp_path / "wpf-etw_MSG00001.bin").read_bytes() == msg
    # The same with the version spelled out; without the flag the ids are mc 10's.
    assert main([*argv, "--legacy-template-ids", "--wevt-version", "3", "--check"]) == 0
    assert main([*argv, "--wevt-version", "3", "-o", str(tmp_path / "v3")]) == 0
    mc10 = (ETK / "wpf-etw.wevt.v3.bin").read_bytes()
    assert (tmp_path / "v3" / "wpf-etwTEMP.BIN").read_bytes() == mc10 != golden


def test_legacy_template_ids_with_version_5_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compile", str(HELLO), "-o", str(tmp_path), "--legacy-template-ids"]
    assert main([*argv, "--wevt-version", "5"]) == 2
    assert "mc 8.1" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_check_names_the_legacy_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(HELLO), "-o", str(tmp_path), "--legacy-template-ids"]) == 0
    (tmp_path / "helloTEMP.BIN").write_bytes(b"stale")
    capsys.readouterr()
    assert (
        main(["compile", str(HELLO), "-o", str(tmp_path), "--legacy-template-ids", "--check"]) == 1
    )
    err = capsys.readouterr().err
    assert "--legacy-template-ids" in err and "--wevt-version" not in err
