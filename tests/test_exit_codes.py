"""The exit table (docs/exit-codes.md), row by row, for every command: 0 no errors,
1 errors in an input or a failed write, 2 usage (a bad argument, an input that cannot be
opened, an unusable name) or an internal error, 130 interrupted."""

from __future__ import annotations

import contextlib
import importlib
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from codegen_helpers import HELLO
from output_kinds import FULL_DEVICE, device

from etwmc.cli import main
from etwmc.commands import COMMANDS, EXIT_ERRORS, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from etwmc.validate import check_file
from etwmc.wevt import binary_outputs

ROOT = Path(__file__).resolve().parents[1]
BROKEN = HELLO.read_text().replace('template="HelloArgs"', 'template="NoSuchTemplate"')
Args = Callable[[dict[str, Path]], list[str]]


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    manifest = check_file(HELLO).manifest
    assert manifest is not None
    out = binary_outputs(manifest, "hello")
    blob = tmp_path / "helloTEMP.BIN"
    blob.write_bytes(out["helloTEMP.BIN"])
    (tmp_path / "damaged.bin").write_bytes(out["helloTEMP.BIN"][:40])
    (tmp_path / "broken.man").write_text(BROKEN)
    breaking = HELLO.read_text().replace('inType="win:UInt32"/>', 'inType="win:UInt64"/>', 1)
    (tmp_path / "breaking.man").write_text(breaking)
    (tmp_path / "events.bin").write_bytes(b"not an event file")
    (tmp_path / "a-file").write_text("in the way")
    return {
        "man": HELLO,
        "blob": blob,
        "damaged": tmp_path / "damaged.bin",
        "broken": tmp_path / "broken.man",
        "breaking": tmp_path / "breaking.man",
        "events": tmp_path / "events.bin",
        "missing": tmp_path / "no-such-file",
        "out": tmp_path / "out",
        "file": tmp_path / "a-file",
        "nowhere": tmp_path / "missing-folder" / "report",
    }


def s(p: Path) -> str:
    return str(p)


# command -> row -> arguments.  Every command has every row it can reach.
CASES: dict[str, dict[str, Args]] = {
    "lint": {
        "ok": lambda f: ["lint", s(f["man"])],
        "input errors": lambda f: ["lint", s(f["broken"])],
        "failed write": lambda f: ["lint", s(f["man"]), "-o", s(f["nowhere"])],
        "bad argument": lambda f: ["lint", "--no-such-flag", s(f["man"])],
        "input not opened": lambda f: ["lint", s(f["missing"])],
    },
    "compile": {
        "ok": lambda f: ["compile", s(f["man"]), "-o", s(f["out"])],
        "input errors": lambda f: ["compile", s(f["broken"]), "-o", s(f["out"])],
        "stale": lambda f: ["compile", s(f["man"]), "-o", s(f["out"]), "--check"],
        "failed write": lambda f: ["compile", s(f["man"]), "-o", s(f["file"])],
        "bad argument": lambda f: ["compile", s(f["man"]), "--wevt-version", "4"],
        "input not opened": lambda f: ["compile", s(f["missing"]), "-o", s(f["out"])],
        "unusable name": lambda f: ["compile", s(f["man"]), "-o", s(f["out"]), "-z", "a b"],
        "nothing to write": lambda f: ["compile", s(f["man"]), "--no-python", "--no-binary"],
    },
    "mc": {
        "ok": lambda f: ["mc", "-h", s(f["out"]), "-r", s(f["out"]), s(f["man"])],
        "input errors": lambda f: ["mc", "-h", s(f["out"]), "-r", s(f["out"]), s(f["broken"])],
        "failed write": lambda f: ["mc", "-h", s(f["file"]), "-r", s(f["out"]), s(f["man"])],
        "bad argument": lambda f: ["mc", "-q", s(f["man"])],
        "input not opened": lambda f: ["mc", "-h", s(f["out"]), s(f["missing"])],
        "unusable name": lambda f: ["mc", "-z", "a b", s(f["man"])],
    },
    "decompile": {
        "ok": lambda f: ["decompile", s(f["blob"]), "-o", s(f["out"].with_suffix(".man"))],
        "input errors": lambda f: ["decompile", s(f["damaged"])],
        "failed write": lambda f: ["decompile", s(f["blob"]), "-o", s(f["nowhere"])],
        "bad argument": lambda f: ["decompile"],
        "input not opened": lambda f: ["decompile", s(f["missing"])],
    },
    "decode": {
        "ok": lambda f: ["decode", s(f["events"].with_name("e.ev")), "--wevt", s(f["blob"])],
        "input errors": lambda f: ["decode", s(f["events"]), "--wevt", s(f["blob"])],
        "failed write": lambda f: [
            "decode",
            s(f["events"].with_name("e.ev")),
            "--wevt",
            s(f["blob"]),
            "-o",
            s(f["nowhere"]),
        ],  # fmt: skip
        "bad argument": lambda f: ["decode", s(f["events"]), "--messages", s(f["blob"])],
        "input not opened": lambda f: ["decode", s(f["missing"]), "--wevt", s(f["blob"])],
    },
    "diff": {
        "ok": lambda f: ["diff", s(f["man"]), s(f["man"])],
        "input errors": lambda f: ["diff", s(f["man"]), s(f["breaking"])],
        "failed write": lambda f: ["diff", s(f["man"]), s(f["man"]), "-o", s(f["nowhere"])],
        "bad argument": lambda f: ["diff", s(f["man"])],
        "input not opened": lambda f: ["diff", s(f["missing"]), s(f["man"])],
    },
    "guid": {
        "ok": lambda f: ["guid", "Etwmc-Test"],
        "bad argument": lambda f: ["guid", ""],
    },
    "rule": {
        "ok": lambda f: ["rule", "ETW612"],
        "bad argument": lambda f: ["rule", "ETW99"],
    },
    # The language server's own statuses (shutdown or not) need a client: tests/test_lsp*.
    "lsp": {
        "bad argument": lambda f: ["lsp", "--no-such-flag"],
    },
}
EXPECTED = {
    "ok": EXIT_OK,
    "input errors": EXIT_ERRORS,
    "stale": EXIT_ERRORS,
    "failed write": EXIT_ERRORS,
    "bad argument": EXIT_USAGE,
    "input not opened": EXIT_USAGE,
    "unusable name": EXIT_USAGE,
    "nothing to write": EXIT_USAGE,
}


