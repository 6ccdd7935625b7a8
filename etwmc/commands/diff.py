"""``etwmc diff OLD NEW``: changes between two versions of a manifest that break
decoders or consumers (:mod:`etwmc.diff` has the rules).

Either side is a manifest, a TEMP.BIN blob or a provider DLL.  The report goes to
standard output (or ``-o FILE``) in lint's formats, a summary line to standard error.
Exit status: 0 no breaking change, 1 a breaking change, a malformed input or a report
that could not be written, 2 usage.
"""

from __future__ import annotations

import argparse

from ..diagnostics import FORMATS, finalize, has_errors
from ..diff import diff_manifests, load
from ..inputs import require_input
from . import EXIT_ERRORS, EXIT_OK
from ._output import report, summary

DESCRIPTION = (
    "Compare two versions of a provider's metadata and report what breaks decoders or "
    "consumers (errors), what shows differently (warnings) and what is new (notes).  "
    "Either side is a manifest, a compiled TEMP.BIN or a provider DLL, so the blob or DLL "
    "of the last release can be the baseline."
)


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("old", help="the baseline: a manifest, a TEMP.BIN or a provider DLL")
    p.add_argument("new", help="the new version: a manifest, a TEMP.BIN or a provider DLL")
    p.add_argument("--format", choices=FORMATS, default="text", help="report format (text)")
    p.add_argument("--werror", action="store_true", help="warnings fail too")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary line on stderr")


def run(args: argparse.Namespace) -> int:
    require_input(args.old)
    require_input(args.new)
    old, d_old = load(args.old)
    new, d_new = load(args.new)
    diags = d_old + d_new
    if old is not None and new is not None:
        diags += diff_manifests(old, new)
    diags = finalize(diags, werror=args.werror)
    report(diags, args.format, args.output)
    summary(diags, 2, quiet=args.quiet, fmt=args.format)
    return EXIT_ERRORS if has_errors(diags) else EXIT_OK
