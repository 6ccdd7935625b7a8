"""FormatMessage syntax, parsed once for the message rules and the decoder.

``%1`` .. ``%99`` insert a value, optionally with a printf-style format between two
``!`` (``%1!04x!``); ``%0`` ends the message without a line break; ``%n``, ``%r``,
``%t`` and ``%b`` are a line break, carriage return, tab and space; any other character
after ``%`` stands for itself (``%%``, ``%.``, ``%!``); a ``%`` at the very end is
dropped.

Line breaks in a manifest string (``&#xA;``) are stored the Windows way: mc 10 writes
each line feed not already preceded by a carriage return as CR LF in the message table
(:func:`table_text`; seen in mc's MSG00001.bin for nuclune/WEC's manifest, and in the
message tables of Windows 10 binaries, where Windows 7's still held a bare LF).  An
existing CR LF and a lone CR stay as written (no mc output with ``&#xD;`` was found to
settle them); ``%n`` and the other escapes are stored as written (PowerShell's
manifest and the message table of its pwrshmsg.dll) and only formatting expands them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from .record import Record

# One match per insert, with its ``!format!`` (up to the next '!', else to the end), or
# per escape; a '%' ending the text is dropped.
_TOKEN = re.compile(r"%(?:([1-9][0-9]?)(?:!([^!]*)(!)?)?|(.)|$)", re.S)
_ESCAPES = {"n": "\r\n", "r": "\r", "t": "\t", "b": " "}
_LONE_LF = re.compile(r"(?<!\r)\n")
_STORED_BREAK = re.compile(r"(?<!\r)\r\n")


def table_text(text: str) -> str:
    """A manifest string as the message table stores it (before mc's closing CR LF):
    a line feed without a carriage return before it becomes CR LF."""
    return _LONE_LF.sub("\r\n", text) if "\n" in text else text


def source_text(stored: str) -> str:
    """A manifest string that :func:`table_text` turns back into ``stored``: each CR LF
    becomes a line feed, unless its CR follows another CR (``table_text`` keeps such a
    pair).  Exact unless ``stored`` holds a line feed without a CR before it, which mc 10
    never writes (see :func:`exact_source`)."""
    return _STORED_BREAK.sub("\n", stored)


def exact_source(stored: str) -> bool:
    """Whether ``table_text(source_text(stored)) == stored``."""
    return _LONE_LF.search(stored) is None


class Insert(Record):
    """``%n`` or ``%n!fmt!`` in a message: insert ``number``, with its printf format."""

    number: int
    format: str | None  # the text between the '!'s, None when absent
    closed: bool = True  # False for %n!fmt without its closing '!'

    def __init__(self, number: int, format: str | None, closed: bool = True) -> None:
        # Written out (etwmc.record): one per insert of every message read.
        object.__setattr__(self, "number", number)
        object.__setattr__(self, "format", format)
        object.__setattr__(self, "closed", closed)


class Stop(Record):
    """``%0``: the message ends here."""


Token = str | Insert | Stop


def tokens(text: str) -> Iterator[Token]:
    """The message as literal text pieces, inserts and stops, in order (a reader of
    the message stops at the first :class:`Stop`)."""
    pos = 0
    for m in _TOKEN.finditer(text):
        if m.start() > pos:
            yield text[pos : m.start()]
        pos = m.end()
        number, fmt, close, ch = m.groups()
        if number is not None:
            yield Insert(int(number), fmt, fmt is None or close is not None)
        elif ch == "0":
            yield Stop()  # what follows is never shown, but is still checked
        elif ch is not None:
            yield _ESCAPES.get(ch, ch)
    if pos < len(text):
        yield text[pos:]


def shown(text: str, insert: Callable[[int], str]) -> str:
    """The message as a reader shows it: :func:`tokens` up to the first stop, escapes
    read, each insert replaced by ``insert(number)`` (the generated modules' docstrings
    read every event's message this way)."""
    # What tokens() finds, read in place: shown for every event's message of a
    # module, where making a token object per piece cost more than the rest.
    out: list[str] = []
    pos = 0
    for m in _TOKEN.finditer(text):
        start = m.start()
        if start > pos:
            out.append(text[pos:start])
        pos = m.end()
        number, _, _, ch = m.groups()
        if number is not None:
            out.append(insert(int(number)))
        elif ch == "0":
            return "".join(out)
        elif ch is not None:
            out.append(_ESCAPES.get(ch, ch))
    if pos < len(text):
        out.append(text[pos:])
    return "".join(out)


def inserts(text: str) -> list[Insert]:
    """The ``%n`` inserts of a message, in order: the :class:`Insert` tokens of
    :func:`tokens`, found the same way without making the others."""
    return [Insert(n, f, c) for n, f, c in insert_fields(text)]


def insert_fields(text: str) -> list[tuple[int, str | None, bool]]:
    """(number, format, closed) of each insert of :func:`inserts`, without making the
    objects (the rules read every event message's)."""
    found: list[tuple[int, str | None, bool]] = []
    if "%" not in text:
        return found
    for m in _TOKEN.finditer(text):
        number, fmt, close, _ = m.groups()
        if number is not None:
            found.append((int(number), fmt, fmt is None or close is not None))
    return found
