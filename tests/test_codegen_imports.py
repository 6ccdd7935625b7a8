"""The generated module's imports are declared once (etwmc.python.imports): the module
imports exactly what the declaration lists, binds no top-level name that is neither
reserved from manifest names nor a manifest name the generator gave out, and verify
allows only the declared modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from codegen_helpers import HELLO, generate, manifest

from etwmc.python import build_context
from etwmc.python.imports import ALLOWED_MODULES, IMPORTS
from etwmc.python.reserved import MODULE_NAMES
from etwmc.python.verify import safety_problem
from etwmc.validate import check_file

VALID = sorted((Path(__file__).parent / "manifests" / "valid").glob("*.man"))
COLLIDING = """
      <events>
        <event value="1" symbol="Callable" level="win:Informational"/>
        <event value="2" symbol="SOURCE" level="win:Informational"/>
        <event value="3" symbol="EventError" level="win:Informational"/>
        <event value="4" symbol="Sequence" level="win:Informational"/>
      </events>
"""


def _top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


@pytest.mark.parametrize("man", [HELLO, *VALID], ids=lambda p: p.name)
def test_module_imports_what_is_declared_and_binds_only_known_names(
    man: Path, tmp_path: Path
) -> None:
    text, _ = generate(man, tmp_path)
    tree = ast.parse(text)
    imported = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            imported += [(a.name, ()) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = tuple(
                a.name if a.asname is None else f"{a.name} as {a.asname}" for a in node.names
            )
            if imported and imported[-1][0] == node.module and imported[-1][1]:
                imported[-1] = (node.module, imported[-1][1] + names)
            else:
                imported.append((node.module or "", names))
    assert imported == [entry for group in IMPORTS for entry in group]

    checked = check_file(man)
    assert checked.manifest is not None
    ctx, _ = build_context(checked.manifest, version="", source="")
    claimed = {p.ns for p in ctx.providers}
    for p in ctx.providers:
        for e in p.events:
            claimed |= {e.ident, e.write, e.is_enabled} | {n for n in (e.start, e.stop) if n}
    public = {n for n in _top_level_names(tree) if not n.startswith("_")}
    assert public - claimed <= MODULE_NAMES
    assert not claimed & MODULE_NAMES


def test_manifest_names_never_take_an_imported_or_defined_name(tmp_path: Path) -> None:
    text, _ = generate(manifest(COLLIDING), tmp_path)
    tree = ast.parse(text)
    defined = [
        n.target.id
        for n in tree.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    ]
    for name in ("Callable", "SOURCE", "EventError", "Sequence"):
        assert f"{name}_" in defined
    assert defined.count("SOURCE") == 1


def test_verify_allows_only_the_declared_modules() -> None:
    assert ALLOWED_MODULES == {module for group in IMPORTS for module, _ in group}
    assert safety_problem("import enum\nfrom typing import Final\n") is None
    assert safety_problem("import os\n") == "unexpected import at line 1"
    assert safety_problem("from etwmc.runtime.backends import inproc\n") is not None
