"""The binary layer and the middle layer under it import nothing from above them.

wevt/ writes and reads the binaries from the model; it stands below validation, the
rules, lowering, decoding, the other generators and the commands.  The message ids and
the per-provider lists it shares with the rules (etwmc.msgids, etwmc.descriptors) stand
below wevt and the rules alike.  Every import counts, at module level or in a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "etwmc"

ABOVE_WEVT = (
    "etwmc.cli", "etwmc.commands", "etwmc.compile", "etwmc.decode", "etwmc.decompile",
    "etwmc.diff", "etwmc.header", "etwmc.inputs", "etwmc.journal", "etwmc.lint", "etwmc.lower",
    "etwmc.outputs", "etwmc.pe", "etwmc.python", "etwmc.rules", "etwmc.schema", "etwmc.validate",
    "etwmc.writer",
)  # fmt: skip


def _imports(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports (``from x import y`` gives x and x.y)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = ".".join(parts[:-1])  # what a relative import starts from
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def _upward(path: Path, above: tuple[str, ...]) -> list[str]:
    return sorted(
        name for name in _imports(path) if any(name == a or name.startswith(a + ".") for a in above)
    )


@pytest.mark.parametrize("path", sorted((PACKAGE / "wevt").glob("*.py")), ids=lambda p: p.name)
def test_wevt_imports_nothing_above_it(path: Path) -> None:
    assert _upward(path, ABOVE_WEVT) == []


@pytest.mark.parametrize("name", ["msgids.py", "descriptors.py", "winmeta.py"])
def test_the_middle_layer_imports_neither_wevt_nor_the_rules(name: str) -> None:
    assert _upward(PACKAGE / name, (*ABOVE_WEVT, "etwmc.wevt")) == []


def test_the_check_sees_relative_and_function_level_imports() -> None:
    found = _imports(PACKAGE / "wevt" / "__init__.py")
    assert {"etwmc.msgids", "etwmc.model", "etwmc.wevt.writer", "etwmc.wevt.crim"} <= found
    # etwmc.pe imports wevt inside a function.
    assert _upward(PACKAGE / "pe.py", ("etwmc.wevt",))
