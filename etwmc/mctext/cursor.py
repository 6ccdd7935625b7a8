"""Walking a message text file's statements token by token, across lines.

mc reads statements as a stream of tokens: a value may stand on the line after its
``=`` (``LanguageNames =`` then ``(`` on the next line, as in real files), and a name
list runs over as many lines as it needs.  The cursor gives tokens with their line,
skips blank lines, hands ``;`` comment lines to a callback (they go into the header
where they stand) and lets the parser take raw lines for message texts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .lexer import Token, tokenize


class Cursor:
    def __init__(self, lines: Sequence[str], on_comment: Callable[[int, str], None]) -> None:
        self._lines = lines
        self._on_comment = on_comment
        self._line = 0  # 1-based number of the line the tokens come from; 0: none yet
        self._tokens: list[Token] = []
        self._next = 0

    @property
    def line(self) -> int:
        """The line of the token :meth:`peek` or :meth:`take` gave last."""
        return self._line

    def _fill(self) -> bool:
        while self._next >= len(self._tokens):
            if self._line >= len(self._lines):
                return False
            self._line += 1
            text = self._lines[self._line - 1]
            if text.startswith(";"):
                self._on_comment(self._line, text[1:])
                self._tokens, self._next = [], 0
                continue
            self._tokens, self._next = tokenize(text), 0
        return True

    def peek(self) -> Token | None:
        """The next token, on this line or a later one; None at the end of the file."""
        return self._tokens[self._next] if self._fill() else None

    def peek_here(self) -> Token | None:
        """The next token if it is on the current line."""
        return self._tokens[self._next] if self._next < len(self._tokens) else None

    def take(self) -> Token | None:
        token = self.peek()
        if token is not None:
            self._next += 1
        return token

    def rest_of_line(self) -> list[Token]:
        """The tokens left on the current line, consumed."""
        rest = self._tokens[self._next :]
        self._next = len(self._tokens)
        return rest

    @property
    def lines(self) -> Sequence[str]:
        """Every line of the file, for the parser to read a message text from."""
        return self._lines

    def resume_at(self, line: int) -> None:
        """Continue with the tokens of line ``line`` (1-based) after reading raw lines."""
        self._line = line - 1
        self._tokens, self._next = [], 0
