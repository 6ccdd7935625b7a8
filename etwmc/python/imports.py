"""The generated module's imports: declared once, printed as they are used.

:data:`DECLARED` lists every import a generated module may have, in the order its
import block prints them.  While the context is built, each piece of text that names an
imported thing asks for it with :meth:`Imports.use` (mypy-protobuf's ``_import(path,
name)``), which returns the name to write; the block then holds exactly the imports the
module uses (ruff's F401 finds none unused), and cannot drift from the module's body.

Imports marked ``typing`` serve annotations only (the module has ``from __future__
import annotations``): they go under ``if TYPE_CHECKING:``, with ``TYPE_CHECKING =
False`` bound by the module itself, so that importing a generated module loads neither
:mod:`typing` nor :mod:`uuid`, :mod:`datetime` or :mod:`collections.abc` (type checkers
read any ``TYPE_CHECKING`` as true).

Derived from :data:`DECLARED` too: the names the imports may bind
(:data:`BOUND_NAMES`, which no manifest name may take) and the modules ``compile
--verify`` lets a generated module import (:data:`ALLOWED_MODULES`).

A name is written as in the statement: ``"x"``, or ``"x as y"`` to bind it under
another name (each such import gets a line of its own, as isort writes them; ``"x as
x"`` marks a re-export).  The names the module uses itself are bound with a leading
``_`` when they could be mistaken for the module's own API: manifest names never start
with one after naming, so none can shadow them.
"""

from __future__ import annotations

from typing import Final

# (module, names (none: ``import module``), only under ``if TYPE_CHECKING:``, group (0:
# standard library, 1: etwmc; a blank line between groups)).
Declared = tuple[str, tuple[str, ...], bool, int]

# In isort's order within each part: plain imports, then ``from`` imports by module;
# constants, classes, then functions.
DECLARED: Final[tuple[Declared, ...]] = (
    ("enum", (), False, 0),
    ("struct", (), False, 0),
    (
        "etwmc.runtime",
        ("EventDescriptor", "ProviderRuntime", "Registration", "compute_flags", "pack_descriptor"),
        False,
        1,
    ),
    ("etwmc.runtime.activity", ("start_event as _start", "stop_event as _stop"), False, 1),
    ("etwmc.runtime.guids", ("GuidConstant",), False, 1),
    (
        "etwmc.runtime.payload",
        (
            "ENCODING_ERRORS as _ENCODING_ERRORS",
            "KW as _KW",
            "EventError as _EventError",  # re-exported as EventError: callers catch it
            "Field as _Field",
            "ansi as _ansi",
            "encode as _encode",
            "fail as _fail",
            "fields as _fields",
            "keyword_only_error as _keyword_only",
            "pointers as _pointers",
            "u16 as _u16",
        ),
        False,
        1,
    ),
    ("uuid", (), True, 0),
    ("collections.abc", ("Callable", "Sequence"), True, 0),
    ("datetime", ("datetime",), True, 0),
    ("typing", ("Final", "TypeAlias"), True, 0),
    ("etwmc.runtime", ("Activity", "Backend", "EnableState"), True, 1),
    ("etwmc.runtime.payload", ("KeywordOnly as _KeywordOnly",), True, 1),
)

ALLOWED_MODULES: Final = frozenset(module for module, _, _, _ in DECLARED)


def _bound(module: str, name: str | None) -> str:
    """What ``import module`` or ``from module import name`` binds."""
    return module.partition(".")[0] if name is None else name.rpartition(" as ")[2]


BOUND_NAMES: Final = frozenset(
    _bound(module, n) for module, names, _, _ in DECLARED for n in (names or (None,))
) | {"TYPE_CHECKING", "annotations"}  # what the module binds itself

_LINE_LENGTH = 88  # black's
_BY_BOUND: Final = {
    _bound(module, n): (i, n)
    for i, (module, names, _, _) in enumerate(DECLARED)
    for n in (names or (None,))
}


class Imports:
    """The imports one module uses, collected as its text is made."""

    __slots__ = ("_used",)

    def __init__(self) -> None:
        self._used: set[tuple[int, str | None]] = set()

    def use(self, bound: str) -> str:
        """Record the import that binds ``bound`` (a declared name: ``"enum"``,
        ``"ProviderRuntime"``, ``"_u16"``...) and return ``bound``, to write in the
        text.  ``KeyError`` for a name no declared import binds: a generator bug."""
        self._used.add(_BY_BOUND[bound])
        return bound

    def render(self, checking_extra: tuple[str, ...] = ()) -> str:
        """The whole import block: ``from __future__``, the run-time imports, then
        ``TYPE_CHECKING = False`` and, under ``if TYPE_CHECKING:``, the imports for
        annotations followed by ``checking_extra`` (statements for type checkers only,
        each already indented)."""
        runtime = self._groups(typing=False, indent="")
        checking = self._groups(typing=True, indent="    ")
        if checking_extra:
            checking.append("\n".join(checking_extra))
        parts = ["from __future__ import annotations", *runtime]
        if checking:
            body = "\n\n".join(checking)
            parts.append(f"TYPE_CHECKING = False\nif TYPE_CHECKING:\n{body}")
        return "\n\n".join(parts)

    def _groups(self, *, typing: bool, indent: str) -> list[str]:
        groups: dict[int, list[str]] = {}
        for i, (module, names, checking, group) in enumerate(DECLARED):
            if checking != typing:
                continue
            used = tuple(n for n in names if (i, n) in self._used)
            if names and not used or not names and (i, None) not in self._used:
                continue
            groups.setdefault(group, []).extend(_statements(module, used, indent))
        return ["\n".join(lines) for _, lines in sorted(groups.items())]


def _statements(module: str, names: tuple[str, ...], indent: str) -> list[str]:
    if not names:
        return [f"{indent}import {module}"]
    plain = [n for n in names if " as " not in n]
    lines = [f"{indent}from {module} import {n}" for n in names if " as " in n]
    if plain:
        one = f"{indent}from {module} import {', '.join(plain)}"
        if len(one) > _LINE_LENGTH:
            inner = [f"{indent}    {n}," for n in plain]
            one = "\n".join([f"{indent}from {module} import (", *inner, f"{indent})"])
        lines.insert(0, one)
    return lines
