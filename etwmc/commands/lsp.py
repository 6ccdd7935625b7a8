"""``etwmc lsp``: the language server for editors, over standard input and output.

The server is :mod:`etwmc.lsp`; it needs the ``lsp`` extra (pygls and lsprotocol).
Editors start it as ``etwmc lsp`` (``--stdio``, which some clients add, is accepted).
Exit status: 0 after the client's shutdown and exit, 1 after an exit without shutdown
or a closed input, 2 when the extra is not installed.
"""

from __future__ import annotations

import argparse

from ..inputs import UsageError

DESCRIPTION = (
    "Run the language server for instrumentation manifests: diagnostics as you type, "
    "completion, hover, go to definition, references, rename, quick fixes and the outline "
    "(and diagnostics for message text files, .mc), for any editor that speaks the Language "
    "Server Protocol over standard input and output. Needs the lsp extra: "
    "pip install 'etwmc[lsp]'."
)


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--stdio", action="store_true", help="talk over standard input and output (the default)"
    )


def run(args: argparse.Namespace) -> int:
    try:
        # Optional dependencies (the lsp extra): a clear message when they are missing.
        from ..lsp.server import serve
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] not in ("pygls", "lsprotocol", "lxml"):
            raise
        raise UsageError(
            f"the language server needs {e.name}, which is not installed; "
            "install it with: pip install 'etwmc[lsp]'"
        ) from None
    return serve()
