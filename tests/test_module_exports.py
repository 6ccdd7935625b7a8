"""Every name a module lists in ``__all__`` exists when the module is imported, so
``from etwmc.x import *`` works (a name defined only for type checkers would make it
raise AttributeError)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import etwmc

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(etwmc.__path__, "etwmc.")
    if not m.name.endswith("__main__")  # runs the command line when imported
)


@pytest.mark.parametrize("name", MODULES)
def test_every_exported_name_exists(name: str) -> None:
    module = importlib.import_module(name)
    missing = [n for n in getattr(module, "__all__", ()) if not hasattr(module, n)]
    assert missing == []


def test_the_modules_are_found() -> None:
    assert "etwmc.runtime.provider" in MODULES and len(MODULES) > 100
