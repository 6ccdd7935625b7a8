"""The Python provider-module generator: the frozen model in, the module's text out.

* :func:`generate` — the module's text for a manifest, and what naming and payload
  planning reported (nothing is written; an error leaves the text empty);
* :func:`check` — the same diagnostics without rendering (``etwmc lint`` uses it);
* :func:`module_name` — the module name for an output base name.
"""

from __future__ import annotations

from ..codes import E_UNRESOLVED
from ..diagnostics import Diagnostic, has_errors
from ..model import Manifest
from . import template
from .context import build_context, context_diagnostics, module_name

__all__ = ["E_UNRESOLVED", "build_context", "check", "generate", "module_name"]


def generate(
    manifest: Manifest, *, source: str, version: str | None
) -> tuple[str, list[Diagnostic]]:
    """The module's text (empty when a diagnostic is an error) and the diagnostics.

    ``source`` is the manifest's file name as the module records it (``SOURCE``);
    ``version`` the etwmc version its first line names (None: the line names none).
    """
    ctx, diags = build_context(manifest, version=version, source=source)
    if has_errors(diags):
        return "", diags
    return template.render(m=ctx), diags


def check(manifest: Manifest) -> list[Diagnostic]:
    """What :func:`generate` reports for ``manifest``, without rendering the module."""
    return context_diagnostics(manifest)
