"""Semantic rules: each a function from the model to diagnostics.

Rules are registered in :data:`RULES` in the order they run.  A rule never raises on
odd input (the model may be partial when earlier stages found errors)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..diagnostics import Diagnostic
from ..model import Manifest

Rule = Callable[[Manifest], Iterable[Diagnostic]]

RULES: list[Rule] = []


def rule(fn: Rule) -> Rule:
    RULES.append(fn)
    return fn


def run_rules(manifest: Manifest) -> list[Diagnostic]:
    _load()
    out: list[Diagnostic] = []
    for r in RULES:
        out.extend(r(manifest))
    return out


def _load() -> None:
    """Import the rule modules (each registers its rules on import)."""
    import importlib
    import pkgutil

    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        importlib.import_module(f"{__name__}.{info.name}")
