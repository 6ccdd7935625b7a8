"""What every command shares when it talks to the user: where reports go, colour,
the summary line, waiting for another writer, and the project's configuration.

Reports (diagnostics, decoded events, generated text) go to standard output, or to
``-o FILE`` (written by :mod:`etwmc.writer`, as every output is); standard error
carries only progress, summaries and one-line messages, so ``etwmc ... --format sarif
> report.sarif`` captures the report whatever the command.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from ..config import Config, ConfigFileError, find_config, load_config
from ..diagnostics import Diagnostic, render, summary_line
from ..inputs import UsageError
from ..options import OptionsError
from ..writer import write_text


def colour(stream: TextIO | None) -> bool:
    """Colour on a terminal; ``NO_COLOR`` turns it off and ``FORCE_COLOR`` on (set and
    not empty), as https://no-color.org and most command-line tools read them."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def report(
    diags: Sequence[Diagnostic], fmt: str, output: str | None = None, *, help_urls: bool = False
) -> None:
    """The diagnostics in ``fmt``, to ``output`` (a file) or standard output;
    ``help_urls``: the text format links each code to its page."""
    if output:
        write_text(output, render(diags, fmt, help_urls=help_urls))
    else:
        write_text(None, render(diags, fmt, colour=colour(sys.stdout), help_urls=help_urls))


def summary(diags: Sequence[Diagnostic], files: int, *, quiet: bool, fmt: str) -> None:
    if not quiet and fmt in ("text", "github"):
        print(summary_line(diags, files), file=sys.stderr)


def waiting(command: str) -> Callable[[str], None]:
    """``on_wait`` for the writer: one line on standard error while another etwmc
    writes into the same folder (the write then waits for it to end)."""

    def notice(folder: str) -> None:
        print(f"etwmc {command}: waiting for another etwmc writing into {folder}", file=sys.stderr)

    return notice


def config_arguments(p: argparse.ArgumentParser) -> None:
    """``--config FILE`` and ``--isolated``, for every command that reads the project's
    configuration (as ruff spells them)."""
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--config",
        metavar="FILE",
        help="read the settings from FILE (a pyproject.toml or an etwmc.toml) instead of "
        "the nearest one",
    )
    which.add_argument(
        "--isolated", action="store_true", help="read no configuration file: defaults and flags"
    )


def project_config(args: argparse.Namespace | None = None) -> Config:
    """The settings ``--config``/``--isolated`` choose, else the nearest configuration
    file's; a broken file is a usage error."""
    try:
        if args is not None and getattr(args, "isolated", False):
            return Config()
        if args is not None and getattr(args, "config", None):
            return load_config(Path(args.config))
        return find_config()
    except (ConfigFileError, OptionsError) as e:
        raise UsageError(str(e)) from None


def shown(path: Path) -> str:
    """An absolute ``path`` the configuration gave, as the report names it: from the
    current folder, as a user would type it (``../src/acme/_etw`` from ``docs``)."""
    try:
        return os.path.relpath(path)
    except ValueError:  # Windows: another drive
        return str(path)
