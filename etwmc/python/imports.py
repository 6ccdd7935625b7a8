"""The generated module's imports, declared once.

:data:`IMPORTS` is the only list of what a generated module imports.  Everything else
derives from it: the import block the template prints (:data:`IMPORT_BLOCK`), the names
the imports bind (:data:`BOUND_NAMES`, which no manifest name may take at module level)
and the modules ``compile --verify`` allows a generated module to import
(:data:`ALLOWED_MODULES`).

Each entry is ``(module, names)``; no names is ``import module``.  A name is written as
in the statement: ``"x"``, or ``"x as y"`` to bind it under another name (each such
import gets a line of its own, as isort writes them; ``"x as x"`` marks a re-export).
Groups are separated by a blank line, and the order within a group is the order isort
gives (plain imports first, then ``from`` imports by module; constants, classes, then
functions), so black and isort leave the block as it is.
"""

from __future__ import annotations

from typing import Final

IMPORTS: Final[tuple[tuple[tuple[str, tuple[str, ...]], ...], ...]] = (
    (("__future__", ("annotations",)),),
    (
        ("contextlib", ()),
        ("enum", ()),
        ("struct", ()),
        ("uuid", ()),
        ("collections.abc", ("Callable", "Iterator", "Sequence")),
        ("datetime", ("datetime",)),
        ("typing", ("Final", "TypeAlias")),
    ),
    (
        (
            "etwmc.runtime",
            (
                "Activity",
                "Backend",
                "EnableState",
                "EventDescriptor",
                "ProviderRuntime",
                "compute_flags",
                "pack_descriptor",
            ),
        ),
        # The names the module uses itself are bound with a leading "_": manifest names
        # never start with one after naming, so none can shadow them.
        (
            "etwmc.runtime.payload",
            (
                "KW as _KW",
                "EventError as EventError",  # re-exported: callers catch it
                "Field as _Field",
                "KeywordOnly as _KeywordOnly",
                "ansi as _ansi",
                "encode as _encode",
                "fail as _fail",
                "fields as _fields",
                "keyword_only_error as _keyword_only",
                "pointers as _pointers",
                "u16 as _u16",
            ),
        ),
    ),
)

ALLOWED_MODULES: Final = frozenset(module for group in IMPORTS for module, _ in group)

# ``import a.b`` would bind ``a``; ``from m import x as y`` binds ``y``.
BOUND_NAMES: Final = frozenset(
    bound
    for group in IMPORTS
    for module, names in group
    for bound in ([n.rpartition(" as ")[2] for n in names] or [module.partition(".")[0]])
)

_LINE_LENGTH = 88  # black's


def _statements(module: str, names: tuple[str, ...]) -> list[str]:
    if not names:
        return [f"import {module}"]
    plain = [n for n in names if " as " not in n]
    lines = [f"from {module} import {n}" for n in names if " as " in n]
    if plain:
        one = f"from {module} import {', '.join(plain)}"
        if len(one) > _LINE_LENGTH:
            one = "\n".join([f"from {module} import (", *(f"    {n}," for n in plain), ")"])
        lines.insert(0, one)
    return lines


IMPORT_BLOCK: Final = "\n\n".join(
    "\n".join(line for module, names in group for line in _statements(module, names))
    for group in IMPORTS
)
