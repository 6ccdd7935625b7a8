"""The output base name names every output and is written inside quotes in the .rc:
only portable names are accepted (ASCII letters, digits, ``_ - .``; ETW612), every one
of them gives an .rc that a resource compiler reads as exactly the intended
statements, and every other name is refused by every way in (compile, mc, the build
plugins), before anything is written.  binutils' windres hands its input's name to a
shell, so a name holding shell syntax would run as a command in a build."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from codegen_helpers import HELLO

from etwmc.buildhooks import BuildFailed, Options, generate
from etwmc.cli import main
from etwmc.compile import compile_manifest

# Portable names that still mean something to a resource compiler or a C preprocessor.
PORTABLE_BASES = ["my-events", "BEGIN.END_RCDATA-2", "a.b.c", "x-1_2", "RCDATA"]
# Names with what a Windows file name may hold and a resource compiler, a C
# preprocessor or a shell reads: quotes, comments, escapes, spaces, substitutions.
REFUSED_BASES = [
    "my events",
    "a'b#c;d%e&f(g)h{i}j,k$l`m~n!o=p+q@r^s[t]u",
    "BEGIN END RCDATA 2",
    "x//y",
    "x /* y",
    "\u00e9v\u00e9nements",
    "$(touch pwned)",
    "`touch pwned`",
    "x;touch pwned",
    "-rf",
    ".hidden",
    "x|y",
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


@pytest.mark.parametrize("base", PORTABLE_BASES, ids=repr)
def test_windres_reads_exactly_the_intended_resources(base: str, tmp_path: Path) -> None:
    windres = shutil.which("x86_64-w64-mingw32-windres") or shutil.which("windres")
    if windres is None:
        pytest.skip("windres is not installed")
    assert main(["compile", str(HELLO), "-o", str(tmp_path), "-z", base, "--no-python"]) == 0
    proc = subprocess.run(
        [windres, "-i", f"{base}.rc", "-o", "out.res"],
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
    ['x" 2 RCDATA "evil', "x\n2 RCDATA evil.bin", "x\r\n", "x\\..\\y", *REFUSED_BASES],
    ids=repr,
)
def test_a_base_outside_the_portable_set_is_refused(base: str) -> None:
    result = compile_manifest(HELLO, base=base)
    assert result.files == {}
    assert [d.code for d in result.diagnostics] == ["ETW612"]


SHELL = "$(touch pwned)"


def test_compile_refuses_shell_syntax_given_or_from_the_file_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["compile", str(HELLO), "-o", str(out), "-z", SHELL]) == 2
    assert f"error ETW612: the output base name {SHELL!r} cannot be used" in capsys.readouterr().out
    manifest = tmp_path / f"{SHELL}.man"
    shutil.copy(HELLO, manifest)
    assert main(["compile", str(manifest), "-o", str(out)]) == 2
    report = capsys.readouterr().out
    assert "error ETW612" in report and "from the manifest's file name" in report
    assert not out.exists() and not (tmp_path / "pwned").exists()


def test_mc_refuses_shell_syntax_given_or_from_the_file_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["mc", "-um", "-z", SHELL, str(HELLO)]) == 2
    assert f"-z {SHELL!r}: the base name must be a plain file name" in capsys.readouterr().err
    manifest = tmp_path / f"{SHELL}.man"
    shutil.copy(HELLO, manifest)
    assert main(["mc", "-um", str(manifest)]) == 2
    assert "error ETW612" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == [manifest.name]


def test_the_build_plugins_refuse_shell_syntax_in_a_manifest_name(tmp_path: Path) -> None:
    shutil.copy(HELLO, tmp_path / f"{SHELL}.man")
    opts = Options(manifests=("*.man",), package="pkg")
    with pytest.raises(BuildFailed) as e:
        generate(tmp_path, opts, out_dir=tmp_path / "build")
    assert "ETW612" in e.value.report
    assert not (tmp_path / "build").exists() and not (tmp_path / "pwned").exists()
