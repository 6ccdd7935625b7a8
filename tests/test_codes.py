"""The diagnostic codes live in one registry (etwmc/codes.py): named constants, banded by
stage, each defined once and reported by some stage."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

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


def test_every_code_is_reported_somewhere_and_a_retired_one_nowhere() -> None:
    live = {n for n, v in vars(codes).items() if isinstance(v, Code) and not v.retired}
    retired = {n for n, v in vars(codes).items() if isinstance(v, Code) and v.retired}
    used: set[str] = set()
    for path in _sources():
        used |= set(re.findall(r"\b[A-Z][A-Z0-9_]+\b", path.read_text(encoding="utf-8")))
    assert sorted(live - used) == []
    assert sorted(retired & used) == []


def test_a_retired_code_stays_registered_documented_and_selectable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from codegen_helpers import HELLO

    """ETW023 was never reported: each command that reads a DLL has its own code."""
    from etwmc.cli import main
    from etwmc.rulepages import page

    assert REGISTRY["ETW023"].retired and "ETW739" in REGISTRY["ETW023"].retired
    assert all(not c.retired for k, c in REGISTRY.items() if k != "ETW023")
    assert page("ETW023").meaning.startswith("**Retired.**")
    assert not any(
        p.meaning.startswith("**Retired.**") for p in map(page, REGISTRY) if p.code != "ETW023"
    )
    assert main(["lint", "--list-codes", "--format", "json"]) == 0
    listed = {c["code"]: c for c in json.loads(capsys.readouterr().out)}
    assert listed["ETW023"]["retired"] == REGISTRY["ETW023"].retired
    assert "retired" not in listed["ETW401"]
    assert main(["lint", "--list-codes"]) == 0
    assert "| ETW023 | error | a provider DLL's resources cannot be read (retired) |" in (
        capsys.readouterr().out
    )
    # Selecting it is still a known code: it simply reports nothing.
    assert main(["lint", "--select", "ETW023", "--isolated", str(HELLO)]) == 0
