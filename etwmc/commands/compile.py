"""``etwmc compile``: manifests -> Python provider modules, binary resources, C headers.

Each manifest's outputs are planned in memory (:func:`etwmc.compile.compile_manifest`)
and written all-or-nothing (:func:`etwmc.writer.write_set`, under the output folder's
lock: a second compile into the same folder waits for the first); with ``--check``
nothing is written and the exit status says whether the outputs on disk are current.
Options come from the project's configuration (``[tool.etwmc]``, the build plugins'
table) and the flags, which win.  Diagnostics (errors and warnings; notes are lint's)
go to standard output.

Given no manifest, the command works on the project's outputs: the manifests and
package the configuration names, compiled by :func:`etwmc.buildhooks.plan` (what the
build plugins write, where an editable build writes it); ``--check`` compares them with
the files on disk, and without it they are written there.  ``--diff`` adds a unified
diff of each stale output to ``--check``'s report (:mod:`._stale`).

Exit status: 0 written (or current), 1 a manifest has errors, outputs are stale or
could not be written, 2 usage (an unreadable manifest, an unusable name, bad options).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..compile import compile_manifest
from ..config import Config, show
from ..diagnostics import FORMATS, Diagnostic, Severity, finalize, visible
from ..inputs import UsageError
from ..options import CompileOptions, OptionsError, as_table, options_from_table
from ..record import replace
from ..selection import Selection, SelectorError
from ..writer import WriteError, write_set
from . import EXIT_ERRORS, EXIT_OK, exit_status
from ._output import config_arguments, project_config, report, shown, waiting
from ._stale import report_stale

DESCRIPTION = (
    "Compile instrumentation manifests into a Python provider module, the WEVT_TEMPLATE "
    "blob (<base>TEMP.BIN), one message table per culture (<base>_MSG0000N.bin), the .rc "
    "that links them and, on request, mc's C/C++ header and a resource-only DLL.  Outputs "
    "are written all-or-nothing.  Settings come from [tool.etwmc] in the nearest "
    "pyproject.toml (or etwmc.toml); flags win.  With no manifest, the project's are "
    "compiled (its manifests and package keys): the outputs the build plugins write, "
    "where an editable build writes them."
)
STDIN = "-"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "manifests",
        nargs="*",
        metavar="MANIFEST",
        help="manifests to compile (- reads one from standard input; give -z then); none: "
        "the project's, as its configuration names them",
    )
    p.add_argument("-o", "--output-dir", metavar="DIR", help="output folder (default: .)")
    p.add_argument(
        "-z",
        "--base",
        metavar="BASE",
        help="base name of the outputs (default: each manifest's file name; one manifest only)",
    )
    p.add_argument(
        "--wevt-version",
        type=int,
        metavar="{3,5}",
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
        metavar="{um,km}",
        help="also write <base>.h, the C/C++ header mc -um (or -km) writes",
    )
    p.add_argument(
        "--no-version-comment",
        action="store_true",
        default=None,
        help="leave etwmc's version out of the generated module's first line, so committed "
        "outputs survive an upgrade of etwmc",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if the outputs on disk differ from what would be written",
    )
    p.add_argument(
        "--diff",
        action="store_true",
        help="with --check: print a unified diff of each stale output",
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


DEFAULTS = CompileOptions()

# The flag that sets each option, to name it in a message (the options type checks
# the values: etwmc.options).
_FLAGS = {"wevt_version": "--wevt-version", "c_header": "--c-header"}


def options(args: argparse.Namespace, config: Config) -> CompileOptions:
    """The configuration's options with the flags given on the command line over them."""
    try:
        configured = options_from_table(config.table, config.where)
    except OptionsError as e:
        raise UsageError(str(e)) from None
    try:
        return configured.with_flags(
            wevt_version=args.wevt_version,
            legacy_template_ids=args.legacy_template_ids,
            python=False if args.no_python else None,
            binary=False if args.no_binary else None,
            resource_dll=args.resource_dll,
            c_header=args.c_header,
            werror=args.werror,
            verify=args.verify or None,
            version_comment=False if args.no_version_comment else None,
        )
    except OptionsError as e:
        flag = _FLAGS.get(e.key or "")
        raise UsageError(f"{flag}: {e}" if flag else str(e)) from None


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
    if args.diff and not args.check:
        raise UsageError("--diff shows what --check finds stale: give --check too")
    if not args.manifests:
        return _project(args, config, opts, selection)
    if len(args.manifests) > 1 and (args.base or args.module):
        raise UsageError("-z and --module name one manifest's outputs: compile one at a time")
    if STDIN in args.manifests and not args.base:
        raise UsageError("a manifest read from standard input needs -z BASE to name its outputs")
    output_dir = args.output_dir or "."
    status = EXIT_OK
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
            status = max(status, exit_status(result.diagnostics))
        elif args.check:
            command = regenerate_command(args, opts, manifest, output_dir)
            if _stale(args, Path(output_dir), result.files, command):
                status = max(status, EXIT_ERRORS)
        else:
            try:
                write_set(output_dir, result.files, on_wait=waiting("compile"))
            except WriteError as e:
                print(f"etwmc compile: {e}", file=sys.stderr)
                status = max(status, EXIT_ERRORS)
    report(finalize(diags), args.format)
    return status


