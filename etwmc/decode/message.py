"""Event messages, formatted like FormatMessage with string inserts.

``%1`` .. ``%99`` (optionally ``%1!x!``) insert the top-level properties, ``%%`` is
``%``, ``%n`` a line break, ``%t`` a tab, ``%r`` CR, ``%b`` a space, ``%0`` ends the
message, and ``%`` before any other character yields that character.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..msgformat import Stop, tokens


def format_message(text: str, inserts: Sequence[str]) -> str:
    """Format a message like FormatMessage with string inserts (``%1`` is ``inserts[0]``)."""
    out: list[str] = []
    for t in tokens(text):
        if isinstance(t, str):
            out.append(t)
        elif isinstance(t, Stop):
            break
        elif t.number > len(inserts):
            out.append(f"%{t.number}")  # nothing to insert: shown as written
        else:
            value = inserts[t.number - 1]
            out.append(_printf(value, t.format) if t.format and t.closed else value)
    return "".join(out)


def _printf(value: str, fmt: str) -> str:
    """Apply a ``!fmt!`` printf conversion to an insert when it fits the value."""
    try:
        if fmt and fmt[-1] in "diuxXo":
            n = int(value, 0)
            return ("%" + fmt.replace("I64", "").replace("l", "").replace("u", "d")) % n
        if fmt and fmt[-1] in "sS":
            return ("%" + fmt[:-1] + "s") % value
    except (ValueError, TypeError):
        pass
    return value
