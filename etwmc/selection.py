"""Which diagnostics a report shows: code selection and suppression comments.

Selection works like ruff's.  A *selector* is a code (``ETW401``) or a prefix of one
(``ETW4``, ``ETW40``, or ``ETW`` for all).  ``select`` replaces the default set (every
code), ``ignore`` removes from it, ``extend-select``/``extend-ignore`` add to what a
configuration file chose; the longest matching selector decides, and at equal length
``ignore`` wins.  ``per-file-ignores`` maps a gitignore-style pattern (matched against
the path as given, and against its relative form) to selectors ignored in those files.

Inside a manifest, an XML comment suppresses diagnostics at one place::

    <event value="7" level="win:Verbose"/> <!-- etwmc: ignore[ETW208] -->

    <!-- etwmc: ignore[ETW4, ETW290] -->
    <event value="8" .../>

A comment after markup on a line covers that line; a comment alone on its line covers
the next line that holds markup.  ``<!-- etwmc: ignore -->`` without a list covers
every code there, and ``<!-- etwmc: ignore-file[ETW483] -->`` anywhere covers the
whole file.  A suppression comment that hides nothing is itself reported (ETW013, a
note), so stale ones do not pile up.

Neither the selection nor a comment hides an error: an error makes the manifest
uncompilable, so ``etwmc lint`` must fail wherever ``etwmc compile`` and the build
plugins do.  Where one would have hidden an error, ETW015 (a warning) says so: at the
comment, or at the top of the file for the selection.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from .codes import N_UNUSED_SUPPRESSION, W_SUPPRESSED_ERROR
from .diagnostics import Diagnostic, Severity, Span, diag
from .record import Record, field, replace

# Compiled on first use (re caches them): most runs name no selector and have no
# suppression comment, and compiling both costs a millisecond at every start.
_SELECTOR = r"ETW\d{0,3}\Z"
_COMMENT = r"<!--\s*etwmc:\s*(ignore(?:-file)?)\s*(?:\[([^\]]*)\])?\s*-->"


class SelectorError(ValueError):
    """A selector that names no code form; the message quotes it."""


def check_selectors(selectors: Iterable[str], where: str) -> tuple[str, ...]:
    out = []
    for s in selectors:
        t = s.strip().upper()
        if not re.match(_SELECTOR, t):
            raise SelectorError(f"{where}: '{s}' is not a code or a code prefix such as ETW4")
        out.append(t)
    return tuple(out)


class Selection(Record, kw_only=True):
    """Which codes a report keeps (see the module docstring): the selectors to keep and
    to drop, and per-file ignores by gitignore-style pattern, relative to ``root``."""

    select: tuple[str, ...] = ("ETW",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    root: str | None = None  # per-file patterns are relative to this folder

    def extended(self, select: Sequence[str] = (), ignore: Sequence[str] = ()) -> Selection:
        return replace(self, select=(*self.select, *select), ignore=(*self.ignore, *ignore))

    def allows(self, code_id: str, file: str = "") -> bool:
        ignore = self.ignore + self._file_ignores(file)
        chosen = max((s for s in self.select if code_id.startswith(s)), key=len, default=None)
        dropped = max((s for s in ignore if code_id.startswith(s)), key=len, default=None)
        if chosen is None:
            return False
        return dropped is None or len(dropped) < len(chosen)

    def _file_ignores(self, file: str) -> tuple[str, ...]:
        if not self.per_file_ignores or not file:
            return ()
        forms = [file]
        if self.root is not None:
            rel = os.path.relpath(os.path.abspath(file), self.root)
            if not rel.startswith(".."):
                forms.append(rel)
        paths = [f.replace(os.sep, "/").removeprefix("./") for f in forms]
        # Loaded for per-file patterns only: 11 ms, a tenth of linting a small manifest.
        import pathspec

        out: list[str] = []
        for pattern, codes in self.per_file_ignores.items():
            spec = pathspec.GitIgnoreSpec.from_lines([pattern])
            if any(spec.match_file(p) for p in paths):
                out.extend(codes)
        return tuple(out)


class _Suppression(Record):
    """An ``etwmc: ignore`` comment of a manifest: the line it covers, where it is, its codes."""

    line: int  # the line it covers (0: the whole file)
    written_at: int
    selectors: tuple[str, ...]  # empty: every code


def suppressions(lines: Sequence[str]) -> list[_Suppression]:
    """The suppression comments of a manifest's lines, with the line each covers."""
    if not any("etwmc:" in line for line in lines):
        return []
    out: list[_Suppression] = []
    pending: list[tuple[int, tuple[str, ...]]] = []
    comment = re.compile(_COMMENT)
    for number, line in enumerate(lines, 1):
        comments = list(comment.finditer(line))
        rest = comment.sub("", line).strip()
        markup = bool(rest) and not (rest.startswith("<!--") and rest.endswith("-->"))
        if markup and pending:
            out.extend(_Suppression(number, at, sel) for at, sel in pending)
            pending = []
        for m in comments:
            selectors = tuple(s.strip().upper() for s in (m.group(2) or "").split(",") if s.strip())
            if m.group(1) == "ignore-file":
                out.append(_Suppression(0, number, selectors))
            elif markup:
                out.append(_Suppression(number, number, selectors))
            else:
                pending.append((number, selectors))
    return out


