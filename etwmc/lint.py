"""``etwmc lint``: validate manifests and report every problem in one of four formats.

Folders are searched recursively for ``*.man``, ``*.xml`` and ``*.manifest`` files (in
sorted order); files named explicitly are always checked, whatever their extension.
Exit status: 0 when no errors (warnings allowed unless ``--werror``), 1 when there
are errors, 2 for usage errors (including a path that does not exist or a file that
cannot be read).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from . import __version__
from .codes import E_NO_INPUT, REGISTRY
from .diagnostics import (
    Diagnostic,
    Span,
    diag,
    finalize,
    has_errors,
    render_github,
    render_json,
    render_sarif,
    render_text,
    summary_line,
)

MANIFEST_SUFFIXES = (".man", ".xml", ".manifest")


def collect(paths: Iterable[str]) -> tuple[list[Path], list[Diagnostic]]:
    """Expand folders into the manifests they hold; report paths that do not exist."""
    files: list[Path] = []
    problems: list[Diagnostic] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(
                f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in MANIFEST_SUFFIXES
            )
            files.extend(found)
        elif p.exists():
            files.append(p)
        else:
            problems.append(diag(E_NO_INPUT, Span(raw), f"no such file or folder: {raw}"))
    seen: set[Path] = set()
    unique = []
    for f in files:
        if f not in seen:
            seen.add(f)
            unique.append(f)
    return unique, problems


def lint_files(files: Sequence[Path], *, werror: bool = False) -> list[Diagnostic]:
    from .compile import output_checks
    from .validate import check_file

    out: list[Diagnostic] = []
    for f in files:
        checked = check_file(f)
        out.extend(checked.diagnostics)
        if checked.ok and checked.manifest is not None:
            out.extend(output_checks(checked.manifest))
    return finalize(out, werror=werror)


def render(diags: Sequence[Diagnostic], fmt: str) -> str:
    if fmt == "json":
        return render_json(diags)
    if fmt == "sarif":
        return render_sarif(diags, tool_version=__version__)
    if fmt == "github":
        return render_github(diags)
    return render_text(diags)


def all_codes() -> list[tuple[str, str, str]]:
    """(code, default severity, summary) for every diagnostic code, sorted."""
    return [(c.id, c.severity.label, c.summary) for c in REGISTRY.values()]


def codes_table() -> str:
    rows = ["| code | severity | meaning |", "|---|---|---|"]
    rows += [f"| {c} | {sev} | {summary} |" for c, sev, summary in all_codes()]
    return "\n".join(rows) + "\n"


def run(args: argparse.Namespace) -> int:
    if args.list_codes:
        sys.stdout.write(codes_table())
        return 0
    if not args.paths:
        print("etwmc lint: give at least one manifest file or folder", file=sys.stderr)
        return 2
    files, problems = collect(args.paths)
    diags = finalize(problems + lint_files(files, werror=args.werror), werror=args.werror)
    report = render(diags, args.format)
    if args.output:
        from .inputs import write_output

        write_output(args.output, report)
    else:
        sys.stdout.write(report)
    if not args.quiet and args.format in ("text", "github"):
        print(summary_line(diags, len(files)), file=sys.stderr)
    # A path that does not exist or a file that cannot be read is a usage error: the
    # others are still checked and reported, but the run did not do what was asked.
    if any(d.code in (E_NO_INPUT.id, "ETW001") for d in diags):
        return 2
    return 1 if has_errors(diags) else 0
