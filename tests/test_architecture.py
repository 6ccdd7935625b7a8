"""The layers of the package (docs/architecture.md, "Floors"): no import cycle between its
parts (the top-level modules and subpackages of etwmc), none between the modules inside
a part, and no import that runs back up.

Every import is counted, at module level or inside a function, ``TYPE_CHECKING`` ones
too: a lazy import is still a dependency.  A new module or package must be given its
place in :data:`LAYERS`, so the picture stays the code's.

Between modules, a name imported from a package's ``__init__`` that only hands it on
(``from .home import name``, eager, lazy or for type checkers) is a dependency on the
module it comes from, and on what that ``__init__`` imports when it runs, not on every
other name it hands on: ``etwmc.runtime`` offers the log handler, whose shipped
provider module imports ``ProviderRuntime`` from ``etwmc.runtime`` as every generated
module does, and that is no cycle.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "etwmc"

# Top first.  A part may import parts of the floors below it; parts on one floor are
# siblings and import nothing from each other.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("etwmc.__main__",),
    ("etwmc.console",),  # the console script: turns the collector off, then loads the CLI
    ("etwmc.cli",),
    ("etwmc.commands",),  # one module per command: arguments, output, exit status
    ("etwmc.lsp",),  # the language server: on the validation pipeline, beside the commands
    ("etwmc.buildhooks",),  # the hatchling and setuptools plugins
    # Linting, and what mc.exe's manifest switches need (baselines, -W, -w).
    ("etwmc.lint", "etwmc.mcexe"),
    ("etwmc.compile", "etwmc.diff", "etwmc.decode", "etwmc.decompile"),
    # Loading blobs, DLLs and message tables for the commands; the registry of outputs.
    ("etwmc.inputs", "etwmc.outputs"),
    # The resource-only DLL; message text files (.mc) read and rendered as mc writes them.
    ("etwmc.pe", "etwmc.mctext"),
    # The generators and the validation both stand on the model, side by side.
    ("etwmc.header", "etwmc.python", "etwmc.wevt", "etwmc.validate"),
    ("etwmc.rules",),
    ("etwmc.lower", "etwmc.schema"),
    ("etwmc.parse", "etwmc.msgids"),
    ("etwmc.descriptors", "etwmc.guid", "etwmc.naming"),
    ("etwmc.config", "etwmc.gcpolicy"),  # the command line's settings; its cycle collector
    ("etwmc.selection", "etwmc.discover", "etwmc.options", "etwmc.writer"),
    ("etwmc.journal",),  # all-or-nothing sets of files, their recovery, the folder lock
    ("etwmc.model",),  # the ground floor: the model, diagnostics, codes
    ("etwmc.diagnostics", "etwmc.msgformat"),
    ("etwmc.rulepages",),  # one explanation page per code, shipped as Markdown
    ("etwmc.codes",),
    ("etwmc.pytest_plugin",),  # the runtime world: what applications and their tests import
    ("etwmc.testing",),
    ("etwmc.runtime",),
    # Standard library only, for both worlds: a payload's values read by inType.
    ("etwmc.payloadvalues",),
    # Standard library only, for both worlds: the win: tables and type codes, the
    # provider-traits blob, the event descriptor, the SHA-1 and SHA-256 digests outputs
    # depend on, the opening of a file that must be a regular file.
    ("etwmc.winmeta", "etwmc.traits", "etwmc.eventdescriptor", "etwmc.digest", "etwmc.regularfile"),
    ("etwmc.record",),  # standard library only: the one way records are declared
    ("etwmc",),
)
LAYERS = tuple(part for floor in FLOORS for part in floor)


def _modules(package: Path) -> dict[str, Path]:
    """Every module of ``package`` (a folder) by its dotted name."""

    def name(path: Path) -> str:
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    return {name(p): p for p in sorted(package.rglob("*.py"))}


MODULES = _modules(PACKAGE)


def _target(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The module a ``from ... import`` statement of ``module`` names."""
    if not node.level:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _imports(module: str, path: Path, modules: dict[str, Path] = MODULES) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _target(module, path, node)
            submodules = {f"{target}.{a.name}" for a in node.names} & set(modules)
            found.update(submodules)
            if len(submodules) < len(node.names):  # names from the module itself
                found.add(target)
    return {t for t in found if t in modules and t != module}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """Module -> the etwmc modules it imports (read when a test asks, not at collection)."""
    return {m: _imports(m, p) for m, p in MODULES.items()}


