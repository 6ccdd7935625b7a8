"""Command-line entry point: the parser and the exit statuses only.

Exit statuses (:mod:`etwmc.commands` defines them): 0 success (no errors), 1 the input
has errors, outputs are stale, or an output could not be written (one line naming it;
a reader gone from standard output ends the run quietly), 2 a usage error (bad
arguments, an input that cannot be opened, an unusable output name) or an internal
error, 130 interrupted (Ctrl-C).  The parser is built from :mod:`etwmc.commands`; this
module adds only the exit statuses and the last line of defence (a bug is reported as
one, never as a bare traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import io
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from . import __version__
from .commands import COMMANDS, EXIT_ERRORS, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from .gcpolicy import collection_policy
from .inputs import UsageError
from .writer import STDOUT, WriteError, guarded_stdout

__all__ = ["EXIT_ERRORS", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]

REPORT_URL = "https://github.com/etwmc/etwmc/issues"


def _columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` finds it (``COLUMNS``,
    then standard output's terminal, then 80)."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _Formatter(argparse.HelpFormatter):
    """argparse's layout, given its width: argparse would import shutil (with bz2,
    lzma and zlib) to measure the terminal on every run, help or not (start-up cost)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        super().__init__(
            prog, indent_increment, max_help_position, _columns() - 2 if width is None else width
        )


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser: the command ``argv`` names with its arguments (its module is the only
    one imported: :mod:`etwmc.commands`), or every command with its summary when
    ``argv`` names none of them."""
    parser = argparse.ArgumentParser(
        prog="etwmc",
        description="Instrumentation-manifest compiler for Event Tracing for Windows.",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"etwmc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    chosen = next((a for a in argv if not a.startswith("-")), None)
    # A run names its command: only that one is added (each parser costs start-up
    # time).  Help, a misspelt command and no command at all list every command.
    named = [c for c in COMMANDS if c.name == chosen]
    for command in named or COMMANDS:
        extra: dict[str, Any] = {"add_help": False, "prefix_chars": "\0"} if command.raw else {}
        p = sub.add_parser(command.name, help=command.summary, formatter_class=_Formatter, **extra)
        if command.name == chosen:
            module = importlib.import_module(command.module)
            p.description = module.DESCRIPTION
            module.configure(p)
            p.set_defaults(_run=module.run, _pauses_collector=command.pauses_collector)
    return parser


def console() -> NoReturn:
    """The ``etwmc`` command (and ``python -m etwmc``).  The objects start-up makes (the
    modules, the parser) live until the run ends: the cyclic garbage collector is off
    while they are imported and they are frozen out of its sight afterwards
    (:func:`_settle`), so no collection walks them again, at exit least of all; with
    bench/run.py that took about a tenth off lint's and compile's CPU time.  During the
    command, :mod:`etwmc.gcpolicy` decides.  What the command leaves alive (a compiled
    model, which the per-model caches keep) is frozen as well once it returns: the
    collections of the interpreter's exit walked it all again, about a seventh of the
    CPU time of a 50,000-event compile (bench/run.py's scale group)."""
    gc.disable()
    status = main(after_imports=_settle)
    gc.freeze()
    sys.exit(status)


def _settle(command: str) -> None:
    """Called once the command's modules are imported: start-up's objects are frozen,
    and the collector is back on for the commands that keep it (``decode``, ``lsp`` and
    the others: their work grows with a trace or an editor's session).  The commands
    that compile manifests run without it to the end of the process, as
    :mod:`etwmc.gcpolicy` runs them: turned back on as such a command returned, it
    walked at once everything the command left alive, a compiled model, and found
    nothing (a sixth of a second of a 50,000-event compile, bench/run.py's scale group)."""
    gc.freeze()
    if not any(c.name == command and c.pauses_collector for c in COMMANDS):
        gc.enable()


def main(
    argv: Sequence[str] | None = None, *, after_imports: Callable[[str], None] | None = None
) -> int:
    """Run a command; returns its exit status.  ``after_imports(command)`` is called
    once the command's modules are imported (:func:`console` tunes the collector)."""
    restore = _undecodable_names_pass_through()
    real = sys.stdout, sys.stderr
    # Everything a command prints goes through the writer's guard: a full or closed
    # standard output is a failed write with one line, never an internal error.
    sys.stdout = guarded_stdout()  # type: ignore[assignment,unused-ignore]
    if sys.stderr is None:  # closed before the run: messages have nowhere to go
        sys.stderr = _Discard()  # type: ignore[assignment,unused-ignore]
    try:
        return _main(argv, after_imports)
    except KeyboardInterrupt:
        print("etwmc: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        sys.stdout, sys.stderr = real
        restore()


class _Discard:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def _undecodable_names_pass_through() -> Callable[[], None]:
    """Let a file name that is not valid in the locale's encoding (Python holds its
    bytes as lone surrogates) be printed as the bytes it was given as, as Python does
    itself in the C locale, instead of failing the whole report.  Returns the undo."""
    out = sys.stdout
    if not isinstance(out, io.TextIOWrapper) or out.errors != "strict":
        return lambda: None
    try:
        out.reconfigure(errors="surrogateescape")
    except (ValueError, OSError):
        return lambda: None

    def undo() -> None:
        with contextlib.suppress(ValueError, OSError):
            out.reconfigure(errors="strict")

    return undo


def _main(argv: Sequence[str] | None, after_imports: Callable[[str], None] | None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser(args_in)
        args = parser.parse_args(args_in)
    except SystemExit as e:  # argparse exits 2 on usage errors, 0 on --help
        return int(e.code or 0)
    except ModuleNotFoundError as e:  # the command's module needs the compiler
        return _missing_dependency(e)
    if after_imports is not None:
        after_imports(args.command)
    try:
        with collection_policy(args._pauses_collector):
            result: int = args._run(args)
        sys.stdout.flush()  # a full or closed output shows here, not at exit
        return result
    except UsageError as e:
        print(f"etwmc {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except WriteError as e:
        print(f"etwmc {args.command}: {e}", file=sys.stderr)
        if e.path == STDOUT:
            _silence_stdout()  # what it still holds could not go anywhere either
        return EXIT_ERRORS
    except BrokenPipeError:
        # The reader went away (``etwmc ... | head``): nothing more can be shown, and
        # Python's own flush at exit must not complain about it either.
        _silence_stdout()
        return EXIT_ERRORS
    except ModuleNotFoundError as e:
        return _missing_dependency(e)
    except Exception as e:  # noqa: BLE001 - the last line of defence: never a bare traceback
        raise_internal(e)
        return EXIT_USAGE


_COMPILER_DEPENDENCIES = ("lxml", "pathspec", "dissect")


def _missing_dependency(e: ModuleNotFoundError) -> int:
    """A compiler dependency missing (``pip install etwmc`` installs the runtime only)
    is a usage problem with a fix; any other missing module is a bug."""
    if (e.name or "").split(".")[0] in _COMPILER_DEPENDENCIES:
        print(
            f"etwmc: the compiler needs {e.name}, which is not installed; "
            "install the compiler with: pip install 'etwmc[compiler]'",
            file=sys.stderr,
        )
    else:
        raise_internal(e)
    return EXIT_USAGE


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (tests capture output): nothing will be flushed to a pipe


def raise_internal(e: BaseException) -> None:
    import traceback  # only after an internal error: start-up cost of every run

    tb = traceback.extract_tb(e.__traceback__)
    where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
    print(f"etwmc: internal error: {type(e).__name__}: {e}{where}", file=sys.stderr)
    print(
        f"etwmc: this is a bug in etwmc, please report it at {REPORT_URL} "
        "with the command and input that caused it",
        file=sys.stderr,
    )


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
