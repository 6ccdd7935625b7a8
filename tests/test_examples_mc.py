"""examples/mc-mingw: a manifest and a message text file compiled by one ``etwmc mc``
run in a CMake and in a Meson cross-build (mingw-w64), linked into one Windows program.

The program's resources, read back with pefile, hold per language the message table
etwmc wrote (English: the message text file's messages and the manifest's strings in
one table; German: the message text file's) and the manifest's WEVT_TEMPLATE, byte for
byte.  Each build skips when its tools are missing (.ci/run installs them).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pefile
import pytest

from conftest import slow
from etwmc.wevt.msgtable import read_message_table

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "mc-mingw"
PREFIX = "x86_64-w64-mingw32-"
MINGW = all(shutil.which(PREFIX + t) for t in ("gcc", "windres"))
pytestmark = [
    pytest.mark.skipif(not MINGW, reason="mingw-w64 (x86_64-w64-mingw32-gcc) is not installed"),
    slow,
]


@pytest.fixture
def etwmc_program(tmp_path: Path) -> Path:
    """An ``etwmc`` command for the build systems: this interpreter running etwmc."""
    script = tmp_path / "bin" / "etwmc"
    script.parent.mkdir()
    script.write_text(
        f"#!{sys.executable}\nimport sys\nfrom etwmc.cli import main\nsys.exit(main())\n"
    )
    script.chmod(0o755)
    return script


def _run(cmd: list[str | Path], cwd: Path | None = None) -> str:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _resources(exe: Path) -> dict[tuple[str | int, int], bytes]:
    """(type, language id) -> data of every resource named 1 in a PE file."""
    pe = pefile.PE(str(exe))
    out: dict[tuple[str | int, int], bytes] = {}
    for rtype in pe.DIRECTORY_ENTRY_RESOURCE.entries:
        key = str(rtype.name) if rtype.name is not None else rtype.id
        for rname in rtype.directory.entries:
            for lang in rname.directory.entries:
                d = lang.data.struct
                out[(key, lang.id)] = pe.get_data(d.OffsetToData, d.Size)
    pe.close()
    return out


def _check_program(exe: Path, gen: Path) -> None:
    res = _resources(exe)
    assert res[(11, 0x409)] == (gen / "MSG00409.bin").read_bytes()  # RT_MESSAGETABLE
    assert res[(11, 0x407)] == (gen / "MSG00407.bin").read_bytes()
    assert res[("WEVT_TEMPLATE", 0x409)] == (gen / "messagesTEMP.BIN").read_bytes()
    english = read_message_table(res[(11, 0x409)])
    assert english[0x41000001] == "The service is ready to accept %1 connections."
    assert "Service %1 started with %2 workers." in english.values()  # the manifest's
    german = read_message_table(res[(11, 0x407)])
    assert german[0xC1000002] == "Die Konfigurationsdatei %1 fehlt.%0"


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_cmake_builds_the_program(tmp_path: Path, etwmc_program: Path) -> None:
    build = tmp_path / "build"
    toolchain = ROOT / "examples" / "cmake-mingw" / "mingw-w64-x86_64.cmake"
    _run(["cmake", "-S", EXAMPLE, "-B", build, f"-DCMAKE_TOOLCHAIN_FILE={toolchain}",
          f"-DETWMC={etwmc_program}"])  # fmt: skip
    made = _run(["cmake", "--build", build])
    assert "warning" not in made.lower()
    _check_program(build / "service.exe", build / "gen")


@pytest.mark.skipif(
    shutil.which("meson") is None or shutil.which("ninja") is None,
    reason="meson or ninja is not installed",
)
def test_meson_builds_the_program(tmp_path: Path, etwmc_program: Path) -> None:
    build = tmp_path / "build"
    _run(["meson", "setup", build, "--cross-file", "mingw-w64-x86_64.txt",
          f"-Detwmc={etwmc_program}"], cwd=EXAMPLE)  # fmt: skip
    made = _run(["meson", "compile", "-C", build])
    assert "warning" not in made.lower()
    _check_program(build / "service.exe", build)
