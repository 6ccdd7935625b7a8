"""Docstrings of the generated event functions, from the manifest's words.

A write function's docstring says what the event means and where it goes: its
message with the field names in place of ``%1``..., its level, opcode, task, keywords
and channel, and each parameter (its inType, its map's enum, its count or length
field).  Manifest text reaches a docstring only through :func:`docstring` (and
:func:`paragraphs_text`, for the paragraphs many docstrings share): whitespace
becomes single spaces and every character that could end the string or start an
escape is escaped as in :func:`.literals.pystr` (``"`` as ``\\"``, ``\\`` as ``\\\\``,
anything outside printable ASCII as ``\\x``/``\\u``/``\\U``), so no text can close the
docstring or become code, and the module stays ASCII.  Every docstring begins and ends
with fixed text, as black wants its docstrings to (a last character ``"`` or ``\\``
would be changed).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from ..msgformat import shown
from .literals import escaped

WIDTH = 88  # black's line length; the text is wrapped to it before escaping


def message(text: str, names: Sequence[str]) -> str:
    """An event message with ``{name}`` for each ``%n`` insert (``names``: the template's
    items in order; an insert past them stays as written) and FormatMessage's escapes
    read (``%n`` a line break, ``%%`` a percent sign...); up to ``%0``, where a reader
    stops.  Not yet escaped."""
    count = len(names)
    return shown(text, lambda n: "{" + names[n - 1] + "}" if n <= count else f"%{n}")


def docstring(
    indent: str, summary: str, paragraphs: Sequence[str | Sequence[str]], tail: str = ""
) -> str:
    """The docstring literal at ``indent``: ``summary`` (one line), then each paragraph:
    a string (wrapped), or lines kept as they are (their own indentation too), then
    ``tail`` (what :func:`paragraphs_text` made of the paragraphs that end it, when many
    docstrings end alike: made once).  Every line is escaped (which leaves fixed text
    and identifiers as they are); the closing quotes go on a line of their own, so the
    docstring ends with no manifest character."""
    quotes = f'{indent}"""'
    lines = [quotes + escaped(summary, '"'), *_lines(indent, paragraphs)]
    if tail:
        lines.append(tail)
    lines.append(quotes)
    return "\n".join(lines)


def paragraphs_text(indent: str, paragraphs: Sequence[str | Sequence[str]]) -> str:
    """The lines :func:`docstring` writes for ``paragraphs`` (each after a blank line),
    escaped and joined: a ``tail`` for it.  Each line is escaped on its own, so the
    lines are the same made here or there."""
    return "\n".join(_lines(indent, paragraphs))


def _lines(indent: str, paragraphs: Sequence[str | Sequence[str]]) -> list[str]:
    """Each paragraph after a blank line, its lines at ``indent`` and escaped: a
    string wrapped to :data:`WIDTH`, or lines kept with their own indentation."""
    lines: list[str] = []
    for p in paragraphs:
        lines.append("")
        if isinstance(p, str):
            width = WIDTH - len(indent)
            text = " ".join(p.split())
            # A text that fits is the one line textwrap would make of it (none if empty).
            if len(text) <= width:
                wrapped = [text] if text else []
            else:
                wrapped = textwrap.wrap(text, width, break_on_hyphens=False)
            lines.extend(indent + escaped(line, '"') for line in wrapped)
        else:
            for line in p:
                text = " ".join(line.split())
                if text:
                    lead = " " * (len(line) - len(line.lstrip(" ")))
                    lines.append(indent + lead + escaped(text, '"'))
                else:
                    lines.append("")
    return lines
