"""Command-line entry point: argument parsing and exit codes only.

Exit codes: 0 success (no errors), 1 the input has errors (or outputs are stale),
2 usage error (bad arguments, an input that cannot be opened, an output that cannot be
written, an unusable output name) or internal error, 130 interrupted (Ctrl-C).  Each
command's logic lives in its own module; this file imports that module only when the
command runs, so ``etwmc lint`` never loads the code generator.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from . import __version__
from .inputs import UsageError

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a process Ctrl-C stopped

REPORT_URL = "https://github.com/etwmc/etwmc/issues"

FORMATS = ("text", "json", "sarif", "github")
DECODE_FORMATS = ("jsonl", "json", "text")


def _add_lint(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "lint",
        help="validate manifests and report problems",
        description="Validate instrumentation manifests (files, or folders searched for "
        "*.man, *.xml and *.manifest) and report every problem found.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="manifest files or folders")
    p.add_argument(
        "--format", choices=FORMATS, default="text", help="output format (default: text)"
    )
    p.add_argument("--werror", action="store_true", help="treat warnings as errors")
    p.add_argument(
        "-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    p.add_argument(
        "--list-codes", action="store_true", help="print every diagnostic code as a Markdown table"
    )
    p.set_defaults(_run="etwmc.lint:run")


def _add_compile(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "compile",
        help="compile a manifest into a Python provider module and binary resources",
        description="Compile a manifest into a Python provider module, the WEVT_TEMPLATE blob "
        "(<base>TEMP.BIN), one message table per culture (<base>_MSG0000N.bin) and the .rc "
        "that links them.  Outputs are written all-or-nothing.",
    )
    p.add_argument("manifest", help="the manifest to compile")
    p.add_argument(
        "-o", "--output-dir", default=".", metavar="DIR", help="output folder (default: .)"
    )
    p.add_argument(
        "-z", "--base", metavar="BASE", help="base name of outputs (default: the manifest's)"
    )
    p.add_argument(
        "--wevt-version",
        type=int,
        choices=(3, 5),
        help="WEVT_TEMPLATE version: 5 as mc 10.0.16299 and later, 3 as earlier mc "
        "(default: 5, or 3 with --legacy-template-ids)",
    )
    p.add_argument(
        "--legacy-template-ids",
        action="store_true",
        help="give templates mc 8.1's MD5-based ids, to reproduce blobs built by the "
        "Windows 8.1 SDK (implies --wevt-version 3)",
    )
    p.add_argument("--module", metavar="NAME", help="name of the generated Python module")
    p.add_argument("--no-python", action="store_true", help="write only the binary outputs")
    p.add_argument("--no-binary", action="store_true", help="write only the Python module")
    p.add_argument("--resource-dll", action="store_true", help="also write a resource-only DLL")
    p.add_argument(
        "--c-header",
        nargs="?",
        const="um",
        choices=("um", "km"),
        help="also write <base>.h, the C/C++ header mc -um (or -km) writes",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if the outputs on disk differ from what would be written",
    )
    p.add_argument(
        "--verify",
        action="store_true",
        help="also parse the generated module and check it only defines names (slower)",
    )
    p.add_argument("--format", choices=FORMATS, default="text", help="diagnostic format")
    p.add_argument("--werror", action="store_true", help="treat warnings as errors")
    p.set_defaults(_run="etwmc.compile:run")


def _add_decompile(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("decompile", help="rebuild a manifest from a WEVT_TEMPLATE blob")
    p.add_argument("blob", help="a WEVT_TEMPLATE blob (<base>TEMP.BIN)")
    p.add_argument(
        "--messages", action="append", default=[], metavar="MSG.bin", help="message table(s)"
    )
    p.add_argument(
        "--culture",
        action="append",
        default=[],
        metavar="NAME",
        help="culture of the n-th --messages table (default: en-US for the first)",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="manifest to write (default: stdout)")
    p.set_defaults(_run="etwmc.decompile:run")


class _WevtAction(argparse.Action):
    """``decode --wevt``: the ``--messages`` given after it (or before the first) are its
    message tables."""

    def __call__(self, parser: Any, ns: argparse.Namespace, value: Any, opt: Any = None) -> None:
        groups = [list(g) for g in ns.wevt_messages or []]
        groups.append([] if ns.wevt else list(ns.messages or []))
        ns.wevt = [*(ns.wevt or []), value]
        ns.wevt_messages = groups


class _MessagesAction(argparse.Action):
    def __call__(self, parser: Any, ns: argparse.Namespace, value: Any, opt: Any = None) -> None:
        ns.messages = [*(ns.messages or []), value]
        if ns.wevt:
            ns.wevt_messages = [*ns.wevt_messages[:-1], [*ns.wevt_messages[-1], value]]


def _add_decode(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "decode",
        help="decode an .etl trace (or an etwmc event file) into events",
        description="Decode the events of an .etl trace: manifest-based events with the "
        "metadata given, EventSource events with the manifests they carry in the trace, "
        "TraceLogging events with the schemas they carry; classic events pass through.  "
        "Writes JSON Lines by default.  An event file written by etwmc's runtime decodes "
        "with one --manifest or --wevt to a JSON array.",
    )
    p.add_argument("input", help="an .etl trace, or an event file written by etwmc's runtime")
    p.add_argument(
        "--manifest", action="append", default=[], metavar="MAN", help="metadata from a manifest"
    )
    p.add_argument(
        "--wevt",
        action=_WevtAction,
        metavar="TEMP.BIN",
        help="metadata from a WEVT_TEMPLATE blob; the --messages after it are its tables",
    )
    p.add_argument("--messages", action=_MessagesAction, metavar="MSG.bin", help="a message table")
    p.add_argument(
        "--dll", action="append", default=[], metavar="PROVIDER.dll", help="a provider's DLL"
    )
    p.add_argument(
        "--provider",
        action="append",
        default=[],
        metavar="GUID|NAME",
        help="only the events of this provider (repeatable)",
    )
    p.add_argument(
        "--format", choices=DECODE_FORMATS, default="jsonl", help="event format (default: jsonl)"
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the events here, not stdout")
    p.add_argument(
        "--summary",
        action="store_true",
        help="print events seen and decoded per provider and why the rest were not "
        "(on stdout, instead of the events unless -o is given)",
    )
    p.set_defaults(_run="etwmc.commands.decode:run", wevt=None, messages=None, wevt_messages=None)


def _add_diff(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "diff", help="report changes between two manifests that break decoders or consumers"
    )
    p.add_argument("old", help="the baseline: a manifest or a compiled TEMP.BIN")
    p.add_argument("new", help="the new manifest (or TEMP.BIN)")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format")
    p.add_argument("--werror", action="store_true", help="treat warnings as errors")
    p.add_argument(
        "-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    p.set_defaults(_run="etwmc.diff:run")


def _add_mc(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # mc.exe's command line is not argparse-shaped (-um, /um, -hDIR, -bv): every
    # argument goes to etwmc.commands.mc, which parses it (etwmc mc -? explains it).
    p = sub.add_parser(
        "mc",
        help="mc.exe's command line: header, .rc, TEMP.BIN and message tables",
        add_help=False,
        prefix_chars="\0",
    )
    p.add_argument("args", nargs=argparse.REMAINDER)
    p.set_defaults(_run="etwmc.commands.mc:run")


def _add_guid(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("guid", help="the provider GUID derived from a name (EventSource rule)")
    p.add_argument("names", nargs="+", metavar="NAME")
    p.set_defaults(_run="etwmc.guid:run")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="etwmc", description="Instrumentation-manifest compiler for Event Tracing for Windows."
    )
    parser.add_argument("--version", action="version", version=f"etwmc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for add in (
        _add_lint,
        _add_compile,
        _add_mc,
        _add_decompile,
        _add_decode,
        _add_diff,
        _add_guid,
    ):
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    restore = _undecodable_names_pass_through()
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("etwmc: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        restore()


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


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse exits 2 on usage errors, 0 on --help
        return int(e.code or 0)
    module_name, func_name = args._run.split(":")
    try:
        module = importlib.import_module(module_name)
        result: int = getattr(module, func_name)(args)
        sys.stdout.flush()  # a closed pipe shows here, not in Python's flush at exit
        return result
    except UsageError as e:
        print(f"etwmc {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (``etwmc ... | head``): nothing more can be shown, and
        # Python's own flush at exit must not complain about it either.
        _silence_stdout()
        return EXIT_USAGE
    except ModuleNotFoundError as e:
        if e.name in ("lxml", "jinja2", "black", "xmlschema") or (e.name or "").startswith(
            "dissect"
        ):
            print(
                f"etwmc: the compiler needs {e.name}, which is not installed; "
                "install the compiler with: pip install 'etwmc[compiler]'",
                file=sys.stderr,
            )
            return EXIT_USAGE
        raise_internal(e)
        return EXIT_USAGE
    except Exception as e:  # noqa: BLE001 - the last line of defence: never a bare traceback
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
