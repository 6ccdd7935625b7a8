"""black's layout for the statements of a generated module that can outgrow a line.

A generated module is exactly what black (stable style, line length 88, magic trailing
commas) prints for it, without running black: every line the template writes is either
of bounded length, or an exploded call whose magic trailing comma black keeps, or one
of the shapes below, whose length depends on manifest names and which these functions
lay out as black does.  Each function returns the statement's text without the final
newline; when the one-line form fits, that is the result.

The shapes, and black's rule for each (the tests compare every one with black):

* :func:`assign` — ``target = atom``: too long, the atom goes alone between
  parentheses; without an annotation, only when it fits there.
* :func:`descriptor` — ``NAME: Final = EventDescriptor(...)`` (exploded arguments):
  when the first line is too long the call goes between parentheses; when even
  ``NAME: Final = (`` is too long, the annotation does instead.
* :func:`is_enabled` — ``def NAME() -> bool:``: the return annotation goes between
  parentheses.
* :func:`parameter` — ``name: annotation,`` in an exploded signature: a subscript is
  split inside its brackets, a union goes between parentheses, a name stays.
* :func:`call` — ``head(a, b, c)tail`` with atom arguments: the arguments go on one
  line of their own, or one per line with a trailing comma added
  (:func:`call_shared`: the same, for calls that share their last arguments).
* :func:`struct_assign` — ``NAME: Final = struct.Struct(fmt)``, ``fmt`` a literal or a
  ``_pointers(literal)`` call.
* :func:`type_alias` — ``NAME: TypeAlias = tuple[...] | dict[str, object]``: the value
  goes between parentheses, then splits at ``|``, then inside ``tuple[...]``.
* :func:`concat` — ``target op left + right`` where ``left`` is ``f(name)[0]`` or
  ``name.encode()``: the value goes between parentheses, then splits before ``+``, then
  inside ``left``'s brackets.
* :func:`join` — ``target b"".join((piece, ...))``, each piece a call with atom
  arguments, ``f(name)[0]``, ``name.encode()`` or a literal: the tuple goes on a line of
  its own, then one piece per line with a trailing comma added, each split inside its
  own brackets as needed.
* :func:`class_head` — ``class NAME(base):``: the base goes on a line of its own.

Every shape starts with a head of bounded length (a fixed name, an indentation, or a
generated private name), which these rules rely on: black's choice between splitting
inside a call and wrapping the whole value in parentheses depends on whether the head
fits, and for these shapes it always does.
"""

from __future__ import annotations

from collections.abc import Sequence

LINE_LENGTH = 88  # black's default, which the generated modules use


def assign(indent: str, target: str, atom: str) -> str:
    """``target = atom`` at ``indent``: ``target`` a name or ``name: annotation``, ``atom``
    a literal or a name."""
    line = f"{indent}{target} = {atom}"
    if len(line) <= LINE_LENGTH:
        return line
    body = f"{indent}    {atom}"
    # black leaves the line alone when the atom would not fit between the parentheses
    # either, unless there is an annotation (it brings a bracket pair of its own).
    if len(body) > LINE_LENGTH and ": " not in target:
        return line
    return f"{indent}{target} = (\n{body}\n{indent})"


def descriptor(name: str, arguments: str) -> str:
    """``name: Final = EventDescriptor(`` with its ``arguments`` (one ``    arg,`` line
    each, joined), at module level."""
    head = f"{name}: Final = EventDescriptor("
    if len(head) <= LINE_LENGTH:
        return f"{head}\n{arguments}\n)"
    if len(f"{name}: Final = (") <= LINE_LENGTH:
        inner = "    " + arguments.replace("\n", "\n    ")
        return f"{name}: Final = (\n    EventDescriptor(\n{inner}\n    )\n)"
    return f"{name}: (\n    Final\n) = EventDescriptor(\n{arguments}\n)"


def is_enabled(name: str) -> str:
    """``def name() -> bool:`` (module level)."""
    line = f"def {name}() -> bool:"
    if len(line) <= LINE_LENGTH:
        return line
    return f"def {name}() -> (\n    bool\n):"


def parameter(name: str, annotation: str) -> str:
    """``    name: annotation,`` in an exploded signature.

    ``annotation`` is a name (``int``, ``uuid.UUID``, ``_Struct0``), a union of names
    (``str | bytes``) or ``Sequence[...]`` of one of those.
    """
    line = f"    {name}: {annotation},"
    if len(line) <= LINE_LENGTH:
        return line
    if annotation.startswith("Sequence["):
        return f"    {name}: Sequence[\n        {annotation[9:-1]}\n    ],"
    if " | " in annotation:
        return f"    {name}: (\n        {annotation}\n    ),"
    return line


def call(indent: str, head: str, arguments: Sequence[str], tail: str = "") -> str:
    """``head(arguments)tail`` at ``indent``, for two or more atom arguments."""
    return call_shared(indent, head, arguments, _NONE_SHARED, tail)


class Shared:
    """The last arguments of many calls that :func:`call_shared` lays out at one
    indentation, joined once both ways: after a comma on one line, and one per line."""

    __slots__ = ("joined", "exploded")

    def __init__(self, indent: str, arguments: Sequence[str]) -> None:
        if not arguments:
            self.joined = self.exploded = ""
            return
        self.joined = ", " + ", ".join(arguments)
        line = f"\n{indent}    "
        self.exploded = line + f",{line}".join(arguments) + ","


