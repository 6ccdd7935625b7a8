"""The generated module's imports are declared once (etwmc.python.imports) and printed as
they are used: the module imports only declared things, each one it uses and no other,
those for annotations under ``if TYPE_CHECKING:`` only; it binds no top-level name that
is neither reserved from manifest names nor a manifest name the generator gave out, and
verify allows only the declared modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from codegen_helpers import HELLO, generate, manifest

from etwmc.python import build_context
from etwmc.python.imports import ALLOWED_MODULES, DECLARED
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
        <event value="5" symbol="TYPE_CHECKING" level="win:Informational"/>
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


def _imports(tree: ast.Module) -> list[tuple[str, tuple[str, ...], bool]]:
    """(module, names as declared, under TYPE_CHECKING) of each import statement, in
    order, ``from m import a`` statements of one module merged as the declaration has
    them."""
    found: list[tuple[str, tuple[str, ...], bool]] = []

    def visit(statements: list[ast.stmt], checking: bool) -> None:
        for node in statements:
            if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
                visit(node.body, True)
            elif isinstance(node, ast.Import):
                found.extend((a.name, (), checking) for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
                names = tuple(
                    a.name if a.asname is None else f"{a.name} as {a.asname}" for a in node.names
                )
                last = found[-1] if found else None
                if last and last[0] == node.module and last[1] and last[2] == checking:
                    found[-1] = (last[0], last[1] + names, checking)
                else:
                    found.append((node.module or "", names, checking))

    visit(tree.body, False)
    return found


def _runtime_names(tree: ast.Module) -> set[str]:
    """The names the module reads when it runs: every Name outside annotations, quoted
    type aliases and the TYPE_CHECKING block."""
    used: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            return
        if isinstance(node, ast.AnnAssign):
            if node.value is not None:
                visit(node.value)
            return
        if isinstance(node, ast.arg):
            return  # its annotation
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                visit(d)
            for default in [*node.args.defaults, *node.args.kw_defaults]:
                if default is not None:
                    visit(default)
            for statement in node.body:
                visit(statement)
            return
        if isinstance(node, ast.Name):
            used.add(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return used


def _all_names(tree: ast.Module) -> set[str]:
    """Every name the module reads, annotations and quoted aliases included."""
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "[" in node.value:
            try:
                used |= {n.id for n in ast.walk(ast.parse(node.value, mode="eval"))
                         if isinstance(n, ast.Name)}  # fmt: skip
            except SyntaxError:
                pass
    return used


@pytest.mark.parametrize("man", [HELLO, *VALID], ids=lambda p: p.name)
def test_module_imports_what_it_uses_as_declared(man: Path, tmp_path: Path) -> None:
    text, _ = generate(man, tmp_path)
    tree = ast.parse(text)
    imported = _imports(tree)
    declared = {(module, checking): names for module, names, checking, _ in DECLARED}
    order = [(module, checking) for module, _, checking, _ in DECLARED]
    # Declared imports only, each with the declaration's flag, in the declaration's order.
    assert all((m, c) in declared for m, _, c in imported), imported
    assert [order.index((m, c)) for m, _, c in imported] == sorted(
        order.index((m, c)) for m, _, c in imported
    )
    for module, names, checking in imported:
        assert [n for n in declared[module, checking] if n in names] == list(names)
    bound = {
        (n.rpartition(" as ")[2] if n else m.partition(".")[0]): c
        for m, names, c in imported
        for n in (names or ("",))
    }
    everything, runtime = _all_names(tree), _runtime_names(tree)
    # Each import is used; those for type checkers only are not read at run time.
    assert {b for b in bound if b not in everything} == set()
    assert {b for b, checking in bound.items() if checking and b in runtime} == set()
    assert {b for b, checking in bound.items() if not checking and b not in runtime} == set()

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
    for name in ("Callable", "SOURCE", "EventError", "Sequence", "TYPE_CHECKING"):
        assert f"{name}_" in defined
    assert defined.count("SOURCE") == 1


def test_verify_allows_only_the_declared_modules() -> None:
    assert ALLOWED_MODULES == {module for module, _, _, _ in DECLARED}
    assert safety_problem("import enum\nfrom typing import Final\n") is None
    assert safety_problem("import os\n") == "unexpected import at line 1"
    assert safety_problem("from etwmc.runtime.backends import inproc\n") is not None
    checking = "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    import {}\n"
    assert safety_problem(checking.format("uuid")) is None
    assert safety_problem(checking.format("os")) == "unexpected import at line 3"
    assert safety_problem("if TYPE_CHECKING:\n    x = 1\n") is not None  # imports only
    assert safety_problem("if TYPE_CHECKING:\n    import uuid\nelse:\n    import os\n")
    assert safety_problem("if X:\n    import uuid\n") is not None