def test_every_command_has_its_cases() -> None:
    assert sorted(CASES) == sorted(c.name for c in COMMANDS)


@pytest.mark.parametrize(
    ("command", "row"),
    [(c, r) for c, rows in CASES.items() for r in rows],
    ids=[f"{c}: {r}" for c, rows in CASES.items() for r in rows],
)
def test_a_row_of_the_exit_table(
    command: str,
    row: str,
    files: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    if command == "decode":
        from etwmc.runtime.eventfile import write_events

        write_events(files["events"].with_name("e.ev"), [])
    if row == "stale":
        (files["out"]).mkdir()
    rc = main(CASES[command][row](files))
    out = capsys.readouterr()
    assert rc == EXPECTED[row], out
    assert "internal error" not in out.err and "Traceback" not in out.err
    if row == "failed write":
        (line,) = [x for x in out.err.splitlines() if x.startswith(f"etwmc {command}: cannot")]
        assert str(files["out"].parent) in line


# The language server's standard output is its protocol stream, written by pygls.
@pytest.mark.parametrize("command", [c.name for c in COMMANDS if c.name != "lsp"])
def test_a_full_standard_output_is_a_failed_write(
    command: str, files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    args = {
        "lint": ["lint", s(files["man"]), "--format", "json"],
        "compile": ["compile", s(files["broken"]), "-o", s(files["out"])],
        "mc": ["mc", "-?"],
        "decompile": ["decompile", s(files["blob"])],
        "decode": [
            "decode",
            s(files["events"].with_name("e.ev")),
            "--wevt",
            s(files["blob"]),
            "--format",
            "json",
        ],  # fmt: skip
        "diff": ["diff", s(files["man"]), s(files["man"]), "--format", "json"],
        "guid": ["guid", "Etwmc-Test"],
        "rule": ["rule", "ETW612"],
    }[command]
    if command == "decode":
        from etwmc.runtime.eventfile import write_events

        write_events(files["events"].with_name("e.ev"), [])
    device(tmp_path / "full", FULL_DEVICE)
    full = open(tmp_path / "full", "w")  # noqa: SIM115 - closed below, after its failure
    monkeypatch.setattr("sys.stdout", full)
    rc = main(args)
    err = capsys.readouterr().err
    with contextlib.suppress(OSError):
        full.close()
    assert rc == EXIT_ERRORS, err
    assert err.splitlines()[-1] == (
        f"etwmc {command}: cannot write standard output: No space left on device"
    )


@pytest.mark.parametrize("command", [c.name for c in COMMANDS])
@pytest.mark.parametrize(
    ("raised", "status"), [(KeyboardInterrupt, EXIT_INTERRUPTED), (RuntimeError, EXIT_USAGE)]
)
def test_interrupted_or_internal_error(
    command: str,
    raised: type[BaseException],
    status: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    module = importlib.import_module(f"etwmc.commands.{command}")

    def fails(args: object) -> int:
        raise raised("synthetic")

    monkeypatch.setattr(module, "run", fails)
    argv = {"mc": ["mc", "x.man"], "diff": ["diff", "x", "y"], "lsp": ["lsp"]}.get(
        command, [command, "x"]
    )
    assert main(argv) == status
    err = capsys.readouterr().err
    if raised is KeyboardInterrupt:
        assert err == "etwmc: interrupted\n"
    else:
        assert "internal error" in err and "please report" in err and "Traceback" not in err


def test_the_documented_table_lists_these_codes() -> None:
    text = (ROOT / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    codes = re.findall(r"^\| \*\*(\d+)\*\* \|", text, re.M)
    assert [int(c) for c in codes] == [EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_INTERRUPTED]
    failed_write = next(line for line in text.splitlines() if line.startswith("| **1**"))
    assert "an output that cannot be written" in failed_write
