"""Quoting a piece of a message text file in a diagnostic, safely.

Reports are read on terminals and parsed by CI systems: a quoted token must not carry
a control character (an escape sequence, a line end that would forge a report line)
or a megabyte of text.  Characters Python does not call printable are written as
``\\uXXXX``; long text is cut with ``...``.
"""

from __future__ import annotations

_LONGEST = 60


def shown(text: str) -> str:
    """``text`` in single quotes, escaped and shortened for a report."""
    cut = len(text) > _LONGEST
    body = "".join(
        ch if ch.isprintable() and ch not in "'\\" else _escape(ch) for ch in text[:_LONGEST]
    )
    return f"'{body}{'...' if cut else ''}'"


def _escape(ch: str) -> str:
    if ch in "'\\":
        return "\\" + ch
    o = ord(ch)
    return f"\\u{o:04X}" if o <= 0xFFFF else f"\\U{o:08X}"
