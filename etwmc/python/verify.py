"""Defence in depth for ``compile --verify``: a generated module is checked as text.

Nothing in the generator lets manifest text become code (identifiers come from
:mod:`etwmc.naming`, literals from :mod:`.literals`); this check does not assume it.
The module must be ASCII, parse, import only what :data:`.imports.DECLARED` declares,
and at top level only define names (no statement that does something at import); the
one compound statement allowed is ``if TYPE_CHECKING:`` holding only imports.
"""

from __future__ import annotations

import ast

from .imports import ALLOWED_MODULES

_ALLOWED_TOP: tuple[type[ast.stmt], ...] = (ast.ClassDef, ast.FunctionDef, ast.Assign)
_ALLOWED_TOP += (ast.AnnAssign, ast.Import, ast.ImportFrom)


def safety_problem(text: str) -> str | None:
    """What is wrong with the module ``text``, or None."""
    if not text.isascii():
        return "the generated module is not ASCII"
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        return f"the generated module does not parse: {e.msg} (line {e.lineno})"
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, ast.If) and _type_checking_block(node):
            statements = node.body
        elif isinstance(node, _ALLOWED_TOP):
            statements = [node]
        else:
            return f"unexpected top-level statement at line {node.lineno}"
        for statement in statements:
            problem = _import_problem(statement)
            if problem:
                return problem
    return None


def _type_checking_block(node: ast.If) -> bool:
    """``if TYPE_CHECKING:`` with imports only and no ``else``."""
    return (
        isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
        and not node.orelse
        and all(isinstance(n, ast.Import | ast.ImportFrom) for n in node.body)
    )


def _import_problem(node: ast.stmt) -> str | None:
    if isinstance(node, ast.Import):
        modules = {a.name for a in node.names}
    elif isinstance(node, ast.ImportFrom):
        modules = {node.module or ""}
    else:
        return None
    if not modules <= ALLOWED_MODULES | {"__future__"}:
        return f"unexpected import at line {node.lineno}"
    return None