def _runs(tree: ast.Module) -> list[ast.stmt]:
    """The statements a module runs when it is imported: its top level, inside ``if`` and
    ``try`` too, but not under ``if TYPE_CHECKING:``, nor in functions or classes."""
    out: list[ast.stmt] = []
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        out.append(node)
        if isinstance(node, ast.If):
            if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                todo.extend(node.body)
            todo.extend(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                todo.extend(block)
    return out


def _module_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Which modules each module imports, a package's ``__init__`` seen through for the
    names it hands on (see the module docstring)."""
    trees = {m: ast.parse(p.read_text(encoding="utf-8")) for m, p in modules.items()}
    homes: dict[str, dict[str, str]] = {}  # face -> name -> the module it comes from
    runs: dict[str, set[str]] = {}  # face -> the modules it imports when imported
    for face, path in modules.items():
        if path.name != "__init__.py":
            continue
        homes[face] = {}
        for node in ast.walk(trees[face]):
            if isinstance(node, ast.ImportFrom) and node.level:
                home = _target(face, path, node)
                for a in node.names:
                    if f"{home}.{a.name}" not in modules:
                        homes[face][a.asname or a.name] = home
        ran: set[str] = set()
        for node in _runs(trees[face]):
            if isinstance(node, ast.Import):
                ran.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                target = _target(face, path, node)
                ran.update([target, *(f"{target}.{a.name}" for a in node.names)])
        runs[face] = {t for t in ran if t in modules and t != face}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        found = set()
        for node in ast.walk(trees[module]):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                target = _target(module, path, node)
                for a in node.names:
                    if f"{target}.{a.name}" in modules:
                        found.add(f"{target}.{a.name}")
                    elif a.name in homes.get(target, {}) and target != module:
                        found.add(homes[target][a.name])
                        found.update(runs[target])
                    else:
                        found.add(target)
        graph[module] = {t for t in found if t in modules and t != module}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Depth-first search for back edges: one cycle for each, as the path it closes."""
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []
    cycles: list[list[str]] = []

    def visit(u: str) -> None:
        state[u] = 1
        path.append(u)
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                cycles.append([*path[path.index(v) :], v])
            elif v not in state:
                visit(v)
        path.pop()
        state[u] = 2

    for u in sorted(graph):
        if u not in state:
            visit(u)
    return cycles


def _unit(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def test_every_unit_has_its_place() -> None:
    assert sorted({_unit(m) for m in MODULES} - set(LAYERS)) == []


def test_no_import_runs_back_up_or_sideways(graph: dict[str, set[str]]) -> None:
    floor = {part: i for i, parts in enumerate(FLOORS) for part in parts}
    wrong = sorted(
        f"{m} -> {t}"
        for m, targets in graph.items()
        for t in targets
        if _unit(m) != _unit(t) and floor[_unit(t)] <= floor[_unit(m)]
    )
    assert wrong == []


def test_no_cycle_between_parts(graph: dict[str, set[str]]) -> None:
    parts: dict[str, set[str]] = defaultdict(set)
    for m, targets in graph.items():
        parts[_unit(m)].update(_unit(t) for t in targets if _unit(t) != _unit(m))
    assert _cycles(parts) == []


def test_no_cycle_between_modules() -> None:
    """Inside a part too: a module never imports, however indirectly, one that imports it."""
    assert _cycles(_module_graph(MODULES)) == []


def _package(root: Path, files: dict[str, str]) -> dict[str, Path]:
    for name, text in files.items():
        (root / "pkg" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "pkg" / name).write_text(text, encoding="utf-8")
    return _modules(root / "pkg")


def test_a_cycle_inside_a_package_is_found(tmp_path: Path) -> None:
    modules = _package(
        tmp_path,
        {
            "__init__.py": "",
            "low.py": "def f():\n    from .sub.high import g\n",  # lazy: still counted
            "sub/__init__.py": "",
            "sub/high.py": "from ..low import f\n",
            "apart.py": "from . import low\n",
        },
    )
    assert _cycles(_module_graph(modules)) == [["pkg.low", "pkg.sub.high", "pkg.low"]]


def test_a_package_face_is_seen_through_for_the_names_it_hands_on(tmp_path: Path) -> None:
    """``pkg`` hands on ``Handler`` (whose module uses ``Runtime`` from ``pkg``) and
    ``Runtime``: no cycle; but a name that ``pkg``'s ``__init__`` defines, or a module it
    imports when it runs, ties the two into one."""
    face = (
        "from .core import Core\n"
        "TYPE_CHECKING = False\n"
        "if TYPE_CHECKING:\n"
        "    from .handler import Handler\n"
        "    from .runtime import Runtime\n"
        "def helper(): pass\n"
    )
    files = {
        "__init__.py": face,
        "core.py": "",
        "runtime.py": "",
        "handler.py": "from pkg import Runtime\n",
    }
    assert _cycles(_module_graph(_package(tmp_path / "a", files))) == []
    files["handler.py"] = "from pkg import Runtime, helper\n"
    assert _cycles(_module_graph(_package(tmp_path / "b", files))) == [
        ["pkg", "pkg.handler", "pkg"]
    ]
    files["handler.py"] = "from pkg import Runtime\n"
    files["core.py"] = "from .handler import x\n"
    assert _cycles(_module_graph(_package(tmp_path / "c", files))) == [
        ["pkg.core", "pkg.handler", "pkg.core"]
    ]


@pytest.mark.parametrize("module", ["etwmc.runtime", "etwmc.testing", "etwmc.pytest_plugin"])
def test_the_runtime_world_stands_apart(module: str, graph: dict[str, set[str]]) -> None:
    """What applications import (the runtime, and the pytest fixture over it) reaches
    nothing of the compiler: only the stdlib-only win: tables, traits blob and event
    descriptor."""
    reached = defaultdict(set)
    for m, targets in graph.items():
        if m == module or m.startswith(module + "."):
            for t in targets:
                if not t.startswith(("etwmc.runtime", "etwmc.testing")) and t not in (
                    "etwmc",
                    "etwmc.winmeta",
                    "etwmc.traits",
                    "etwmc.eventdescriptor",
                    "etwmc.payloadvalues",
                ):
                    reached[m].add(t)
    assert dict(reached) == {}
