"""The output base name is written inside quotes in the .rc: every name etwmc accepts
gives an .rc that a resource compiler reads as exactly the intended statements, and
every name that could add one is refused."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from codegen_helpers import HELLO

from etwmc.cli import main
from etwmc.compile import compile_manifest

# Names with every character a Windows file name may hold that means something to a
# resource compiler or a C preprocessor: quotes, comments, escapes, statement words.
ODD_BASES = [
    "my events",
    "a'b#c;d%e&f(g)h{i}j,k$l`m~n!o=p+q@r^s[t]u",
    "BEGIN END RCDATA 2",
    "x//y",  # refused: a folder
    "x /* y",  # refused: a folder
    "\u00e9v\u00e9nements",
]


def _res_entries(data: bytes) -> list[tuple[int | str, int | str, int, bytes]]:
    """(type, name, language, data) of every resource in a .res file."""

    def ident(pos: int) -> tuple[int | str, int]:
        if data[pos : pos + 2] == b"\xff\xff":
            return struct.unpack_from("<H", data, pos + 2)[0], pos + 4
        end = pos
        while data[end : end + 2] != b"\0\0":
            end += 2
        return data[pos:end].decode("utf-16-le"), end + 2

    out = []
    pos = 0
    while pos + 8 <= len(data):
        size, header = struct.unpack_from("<II", data, pos)
        rtype, p = ident(pos + 8)
        name, p = ident(p)
        p = (p + 3) & ~3
        (lang,) = struct.unpack_from("<H", data, p + 6)
        if size or rtype != 0:  # the first entry is an empty marker
            out.append((rtype, name, lang, data[pos + header : pos + header + size]))
        pos = (pos + header + size + 3) & ~3
    return out


@pytest.mark.parametrize("base", [b for b in ODD_BASES if "/" not in b], ids=repr)
def test_windres_reads_exactly_the_intended_resources(base: str, tmp_path: Path) -> None:
    windres = shutil.which("x86_64-w64-mingw32-windres") or shutil.which("windres")
    if windres is None:
        pytest.skip("windres is not installed")
    assert main(["compile", str(HELLO), "-o", str(tmp_path), "-z", base, "--no-python"]) == 0
    # windres hands its own input's name to a shell: give it a plain one.
    shutil.copy(tmp_path / f"{base}.rc", tmp_path / "script.rc")
    proc = subprocess.run(
        [windres, "-i", "script.rc", "-o", "out.res"],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    entries = _res_entries((tmp_path / "out.res").read_bytes())
    expected = [
        (11, 1, 0x409, (tmp_path / f"{base}_MSG00001.bin").read_bytes()),
        ("WEVT_TEMPLATE", 1, 0x409, (tmp_path / f"{base}TEMP.BIN").read_bytes()),
    ]
    assert sorted(entries, key=repr) == sorted(expected, key=repr)


@pytest.mark.parametrize(
    "base",
    ['x" 2 RCDATA "evil', "x\n2 RCDATA evil.bin", "x\r\n", "x\\..\\y", *ODD_BASES[3:5]],
    ids=repr,
)
def test_a_base_that_could_add_a_statement_is_refused(base: str) -> None:
    result = compile_manifest(HELLO, base=base)
    assert result.files == {}
    assert [d.code for d in result.diagnostics] == ["ETW612"]
