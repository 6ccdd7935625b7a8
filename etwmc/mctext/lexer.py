"""Splitting a statement line of a message text file into tokens.

A token is one of ``= ( ) : +``, or a word: a run of characters that are neither white
space nor one of those.  A word is a number when it is all decimal digits or ``0x``
and hexadecimal digits; a keyword when it spells one, ignoring case, where a statement
starts.  A ``;`` that starts a token after the start of the line begins a comment that
runs to the line's end.  Message texts are never tokenized: the parser takes their
lines as they are.
"""

from __future__ import annotations

import re
from enum import Enum

from ..record import Record


class Kind(Enum):
    WORD = "word"
    EQUAL = "="
    OPEN = "("
    CLOSE = ")"
    COLON = ":"
    PLUS = "+"
    COMMENT = ";"


class Token(Record):
    kind: Kind
    text: str
    col: int  # 1-based

    @property
    def number(self) -> int | None:
        """The word's value when it is a number."""
        if self.kind is not Kind.WORD:
            return None
        if len(self.text) > _LONGEST_NUMBER:
            # Out of every range; not converted, so a megabyte of digits costs nothing.
            return 1 << 64 if _DECIMAL.fullmatch(self.text) or _HEX.fullmatch(self.text) else None
        if _DECIMAL.fullmatch(self.text):
            return int(self.text, 10)
        if _HEX.fullmatch(self.text):
            return int(self.text[2:], 16)
        return None


_DECIMAL = re.compile(r"[0-9]+")
_HEX = re.compile(r"0[xX][0-9A-Fa-f]+")
_PUNCTUATION = {"=": Kind.EQUAL, "(": Kind.OPEN, ")": Kind.CLOSE, ":": Kind.COLON, "+": Kind.PLUS}
_TOKEN = re.compile(r"[=():+]|[^\s=():+]+")
_LONGEST_NUMBER = 24


def tokenize(line: str) -> list[Token]:
    """The tokens of one statement line."""
    out: list[Token] = []
    for m in _TOKEN.finditer(line):
        text = m.group()
        col = m.start() + 1
        if text.startswith(";") and col > 1:
            out.append(Token(Kind.COMMENT, line[m.start() :], col))
            break
        out.append(Token(_PUNCTUATION.get(text, Kind.WORD), text, col))
    return out
