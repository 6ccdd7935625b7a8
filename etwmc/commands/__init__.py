"""One module per command: its arguments, one library call, output and exit status.

:data:`COMMANDS` lists them with a one-line summary; :mod:`etwmc.cli` builds the
parser from it and imports only the module of the command that runs (each imports
its part of the compiler at the top, and importing all of them would cost every run
several times what ``etwmc lint`` needs; pip keeps its commands the same way).  A
command module has ``DESCRIPTION``, ``configure(parser)`` and ``run(args) -> int``.

The exit statuses are defined here, once, for every command (README, "Exit codes");
the usage error is :class:`etwmc.inputs.UsageError` and a failed write
:class:`etwmc.writer.WriteError`, which :mod:`etwmc.cli` turns into one line and
:data:`EXIT_USAGE` or :data:`EXIT_ERRORS`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from ..codes import E_BASE, E_NO_INPUT, E_READ, E_WALK
from ..diagnostics import Diagnostic, has_errors
from ..record import Record

EXIT_OK: Final = 0  # no errors (warnings allowed unless --werror)
EXIT_ERRORS: Final = 1  # errors in an input, stale outputs, breaking changes, a failed write
EXIT_USAGE: Final = 2  # bad arguments, an input that cannot be opened, an unusable name
EXIT_INTERRUPTED: Final = 130  # 128 + SIGINT, as shells report a process Ctrl-C stopped

# Diagnostics that mean a command could not run as asked: an input that does not exist
# or cannot be read (a folder lint cannot search too), an output name that cannot be
# used.  They exit as usage errors.
USAGE_CODES: Final = frozenset({E_NO_INPUT.id, E_READ.id, E_WALK.id, E_BASE.id})


def exit_status(diags: Iterable[Diagnostic]) -> int:
    """The status diagnostics give: usage, errors, or none."""
    found = list(diags)
    if any(d.code in USAGE_CODES for d in found):
        return EXIT_USAGE
    return EXIT_ERRORS if has_errors(found) else EXIT_OK


class Command(Record):
    name: str
    summary: str
    raw: bool = False  # the module parses its own arguments (mc's command line)
    # It builds one model per manifest and ends: the cycle collector is paused while it
    # runs (etwmc.gcpolicy says why).
    pauses_collector: bool = False

    @property
    def module(self) -> str:
        return f"{__name__}.{self.name}"


COMMANDS: tuple[Command, ...] = (
    Command("lint", "validate manifests and report problems", pauses_collector=True),
    Command(
        "compile",
        "compile manifests into Python provider modules and binary resources",
        pauses_collector=True,
    ),
    Command(
        "mc",
        "mc.exe's command line: C/C++ header, .rc, TEMP.BIN, message tables",
        raw=True,
        pauses_collector=True,
    ),
    Command("decompile", "rebuild a manifest from a WEVT_TEMPLATE blob"),
    Command("decode", "decode an .etl trace (or an etwmc event file) into events"),
    Command("diff", "report changes between two manifests that break decoders or consumers"),
    Command("guid", "the provider GUID derived from a name (EventSource/TraceLogging rule)"),
    Command("rule", "explain a diagnostic code: meaning, mc.exe's behaviour, example, fix"),
    Command("lsp", "the language server for editors (stdio): diagnostics, completion, hover..."),
)
