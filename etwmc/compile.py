"""Compiling: a manifest -> its Python provider module, binary resources and C header.

:func:`compile_manifest` is the library entry point (the ``compile`` and ``mc``
commands and the build plugins call it): it validates the manifest, plans every
output in memory and returns them with the diagnostics; it writes nothing
(:mod:`etwmc.emit` writes a plan all-or-nothing).

Outputs for base name ``B``: ``<module>.py`` (default module name: ``B`` made an
identifier), ``BTEMP.BIN``, ``B_MSG0000n.bin`` (one per culture) and ``B.rc``; with
``--c-header``, also ``B.h``.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from .codes import E_BASE, E_INTERNAL_RENDER
from .diagnostics import Diagnostic, Span, diag, finalize, has_errors
from .emit import default_base
from .emit import name_problem as file_name_problem
from .header import HeaderOptions, build_header
from .model import Manifest
from .options import CompileOptions
from .pe import dll_name
from .pe import resource_dll as build_dll
from .python import check, generate, module_name
from .python.verify import safety_problem
from .selection import Selection, apply
from .validate import check_bytes, check_file
from .wevt import binary_outputs, output_diagnostics

DEFAULT_OPTIONS = CompileOptions()


@dataclass(frozen=True, slots=True)
class CompileResult:
    """Planned outputs (file name -> bytes; empty when there are errors) and diagnostics."""

    files: dict[str, bytes]
    diagnostics: list[Diagnostic]

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def output_checks(manifest: Manifest) -> list[Diagnostic]:
    """What producing the outputs reports (names, traits, message tables), without
    producing them: ``etwmc lint`` adds these to validation, so that lint and a compile
    with the default outputs fail and pass together.  The same functions run inside
    :func:`compile_manifest`."""
    return [*check(manifest), *output_diagnostics(manifest)]


def compile_manifest(
    path: str | Path,
    options: CompileOptions = DEFAULT_OPTIONS,
    *,
    base: str | None = None,
    module: str | None = None,
    data: bytes | None = None,
    selection: Selection | None = None,
) -> CompileResult:
    """Validate the manifest at ``path`` (or ``data``, named ``path`` in diagnostics)
    and plan its outputs in memory; nothing is written.

    No manifest text reaches the module except as a checked literal or identifier
    (:mod:`etwmc.python`, :mod:`etwmc.naming`); ``options.verify`` also parses the
    module and checks that it only imports what etwmc's modules import and only defines
    names at top level (about 1 s per 100,000 generated lines; the tests always do).

    ``options.legacy_template_ids`` gives the templates mc 8.1's MD5-based ids instead
    of mc 10's SHA-256 ones, in mc 8.1's CRIM 3.1.  ``options.resource_dll`` adds the
    resource-only DLL (:func:`etwmc.pe.resource_dll`), named after the providers'
    ``resourceFileName`` (else ``<base>.dll``).  ``options.c_header`` (``"um"`` or
    ``"km"``) adds ``<base>.h``, the C/C++ header ``mc -um``/``-km`` writes.

    ``selection`` (the project's lint settings and the manifest's suppression comments)
    drops the warnings and notes it leaves out, before ``werror`` counts them; errors
    are kept whatever it says, since they make the manifest uncompilable."""
    werror = options.werror
    derived = base is None
    base = base if base is not None else default_base(path)
    problem = name_problem(base, module, derived=derived)
    if problem:
        message, hint = problem
        return CompileResult({}, [diag(E_BASE, Span(str(path)), message, hint=hint)])
    checked = check_bytes(data, str(path)) if data is not None else check_file(path)
    sources = {checked.path: checked.lines}

    def reported(found: list[Diagnostic]) -> list[Diagnostic]:
        chosen = apply(found, selection, sources, keep_errors=True) if selection else found
        return finalize(chosen, werror=werror)

    diags = list(checked.diagnostics)
    manifest = checked.manifest
    if manifest is None or has_errors(reported(diags)):
        return CompileResult({}, reported(diags))
    files: dict[str, bytes] = {}
    if options.python:
        text, gen_diags = generate(manifest, source=Path(path).name, version=__version__)
        diags.extend(gen_diags)
        if not has_errors(gen_diags):
            safety = safety_problem(text) if options.verify else None
            if safety:
                diags.append(diag(E_INTERNAL_RENDER, Span(str(path)), safety))
            files[f"{module or module_name(base)}.py"] = text.encode("ascii")
    if options.c_header is not None:
        header = build_header(manifest, HeaderOptions(kernel=options.c_header == "km"))
        diags.extend(header.diagnostics)
        if header.ok:
            files[f"{base}.h"] = header.text.encode("ascii")
    if options.binary or options.resource_dll:
        out_diags = list(output_diagnostics(manifest))
        diags.extend(out_diags)
        if not has_errors(out_diags):
            outputs = binary_outputs(
                manifest, base, version=options.version, legacy_ids=options.legacy_template_ids
            )
            if options.binary:
                files.update(outputs)
            if options.resource_dll:
                dll = build_dll(manifest, outputs=outputs, base=base)
                files[dll_name(manifest, f"{base}.dll")] = dll
    diags = reported(diags)
    return CompileResult({} if has_errors(diags) else files, diags)


def name_problem(base: str, module: str | None, *, derived: bool = False) -> tuple[str, str] | None:
    """(message, hint) when the output base name or the module name cannot be used.

    The base names every output (``<base>TEMP.BIN``, ``<base>.rc`` ...) and is written
    into the .rc, so it must be a file name Windows can create (:func:`etwmc.emit.
    name_problem`): that also keeps quotes and line breaks out of the .rc.  The module
    name must be a Python identifier that is not a keyword, so that it can be imported."""
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


__all__ = [
    "CompileOptions",
    "CompileResult",
    "compile_manifest",
    "default_base",
    "name_problem",
    "output_checks",
]
