"""Compiling: a manifest -> its outputs (:mod:`etwmc.outputs`), planned in memory.

:func:`compile_manifest` is the library entry point (the ``compile`` and ``mc``
commands and the build plugins call it): it checks the output names, validates the
manifest, makes every output the options want and returns them with the
diagnostics; it writes nothing (:mod:`etwmc.writer` writes a plan all-or-nothing).

Outputs for base name ``B``: ``<module>.py`` (default module name: ``B`` made an
identifier), ``BTEMP.BIN``, ``B_MSG0000n.bin`` (one per culture) and ``B.rc``; with
``c_header``, also ``B.h``; the registry in :mod:`etwmc.outputs` lists them all.
"""

from __future__ import annotations

from pathlib import Path

from .diagnostics import Diagnostic, finalize, has_errors
from .model import Manifest
from .options import CompileOptions
from .outputs import (
    MANIFEST_OUTPUTS,
    ManifestBuild,
    Place,
    default_base,
    name_check,
    names_problem,
    plan,
)
from .record import Record
from .selection import Selection, apply, file_suppressions
from .validate import check_bytes, check_file

DEFAULT_OPTIONS = CompileOptions()


class CompileResult(Record):
    """Planned outputs by place (:data:`etwmc.outputs.Place`; empty when there are
    errors), the diagnostics, and the validated model (None when it has errors)."""

    placed: dict[Place, dict[str, bytes]]
    diagnostics: list[Diagnostic]
    manifest: Manifest | None = None

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    @property
    def files(self) -> dict[str, bytes]:
        """Every output by file name, whatever its place (one folder's worth)."""
        return {name: data for files in self.placed.values() for name, data in files.items()}


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
    and make its outputs in memory; nothing is written.

    ``base`` names the outputs (default: the manifest's file name without extension),
    ``module`` the Python module (default: ``base`` made an identifier); both must be
    portable names (ETW612).  No manifest text reaches the module except as a checked
    literal or identifier (:mod:`etwmc.python`, :mod:`etwmc.naming`); ``options.verify``
    also parses the module and checks that it only imports what etwmc's modules import
    and only defines names at top level (about 1 s per 100,000 generated lines).

    ``selection`` (the project's lint settings and the manifest's suppression comments)
    drops the warnings and notes it leaves out, before ``werror`` counts them; errors
    are kept whatever it says, since they make the manifest uncompilable."""
    derived = base is None
    base = base if base is not None else default_base(path)
    refused = name_check(str(path), base, module, derived=derived)
    if refused:
        return CompileResult({}, refused)
    checked = check_bytes(data, str(path)) if data is not None else check_file(path)
    # Read once: the diagnostics are reported twice when the manifest compiles.
    suppressed = file_suppressions({checked.path: checked.lines}) if selection else {}

    def reported(found: list[Diagnostic]) -> list[Diagnostic]:
        chosen = (
            apply(found, selection, keep_errors=True, suppressed=suppressed) if selection else found
        )
        return finalize(chosen, werror=options.werror)

    diags = list(checked.diagnostics)
    manifest = checked.manifest
    if manifest is None or has_errors(reported(diags)):
        return CompileResult({}, reported(diags))
    build = ManifestBuild(manifest, options, path=str(path), base=base, module=module)
    planned = plan(build, MANIFEST_OUTPUTS)
    diags = reported([*diags, *planned.diagnostics])
    return CompileResult({} if has_errors(diags) else planned.files, diags, manifest)


__all__ = [
    "CompileOptions",
    "CompileResult",
    "compile_manifest",
    "default_base",
    "names_problem",
]
