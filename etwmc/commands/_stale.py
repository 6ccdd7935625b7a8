"""``etwmc compile --check``'s report: which outputs on disk are not what a compile
would write, how each differs and, with ``--diff``, the unified diff of each text
output.

Everything printed from a file's contents goes through
:func:`etwmc.diagnostics.visible`: a committed output is untrusted text like any
input, and a control character in it must not reach the terminal as a sequence nor
forge a line of the report.  Lines are split at ``\\n`` only, so a carriage return or
another line separator shows as its escape instead of ending a line.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from ..diagnostics import visible
from ..journal import read_regular
from ..writer import stale

# The outputs that are text (a module, the .rc, mc's header); others are binary.
TEXT_SUFFIXES = (".py", ".rc", ".h")


def report_stale(
    folder: Path,
    files: Mapping[str, bytes],
    *,
    diff: bool,
    on_wait: Callable[[str], None] | None,
) -> list[tuple[str, str]]:
    """Print one line per stale output of ``folder`` (and its diff, with ``diff``);
    return the stale outputs as :func:`etwmc.writer.stale` gives them."""
    out_of_date = stale(folder, files, on_wait=on_wait)
    for name, why in out_of_date:
        path = folder / name
        old = read_regular(path) if why == "differs" else None
        print(f"{visible(str(path))}: {why}{_change_summary(path, old, files[name])}")
        if diff and why in ("differs", "missing"):
            for line in unified_diff(path, old, files[name]):
                print(line)
    if any(why == "interrupted" for _, why in out_of_date):
        print(
            f"etwmc: a compile into {visible(str(folder))} was interrupted, so its files "
            "may be a mix of two versions; the next compile puts it right",
            file=sys.stderr,
        )
    return out_of_date


def _text_lines(path: Path, data: bytes | None) -> list[str] | None:
    """The lines of a text output (none for a missing file), or None when the output
    is binary or not UTF-8 (then it is compared by size)."""
    if data is None:
        return []
    if path.suffix not in TEXT_SUFFIXES:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _change_summary(path: Path, old: bytes | None, new: bytes) -> str:
    """`` (+a -b lines)`` for a text output that differs, else nothing."""
    if old is None:
        return ""
    before, after = _text_lines(path, old), _text_lines(path, new)
    if before is None or after is None:
        return ""
    import difflib  # --check of a stale output only: start-up cost of every compile

    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after).get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return f" (+{added} -{removed} lines)"


def unified_diff(path: Path, old: bytes | None, new: bytes) -> Iterator[str]:
    """The unified diff from the output on disk (``old``; None: missing) to ``new``,
    each line made visible; for a binary output, one line that says it differs."""
    name = visible(str(path))
    before, after = _text_lines(path, old), _text_lines(path, new)
    if before is None or after is None:
        size = "missing" if old is None else f"{len(old)} bytes"
        yield f"Binary file {name} differs: {size} on disk, {len(new)} bytes planned"
        return
    import difflib  # as above

    lines = difflib.unified_diff(
        before,
        after,
        # A file the compile would add is diffed from nothing, named as diff and git
        # name it (a label only: nothing is opened).
        fromfile="/dev/null" if old is None else f"a/{name}",
        tofile=f"b/{name}",
        lineterm="",
    )
    for i, line in enumerate(lines):
        # The two file headers carry the (visible) name, a hunk header only numbers;
        # every other line is a marker and a line of a file.
        yield line if i < 2 or line.startswith("@@") else line[:1] + visible(line[1:])
