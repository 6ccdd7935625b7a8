"""``etwmc mc [options] FILE.man``: mc.exe's command line, for instrumentation manifests.

Options are spelled ``-x`` or ``/x`` and are case-sensitive, as mc's are.  A value
is the next argument (``-h include``).  With ``-``, one-letter switches may be
combined (``-bv``); with ``/`` only whole option names are recognised, so an absolute
path such as ``/tmp/x.man`` stays a path.  ``-?``, ``-help`` and ``--help`` print the
usage.

=====================  =================================================================
``-um`` / ``-km``      user-mode / kernel-mode logging code in the header (default -um);
                       -km write macros take an activity GUID (or NULL) first
``-h DIR``             folder of the header (default: the current folder)
``-e EXT``             extension of the header, 1 to 3 letters or digits (default ``h``)
``-r DIR``             folder of the .rc, the TEMP.BIN and the message tables
``-z BASE``            base name of the outputs (default: the manifest's file name)
``-b``                 message tables named ``BASE_MSG00001.bin`` (also with -z)
                       instead of ``MSG00001.bin``
``-c``                 set the customer bit (0x20000000) in every message id
``-cp ENC``            encoding of the header and the .rc: ansi (default), utf-8 or
                       utf-16 (both with a byte-order mark)
``-m LENGTH``          warn (ETW623) about every message longer than LENGTH characters
``-p PREFIX``          write macros start with PREFIX instead of ``EventWrite``
``-P PREFIX``          take PREFIX (any case) off the front of event symbols first
``-s DIR``             also write ``DIR/BASE.BIN``, a baseline for later -t checks
``-t DIR``             check the manifest against the baseline ``DIR/BASE.BIN``:
                       changes that break consumers are errors (``etwmc diff``'s rules)
``-v``                 list the files written
``-w``/``-W`` PATH     accepted and ignored, as mc does since 1.12.7051
``-a``/``-u``/``-U``   accepted: they describe .mc message files and Unicode message
                       tables, which is what a manifest gets anyway
=====================  =================================================================

Outputs, with mc's names: ``BASE.h`` in the -h folder; ``BASE.rc``, ``BASETEMP.BIN``
and one ``MSG0000n.bin`` per culture in the -r folder (:mod:`etwmc.outputs` makes
them, :func:`etwmc.writer.write_sets` writes them).  They are written all-or-nothing
across the folders, which are created: if one cannot be written, none is.

mc options etwmc does not implement end in an error that names them (exit 2): ``-A``
(ANSI message tables), ``-mof``, ``-co``, ``-cs``/``-css``, ``-generateProjections``,
the .mc-file options ``-d``, ``-n``, ``-o``, ``-x`` and .mc message files themselves.
Exit codes: 0 written, 1 the manifest has errors (or an output could not be written),
2 a usage error (:mod:`etwmc.commands` defines them for every command).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import cast

from ..compile import compile_manifest
from ..diagnostics import Diagnostic, Severity, finalize, has_errors, render
from ..diff import diff_manifests, load
from ..inputs import UsageError
from ..model import Manifest
from ..options import CompileOptions, OptionsError, TextEncoding
from ..outputs import default_base, file_name_problem
from ..writer import WriteError, write_sets
from . import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, exit_status
from ._output import waiting

USAGE = """\
usage: etwmc mc [-um | -km] [-h DIR] [-r DIR] [-z BASE] [-e EXT] [-b] [-c]
                [-cp ansi|utf-8|utf-16] [-m LENGTH] [-p PREFIX] [-P PREFIX]
                [-s DIR] [-t DIR] [-v] FILE.man

