"""An import inside a function says why it is not at the top of its module
(etwmc/CONVENTIONS.md, "Imports"): a comment on its line, or on a line of its function
above it (at the head of the branch that imports, or of the function)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "etwmc"


def unexplained(source: str) -> list[int]:
    """Line numbers of imports inside functions with no comment that explains them."""
    lines = source.splitlines()
    found: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for inner in ast.walk(node):
            if not isinstance(inner, (ast.Import, ast.ImportFrom)):
                continue
            if "#" in lines[inner.lineno - 1]:
                continue
            body = lines[node.lineno : inner.lineno - 1]  # after the def, before the import
            if not any(line.strip().startswith("#") for line in body):
                found.append(inner.lineno)
    return found


def test_every_deferred_import_is_explained() -> None:
    problems = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in unexplained(path.read_text(encoding="utf-8"))
    ]
    assert problems == []


def test_the_check_sees_an_unexplained_import_and_accepts_explained_ones() -> None:
    source = (
        "import os\n"
        "def a():\n"
        "    import json\n"
        "def b():\n"
        "    # json only here: it costs a tenth of the command\n"
        "    import json\n"
        "    from os import path\n"
        "def c():\n"
        "    import json  # optional\n"
        "def d(x):\n"
        "    # Lazily: the fast path never needs json.\n"
        "    if x:\n"
        "        import json\n"
        "def e(x):\n"
        "    if x:\n"
        "        return 1  # a comment below the import does not count\n"
        "    import json\n"
    )
    assert unexplained(source) == [3, 17]
