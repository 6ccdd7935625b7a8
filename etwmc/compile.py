"""``etwmc compile``: a manifest -> its Python provider module and binary resources.

:func:`compile_manifest` is the library entry point (the build plugins call it): it
validates the manifest, plans every output in memory and returns them with the
diagnostics; it writes nothing.  :func:`run` is the subcommand: it writes the plan
all-or-nothing (:mod:`etwmc.emit`), or with ``--check`` compares it with disk.

Outputs for base name ``B``: ``<module>.py`` (default module name: ``B`` made an
identifier), ``BTEMP.BIN``, ``B_MSG0000n.bin`` (one per culture) and ``B.rc``; with
``--c-header``, also ``B.h``.
"""

from __future__ import annotations

import argparse
import keyword
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__
from .codes import E_BASE, E_INTERNAL_RENDER
from .diagnostics import (
    Diagnostic,
    Severity,
    Span,
    diag,
    finalize,
    has_errors,
    render_text,
)
from .model import Manifest


@dataclass(frozen=True, slots=True)
class CompileResult:
    """Planned outputs (file name -> bytes; empty when there are errors) and diagnostics."""

    files: dict[str, bytes] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def output_checks(manifest: Manifest) -> list[Diagnostic]:
    """What producing the outputs reports (names, traits, message tables), without
    producing them: ``etwmc lint`` adds these to validation, so that lint and a compile
    with the default outputs fail and pass together.  The same functions run inside
    :func:`compile_manifest`."""
    from .python import check
    from .wevt import output_diagnostics

    return [*check(manifest), *output_diagnostics(manifest)]


def default_base(path: str | Path) -> str:
    """The manifest's file name without its last extension (``x.man`` -> ``x``)."""
    return Path(path).stem or "manifest"


def compile_manifest(
    path: str | Path,
    *,
    base: str | None = None,
    module: str | None = None,
    wevt_version: int = 5,
    legacy_template_ids: bool = False,
    python: bool = True,
    binary: bool = True,
    werror: bool = False,
    resource_dll: bool = False,
    verify: bool = False,
    c_header: str | None = None,
) -> CompileResult:
    """Validate ``path`` and plan its outputs in memory (nothing is written).

    No manifest text reaches the module except as a checked literal or identifier
    (:mod:`etwmc.python`, :mod:`etwmc.naming`); ``verify`` also parses the module and
    checks that it only imports what etwmc's modules import and only defines names at
    top level (about 1 s per 100,000 generated lines; the tests always do).

    ``legacy_template_ids`` gives the templates mc 8.1's MD5-based ids instead of the
    SHA-256 ones of mc 10 (mc 8.1 wrote CRIM 3.1: pair it with ``wevt_version=3`` to
    reproduce its blobs).

    ``resource_dll`` adds the resource-only DLL (:func:`etwmc.pe.resource_dll`), named
    after the providers' ``resourceFileName`` (else ``<base>.dll``).  ``c_header``
    (``"um"`` or ``"km"``) adds ``<base>.h``, the C/C++ header ``mc -um``/``-km`` writes
    (:mod:`etwmc.header`)."""
    from .validate import check_file

    derived = base is None
    base = base if base is not None else default_base(path)
    problem = name_problem(base, module, derived=derived)
    if problem:
        message, hint = problem
        return CompileResult({}, [diag(E_BASE, Span(str(path)), message, hint=hint)])
    checked = check_file(path, werror=werror)
    diags = list(checked.diagnostics)
    manifest = checked.manifest
    if not checked.ok or manifest is None:
        return CompileResult({}, finalize(diags, werror=werror))
    files: dict[str, bytes] = {}
    if python:
        from .python import generate, module_name

        text, gen_diags = generate(manifest, source=Path(path).name, version=__version__)
        diags.extend(gen_diags)
        if not has_errors(gen_diags):
            safety = _safety_problem(text) if verify else None
            if safety:
                diags.append(diag(E_INTERNAL_RENDER, Span(str(path)), safety))
            files[f"{module or module_name(base)}.py"] = text.encode("ascii")
    if c_header is not None:
        from .header import HeaderOptions, build_header

        header = build_header(manifest, HeaderOptions(kernel=c_header == "km"))
        diags.extend(header.diagnostics)
        if header.ok:
            files[f"{base}.h"] = header.text.encode("ascii")
    if binary or resource_dll:
        from .wevt import binary_outputs, output_diagnostics

        out_diags = list(output_diagnostics(manifest))
        diags.extend(out_diags)
        if not has_errors(out_diags):
            outputs = binary_outputs(
                manifest, base, version=wevt_version, legacy_ids=legacy_template_ids
            )
            if binary:
                files.update(outputs)
            if resource_dll:
                from .pe import dll_name
                from .pe import resource_dll as build_dll

                dll = build_dll(manifest, outputs=outputs, base=base)
                files[dll_name(manifest, f"{base}.dll")] = dll
    diags = finalize(diags, werror=werror)
    return CompileResult({} if has_errors(diags) else files, diags)


def _safety_problem(text: str) -> str | None:
    # Imported here: only --verify needs it, and it imports ast (start-up cost).
    from .python.verify import safety_problem

    return safety_problem(text)


