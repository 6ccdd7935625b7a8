"""``etwmc compile``: manifests -> Python provider modules, binary resources, C headers.

Each manifest's outputs are planned in memory (:func:`etwmc.compile.compile_manifest`)
and written all-or-nothing (:mod:`etwmc.emit`); with ``--check`` nothing is written
and the exit status says whether the outputs on disk are current.  Options come from
the project's configuration (``[tool.etwmc]``, the build plugins' table) and the flags,
which win.  Diagnostics (errors and warnings; notes are lint's) go to standard output.

Exit status: 0 written (or current), 1 a manifest has errors or outputs are stale, 2
usage (an unreadable manifest, an unusable name, an output that cannot be written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..codes import E_BASE
from ..compile import compile_manifest
from ..config import Config, show
from ..diagnostics import FORMATS, Diagnostic, Severity, finalize
from ..emit import EmitError, stale, write_all
from ..inputs import UsageError
from ..options import CompileOptions, OptionsError, as_table, options_from_table
from ..selection import SelectorError
from ._output import config_arguments, project_config, report

DESCRIPTION = (
    "Compile instrumentation manifests into a Python provider module, the WEVT_TEMPLATE "
    "blob (<base>TEMP.BIN), one message table per culture (<base>_MSG0000N.bin), the .rc "
    "that links them and, on request, mc's C/C++ header and a resource-only DLL.  Outputs "
    "are written all-or-nothing.  Settings come from [tool.etwmc] in the nearest "
    "pyproject.toml (or etwmc.toml); flags win."
)
STDIN = "-"

# Diagnostics that mean the command could not run as asked: the manifest cannot be
# read, or an output name is unusable.  They exit 2, like other usage errors.
USAGE_CODES = frozenset({"ETW001", "ETW012", E_BASE.id})


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "manifests",
        nargs="*",
        metavar="MANIFEST",
        help="manifests to compile (- reads one from standard input; give -z then)",
    )
    p.add_argument(
        "-o", "--output-dir", default=".", metavar="DIR", help="output folder (default: .)"
    )
    p.add_argument(
        "-z",
        "--base",
        metavar="BASE",
        help="base name of the outputs (default: each manifest's file name; one manifest only)",
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
        default=None,
        help="give templates mc 8.1's MD5-based ids, to reproduce blobs built by the "
        "Windows 8.1 SDK (implies --wevt-version 3)",
    )
    p.add_argument("--module", metavar="NAME", help="name of the generated Python module")
    p.add_argument("--no-python", action="store_true", default=None, help="do not write the module")
    p.add_argument(
        "--no-binary", action="store_true", default=None, help="do not write the binaries"
    )
    p.add_argument(
        "--resource-dll", action="store_true", default=None, help="also write a resource DLL"
    )
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
    p.add_argument("--werror", action="store_true", default=None, help="warnings fail too")
    p.add_argument(
        "--show-config", action="store_true", help="print the settings in force and exit"
    )
    config_arguments(p)


def options(args: argparse.Namespace, config: Config) -> CompileOptions:
    """The configuration's options with the flags given on the command line over them."""
    if args.no_python and args.no_binary and not (args.resource_dll or args.c_header):
        raise UsageError(
            "--no-python and --no-binary leave nothing to write (add --resource-dll or "
            "--c-header, or drop one of them)"
        )
    try:
        base = options_from_table(config.table, config.where)
        legacy = bool(args.legacy_template_ids) or base.legacy_template_ids
        version = base.wevt_version
        if args.wevt_version is not None:
            version = 3 if args.wevt_version == 3 else 5
        elif args.legacy_template_ids:
            version = None  # mc 8.1's layout goes with its ids
        return CompileOptions(
            wevt_version=version,
            legacy_template_ids=legacy,
            python=base.python and not args.no_python,
            binary=base.binary and not args.no_binary,
            resource_dll=bool(args.resource_dll) or base.resource_dll,
            c_header=args.c_header or base.c_header,
            werror=bool(args.werror) or base.werror,
            verify=bool(args.verify),
        )
    except OptionsError as e:
        raise UsageError(str(e)) from None


