"""The package uses public Python only: no private CPython module or attribute.

A private module of the standard library (``_thread``, ``_sha2``, ...), a private
attribute of a standard-library module (``os._exit``, ``sys._getframe``,
``atexit._run_exitfuncs``), and building or rewriting code objects (``CodeType``,
``FunctionType``, ``co_*``, ``__code__``) can change or vanish in any CPython release
without notice, and other Pythons need not have them.  The checker reads every module's
syntax tree; the samples prove that it sees each form, and that public code (including
names that only look private, such as lxml's ``etree._Element`` or a named tuple's
``_replace``) passes.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "etwmc"

_CODE_TYPES = frozenset({"CodeType", "FunctionType"})
_INTROSPECTION = frozenset({"getattr", "hasattr", "setattr", "delattr"})
_IMPORTERS = frozenset({"import_module", "__import__"})


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_stdlib_module(dotted: str) -> bool:
    """A private module of the running Python's standard library (for names in strings;
    an import statement of any module whose name starts with ``_`` is flagged)."""
    top = dotted.partition(".")[0]
    return top in sys.stdlib_module_names and _private(top)


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of names, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


class _Finder(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found: list[str] = []
        # Local names bound to standard-library modules and what they hold: ``import os``
        # binds "os" to os, ``from os import path`` binds "path" to os.path.
        self.modules: dict[str, str] = {}

    def report(self, node: ast.AST, what: str) -> None:
        self.found.append(f"{getattr(node, 'lineno', 0)}: {what}")

    def module_of(self, node: ast.expr) -> str | None:
        dotted = _dotted(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if head not in self.modules:
            return None
        return ".".join(filter(None, (self.modules[head], rest)))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if _private(alias.name):
                self.report(node, f"import of the private module {alias.name}")
            top = alias.name.partition(".")[0]
            if top in sys.stdlib_module_names:
                if alias.asname:
                    self.modules[alias.asname] = alias.name
                else:
                    self.modules[top] = top

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or node.module is None or node.module == "__future__":
            return
        if _private(node.module):
            self.report(node, f"import from the private module {node.module}")
            return
        if node.module.partition(".")[0] not in sys.stdlib_module_names:
            return
        for alias in node.names:
            if _private(alias.name):
                self.report(node, f"import of the private name {node.module}.{alias.name}")
            elif alias.name in _CODE_TYPES:
                self.report(node, f"import of {node.module}.{alias.name}")
            else:  # a submodule, a class or a function: its private names are private too
                self.modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("co_") or node.attr == "__code__":
            self.report(node, f"code-object attribute .{node.attr}")
        else:
            module = self.module_of(node.value)
            if module is not None and _private(node.attr):
                self.report(node, f"private attribute {module}.{node.attr}")
            elif module is not None and node.attr in _CODE_TYPES:
                self.report(node, f"{module}.{node.attr}")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        args = node.args
        text = [a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if name in _INTROSPECTION and len(args) >= 2 and len(text) >= 1:
            module = self.module_of(args[0])
            attr = args[1].value if isinstance(args[1], ast.Constant) else None
            if module is not None and isinstance(attr, str) and _private(attr):
                self.report(node, f"private attribute {module}.{attr} (by {name})")
        if name in _IMPORTERS and text and _private_stdlib_module(text[0]):
            self.report(node, f"import of the private module {text[0]} (by {name})")
        for kw in node.keywords:
            if kw.arg is not None and kw.arg.startswith("co_"):
                self.report(node, f"code object rebuilt with {kw.arg}=")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        # A private module named in a string is imported by name somewhere.
        if isinstance(node.value, str) and _private_stdlib_module(node.value):
            if node.value.isidentifier():
                self.report(node, f"the private module {node.value} named in a string")


def private_uses(source: str) -> list[str]:
    """Every use of a private CPython module or attribute in ``source``, as
    ``"line: what"``."""
    finder = _Finder()
    finder.visit(ast.parse(source))
    return finder.found


# Each sample uses one private interface, in one of the ways it can be written.
FLAGGED = {
    "import": "import _thread\nlock = _thread.allocate_lock()\n",
    "import as": "import _sha2 as fast\n",
    "from import": "from _thread import allocate_lock\n",
    "dotted private module": "import _collections_abc\n",
    "importlib by name": "import importlib\nm = importlib.import_module('_sha1')\n",
    "names in a tuple": "MODULES = ('_sha1', '_thread')\n",
    "os._exit": "import os\nos._exit(0)\n",
    "sys._getframe": "import sys\nf = sys._getframe(1)\n",
    "atexit by getattr": "import atexit\nrun = getattr(atexit, '_run_exitfuncs', None)\n",
    "private name imported": "from sys import _getframe\n",
    "module alias": "import threading as t\nlocal = t._local()\n",
    "submodule": "import os.path\nx = os.path._get_sep('a')\n",
    "from package import module": "from importlib import util\nx = util._LazyModule\n",
    "__code__": "def f(): pass\ncode = f.__code__\n",
    "co_ attribute": "n = code.co_argcount\n",
    "code replace": "g = code.replace(co_name='g')\n",
    "CodeType": "import types\nc = types.CodeType(*fields)\n",
    "FunctionType by module": "import types\nf = types.FunctionType(code, {})\n",
    "FunctionType": "from types import FunctionType\n",
}

PUBLIC = """
from __future__ import annotations
import os, sys, atexit, threading, hashlib
from collections import namedtuple
from lxml import etree
from . import _util
from ._util import _helper
P = namedtuple("P", "a b")
p = P(1, 2)._replace(a=3)
print(p._asdict(), P._fields)
def f(e: etree._Element) -> None:
    sys.exit(0)
    atexit.register(print)
    threading.local()
    hashlib.sha256(b"").digest()
    self_like = object()
    self_like._private = 1
    print(os.__file__, sys.__stdout__, _util._thing)
"""


@pytest.mark.parametrize("source", FLAGGED.values(), ids=FLAGGED.keys())
def test_the_checker_sees_each_private_use(source: str) -> None:
    assert private_uses(source), source


def test_the_checker_leaves_public_code_alone() -> None:
    assert private_uses(PUBLIC) == []


def test_the_package_uses_public_python_only() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{use}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for use in private_uses(path.read_text(encoding="utf-8"))
    ]
    assert found == []
