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

import re
import textwrap
from collections.abc import Sequence

from ..msgformat import shown
from .literals import escaped_lines

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
    quote = '"'
    close = f"\n{tail}\n{indent}{quote * 3}" if tail else f"\n{indent}{quote * 3}"
    body = _plain(indent, summary, paragraphs)
    if body is not None:
        return f"{indent}{quote * 3}{body}{close}"
    heads, texts = _lines(indent, paragraphs, [f"{indent}{quote * 3}"], [summary])
    lines = [h + t for h, t in zip(heads, escaped_lines(texts, quote), strict=True)]
    return "\n".join(lines) + close


def _plain(indent: str, summary: str, paragraphs: Sequence[str | Sequence[str]]) -> str | None:
    """The summary and paragraphs as :func:`docstring` lays them out, when no character
    needs an escape (nearly every docstring: checked once over the whole text, as
    :func:`_lines` would lay it out); else None."""
    if "\n" in summary:
        return None
    parts = [summary]
    for p in paragraphs:
        if isinstance(p, str):
            text = " ".join(p.split())
            if len(text) <= WIDTH - len(indent):
                parts.append(f"\n\n{indent}{text}" if text else "\n")
            else:
                wrapped = textwrap.wrap(text, WIDTH - len(indent), break_on_hyphens=False)
                parts.append("\n" + "".join(f"\n{indent}{line}" for line in wrapped))
        else:
            parts.append("\n")
            for line in p:
                text = " ".join(line.split())
                if text:
                    lead = " " * (len(line) - len(line.lstrip(" ")))
                    parts.append(f"\n{indent}{lead}{text}")
                else:
                    parts.append("\n")
    body = "".join(parts)
    # The texts hold no line break (split on all whitespace; the summary checked):
    # every character but the line breaks between them is the texts' or the indents'.
    return body if _UNESCAPED_BODY.fullmatch(body) else None


# literals._UNESCAPED_LINES['"']: printable ASCII but for the quote and the backslash.
_UNESCAPED_BODY = re.compile(r"[ !#-\[\]-~\n]*")


def paragraphs_text(indent: str, paragraphs: Sequence[str | Sequence[str]]) -> str:
    """The lines :func:`docstring` writes for ``paragraphs`` (each after a blank line),
    escaped and joined: a ``tail`` for it.  Each line is escaped on its own, so the
    lines are the same made here or there."""
    body = _plain(indent, "", paragraphs)
    if body is not None:
        return body[1:]  # without the line break that would end the summary
    heads, texts = _lines(indent, paragraphs, [], [])
    return "\n".join(h + t for h, t in zip(heads, escaped_lines(texts, '"'), strict=True))


def _lines(
    indent: str,
    paragraphs: Sequence[str | Sequence[str]],
    heads: list[str],
    texts: list[str],
) -> tuple[list[str], list[str]]:
    """``heads`` and ``texts`` with each line of ``paragraphs`` added, as (what goes
    before its text, its text): the texts are escaped together."""
    for p in paragraphs:
        heads.append("")
        texts.append("")
        if isinstance(p, str):
            width = WIDTH - len(indent)
            text = " ".join(p.split())
            # A text that fits is the one line textwrap would make of it (none if empty).
            if len(text) <= width:
                wrapped = [text] if text else []
            else:
                wrapped = textwrap.wrap(text, width, break_on_hyphens=False)
            heads.extend(indent for _ in wrapped)
            texts.extend(wrapped)
        else:
            for line in p:
                text = " ".join(line.split())
                lead = " " * (len(line) - len(line.lstrip(" "))) if text else ""
                heads.append(f"{indent}{lead}" if text else "")
                texts.append(text)
    return heads, texts
