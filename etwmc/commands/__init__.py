"""One module per command: its arguments, the library calls, output and exit status.

:data:`COMMANDS` lists them with a one-line summary; :mod:`etwmc.cli` builds the
parser from it and imports only the module of the command that runs (each imports
its part of the compiler at the top, and importing all of them would cost every run
several times what ``etwmc lint`` needs; pip keeps its commands the same way).  A
command module has ``DESCRIPTION``, ``configure(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    summary: str
    raw: bool = False  # the module parses its own arguments (mc's command line)

    @property
    def module(self) -> str:
        return f"{__name__}.{self.name}"


COMMANDS: tuple[Command, ...] = (
    Command("lint", "validate manifests and report problems"),
    Command("compile", "compile manifests into Python provider modules and binary resources"),
    Command("mc", "mc.exe's command line: C/C++ header, .rc, TEMP.BIN, message tables", raw=True),
    Command("decompile", "rebuild a manifest from a WEVT_TEMPLATE blob"),
    Command("decode", "decode an .etl trace (or an etwmc event file) into events"),
    Command("diff", "report changes between two manifests that break decoders or consumers"),
    Command("guid", "the provider GUID derived from a name (EventSource/TraceLogging rule)"),
    Command("rule", "explain a diagnostic code: meaning, mc.exe's behaviour, example, fix"),
    Command("lsp", "the language server for editors (stdio): diagnostics, completion, hover..."),
)
