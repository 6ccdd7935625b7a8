"""The C header mc writes for a message text file.

In source order: each ``;`` line without its ``;``; before the first message, the banner
that explains the bit layout of a message id (the HRESULT layout with ``-o``) and the
"Define the facility codes" and "Define the severity codes" sections, with a
``#define`` for each name declared with a ``:symbol``; for each message the block::

    //
    // MessageId: NAME
    //
    // MessageText:
    //
    // <each line of its first text>
    //
    #define NAME                             0x40000001L
    <blank line>

The name is padded to 32 characters and followed by one space; the value is 8
upper-case hexadecimal digits and ``L`` (decimal after ``OutputBase=10``), cast to the
``MessageIdTypedef`` in force (``_HRESULT_TYPEDEF_(...)`` with ``-o`` and no typedef).
A message without a symbolic name gets ``// MessageId: 0x40000001L (No symbolic name
defined)`` and no ``#define``.  Lines end with LF, as in the headers we hold.

Message text reaches the header only inside ``//`` comments, one source line each (the
source has no lone CR or NUL: :mod:`etwmc.mctext.source`); names only as words of
letters, digits and ``_`` (:func:`etwmc.mctext.names.symbol_problem`).  ``;`` lines are
the file author's own header text, copied as mc copies them.
"""

from __future__ import annotations

from ..record import Record
from .model import Comment, Message, MessageFile, Name

_BANNER = """\
//
//  Values are 32 bit values laid out as follows:
//
//   3 3 2 2 2 2 2 2 2 2 2 2 1 1 1 1 1 1 1 1 1 1
//   1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0
//  +---+-+-+-----------------------+-------------------------------+
//  |Sev|C|R|     Facility          |               Code            |
//  +---+-+-+-----------------------+-------------------------------+
//
//  where
//
//      Sev - is the severity code
//
//          00 - Success
//          01 - Informational
//          10 - Warning
//          11 - Error
//
//      C - is the Customer code flag
//
//      R - is a reserved bit
//
//      Facility - is the facility code
//
//      Code - is the facility's status code
//
"""

# With -o: the HRESULT layout (winerror.h's own banner is this text).
_OLE2_BANNER = """\
//
//  Values are 32 bit values laid out as follows:
//
//   3 3 2 2 2 2 2 2 2 2 2 2 1 1 1 1 1 1 1 1 1 1
//   1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0
//  +-+-+-+-+-+---------------------+-------------------------------+
//  |S|R|C|N|r|    Facility         |               Code            |
//  +-+-+-+-+-+---------------------+-------------------------------+
//
//  where
//
//      S - Severity - indicates success/fail
//
//          0 - Success
//          1 - Fail (COERROR)
//
//      R - reserved portion of the facility code, corresponds to NT's
//              second severity bit.
//
//      C - reserved portion of the facility code, corresponds to NT's
//              C field.
//
//      N - reserved portion of the facility code. Used to indicate a
//              mapped NT status value.
//
//      r - reserved portion of the facility code. Reserved for internal
//              use. Used to indicate HRESULT values that are not status
//              values, but are instead message ids for display strings.
//
//      Facility - is the facility code
//
//      Code - is the facility's status code
//
"""


class HeaderStyle(Record):
    """``ole2``: mc's ``-o``.  ``decimal_codes``: mc's ``-d``, severity and facility
    values in decimal."""

    ole2: bool = False
    decimal_codes: bool = False


def render_header(mf: MessageFile, style: HeaderStyle | None = None) -> str:
    style = style or HeaderStyle()
    out: list[str] = []
    first = True
    for item in mf.body:
        if isinstance(item, Comment):
            out.append(item.text + "\n")
            continue
        if first:
            out.append(_OLE2_BANNER if style.ole2 else _BANNER)
            out.append(_codes("facility", mf.facilities, style))
            out.append(_codes("severity", mf.severities, style))
            first = False
        out.append(_message(item, style))
    return "".join(out)


def _codes(kind: str, names: tuple[Name, ...], style: HeaderStyle) -> str:
    lines = ["//", f"// Define the {kind} codes", "//"]
    for n in names:
        if n.symbol is not None:
            value = str(n.value) if style.decimal_codes else f"0x{n.value:X}"
            lines.append(f"#define {n.symbol:<32} {value}")
    return "\n".join(lines) + "\n\n\n"


def value_text(m: Message, style: HeaderStyle) -> str:
    """The ``#define``'s value: ``0x40000001L``, ``((DWORD)0x40000001L)``..."""
    number = f"{m.id}L" if m.decimal else f"0x{m.id:08X}L"
    if m.typedef is not None:
        return f"(({m.typedef}){number})"
    if style.ole2:
        return f"_HRESULT_TYPEDEF_({number})"
    return number


def _message(m: Message, style: HeaderStyle) -> str:
    name = m.symbol if m.symbol is not None else f"0x{m.id:08X}L (No symbolic name defined)"
    lines = ["//", f"// MessageId: {name}", "//", "// MessageText:", "//"]
    lines += [f"// {line}" for line in m.texts[0].lines]
    lines.append("//")
    lines.append(f"#define {m.symbol:<32} {value_text(m, style)}" if m.symbol is not None else "")
    return "\n".join(lines) + "\n\n"