_NONE_SHARED = Shared("", [])


def call_shared(indent: str, head: str, first: Sequence[str], rest: Shared, tail: str = "") -> str:
    """:func:`call` of the arguments ``first`` then ``rest`` (two or more in all), with
    ``rest`` made once for the many calls that end with it (``rest`` at ``indent``)."""
    joined = ", ".join(first) + rest.joined
    line = f"{indent}{head}({joined}){tail}"
    if len(line) <= LINE_LENGTH:
        return line
    body = f"{indent}    {joined}"
    if len(body) > LINE_LENGTH:
        body = "\n".join(f"{indent}    {a}," for a in first) + rest.exploded
    return f"{indent}{head}(\n{body}\n{indent}){tail}"


# A piece of a join: ("call", head, arguments), ("encode", function or None, name) for
# ``function(name)[0]`` or ``name.encode()``, or ("atom", text).
Piece = tuple[str, str | None, Sequence[str] | str]


def _piece(piece: Piece) -> str:
    kind, a, b = piece
    if kind == "call":
        return f"{a}({', '.join(b)})"
    if kind == "encode":
        return f"{a}({b})[0]" if a else f"{b}.encode()"
    return str(b)


def join(indent: str, target: str, pieces: Sequence[Piece]) -> str:
    """``target b"".join((pieces))`` at ``indent`` (``target`` ends with ``=``)."""
    texts = [_piece(p) for p in pieces]
    line = f'{indent}{target} b"".join(({", ".join(texts)}))'
    if len(line) <= LINE_LENGTH:
        return line
    inner = indent + "    "
    body = f"{inner}({', '.join(texts)})"
    if len(body) > LINE_LENGTH:
        item = inner + "    "
        lines = []
        for (kind, a, b), text in zip(pieces, texts, strict=True):
            if kind == "call":
                assert a is not None and not isinstance(b, str)
                lines.append(call(item, a, b, ","))
            elif len(f"{item}{text},") <= LINE_LENGTH or kind != "encode" or a is None:
                lines.append(f"{item}{text},")
            elif len(f"{item}{a}({b})[") <= LINE_LENGTH:
                lines.append(f"{item}{a}({b})[\n{item}    0\n{item}],")
            else:
                lines.append(f"{item}{a}(\n{item}    {b}\n{item})[0],")
        body = "\n".join([f"{inner}(", *lines, f"{inner})"])
    return f'{indent}{target} b"".join(\n{body}\n{indent})'


def struct_assign(name: str, fmt: str, pointers: bool) -> str:
    """``name: Final = struct.Struct(fmt)`` (module level), ``fmt`` a string literal that
    is wrapped in ``_pointers(...)`` when ``pointers``."""
    argument = f"_pointers({fmt})" if pointers else fmt
    line = f"{name}: Final = struct.Struct({argument})"
    if len(line) <= LINE_LENGTH:
        return line
    body = f"    {argument}"
    if pointers and len(body) > LINE_LENGTH:
        body = f"    _pointers(\n        {fmt}\n    )"
    return f"{name}: Final = struct.Struct(\n{body}\n)"


def type_alias(name: str, members: Sequence[str]) -> str:
    """``name: TypeAlias = tuple[members] | dict[str, object]`` (module level)."""
    joined = ", ".join(members)
    tup = f"tuple[{joined}]" if members else "tuple[()]"
    value = f"{tup} | dict[str, object]"
    line = f"{name}: TypeAlias = {value}"
    if len(line) <= LINE_LENGTH:
        return line
    if len(f"    {value}") <= LINE_LENGTH:
        body = [f"    {value}"]
    else:
        if len(f"    {tup}") <= LINE_LENGTH:
            body = [f"    {tup}"]
        elif len(f"        {joined}") <= LINE_LENGTH:
            body = ["    tuple[", f"        {joined}", "    ]"]
        else:
            body = ["    tuple[", *(f"        {m}," for m in members), "    ]"]
        body.append("    | dict[str, object]")
    return "\n".join([f"{name}: TypeAlias = (", *body, ")"])


def concat(indent: str, target: str, function: str | None, name: str, right: str) -> str:
    """``target left + right`` at ``indent`` (``target`` ends with ``=`` or ``+=``), where
    ``left`` is ``function(name)[0]``, or ``name.encode()`` without a function."""
    left = f"{function}({name})[0]" if function else f"{name}.encode()"
    line = f"{indent}{target} {left} + {right}"
    if len(line) <= LINE_LENGTH:
        return line
    inner = indent + "    "
    body = f"{inner}{left} + {right}"
    if len(body) > LINE_LENGTH:
        if function is None or len(f"{inner}{left}") <= LINE_LENGTH:
            first = f"{inner}{left}"
        elif len(f"{inner}{function}({name})[") <= LINE_LENGTH:
            first = f"{inner}{function}({name})[\n{inner}    0\n{inner}]"
        else:
            first = f"{inner}{function}(\n{inner}    {name}\n{inner})[0]"
        body = f"{first}\n{inner}+ {right}"
    return f"{indent}{target} (\n{body}\n{indent})"


def class_head(indent: str, name: str, base: str) -> str:
    """``class name(base):`` at ``indent``."""
    line = f"{indent}class {name}({base}):"
    if len(line) <= LINE_LENGTH:
        return line
    return f"{indent}class {name}(\n{indent}    {base}\n{indent}):"