def name_problem(base: str, module: str | None, *, derived: bool = False) -> tuple[str, str] | None:
    """(message, hint) when the output base name or the module name cannot be used.

    The base names every output (``<base>TEMP.BIN``, ``<base>.rc`` ...) and is written
    into the .rc, so it must be a file name Windows can create (:func:`etwmc.emit.
    name_problem`): that also keeps quotes and line breaks out of the .rc.  The module
    name must be a Python identifier that is not a keyword, so that it can be imported."""
    from .emit import name_problem as file_name_problem

    why = file_name_problem(base)
    if why:
        origin = " (from the manifest's file name)" if derived else ""
        return (
            f"the output base name {base!r}{origin} cannot be used: {why}",
            "choose another with -z BASE",
        )
    if module is not None:
        if not (module.isidentifier() and module.isascii()) or keyword.iskeyword(module):
            return (
                f"the module name {module!r} is not an importable Python module name",
                "use an ASCII identifier that is not a Python keyword",
            )
        why = file_name_problem(f"{module}.py")
        if why:
            return f"the module name {module!r} cannot be used: {why}", "choose another"
    return None


def _change_summary(path: Path, new: bytes, why: str) -> str:
    """`` (+a -b lines)`` for a text output that differs, else nothing."""
    import difflib

    if why != "differs" or path.suffix not in (".py", ".rc"):
        return ""
    try:
        old = path.read_bytes().decode("utf-8").splitlines()
        lines = new.decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ""
    added = removed = 0
    for line in difflib.unified_diff(old, lines, lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return f" (+{added} -{removed} lines)"


# Diagnostics that mean the command could not run as asked: the manifest cannot be
# read, or an output name is unusable.  They exit 2, like other usage errors.
USAGE_CODES = frozenset({"ETW001", "ETW012", E_BASE.id})


def run(args: argparse.Namespace) -> int:
    """The ``etwmc compile`` subcommand; exit 0 ok, 1 errors or stale outputs, 2 usage
    errors (an unreadable manifest, an unusable name, an output that cannot be written)."""
    from .emit import EmitError, stale, write_all
    from .inputs import UsageError
    from .lint import render as render_diags

    if args.no_python and args.no_binary and not args.resource_dll:
        raise UsageError(
            "--no-python and --no-binary leave nothing to write (add --resource-dll, "
            "or drop one of them)"
        )
    version = _wevt_version(args)
    if version is None:
        raise UsageError(
            "--legacy-template-ids gives mc 8.1's template ids, and mc 8.1 wrote "
            "WEVT_TEMPLATE version 3; drop --wevt-version 5"
        )
    result = compile_manifest(
        args.manifest,
        base=args.base,
        module=args.module,
        wevt_version=version,
        legacy_template_ids=args.legacy_template_ids,
        python=not args.no_python,
        binary=not args.no_binary,
        werror=args.werror,
        resource_dll=args.resource_dll,
        verify=args.verify,
        c_header=getattr(args, "c_header", None),
    )
    # Notes are advice for `etwmc lint`; a compile reports what can fail or mislead.
    shown = [d for d in result.diagnostics if d.severity != Severity.NOTE]
    if shown:
        sys.stderr.write(render_diags(shown, args.format))
    if not result.ok:
        return 2 if any(d.code in USAGE_CODES for d in result.diagnostics) else 1
    if args.check:
        out_of_date = stale(args.output_dir, result.files)
        for name, why in out_of_date:
            detail = _change_summary(Path(args.output_dir) / name, result.files[name], why)
            print(f"{Path(args.output_dir) / name}: {why}{detail}", file=sys.stderr)
        if any(why == "interrupted" for _, why in out_of_date):
            print(
                f"etwmc: a compile into {args.output_dir} was interrupted, so its files may "
                "be a mix of two versions; the next compile puts it right",
                file=sys.stderr,
            )
        if out_of_date:
            print(
                f"etwmc: {len(out_of_date)} of {len(result.files)} outputs are stale; "
                f"regenerate with: {_regenerate_command(args)}",
                file=sys.stderr,
            )
            return 1
        return 0
    try:
        write_all(args.output_dir, result.files)
    except EmitError as e:
        raise UsageError(str(e)) from None
    return 0


def _wevt_version(args: argparse.Namespace) -> int | None:
    """The WEVT_TEMPLATE version asked for: ``--wevt-version``, else 3 with
    ``--legacy-template-ids`` (mc 8.1's layout), else 5.  None for the one combination
    no mc wrote: mc 8.1's ids in a version 5 blob."""
    if args.legacy_template_ids:
        return None if args.wevt_version == 5 else 3
    return int(args.wevt_version or 5)


def _regenerate_command(args: argparse.Namespace) -> str:
    """The ``etwmc compile`` command that rewrites what ``--check`` found stale."""
    import shlex

    words = ["etwmc", "compile", args.manifest, "-o", args.output_dir]
    if args.base:
        words += ["-z", args.base]
    if args.module:
        words += ["--module", args.module]
    if args.wevt_version is not None and args.wevt_version != _wevt_version(args):
        words += ["--wevt-version", str(args.wevt_version)]
    if getattr(args, "c_header", None):
        words.append(f"--c-header={args.c_header}")
    words += [
        flag
        for flag, on in (
            ("--legacy-template-ids", args.legacy_template_ids),
            ("--no-python", args.no_python),
            ("--no-binary", args.no_binary),
            ("--resource-dll", args.resource_dll),
        )
        if on
    ]
    return " ".join(shlex.quote(w) for w in words)


__all__ = [
    "CompileResult",
    "compile_manifest",
    "default_base",
    "output_checks",
    "render_text",
    "run",
]