def file_suppressions(sources: Mapping[str, Sequence[str]] | None) -> dict[str, list[_Suppression]]:
    """The suppression comments of each file of ``sources`` (a file, as in the
    diagnostics' spans, to its lines) that has any."""
    by_file: dict[str, list[_Suppression]] = {}
    for f, lines in (sources or {}).items():
        found = suppressions(lines)
        if found:
            by_file[f] = found
    return by_file


def apply(
    diags: Iterable[Diagnostic],
    selection: Selection,
    sources: Mapping[str, Sequence[str]] | None = None,
    *,
    keep_errors: bool = True,
    suppressed: Mapping[str, Sequence[_Suppression]] | None = None,
) -> list[Diagnostic]:
    """The diagnostics the selection and the files' suppression comments let through.

    ``sources`` maps a file (as in the diagnostics' spans) to its lines, for
    suppression comments; a caller that applies a selection more than once to the same
    files passes their :func:`file_suppressions` as ``suppressed`` instead, so that the
    lines are not scanned again (a 50,000-event manifest has a quarter of a million).
    Errors are kept whatever the selection or a comment says
    (unless ``keep_errors`` is false): each makes the manifest uncompilable, so lint
    must fail where compile and the build plugins do.  Where a comment or the selection
    would have hidden one, ETW015 says so: at the comment, or at the top of the file
    for ``--select``/``--ignore``/``per-file-ignores``."""
    by_file = suppressed if suppressed is not None else file_suppressions(sources)
    used: set[tuple[str, int]] = set()
    covering: dict[tuple[str, int], set[str]] = {}  # a comment -> the error codes it covers
    left_out: dict[str, set[str]] = {}  # a file -> the error codes the selection leaves out
    out: list[Diagnostic] = []
    for d in diags:
        kept = keep_errors and d.severity == Severity.ERROR
        if not selection.allows(d.code, d.span.file):
            if kept:
                left_out.setdefault(d.span.file, set()).add(d.code)
                out.append(d)
            continue
        hit = next(
            (
                s
                for s in by_file.get(d.span.file, ())
                if s.line in (0, d.span.line) and _matches(d.code, s.selectors)
            ),
            None,
        )
        if hit is None:
            out.append(d)
        elif kept:
            covering.setdefault((d.span.file, hit.written_at), set()).add(d.code)
            out.append(d)
        else:
            used.add((d.span.file, hit.written_at))
    out += _suppressed_errors(selection, covering, left_out)
    for f, sups in sorted(by_file.items()):
        for s in sups:
            at = (f, s.written_at)
            if (
                at not in used
                and at not in covering
                and selection.allows(N_UNUSED_SUPPRESSION.id, f)
            ):
                shown = ", ".join(s.selectors) if s.selectors else "every code"
                out.append(
                    diag(
                        N_UNUSED_SUPPRESSION,
                        Span(f, s.written_at),
                        f"this suppression comment ({shown}) hides nothing",
                        hint="remove it, or correct the codes it names",
                    )
                )
    return out


def _suppressed_errors(
    selection: Selection,
    covering: Mapping[tuple[str, int], set[str]],
    left_out: Mapping[str, set[str]],
) -> list[Diagnostic]:
    """ETW015 where a suppression comment or the selection would have hidden errors."""
    out: list[Diagnostic] = []
    for (f, line), codes in sorted(covering.items()):
        if selection.allows(W_SUPPRESSED_ERROR.id, f):
            out.append(
                diag(
                    W_SUPPRESSED_ERROR,
                    Span(f, line),
                    f"this suppression comment covers {_errors(codes)}: lint and compile "
                    "report errors whatever a comment says, since the manifest cannot be "
                    "compiled with them",
                    hint="fix the error; suppression comments hide warnings and notes only",
                )
            )
    for f, codes in sorted(left_out.items()):
        if selection.allows(W_SUPPRESSED_ERROR.id, f):
            out.append(
                diag(
                    W_SUPPRESSED_ERROR,
                    Span(f),
                    f"the selection leaves out {_errors(codes)}: lint and compile report "
                    "errors whatever --select, --ignore and per-file-ignores say, since the "
                    "manifest cannot be compiled with them",
                    hint="fix the error; the selection hides warnings and notes only",
                )
            )
    return out


def _errors(codes: Iterable[str]) -> str:
    listed = sorted(codes)
    return f"{'the error' if len(listed) == 1 else 'the errors'} {', '.join(listed)}"


def _matches(code_id: str, selectors: tuple[str, ...]) -> bool:
    return not selectors or any(code_id.startswith(s) for s in selectors)