def _project(
    args: argparse.Namespace, config: Config, opts: CompileOptions, selection: Selection
) -> int:
    """No manifest named: the project's outputs, checked or written."""
    if args.base or args.module or args.output_dir is not None:
        raise UsageError(
            "-o, -z and --module name the outputs of manifests given on the command line; "
            "the project's outputs go where its configuration puts them ('package')"
        )
    if not config.manifests:
        raise UsageError(
            "give at least one manifest (or - for standard input), or name the project's "
            f"in its configuration ('manifests' and 'package' in {config.where})"
        )
    # Only a compile of the project's outputs needs the build plugins' planner (7 ms of
    # start-up that a compile of named manifests would pay for nothing).
    from ..buildhooks import (
        BuildFailed,
        ConfigError,
        WriteFailed,
        options_from_config,
        plan,
        write_planned,
    )

    try:
        # The build plugins' reading of the configuration, with the command line's options.
        build = replace(options_from_config(config), compile=opts)
        planned = plan(config.root, build, out_dir=None, selection=selection)
    except BuildFailed as e:
        report(_from_here(config, e.diagnostics), args.format)
        return exit_status(e.diagnostics)
    except ConfigError as e:
        raise UsageError(str(e)) from None
    status = EXIT_OK
    if args.check:
        command = regenerate_command(args, opts, base=config.options())
        if _stale(args, Path(shown(planned.target)), planned.files, command):
            status = EXIT_ERRORS
    else:
        try:
            write_planned(planned, build, in_place=True)
        except WriteFailed as e:
            print(f"etwmc compile: {e}", file=sys.stderr)
            status = EXIT_ERRORS
    report(_from_here(config, planned.diagnostics), args.format)
    return status


def _from_here(config: Config, diags: list[Diagnostic]) -> list[Diagnostic]:
    """A build's diagnostics (notes left to lint), their files named from the current
    folder: the build names them from the project's root."""
    return finalize(
        [
            replace(d, span=replace(d.span, file=shown(config.root / d.span.file)))
            for d in diags
            if d.severity != Severity.NOTE
        ]
    )


def _stale(args: argparse.Namespace, folder: Path, files: dict[str, bytes], command: str) -> bool:
    out_of_date = report_stale(folder, files, diff=args.diff, on_wait=waiting("compile"))
    if out_of_date:
        print(
            f"etwmc: {len(out_of_date)} of {len(files)} outputs in {visible(str(folder))} are "
            f"stale; regenerate with: {visible(command)}",
            file=sys.stderr,
        )
    return bool(out_of_date)


def regenerate_command(
    args: argparse.Namespace,
    opts: CompileOptions,
    manifest: str | None = None,
    output_dir: str = ".",
    *,
    base: CompileOptions = DEFAULTS,
) -> str:
    """The ``etwmc compile`` command that rewrites what ``--check`` found stale: the
    options in force that differ from ``base`` spelled as flags.  For manifests named
    on the command line ``base`` is the defaults, so the command does the same wherever
    it runs; for the project's outputs (no manifest) it is the configuration's options,
    which the command reads again."""
    words = ["etwmc", "compile"]
    if manifest is not None:
        words += [manifest, "-o", output_dir]
    elif args.config:
        words += ["--config", args.config]
    if args.base:
        words += ["-z", args.base]
    if args.module:
        words += ["--module", args.module]
    if opts.version != opts.implied_version and opts.version != base.version:
        words += ["--wevt-version", str(opts.version)]
    if opts.c_header and opts.c_header != base.c_header:
        words.append(f"--c-header={opts.c_header}")
    words += [
        flag
        for flag, on, configured in (
            ("--legacy-template-ids", opts.legacy_template_ids, base.legacy_template_ids),
            ("--no-python", not opts.python, not base.python),
            ("--no-binary", not opts.binary, not base.binary),
            ("--resource-dll", opts.resource_dll, base.resource_dll),
            ("--no-version-comment", not opts.version_comment, not base.version_comment),
        )
        if on and not configured
    ]
    import shlex  # --check of a stale output only (start-up cost)

    return " ".join(shlex.quote(w) for w in words)
