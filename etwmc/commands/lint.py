"""``etwmc lint``: validate manifests and report every problem.

Paths are files, folders (searched for manifests: :mod:`etwmc.discover`) or ``-`` for
standard input.  With none, the project is linted: the manifests its configuration
names (``manifests``, the patterns the build plugins compile), else the current folder,
searched as a folder named on the command line is.  The codes reported are chosen as
ruff chooses them (:mod:`etwmc.selection`), from the project's configuration
(:mod:`etwmc.config`) and the flags.  Exit status: 0 no errors (warnings allowed
unless ``--werror``), 1 errors (or a report that could not be written), 2 usage (a path
that does not exist or cannot be read, no manifest found, a bad flag or configuration
file).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..codes import E_NO_INPUT, REGISTRY
from ..config import Config, ConfigFileError, find_manifests, show
from ..diagnostics import FORMATS, Diagnostic, Span, diag, finalize, visible
from ..discover import discover
from ..inputs import UsageError
from ..lint import lint_file
from ..selection import Selection, SelectorError, apply
from . import EXIT_OK, exit_status
from ._output import config_arguments, project_config, report, shown, summary

DESCRIPTION = (
    "Validate instrumentation manifests and report every problem with a stable code, a "
    "location and a hint.  Folders are searched for manifests (*.man, *.xml and *.manifest "
    "files whose root is an instrumentation manifest) and message text files (*.mc), "
    "skipping hidden folders, virtual environments and what git ignores; a file named "
    "explicitly is always checked.  "
    "Settings come from [tool.etwmc.lint] in the nearest pyproject.toml (or etwmc.toml); "
    "flags win.  With no path, the manifests the configuration names (its manifests key) "
    "are linted, else the current folder."
)
STDIN = "-"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="manifest files, folders to search, or - for standard input (default: the "
        "configured manifests, else .)",
    )
    p.add_argument("--format", choices=FORMATS, default="text", help="report format (text)")
    p.add_argument("--werror", action="store_true", default=None, help="warnings fail too")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary line on stderr")
    p.add_argument(
        "--show-help-url",
        action="store_true",
        help="after the first diagnostic of each code, the address of its page (text format)",
    )
    for flag, what in (
        ("--select", "report only these codes or prefixes (replaces the configured list)"),
        ("--ignore", "do not report these codes or prefixes (replaces the configured list)"),
        ("--extend-select", "also report these codes or prefixes"),
        ("--extend-ignore", "also leave out these codes or prefixes"),
    ):
        p.add_argument(flag, action="append", metavar="CODES", help=what + ", comma-separated")
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="skip files and folders matching GLOB (gitignore syntax) when searching folders",
    )
    p.add_argument(
        "--force-exclude",
        action="store_true",
        help="give files named on the command line a folder search's rules: skip what is "
        "not a manifest and what --exclude, .gitignore, hidden folders and virtual "
        "environments leave out (for pre-commit, which names every file)",
    )
    p.add_argument(
        "--stdin-filename", metavar="NAME", help="the name reported for - (default: <stdin>)"
    )
    p.add_argument(
        "--list-codes",
        action="store_true",
        help="print every diagnostic code (a Markdown table, or JSON with --format json)",
    )
    p.add_argument(
        "--show-config", action="store_true", help="print the settings in force and exit"
    )
    config_arguments(p)


def run(args: argparse.Namespace) -> int:
    if args.list_codes:
        sys.stdout.write(codes_json() if args.format == "json" else codes_table())
        return EXIT_OK
    config = project_config(args)
    selection = _selection(args, config)
    werror = _werror(args, config)
    if args.show_config:
        sys.stdout.write(show(config, _effective(selection, config, werror)))
        return EXIT_OK
    paths: list[str] = args.paths or project_paths(config)
    found = discover(
        [p for p in paths if p != STDIN],
        exclude=[*config.exclude(), *args.exclude],
        force_exclude=args.force_exclude,
    )
    problems = [
        diag(E_NO_INPUT, Span(raw), f"no such file or folder: {raw}") for raw in found.missing
    ]
    problems += found.problems
    diags: list[Diagnostic] = []
    sources: dict[str, Sequence[str]] = {}
    checked = 0
    if STDIN in paths:
        linted = lint_file(args.stdin_filename or "<stdin>", sys.stdin.buffer.read())
        diags += linted.diagnostics
        sources[linted.path] = linted.lines
        checked += 1
    for f in found.files:
        linted = lint_file(f)
        diags += linted.diagnostics
        sources[linted.path] = linted.lines
        checked += 1
    if not checked and not problems and not found.skipped:
        searched = ", ".join(visible(p) for p in paths)
        raise UsageError(f"no manifest found in {searched} (nothing to lint)")
    diags = finalize([*problems, *apply(diags, selection, sources)], werror=werror)
    report(diags, args.format, args.output, help_urls=args.show_help_url)
    summary(diags, checked, quiet=args.quiet, fmt=args.format)
    # A path that does not exist, a file or folder that cannot be read is a usage error
    # (commands.USAGE_CODES): the others are still checked and reported, but the run did
    # not do what was asked.
    return exit_status(diags)


def project_paths(config: Config) -> list[str]:
    """What ``etwmc lint`` checks when it is given no path: the manifests the
    configuration names (as the build plugins find them), else the current folder."""
    if not config.manifests:
        return ["."]
    try:
        found = find_manifests(config.root, config.manifests)
    except ConfigFileError as e:
        raise UsageError(f"{config.where}: {e}") from None
    # Named from the current folder, as the paths a user types (the configuration
    # file may be in a folder above it).
    return [shown(config.root / rel) for rel in found]


def _codes(values: Sequence[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [c for v in values for c in v.split(",") if c.strip()]


def _selection(args: argparse.Namespace, config: Config) -> Selection:
    try:
        return config.selection(
            select=_codes(args.select),
            ignore=_codes(args.ignore),
            extend_select=_codes(args.extend_select) or (),
            extend_ignore=_codes(args.extend_ignore) or (),
        )
    except SelectorError as e:
        raise UsageError(str(e)) from None


def _werror(args: argparse.Namespace, config: Config) -> bool:
    if args.werror is not None:
        return bool(args.werror)
    value = config.table.get("werror", False)
    if not isinstance(value, bool):
        raise UsageError(f"{config.where}: 'werror' must be true or false")
    return value


def _effective(selection: Selection, config: Config, werror: bool) -> dict[str, object]:
    return {
        "lint.select": list(selection.select),
        "lint.ignore": list(selection.ignore),
        "lint.per-file-ignores": {k: list(v) for k, v in selection.per_file_ignores.items()},
        "lint.exclude": list(config.exclude()),
        "werror": werror,
    }


def codes_table() -> str:
    rows = ["| code | severity | meaning |", "|---|---|---|"]
    rows += [
        f"| {c.id} | {c.severity.label} | {c.summary}{' (retired)' if c.retired else ''} |"
        for c in REGISTRY.values()
    ]
    return "\n".join(rows) + "\n"


def codes_json() -> str:
    items = [
        {
            "code": c.id,
            "severity": c.severity.label,
            "summary": c.summary,
            **({"retired": c.retired} if c.retired else {}),
        }
        for c in REGISTRY.values()
    ]
    import json  # only for this listing: start-up cost of every lint

    return json.dumps(items, indent=2) + "\n"
