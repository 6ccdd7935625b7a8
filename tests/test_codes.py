"""The diagnostic codes live in one registry (etwmc/codes.py): named constants, banded by
stage, each defined once and reported by some stage."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from etwmc import codes
from etwmc.codes import REGISTRY, Code

PACKAGE = Path(codes.__file__).resolve().parent


def _sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name != "codes.py")


def test_registry_holds_every_constant_once_in_order() -> None:
    constants = [v for v in vars(codes).values() if isinstance(v, Code)]
    assert sorted(c.id for c in constants) == list(REGISTRY)
    assert all(re.fullmatch(r"ETW\d{3}", c) for c in REGISTRY)
    assert all(c.summary and not re.search(r"[^.]\.$", c.summary) for c in REGISTRY.values())


def test_no_module_but_the_registry_makes_a_code() -> None:
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Code":
                raise AssertionError(f"{path}: a Code is made outside etwmc/codes.py")


def test_every_code_is_reported_somewhere() -> None:
    names = {n for n, v in vars(codes).items() if isinstance(v, Code)}
    used: set[str] = set()
    for path in _sources():
        used |= set(re.findall(r"\b[A-Z][A-Z0-9_]+\b", path.read_text(encoding="utf-8")))
    assert sorted(names - used) == []
