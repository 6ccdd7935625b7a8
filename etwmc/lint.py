"""Linting: validation plus the checks that making the outputs makes.

``etwmc lint`` reports everything a default ``etwmc compile`` would (names, traits,
cultures, message-table limits: the checks of :mod:`etwmc.outputs`' registry, run
without making any output), so ``lint --werror`` passes exactly when ``compile
--werror`` does.  A message text file (``.mc``) gets what ``etwmc mc`` would report for
it (:mod:`etwmc.mctext`, ETW9xx).  The command (finding the files, selecting codes,
reporting) is :mod:`etwmc.commands.lint`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .diagnostics import Diagnostic, finalize
from .model import Manifest
from .outputs import lint_checks
from .record import Record
from .validate import check_bytes, check_file


class Linted(Record):
    """One manifest's diagnostics, its source lines (for suppression comments), and its
    model whenever the document could be read (for an editor's requests: complete only
    when no diagnostic is an error)."""

    path: str
    diagnostics: list[Diagnostic]
    lines: Sequence[str] = ()
    manifest: Manifest | None = None


def lint_file(path: str | Path, data: bytes | None = None) -> Linted:
    """Lint the manifest or message text file at ``path`` (or ``data``, reported as
    ``path``)."""
    if str(path).lower().endswith(".mc"):
        return _lint_message_text_file(str(path), data)
    checked = check_bytes(data, str(path)) if data is not None else check_file(path)
    diags = list(checked.diagnostics)
    if checked.ok and checked.manifest is not None:
        diags.extend(lint_checks(checked.manifest))
    return Linted(str(path), finalize(diags), checked.lines, checked.manifest)


def lint_files(files: Sequence[str | Path], *, werror: bool = False) -> list[Diagnostic]:
    """Every diagnostic of ``files``, sorted and de-duplicated."""
    out: list[Diagnostic] = []
    for f in files:
        out.extend(lint_file(f).diagnostics)
    return finalize(out, werror=werror)


def _lint_message_text_file(path: str, data: bytes | None) -> Linted:
    from . import mctext  # only for .mc files: 12 ms, a tenth of linting a small manifest

    if data is None:
        model, diags = mctext.read_file(path)
    else:
        model, diags = mctext.read(data, path)
    return Linted(path, finalize(diags))
