"""The headers etwmc writes for message text files compile (mingw-w64, C and C++, with
-Wall -Wextra -Werror after <windows.h>), and their values are the ids in the tables.

Every golden set's header (pgbouncer's symbolic name is no C identifier: etwmc warns,
ETW918, and its header is left out), with -o and -d too, and examples/mc-mingw's.
Skips when mingw-w64 is not installed.  <windows.h> is precompiled once per session
(tests/mingw_helpers.py).  Slow: the headers' text is mc's, byte for byte, in the fast
subset already (test_mctext_golden.py); this is the compiler's word on it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from mingw_helpers import CC, CXX, Prefixes

from conftest import GOLDEN, slow
from etwmc import mctext

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.skipif(not (CC and CXX), reason="mingw-w64 is not installed"), slow]

SOURCES = [
    p
    for p in sorted((GOLDEN / "mc").glob("*/*.mc"))
    + [ROOT / "examples" / "mc-mingw" / "messages.mc"]
    if p.parent.name != "pgbouncer__pgbouncer"
]


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.parent.name)
@pytest.mark.parametrize("style", ["plain", "ole2-decimal"])
def test_header_compiles_and_holds_the_ids(
    source: Path, style: str, tmp_path: Path, mingw_prefixes: Prefixes
) -> None:
    assert CC and CXX
    options = mctext.McTextOptions(ole2=style != "plain", decimal=style != "plain")
    model, diags = mctext.read_file(source, options)
    assert model is not None and mctext.usable(diags)
    out = mctext.build(model, options, base=source.stem, prefixed=False)
    (tmp_path / "messages.h").write_text(out.header, encoding="cp1252", errors="replace")
    checks = "".join(
        f'_Static_assert((unsigned long){m.symbol} == {m.id}UL, "{m.symbol}");\n'
        for m in model.messages
        if m.symbol
    )
    # "prefix.h" is <windows.h>, precompiled.
    (tmp_path / "t.c").write_text(f'#include "prefix.h"\n#include "messages.h"\n{checks}')
    (tmp_path / "t.cpp").write_text(
        '#include "prefix.h"\n#include "messages.h"\n'
        + checks.replace("_Static_assert", "static_assert")
    )
    for compiler, unit in ((CC, "t.c"), (CXX, "t.cpp")):
        prefix = mingw_prefixes.folder(compiler, "windows.h")
        done = subprocess.run(
            [compiler, "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I", prefix, unit],
            cwd=tmp_path, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
