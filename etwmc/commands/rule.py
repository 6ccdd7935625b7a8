"""``etwmc rule CODE``: the page that explains a diagnostic code (:mod:`etwmc.rulepages`),
as ``ruff rule`` prints a rule's.  ``--all`` prints every page; ``--format json`` gives
their fields.  An unknown code is a usage error that names the nearest codes.
"""

from __future__ import annotations

import argparse
import sys

from ..codes import REGISTRY
from ..inputs import UsageError
from ..rulepages import all_pages, page, to_json_obj, to_text
from . import EXIT_OK

DESCRIPTION = (
    "Explain a diagnostic code: what it means, why it matters, what mc.exe does with the same "
    "input, a failing example and the fix.  The same pages are published on the documentation "
    "site."
)


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("code", nargs="?", metavar="CODE", help="a diagnostic code, e.g. ETW401")
    p.add_argument("--all", action="store_true", help="every code's page")
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (text)"
    )


def run(args: argparse.Namespace) -> int:
    if args.all == bool(args.code):
        raise UsageError("give one code (e.g. ETW401) or --all")
    pages = all_pages() if args.all else (page(_known(args.code)),)
    if args.format == "json":
        import json  # only for this format: start-up cost of every run

        items = [to_json_obj(p) for p in pages]
        sys.stdout.write(json.dumps(items if args.all else items[0], indent=2) + "\n")
    else:
        sys.stdout.write("\n".join(to_text(p) for p in pages))
    return EXIT_OK


def _known(raw: str) -> str:
    code = raw.strip().upper()
    if code in REGISTRY:
        return code
    near = _nearest(code)
    hint = (
        f"; did you mean {' or '.join(near)}?" if near else " (etwmc lint --list-codes lists them)"
    )
    raise UsageError(f"unknown code {raw!r}{hint}")


def _nearest(code: str) -> list[str]:
    """The registered codes one or two characters away from ``code``, read with the
    letters O, I and L taken for the digits they are mistyped for, and ETW added to a
    bare number."""
    typed = code.translate(str.maketrans("OIL", "011"))
    if typed.isdigit():
        typed = "ETW" + typed
    if len(typed) != 6:
        return []
    scored = sorted((sum(a != b for a, b in zip(typed, c, strict=True)), c) for c in REGISTRY)
    best = scored[0][0]
    return [c for d, c in scored if d == best and d <= 2][:3]
