"""mingw-w64 for the tests that compile C and C++: the tools, and system headers
precompiled once per session.

A translation unit that includes ``"prefix.h"`` first, found through ``-I`` in a folder
that holds it beside its precompiled form ``prefix.h.gch`` built by the same compiler with
the same options, is compiled as if it included the system header itself: GCC reads the
precompiled form instead of parsing <windows.h> again, about 0.05 s instead of 0.7-1 s.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

PREFIX = "x86_64-w64-mingw32-"
CC, CXX, WINDRES = (shutil.which(PREFIX + t) for t in ("gcc", "g++", "windres"))
WARNINGS = ["-Wall", "-Wextra", "-Werror"]
Done = subprocess.CompletedProcess[str]


def run(cmd: list[str], cwd: Path | None = None) -> Done:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)


class Prefixes:
    """Folders of ``prefix.h`` (one ``#include``) and its precompiled form, one per
    compiler, header and options, each built on first use."""

    def __init__(self, work: Path) -> None:
        self._work = work
        self._built: dict[tuple[str, str, tuple[str, ...]], tuple[Path, Done]] = {}

    def build(self, compiler: str, header: str, options: tuple[str, ...] = ()) -> tuple[Path, Done]:
        """The folder for ``-I`` and the precompiling run (its return code says whether
        the header compiled), for a translation unit compiled with ``compiler`` and
        ``WARNINGS + options``."""
        key = (compiler, header, options)
        if key not in self._built:
            folder = self._work / f"p{len(self._built)}"
            folder.mkdir()
            (folder / "prefix.h").write_text(f"#include <{header}>\n")
            lang = "c++-header" if compiler == CXX else "c-header"
            cmd = [compiler, *WARNINGS, *options, "-x", lang, "prefix.h", "-o", "prefix.h.gch"]
            self._built[key] = (folder, run(cmd, folder))
        return self._built[key]

    def folder(self, compiler: str, header: str, options: tuple[str, ...] = ()) -> Path:
        """As :meth:`build`, for a header that must compile."""
        folder, done = self.build(compiler, header, options)
        assert done.returncode == 0, done.stderr
        return folder
