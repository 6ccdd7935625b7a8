"""``etwmc mc [options] FILE.man FILE.mc``: mc.exe's command line.

It takes an instrumentation manifest, a message text file (``.mc``), or one of each,
as mc does.  Options are spelled ``-x`` or ``/x`` and are case-sensitive, as mc's are.
A value is the next argument (``-h include``).  With ``-``, one-letter switches may be
combined (``-bv``); with ``/`` only whole option names are recognised, so an absolute
path such as ``/tmp/x.man`` stays a path.  ``-?``, ``-help`` and ``--help`` print the
usage.  docs/mc-switches.md lists every switch of mc and what etwmc does with it.

Outputs, with mc's names: for a manifest ``BASE.h`` in the -h folder (logging code
with -um/-km, definitions only without), ``BASE.rc``, ``BASETEMP.BIN`` and one
``MSG0000n.bin`` per culture in the -r folder; for a message text file ``BASE.h``,
``BASE.rc`` and one table per language (:mod:`etwmc.mctext`), and ``BASE.dbg`` in the
-x folder.  With both, each header keeps its input's name and the resources are one
set named after the message text file (:mod:`etwmc.mctext.combine`).  Everything is
made by the output registry (:mod:`etwmc.outputs`: the manifest's kinds and the message
text file's) and written by :func:`etwmc.writer.write_sets`: all-or-nothing across the
folders, which are created, under their locks.

Exit codes (:mod:`etwmc.commands`): 0 written, 1 an input has errors (or an output could
not be written), 2 a usage error (an unknown or unsupported option: -mof, -cs, -css,
-co and -generateProjections end in an error that says why; an input that cannot be
read; an unusable output name, ETW612).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from .. import mctext
from ..diagnostics import Diagnostic, Severity, finalize, has_errors, render
from ..inputs import UsageError
from ..options import CompileOptions, HeaderMode, OptionsError, TextEncoding
from ..outputs import (
    MANIFEST_OUTPUTS,
    MESSAGE_TABLES,
    MESSAGE_TEXT_OUTPUTS,
    ManifestBuild,
    Place,
    TextBuild,
    checks,
    default_base,
    manifest_part,
    name_check,
)
from ..outputs import plan as plan_outputs
from ..record import Record, field, replace
from ..writer import WriteError, file_name_problem, write_sets
from . import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, exit_status
from ._output import waiting

if TYPE_CHECKING:
    from ..outputs import Planned

# The manifest's stack (validation, lxml, -W, -w and -t) is imported by the functions
# that need it: a run for a message text file alone does without it, and starts about
# a sixth faster.

USAGE = """\
usage: etwmc mc [options] [FILE.man] [FILE.mc]

