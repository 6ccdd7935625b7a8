"""The layers of the package (docs/architecture.md, "Floors"): no import cycle between its
parts (the top-level modules and subpackages of etwmc), and no import that runs back up.

Every import is counted, at module level or inside a function, ``TYPE_CHECKING`` ones
too: a lazy import is still a dependency.  A new module or package must be given its
place in :data:`LAYERS`, so the picture stays the code's.
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
    # depend on.
    ("etwmc.winmeta", "etwmc.traits", "etwmc.eventdescriptor", "etwmc.digest"),
    ("etwmc.record",),  # standard library only: the one way records are declared
    ("etwmc",),
)
LAYERS = tuple(part for floor in FLOORS for part in floor)


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(module: str, path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            submodules = {f"{target}.{a.name}" for a in node.names} & set(MODULES)
            found.update(submodules)
            if len(submodules) < len(node.names):  # names from the module itself
                found.add(target)
    return {t for t in found if t in MODULES and t != module}


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def _unit(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def test_every_unit_has_its_place() -> None:
    assert sorted({_unit(m) for m in MODULES} - set(LAYERS)) == []


def test_no_import_runs_back_up_or_sideways() -> None:
    floor = {part: i for i, parts in enumerate(FLOORS) for part in parts}
    wrong = sorted(
        f"{m} -> {t}"
        for m, targets in GRAPH.items()
        for t in targets
        if _unit(m) != _unit(t) and floor[_unit(t)] <= floor[_unit(m)]
    )
    assert wrong == []


def test_no_cycle_between_parts() -> None:
    """Depth-first search for a back edge in the graph of parts."""
    parts: dict[str, set[str]] = defaultdict(set)
    for m, targets in GRAPH.items():
        parts[_unit(m)].update(_unit(t) for t in targets if _unit(t) != _unit(m))
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []
    cycles: list[list[str]] = []

    def visit(u: str) -> None:
        state[u] = 1
        path.append(u)
        for v in sorted(parts[u]):
            if state.get(v) == 1:
                cycles.append([*path[path.index(v) :], v])
            elif v not in state:
                visit(v)
        path.pop()
        state[u] = 2

    for u in sorted(parts):
        if u not in state:
            visit(u)
    assert cycles == []


@pytest.mark.parametrize("module", ["etwmc.runtime", "etwmc.testing", "etwmc.pytest_plugin"])
def test_the_runtime_world_stands_apart(module: str) -> None:
    """What applications import (the runtime, and the pytest fixture over it) reaches
    nothing of the compiler: only the stdlib-only win: tables, traits blob and event
    descriptor."""
    reached = defaultdict(set)
    for m, targets in GRAPH.items():
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
