"""FormatMessage syntax, parsed once for the message rules and the decoder.

``%1`` .. ``%99`` insert a value, optionally with a printf-style format between two
``!`` (``%1!04x!``); ``%0`` ends the message without a line break; ``%n``, ``%r``,
``%t`` and ``%b`` are a line break, carriage return, tab and space; any other character
after ``%`` stands for itself (``%%``, ``%.``, ``%!``); a ``%`` at the very end is
dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_TOKEN = re.compile(r"%(?:([1-9][0-9]?)(!)?|(.)|$)", re.S)
_ESCAPES = {"n": "\r\n", "r": "\r", "t": "\t", "b": " "}


@dataclass(frozen=True, slots=True)
class Insert:
    number: int
    format: str | None  # the text between the '!'s, None when absent
    closed: bool = True  # False for %n!fmt without its closing '!'


@dataclass(frozen=True, slots=True)
class Stop:
    """``%0``: the message ends here."""


Token = str | Insert | Stop


def tokens(text: str) -> Iterator[Token]:
    """The message as literal text pieces, inserts and stops, in order (a reader of
    the message stops at the first :class:`Stop`)."""
    pos = 0
    for m in _TOKEN.finditer(text):
        if m.start() < pos:  # inside a format consumed below
            continue
        if m.start() > pos:
            yield text[pos : m.start()]
        pos = m.end()
        number, bang, ch = m.group(1), m.group(2), m.group(3)
        if number is not None:
            if bang is None:
                yield Insert(int(number), None)
                continue
            end = text.find("!", pos)
            if end < 0:
                yield Insert(int(number), text[pos:], closed=False)
                pos = len(text)
            else:
                yield Insert(int(number), text[pos:end])
                pos = end + 1
        elif ch == "0":
            yield Stop()  # what follows is never shown, but is still checked
        elif ch is not None:
            yield _ESCAPES.get(ch, ch)
    if pos < len(text):
        yield text[pos:]


def inserts(text: str) -> list[Insert]:
    """The ``%n`` inserts of a message, in order."""
    return [t for t in tokens(text) if isinstance(t, Insert)]