mc.exe's command line: an instrumentation manifest, a message text file, or both.
Options start with - or /.
  -um, -km       user-mode or kernel-mode logging code in the manifest's header
                 (without either: a header of definitions only, as current mc writes)
  -h DIR         folder of the headers (default: .)     -e EXT  header extension (h)
  -r DIR         folder of the .rc, TEMP.BIN and message tables (default: .)
  -x DIR         folder of the .mc's BASE.dbg (message ids and their names)
  -z BASE        base name of the outputs (default: the input's name)
  -b             message tables named BASE_FILE.bin
  -c             set the customer bit in every message id
  -cp ENC        encoding of the text outputs: ansi, utf-8 or utf-16
  -m LENGTH      warn about messages longer than LENGTH characters
  -p PREFIX      write macros start with PREFIX instead of EventWrite
  -P PREFIX      take PREFIX off the front of event symbols first
  -s DIR, -t DIR write a baseline (per-provider .BIN, MCGenResource.BIN) / check one
  -W FILE        a winmeta.xml: its texts of predefined items; values are checked
  -w FILE        a schema (eventman.xsd) the manifest must also satisfy
  -a, -u         the .mc is ANSI / UTF-16LE (a byte-order mark decides by itself)
  -acp CODEPAGE  the ANSI code page of -a and -A (etwmc's; default 1252)
  -A, -U, -U8    the .mc's tables in ANSI, UTF-16 (default) or UTF-8
  -d             decimal severity and facility values (and message ids) in the header
  -n             no CR LF after the last line of each message
  -o             OLE2 header: the HRESULT layout and _HRESULT_TYPEDEF_
  -v             list the files written
Not supported (an error): -mof, -co, -cs, -css, -generateProjections,
-generateTemplateProjections, -generateTemplateStubs.
"""

_SWITCHES = {"?", "a", "b", "c", "d", "n", "o", "u", "A", "U", "U8", "v", "um", "km"}
_VALUED = {"h", "e", "r", "x", "z", "cp", "acp", "m", "p", "P", "s", "t", "w", "W"}
_UNSUPPORTED = {
    "mof": "etwmc does not write MOF (pre-Vista) logging code",
    "co": "etwmc does not write logging callouts",
    "generateProjections": "etwmc does not write WinRT projections",
    "generateTemplateProjections": "etwmc does not write WinRT projections",
}
_UNSUPPORTED_VALUED = {
    "cs": "etwmc does not write C# code",
    "css": "etwmc does not write C# code",
    "generateTemplateStubs": "etwmc does not write WinRT projections",
}
# The switches that only change what a message text file gives, and what a manifest
# alone makes of them.
_MC_ONLY = ("a", "u", "d", "n", "o")
_MANIFEST_ONLY = ("um", "km", "p", "P", "s", "t", "w", "W")


class McOptions(Record):
    manifest: str = ""
    mc_file: str = ""
    kernel: bool = False
    mode: str | None = None  # "um" or "km" as given; None: definitions only
    header_dir: str = "."
    rc_dir: str = "."
    dbg_dir: str | None = None  # -x
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
    winmeta: str | None = None  # -W
    schema: str | None = None  # -w
    unicode_input: bool = False  # -u
    code_page: str = "cp1252"  # -acp
    table_flags: int = mctext.MESSAGE_RESOURCE_UNICODE  # -A, -U, -U8
    decimal: bool = False  # -d
    final_line_end: bool = True  # -n
    ole2: bool = False  # -o
    verbose: bool = False
    help: bool = False
    given: tuple[str, ...] = field(default=(), compare=False)  # every switch, for -v

    def text_options(self) -> mctext.McTextOptions:
        return mctext.McTextOptions(
            unicode_input=self.unicode_input,
            code_page=self.code_page,
            customer_bit=self.customer_bit,
            decimal=self.decimal,
            ole2=self.ole2,
            table_flags=self.table_flags,
            final_line_end=self.final_line_end,
            max_length=self.max_length,
        )

    def ignored(self) -> list[str]:
        """The switches given that have no effect on the inputs given."""
        if not self.mc_file:
            return [f"-{n}" for n in _MC_ONLY if n in self.given]
        if not self.manifest:
            return [f"-{n}" for n in _MANIFEST_ONLY if n in self.given]
        return []


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
            opts = replace(_apply(opts, name, value), given=(*opts.given, name))
    if opts.help:
        return opts
    return _inputs(opts, files)


def _inputs(opts: McOptions, files: list[str]) -> McOptions:
    texts = [f for f in files if f.lower().endswith(".mc")]
    manifests = [f for f in files if not f.lower().endswith(".mc")]
    if not files:
        raise UsageError("no input given: name a manifest (FILE.man), a message text file "
                         "(FILE.mc) or one of each")  # fmt: skip
    if len(manifests) > 1 or len(texts) > 1:
        raise UsageError("give at most one manifest and one message text file, as mc takes")
    opts = replace(
        opts, manifest=manifests[0] if manifests else "", mc_file=texts[0] if texts else ""
    )
    if opts.dbg_dir is not None and not opts.mc_file:
        raise UsageError("-x applies to message text files (.mc), and none is given")
    if opts.table_flags != mctext.MESSAGE_RESOURCE_UNICODE and not opts.mc_file:
        raise UsageError(
            "-A and -U8 apply to message text files (.mc): etwmc writes a manifest's "
            "message tables in UTF-16, mc's default"
        )
    if opts.manifest and opts.mc_file:
        if opts.base is not None:
            raise UsageError(
                "-z with a manifest and a message text file would give both headers one "
                "name; leave out -z (the resources take the message text file's name)"
            )
        if default_base(opts.manifest).lower() == default_base(opts.mc_file).lower():
            raise UsageError(
                f"{opts.manifest} and {opts.mc_file} would both write the header "
                f"{default_base(opts.mc_file)}.{opts.ext}: rename one of them"
            )
    return opts


def _apply(opts: McOptions, name: str, value: str | None) -> McOptions:
    if name in ("um", "km"):
        if opts.mode is not None and opts.mode != name:
            raise UsageError("-um and -km cannot be used together")
        return replace(opts, mode=name, kernel=name == "km")
    flags = {
        "?": {"help": True},
        "b": {"base_names": True},
        "c": {"customer_bit": True},
        "v": {"verbose": True},
        "u": {"unicode_input": True},
        "a": {"unicode_input": False},
        "d": {"decimal": True},
        "n": {"final_line_end": False},
        "o": {"ole2": True},
        "A": {"table_flags": mctext.MESSAGE_RESOURCE_ANSI},
        "U": {"table_flags": mctext.MESSAGE_RESOURCE_UNICODE},
        "U8": {"table_flags": mctext.MESSAGE_RESOURCE_UTF8},
    }
    if name in flags:
        return replace(opts, **flags[name])  # type: ignore[arg-type]
    assert value is not None
    return _apply_value(opts, name, value)


def _apply_value(opts: McOptions, name: str, value: str) -> McOptions:
    if name == "e":
        _checked("-e", header_extension=value)
        return replace(opts, ext=value)
    if name == "cp":
        _checked("-cp", text_encoding=value.lower())
        return replace(opts, encoding=value.lower())
    if name == "acp":
        try:
            return replace(opts, code_page=mctext.codec_for(value))
        except LookupError:
            raise UsageError(
                f"-acp {value!r}: not a code page etwmc knows (1252, 932...)"
            ) from None
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
    folders = {"h": "header_dir", "r": "rc_dir", "x": "dbg_dir", "s": "baseline_dir",
               "t": "check_dir", "W": "winmeta", "w": "schema"}  # fmt: skip
    return replace(opts, **{folders[name]: value})


def _checked(flag: str, **option: object) -> None:
    """The options type's verdict on one option's value (it checks every option)."""
    try:
        CompileOptions(**option)  # type: ignore[arg-type]
    except OptionsError as e:
        raise UsageError(f"{flag}: {e}") from None


def compile_options(opts: McOptions) -> CompileOptions:
    """What mc's switches ask of a manifest: its header, and its binaries unless a
    message text file of the same run carries them (joined with its own)."""
    mode: HeaderMode = "definitions" if opts.mode is None else "km" if opts.kernel else "um"
    return CompileOptions(
        python=False,
        binary=not opts.mc_file,
        c_header=mode,
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
    """Check the inputs and make every output in memory, by folder."""
    diags: list[Diagnostic] = []
    for path in (opts.manifest, opts.mc_file):
        if path:  # both inputs' outputs are named after them (or -z): ETW612
            diags += name_check(path, _base(opts, path), None, derived=opts.base is None)
    if has_errors(diags):
        return _Plan({}, diags)
    build = _manifest(opts, diags) if opts.manifest else None
    model = None
    if opts.mc_file:
        model, found = mctext.read_file(opts.mc_file, opts.text_options())
        diags += found
    if has_errors(diags) or (opts.mc_file and model is None):
        return _Plan({}, diags)
    made: list[Planned] = []
    if build is not None:
        made.append(plan_outputs(build, MANIFEST_OUTPUTS))
        if model is not None:  # the manifest's resources join the message text file's
            diags += checks(build, (MESSAGE_TABLES,))
    if model is not None and not has_errors(diags):
        text = TextBuild(
            model,
            opts.text_options(),
            base=_base(opts, opts.mc_file),
            ext=opts.ext,
            prefixed=opts.base_names,
            encoding=opts.encoding,
            debug=opts.dbg_dir is not None,
            manifest=manifest_part(build) if build is not None else None,
        )
        made.append(plan_outputs(text, MESSAGE_TEXT_OUTPUTS))
    diags += [d for p in made for d in p.diagnostics]
    if has_errors(diags):
        return _Plan({}, diags)
    folders: dict[Place, str | None] = {
        "header": opts.header_dir,
        "resources": opts.rc_dir,
        "baseline": opts.baseline_dir,
        "debug": opts.dbg_dir,
    }
    groups: dict[str, dict[str, bytes]] = {}
    for planned in made:
        for place, files in planned.files.items():
            folder = folders.get(place)
            if folder is not None:
                groups.setdefault(folder, {}).update(files)
    return _Plan(groups, diags)


def _manifest(opts: McOptions, diags: list[Diagnostic]) -> ManifestBuild | None:
    """Validate the manifest (with what -w, -W and -t check); its build for the
    registry, or None when it has errors."""
    # Only with a manifest: mc on a message text file alone loads neither lxml nor the
    # validator (137 -> 117 ms CPU on HyperVive's .mc, best of 9).
    from ..mcexe import baseline, winmeta_file
    from ..validate import check_file

    checked = check_file(opts.manifest)
    diags += [d for d in checked.diagnostics if d.severity != Severity.NOTE]
    manifest = checked.manifest
    if not checked.ok or manifest is None:
        return None
    if opts.schema is not None:
        diags += _schema_check(opts.schema, opts.manifest)
    base = default_base(opts.manifest) if opts.mc_file else _base(opts, opts.manifest)
    build = ManifestBuild(manifest, compile_options(opts), path=opts.manifest, base=base)
    if opts.winmeta is not None:
        winmeta, problems = winmeta_file.read_winmeta(opts.winmeta)
        diags += problems
        if winmeta is not None:
            ids = winmeta_file.with_texts(build.ids(), winmeta)
            build = ManifestBuild(manifest, build.options, path=opts.manifest, base=base, ids=ids)
    if opts.check_dir is not None:
        try:
            diags += baseline.check_against(manifest, opts.check_dir)
        except baseline.NoBaseline as e:
            raise UsageError(f"-t: {e}") from None
    return None if has_errors(diags) else build


def _schema_check(schema_path: str, manifest_path: str) -> list[Diagnostic]:
    # Only with -w (it loads lxml's XML Schema support).
    from ..mcexe import schema_file
    from ..parse import parse_file

    schema, problems = schema_file.load_schema(schema_path)
    if schema is None:
        return problems
    doc, _ = parse_file(manifest_path)
    return schema_file.validate(schema, doc.root, manifest_path) if doc is not None else []


def _base(opts: McOptions, path: str) -> str:
    return opts.base if opts.base is not None else default_base(path)


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
        alone = "a manifest" if not opts.mc_file else "a message text file"
        for flag in opts.ignored():
            print(f"etwmc mc: {flag} has no effect on {alone} alone")
        for p in paths:
            print(f"etwmc mc: wrote {p.parent.resolve() / p.name}")
    return EXIT_OK


DESCRIPTION = (
    "mc.exe's command line for instrumentation manifests and message text files (.mc): "
    "writes mc's C/C++ headers, .rc, TEMP.BIN and message tables with mc's names.  Run "
    "etwmc mc -? for its options."
)


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("args", nargs=argparse.REMAINDER)


def run(args: argparse.Namespace) -> int:
    """The ``etwmc mc`` subcommand (cli.py hands over the raw arguments)."""
    return main(list(args.args))
