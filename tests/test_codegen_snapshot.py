"""The module generated for examples/hello.man, committed: any change to the generator's
output shows here as a diff, reviewed like code.

Regenerate after an intended change with:
    ETWMC_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/test_codegen_snapshot.py
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from codegen_helpers import HELLO

from etwmc.compile import compile_manifest
from etwmc.options import CompileOptions

SNAPSHOT = Path(__file__).parent / "codegen_snapshots" / "hello.py.snapshot"
FIX = "ETWMC_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/test_codegen_snapshot.py"


def test_hello_module_matches_snapshot() -> None:
    result = compile_manifest(HELLO, CompileOptions(binary=False, verify=True))
    [text] = [data.decode("ascii") for data in result.files.values()]
    if os.environ.get("ETWMC_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.write_text(text, encoding="ascii", newline="\n")
    want = SNAPSHOT.read_text(encoding="ascii")
    if text != want:
        diff = "".join(
            difflib.unified_diff(
                want.splitlines(True), text.splitlines(True), "snapshot", "generated", n=2
            )
        )
        raise AssertionError(f"generated module differs from the snapshot:\n{diff}\nfix: {FIX}")
