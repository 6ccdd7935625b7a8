"""Two compiles of different manifests into one folder, at the same moment, many times:
the folder always ends with one compile's whole set, never a mix (the writer's folder
lock: README, "Where outputs go")."""

from __future__ import annotations

import multiprocessing
import os
import sys
from pathlib import Path

import pytest
from codegen_helpers import HELLO

from conftest import slow
from etwmc.compile import compile_manifest
from etwmc.wevt.cultures import LANGIDS

ROUNDS = 25
# Many cultures make many message tables: a long write, so the two overlap.
CULTURES = sorted(c for c in LANGIDS if c.count("-") == 1)[:40]


def _manifest(greeting: str, last_event: str) -> str:
    text = HELLO.read_text(encoding="utf-8")
    head, _, rest = text.partition("    <resources culture=")
    block = "    <resources culture=" + rest.partition("  </localization>")[0]
    block = block.replace("Hello %1", f"{greeting} %1")
    blocks = "".join(block.replace('culture="en-US"', f'culture="{c}"') for c in CULTURES)
    head = head.replace('value="3" version="0"', f'value="{last_event}" version="0"')
    return head + blocks + "  </localization>\n</instrumentationManifest>\n"


def _compile(manifest: str, out: str, start: multiprocessing.synchronize.Barrier) -> None:
    from etwmc.cli import main

    start.wait()
    sys.exit(main(["compile", manifest, "-o", out, "-z", "x"]))


@slow  # 25 rounds of two real compiles that wait for each other's folder lock
@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs fork to start quickly"
)
def test_two_compiles_into_one_folder_never_leave_a_mix(tmp_path: Path) -> None:
    a, b = tmp_path / "a.man", tmp_path / "b.man"
    a.write_text(_manifest("Hello", "3"), encoding="utf-8")
    b.write_text(_manifest("Hi", "4"), encoding="utf-8")
    plans = [compile_manifest(m, base="x").files for m in (a, b)]
    assert set(plans[0]) == set(plans[1]) and len(plans[0]) == len(CULTURES) + 3
    assert all(plans[0][n] != plans[1][n] for n in ("x.py", "xTEMP.BIN", "x_MSG00001.bin"))
    out = tmp_path / "out"
    ctx = multiprocessing.get_context("fork")
    for _ in range(ROUNDS):
        start = ctx.Barrier(2)
        procs = [ctx.Process(target=_compile, args=(str(m), str(out), start)) for m in (a, b)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(120)
        assert [p.exitcode for p in procs] == [0, 0]
        files = {p.name: p.read_bytes() for p in out.iterdir()}
        assert files in plans, sorted(n for n in files if files[n] != plans[0].get(n))
    assert not any(n.startswith(".") for n in os.listdir(out))
