"""The files a command is told to read, how their problems are reported, and the usage
error every command raises.

The rules every command follows (README, "Exit codes"):

- An input that cannot be opened is a usage error (:class:`UsageError`, exit 2): it does
  not exist, it is a folder, or it is not a regular file (a FIFO would block and a
  device may never end, so neither is opened for reading).
- A binary input that opens but is malformed is an error in the input: a diagnostic
  with a stable code and the byte offset of the problem (exit 1).  WEVT_TEMPLATE blobs
  are ETW020, message tables ETW021, event files ETW022; a DLL's problems have the
  code of the command that reads it (``diff`` ETW739 for its baseline, ``decode``
  ETW852 for its metadata; ETW023 is retired).

Outputs are :mod:`etwmc.writer`'s: an output that cannot be written is a failed write
(exit 1), not a usage error.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import BinaryIO, Literal

from .codes import E_BLOB, E_EVENTS, E_MESSAGES, Code
from .diagnostics import Diagnostic, Span, diag
from .model import Manifest
from .regularfile import open_regular

# mc's largest blobs are a few MiB; a binary input is read whole, so it is bounded.
MAX_BINARY = 64 * 1024 * 1024


class UsageError(Exception):
    """The command cannot run as asked: bad arguments or options, an input that cannot
    be opened.  The one usage error of every command (exit 2); the message is one line,
    for ``etwmc COMMAND: <message>``."""


def open_input(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a file named on the command line for reading; :class:`UsageError` when it
    cannot be (see the module docstring)."""
    try:
        return open_regular(path)
    except OSError as e:  # a NotRegularFile has no strerror: its text says what the path is
        raise UsageError(f"cannot read {os.fspath(path)}: {e.strerror or e}") from None


def require_input(path: str | os.PathLike[str]) -> None:
    """Raise :class:`UsageError` unless ``path`` can be opened as :func:`open_input` does."""
    open_input(path).close()


def read_binary(path: str) -> bytes:
    """A binary input, whole (:data:`MAX_BINARY` bytes at most, else ValueError)."""
    with open_input(path) as f:
        try:
            data = f.read(MAX_BINARY + 1)
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > MAX_BINARY:
        raise ValueError(f"the file is larger than the {MAX_BINARY} bytes etwmc reads")
    return data


def load_message_tables(
    paths: Sequence[str], *, xml_text: bool = False, code: Code = E_MESSAGES
) -> tuple[list[dict[int, str]], list[Diagnostic]]:
    """Read message-table files (RT_MESSAGETABLE resources) into id -> text maps;
    ``xml_text``: their texts must be XML text (for the decompiler).  Problems are
    reported with ``code`` (each command names its inputs' problems its own way)."""
    # The binary readers are imported when a binary is read: commands import this
    # module to build the parser (start-up cost).
    from .wevt.msgtable import read_message_table

    tables: list[dict[int, str]] = []
    problems: list[Diagnostic] = []
    for path in paths:
        try:
            tables.append(dict(read_message_table(read_binary(path), xml_text=xml_text)))
        except ValueError as e:  # MessageTableError, or too large
            problems.append(diag(code, Span(path), f"cannot read the message table: {e}"))
    return tables, problems


def load_blob(
    path: str,
    messages: Sequence[str] = (),
    cultures: Sequence[str] = (),
    *,
    xml_text: bool = False,
    losses: bool = False,
    code: Code | None = None,
    data: bytes | None = None,
) -> tuple[Manifest | None, list[Diagnostic]]:
    """A WEVT_TEMPLATE blob and its message tables as a model, or the diagnostics that
    say why not (each with the byte offset of the problem).  ``xml_text``: as for
    :func:`load_message_tables`.  ``losses``: with the model come the warnings about
    what a manifest rebuilt from it cannot give back (:mod:`etwmc.wevt.fidelity`).
    ``code`` reports every problem with one code instead of ETW020/ETW021; ``data`` is
    the blob when it was already read (from a DLL)."""
    # The binary readers: no lint or compile of a manifest needs them (about a tenth of
    # a lint; tests/test_lint_cli.py lists them).
    from .wevt.reader import read_wevt, read_wevt_with_losses

    blob_code = code or E_BLOB
    try:
        blob = read_binary(path) if data is None else data
    except ValueError as e:
        return None, [diag(blob_code, Span(path), f"cannot read the WEVT_TEMPLATE blob: {e}")]
    tables, problems = load_message_tables(messages, xml_text=xml_text, code=code or E_MESSAGES)
    if problems:
        return None, problems
    try:
        if losses:
            manifest, found = read_wevt_with_losses(
                blob, messages=tables, cultures=cultures, path=path
            )
            return manifest, list(found)
        return read_wevt(blob, messages=tables, cultures=cultures, path=path), []
    except ValueError as e:  # WevtError
        return None, [diag(blob_code, Span(path), f"cannot read the WEVT_TEMPLATE blob: {e}")]


def load_dll(
    path: str, *, code: Code, messages: bool = True
) -> tuple[Manifest | None, list[Diagnostic]]:
    """A provider's resource DLL as a model: its WEVT_TEMPLATE resource and, with
    ``messages``, its message tables (lowest language first).  Its problems are
    reported with ``code``, the reading command's own."""
    # As above: the PE and binary readers only when a DLL is read.
    from .pe import RT_MESSAGETABLE, WEVT_TEMPLATE, read_resources
    from .wevt.msgtable import read_message_table
    from .wevt.reader import read_wevt

    try:
        resources = read_resources(read_binary(path))
        blobs = [d for (t, _, _), d in sorted(resources.items(), key=str) if t == WEVT_TEMPLATE]
        if not blobs:
            return None, [diag(code, Span(path), "the DLL has no WEVT_TEMPLATE resource")]
        tables = [
            read_message_table(d)
            for (t, _, _), d in sorted(resources.items(), key=lambda kv: kv[0][2])
            if messages and t == RT_MESSAGETABLE
        ]
        return read_wevt(blobs[0], messages=tables, path=path), []
    except ValueError as e:  # ResourceError, WevtError, MessageTableError, too large
        return None, [diag(code, Span(path), f"cannot read the DLL: {e}")]


Kind = Literal["blob", "dll", "manifest"]


def kind_of(path: str) -> Kind:
    """What a metadata input is, by its first bytes: a WEVT_TEMPLATE blob ("CRIM"), a
    PE file ("MZ"), else a manifest.  :class:`UsageError` when it cannot be opened."""
    with open_input(path) as f:
        try:
            head = f.read(4)
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    if head == b"CRIM":
        return "blob"
    if head[:2] == b"MZ":
        return "dll"
    return "manifest"


def event_file_problem(path: str, e: Exception) -> Diagnostic:
    return diag(E_EVENTS, Span(path), f"cannot read the event file: {e}")