def run(args: argparse.Namespace) -> int:
    config = project_config(args)
    opts = options(args, config)
    try:
        selection = config.selection()
    except SelectorError as e:
        raise UsageError(str(e)) from None
    if args.show_config:
        sys.stdout.write(show(config, as_table(opts)))
        return 0
    if not args.manifests:
        raise UsageError("give at least one manifest (or - for standard input)")
    if len(args.manifests) > 1 and (args.base or args.module):
        raise UsageError("-z and --module name one manifest's outputs: compile one at a time")
    if STDIN in args.manifests and not args.base:
        raise UsageError("a manifest read from standard input needs -z BASE to name its outputs")
    status = 0
    diags: list[Diagnostic] = []
    for manifest in args.manifests:
        data = sys.stdin.buffer.read() if manifest == STDIN else None
        label = "<stdin>" if manifest == STDIN else manifest
        result = compile_manifest(
            label, opts, base=args.base, module=args.module, data=data, selection=selection
        )
        # Notes are advice for `etwmc lint`; a compile reports what can fail or mislead.
        diags += [d for d in result.diagnostics if d.severity != Severity.NOTE]
        if not result.ok:
            usage = any(d.code in USAGE_CODES for d in result.diagnostics)
            status = max(status, 2 if usage else 1)
            continue
        if args.check:
            if _stale(args, manifest, result.files, opts):
                status = max(status, 1)
            continue
        try:
            write_all(args.output_dir, result.files)
        except EmitError as e:
            raise UsageError(str(e)) from None
    report(finalize(diags), args.format)
    return status


def _stale(
    args: argparse.Namespace, manifest: str, files: dict[str, bytes], opts: CompileOptions
) -> bool:
    out_of_date = stale(args.output_dir, files)
    for name, why in out_of_date:  # the report: which files, and how they differ
        detail = _change_summary(Path(args.output_dir) / name, files[name], why)
        print(f"{Path(args.output_dir) / name}: {why}{detail}")
    if any(why == "interrupted" for _, why in out_of_date):
        print(
            f"etwmc: a compile into {args.output_dir} was interrupted, so its files may "
            "be a mix of two versions; the next compile puts it right",
            file=sys.stderr,
        )
    if out_of_date:
        print(
            f"etwmc: {len(out_of_date)} of {len(files)} outputs are stale; "
            f"regenerate with: {regenerate_command(args, manifest, opts)}",
            file=sys.stderr,
        )
    return bool(out_of_date)


def _change_summary(path: Path, new: bytes, why: str) -> str:
    """`` (+a -b lines)`` for a text output that differs, else nothing."""
    if why != "differs" or path.suffix not in (".py", ".rc", ".h"):
        return ""
    try:
        old = path.read_bytes().decode("utf-8").splitlines()
        lines = new.decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ""
    import difflib  # --check of a stale output only: start-up cost of every compile

    added = removed = 0
    for line in difflib.unified_diff(old, lines, lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return f" (+{added} -{removed} lines)"


def regenerate_command(args: argparse.Namespace, manifest: str, opts: CompileOptions) -> str:
    """The ``etwmc compile`` command that rewrites what ``--check`` found stale: the
    options in force spelled as flags, so it does the same wherever it runs."""
    words = ["etwmc", "compile", manifest, "-o", args.output_dir]
    if args.base:
        words += ["-z", args.base]
    if args.module:
        words += ["--module", args.module]
    default = CompileOptions(legacy_template_ids=opts.legacy_template_ids).version
    if opts.version != default:
        words += ["--wevt-version", str(opts.version)]
    if opts.c_header:
        words.append(f"--c-header={opts.c_header}")
    words += [
        flag
        for flag, on in (
            ("--legacy-template-ids", opts.legacy_template_ids),
            ("--no-python", not opts.python),
            ("--no-binary", not opts.binary),
            ("--resource-dll", opts.resource_dll),
        )
        if on
    ]
    import shlex  # --check of a stale output only (start-up cost)

    return " ".join(shlex.quote(w) for w in words)
