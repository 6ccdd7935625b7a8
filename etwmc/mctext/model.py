"""The model of a message text file: what the parser read, frozen, with source places.

A :class:`MessageFile` holds the declared severity, facility and language names, and
the body in source order: the ``;`` comment lines (copied into the header where they
stand) and the messages.  Every message carries its final 32-bit id, the type and
number base its ``#define`` is written with, and its texts per language, each a tuple
of source lines (line ends and the closing ``.`` line removed).
"""

from __future__ import annotations

from ..diagnostics import Span
from ..record import Record

# A message id's bit fields (winerror.h): severity 31-30, customer 29, facility 27-16.
SEVERITY_SHIFT = 30
CUSTOMER_BIT = 0x20000000
FACILITY_SHIFT = 16
MAX_SEVERITY = 0x3
MAX_FACILITY = 0xFFF
MAX_CODE = 0xFFFF
MAX_LANGID = 0xFFFF


class Name(Record):
    """A declared severity, facility or language.

    ``value`` is the severity or facility number, or the language id; ``symbol`` the
    name a severity or facility ``#define`` gets in the header (``name=value:symbol``);
    ``file`` a language's table file name without ``.bin``.
    """

    name: str
    value: int
    symbol: str | None = None
    file: str | None = None
    span: Span | None = None  # None for mc's predefined names


class Text(Record):
    """One language's text of a message, as its source lines."""

    language: str  # the language's name as declared
    lines: tuple[str, ...]
    span: Span  # the Language= statement

    def stored(self, *, final_line_end: bool = True) -> str:
        """The text as a message table stores it: every line ends with CR LF, the last
        one too unless ``final_line_end`` is false (mc's ``-n``)."""
        text = "".join(line + "\r\n" for line in self.lines)
        return text if final_line_end or not text else text[:-2]


class Message(Record):
    """One message definition."""

    id: int  # severity << 30 | customer bit | facility << 16 | code
    symbol: str | None
    typedef: str | None  # MessageIdTypedef in force (None: no cast)
    decimal: bool  # OutputBase=10 in force
    texts: tuple[Text, ...]  # in source order
    span: Span  # the MessageId statement

    @property
    def code(self) -> int:
        return self.id & MAX_CODE

    def text(self, language: str) -> Text | None:
        key = language.casefold()
        return next((t for t in self.texts if t.language.casefold() == key), None)


class Comment(Record):
    """A ``;`` line, without the ``;``: copied into the header where it stands."""

    text: str
    span: Span


class MessageFile(Record):
    """A parsed message text file."""

    path: str
    severities: tuple[Name, ...]  # declaration order, mc's predefined names first
    facilities: tuple[Name, ...]
    languages: tuple[Name, ...]
    body: tuple[Comment | Message, ...]

    @property
    def messages(self) -> tuple[Message, ...]:
        return tuple(m for m in self.body if isinstance(m, Message))

    def used_languages(self) -> tuple[Name, ...]:
        """The languages some message has a text in, in the order mc's .rc lists them:
        by name, descending, ignoring case (the order of every real .rc we hold)."""
        used = {t.language.casefold() for m in self.messages for t in m.texts}
        langs = [lang for lang in self.languages if lang.name.casefold() in used]
        return tuple(sorted(langs, key=lambda lang: lang.name.lower(), reverse=True))
