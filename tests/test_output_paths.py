"""Every command that writes, with every kind of output path (tests/output_kinds.py), in
a temporary folder: what the writer's table promises (docs/outputs.md),
through each command's own run and exit status.

A set (compile, mc, the build plugins) refuses a FIFO nobody reads at once; a single
output (lint -o, diff -o, decompile -o, decode -o) waits for its reader.  A failed
write exits 1 with one line naming the user's path.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from codegen_helpers import HELLO
from etl_helpers import trace
from output_kinds import KINDS, prepared, short_folder

from etwmc.buildhooks import Options, WriteFailed, generate
from etwmc.cli import main
from etwmc.runtime.eventfile import EventRecord, write_events
from etwmc.validate import check_file
from etwmc.wevt import binary_outputs

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX file kinds")


@dataclass(frozen=True)
class Writer:
    """A command that writes: its arguments for an output at ``out`` (for a set, the
    output named ``name`` in the folder ``out.parent``)."""

    argv: Callable[[dict[str, Path], Path], list[str]]
    name: str
    set: bool = False


WRITERS = {
    "compile": Writer(
        lambda i, out: ["compile", str(i["man"]), "-o", str(out.parent), "-z", "x"],
        "x.rc",
        set=True,
    ),
    "mc": Writer(
        lambda i, out: [
            "mc",
            "-um",
            "-z",
            "x",
            "-h",
            str(out.parent),
            "-r",
            str(out.parent),
            str(i["man"]),
        ],
        "x.h",
        set=True,
    ),  # fmt: skip
    "decompile": Writer(lambda i, out: ["decompile", str(i["blob"]), "-o", str(out)], "x.man"),
    "decode-trace": Writer(lambda i, out: ["decode", str(i["etl"]), "-o", str(out)], "x.jsonl"),
    "decode-events": Writer(
        lambda i, out: ["decode", str(i["events"]), "--wevt", str(i["blob"]), "-o", str(out)],
        "x.json",
    ),
    # JSON: a clean report is still a few bytes, which a full disk cannot take.
    "lint": Writer(
        lambda i, out: ["lint", str(i["man"]), "--format", "json", "-o", str(out)], "x.json"
    ),
    "diff": Writer(
        lambda i, out: ["diff", str(i["man"]), str(i["man"]), "--format", "json", "-o", str(out)],
        "x.json",
    ),
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("inputs")
    manifest = check_file(HELLO).manifest
    assert manifest is not None
    files = binary_outputs(manifest, "hello")
    (folder / "helloTEMP.BIN").write_bytes(files["helloTEMP.BIN"])
    events = folder / "e.etwmc"
    provider = manifest.providers[0].guid
    write_events(events, [EventRecord(provider_id=provider, id=1, user_data=b"")])
    return {"man": HELLO, "blob": folder / "helloTEMP.BIN", "events": events}


def _inputs_for(command: str, inputs: dict[str, Path]) -> dict[str, Path]:
    if command == "decode-trace":
        return {**inputs, "etl": trace("perfview_primitive-types.etl")}
    return inputs


def _reference(command: str, inputs: dict[str, Path], tmp_path: Path) -> tuple[int, bytes]:
    """The command's status and what it writes into a fresh folder."""
    w = WRITERS[command]
    out = tmp_path / "reference" / w.name
    out.parent.mkdir()
    rc = main(w.argv(inputs, out))
    return rc, out.read_bytes()


def _last_line(err: str) -> str:
    return err.rstrip("\n").rsplit("\n", 1)[-1]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", sorted(WRITERS))
def test_every_command_with_every_kind_of_output(
    command: str,
    kind: str,
    inputs: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    w = WRITERS[command]
    given = _inputs_for(command, inputs)
    status, expected = _reference(command, given, tmp_path)
    capsys.readouterr()
    with short_folder() as root, prepared(kind, root / "out", w.name, monkeypatch) as spot:
        argv = w.argv(given, spot.path)
        folder = spot.path.parent
        if spot.waits and w.set:
            assert main(argv) == 1
            err = capsys.readouterr().err
            assert _last_line(err) == (
                f"etwmc {argv[0]}: cannot write {spot.path}: no process is reading from the FIFO"
            )
            assert sorted(p.name for p in folder.iterdir()) == [w.name]  # nothing written
            assert spot.intact()
            return
        if spot.waits:
            result: list[int] = []
            worker = threading.Thread(target=lambda: result.append(main(argv)), daemon=True)
            worker.start()
            time.sleep(0.3)
            assert worker.is_alive()  # waiting for a reader, as `cat > fifo` does
            got = spot.reader().result()
            worker.join(60)
            assert result == [status] and got == expected and spot.intact()
            return
        if spot.fails:
            assert main(argv) == 1
            line = _last_line(capsys.readouterr().err)
            pattern = rf"etwmc {argv[0]}: cannot write (into )?{re.escape(str(folder))}\b.*: \S.*"
            assert re.fullmatch(pattern, line), line
            assert ".tmp" not in line and ".etwmc-" not in line
            assert spot.intact()
            return
        assert main(argv) == status, capsys.readouterr().err
        got = spot.received()
        if kind != "chardev":
            assert got == expected
        assert spot.intact()
        leftovers = [p.name for p in root.rglob(".*")]
        assert leftovers == []


@pytest.mark.parametrize("kind", KINDS)
def test_the_build_plugins_with_every_kind_of_output(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(HELLO, project / "hello.man")
    opts = Options(manifests=("hello.man",), package="pkg")
    reference = generate(project, opts, out_dir=tmp_path / "reference")
    expected = reference.files["pkg/hello.py"].read_bytes()
    with short_folder() as root, prepared(kind, root / "pkg", "hello.py", monkeypatch) as spot:
        if spot.waits or spot.fails:
            with pytest.raises(WriteFailed) as e:
                generate(project, opts, out_dir=root)
            assert str(e.value).startswith(("cannot write ", "cannot write into ")), e.value
            assert str(root / "pkg") in str(e.value) and ".tmp" not in str(e.value)
            assert spot.intact()
            return
        generate(project, opts, out_dir=root)
        if kind != "chardev":
            assert spot.received() == expected
        assert spot.intact()