mc.exe's command line for an instrumentation manifest.  Options start with - or /.
  -um, -km       user-mode (default) or kernel-mode logging code in the header
  -h DIR         folder of BASE.h (default: .)      -e EXT  header extension (h)
  -r DIR         folder of BASE.rc, BASETEMP.BIN and MSG0000n.bin (default: .)
  -z BASE        base name of the outputs (default: the manifest's name)
  -b             message tables named BASE_MSG0000n.bin
  -c             set the customer bit in every message id
  -cp ENC        encoding of the header and the .rc: ansi, utf-8 or utf-16
  -m LENGTH      warn about messages longer than LENGTH characters
  -p PREFIX      write macros start with PREFIX instead of EventWrite
  -P PREFIX      take PREFIX off the front of event symbols first
  -s DIR, -t DIR write a baseline / check against one (DIR/BASE.BIN)
  -v             list the files written
  -w, -W, -a, -u, -U   accepted; no effect on a manifest
Not supported (an error): -A, -mof, -co, -cs, -css, -generateProjections, -d, -n,
-o, -x and .mc message files.
"""

_SWITCHES = {"?", "a", "b", "c", "u", "U", "v", "um", "km"}
_VALUED = {"h", "e", "r", "z", "cp", "m", "p", "P", "s", "t", "w", "W"}
_UNSUPPORTED = {
    "A": "etwmc writes Unicode message tables only (-U)",
    "mof": "etwmc does not write MOF (pre-Vista) logging code",
    "co": "etwmc does not write logging callouts",
    "generateProjections": "etwmc does not write WinRT projections",
    "d": "it applies to .mc message files, which etwmc does not compile",
    "n": "it applies to .mc message files, which etwmc does not compile",
    "o": "it applies to .mc message files, which etwmc does not compile",
}
_UNSUPPORTED_VALUED = {
    "cs": "etwmc does not write C# code",
    "css": "etwmc does not write C# code",
    "x": "it applies to .mc message files, which etwmc does not compile",
}


@dataclass(frozen=True, slots=True)
class McOptions:
    manifest: str = ""
    kernel: bool = False
    mode: str | None = None  # "um" or "km" as given
    header_dir: str = "."
    rc_dir: str = "."
    base: str | None = None
    ext: str = "h"
    base_names: bool = False  # -b
    customer_bit: bool = False
    encoding: str = "ansi"
    max_length: int | None = None
    write_prefix: str = "EventWrite"
    strip_prefix: str | None = None
    baseline_dir: str | None = None  # -s
    check_dir: str | None = None  # -t
    verbose: bool = False
    help: bool = False
    ignored: tuple[str, ...] = field(default=())


def _split(arg: str) -> list[str] | None:
    """The options one argument holds, or None for a file."""
    if len(arg) < 2 or arg[0] not in "-/":
        return None
    body = arg[1:]
    if body in _SWITCHES or body in _VALUED or body in _UNSUPPORTED or body in _UNSUPPORTED_VALUED:
        return [body]
    if body in ("help", "-help"):
        return ["?"]
    if arg[0] == "/":
        return None  # a path
    if all(ch in _SWITCHES or ch in _UNSUPPORTED for ch in body):
        return list(body)
    raise UsageError(f"unknown option '{arg}'")


def parse(argv: Sequence[str]) -> McOptions:
    """mc's command line -> options; raises :class:`UsageError`."""
    opts = McOptions()
    files: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        parts = _split(arg)
        if parts is None:
            files.append(arg)
            continue
        for name in parts:
            if name in _UNSUPPORTED or name in _UNSUPPORTED_VALUED:
                why = _UNSUPPORTED.get(name) or _UNSUPPORTED_VALUED[name]
                raise UsageError(f"option -{name} is not supported: {why}")
            value = None
            if name in _VALUED:
                if i >= len(argv):
                    raise UsageError(f"option -{name} needs a value")
                value = argv[i]
                i += 1
            opts = _apply(opts, name, value)
    if opts.help:
        return opts
    manifests = [f for f in files if not f.lower().endswith(".mc")]
    if len(files) != len(manifests):
        raise UsageError(
            "message text files (.mc) are not supported: etwmc compiles manifests "
            "(binutils' windmc compiles .mc files)"
        )
    if len(manifests) != 1:
        raise UsageError(
            "give exactly one manifest" if manifests else "no manifest given (FILE.man)"
        )
    return replace(opts, manifest=manifests[0])


def _apply(opts: McOptions, name: str, value: str | None) -> McOptions:
    if name in ("um", "km"):
        if opts.mode is not None and opts.mode != name:
            raise UsageError("-um and -km cannot be used together")
        return replace(opts, mode=name, kernel=name == "km")
    if name == "?":
        return replace(opts, help=True)
    if name == "b":
        return replace(opts, base_names=True)
    if name == "c":
        return replace(opts, customer_bit=True)
    if name == "v":
        return replace(opts, verbose=True)
    if name in ("a", "u", "U", "w", "W"):
        return replace(opts, ignored=(*opts.ignored, f"-{name}"))
    assert value is not None
    if name == "e":
        _checked("-e", header_extension=value)
        return replace(opts, ext=value)
    if name == "cp":
        _checked("-cp", text_encoding=value.lower())
        return replace(opts, encoding=value.lower())
    if name == "m":
        if not value.isdigit():
            raise UsageError(f"-m {value!r}: the length is a positive number")
        _checked("-m", max_message_length=int(value))
        return replace(opts, max_length=int(value))
    if name == "p":
        _checked("-p", write_prefix=value)
        return replace(opts, write_prefix=value)
    if name == "P":
        _checked("-P", strip_prefix=value)
        return replace(opts, strip_prefix=value)
    if name == "z":
        why = file_name_problem(value)
        if why:
            raise UsageError(f"-z {value!r}: the base name must be a plain file name: {why}")
        return replace(opts, base=value)
    if name == "h":
        return replace(opts, header_dir=value)
    if name == "r":
        return replace(opts, rc_dir=value)
    if name == "s":
        return replace(opts, baseline_dir=value)
    return replace(opts, check_dir=value)


def _checked(flag: str, **option: object) -> None:
    """The options type's verdict on one option's value (it checks every option)."""
    try:
        CompileOptions(**option)  # type: ignore[arg-type]
    except OptionsError as e:
        raise UsageError(f"{flag}: {e}") from None


def compile_options(opts: McOptions) -> CompileOptions:
    """What mc's switches ask for: the header and the binaries, named mc's way."""
    return CompileOptions(
        python=False,
        c_header="km" if opts.kernel else "um",
        header_extension=opts.ext,
        write_prefix=opts.write_prefix,
        strip_prefix=opts.strip_prefix,
        customer_bit=opts.customer_bit,
        text_encoding=cast(TextEncoding, opts.encoding),
        prefixed_tables=opts.base_names or opts.base is not None,
        baseline=opts.baseline_dir is not None,
        max_message_length=opts.max_length,
    )


@dataclass
class _Plan:
    groups: dict[str, dict[str, bytes]]  # folder -> file name -> bytes
    diagnostics: list[Diagnostic]


def plan(opts: McOptions) -> _Plan:
    """Validate the manifest and make every output in memory, by folder."""
    result = compile_manifest(opts.manifest, compile_options(opts), base=opts.base)
    diags = [d for d in result.diagnostics if d.severity != Severity.NOTE]
    if result.manifest is not None and opts.check_dir is not None:
        diags += _baseline_check(result.manifest, Path(opts.check_dir) / f"{_base(opts)}.BIN")
    if has_errors(diags):
        return _Plan({}, diags)
    folders = {"header": opts.header_dir, "resources": opts.rc_dir, "baseline": opts.baseline_dir}
    groups: dict[str, dict[str, bytes]] = {}
    for place, files in result.placed.items():
        folder = folders.get(place)
        if folder is not None:
            groups.setdefault(folder, {}).update(files)
    return _Plan(groups, diags)


def _base(opts: McOptions) -> str:
    return opts.base if opts.base is not None else default_base(opts.manifest)


def _baseline_check(manifest: Manifest, path: Path) -> list[Diagnostic]:
    """-t: what ``etwmc diff`` finds between the baseline at ``path`` and ``manifest``
    (warnings and errors: the changes that break decoders or consumers)."""
    if not path.is_file():
        raise UsageError(f"-t: there is no baseline {path} (write one with -s)")
    old, problems = load(path)
    if old is None:
        return problems
    return problems + [d for d in diff_manifests(old, manifest) if d.severity != Severity.NOTE]


def main(argv: Sequence[str]) -> int:
    try:
        opts = parse(argv)
        if opts.help:
            sys.stdout.write(USAGE)
            return EXIT_OK
        result = plan(opts)
    except UsageError as e:
        sys.stderr.write(f"etwmc mc: {e}\n{USAGE}")
        return EXIT_USAGE
    diags = finalize(result.diagnostics)
    if diags:
        sys.stdout.write(render(diags, "text"))
    if has_errors(diags):
        return exit_status(diags)
    try:
        paths = write_sets(result.groups, on_wait=waiting("mc"))
    except WriteError as e:
        print(f"etwmc mc: {e}", file=sys.stderr)
        return EXIT_ERRORS
    if opts.verbose:
        for flag in opts.ignored:
            print(f"etwmc mc: {flag} has no effect on a manifest")
        for p in paths:
            print(f"etwmc mc: wrote {p.parent.resolve() / p.name}")
    return EXIT_OK


DESCRIPTION = (
    "mc.exe's command line for instrumentation manifests: writes mc's C/C++ header, .rc, "
    "TEMP.BIN and message tables with mc's names.  Run etwmc mc -? for its options."
)


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("args", nargs=argparse.REMAINDER)


def run(args: argparse.Namespace) -> int:
    """The ``etwmc mc`` subcommand (cli.py hands over the raw arguments)."""
    return main(list(args.args))
