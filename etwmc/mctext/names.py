"""Severity, facility and language names: mc's predefined ones, the lists that declare
more, and the checks on the names a header or an .rc gets.

mc starts with ``Success=0 Informational=1 Warning=2 Error=3``, ``System=0x0FF
Application=0`` (mc's documentation gives Application 0xFFF, but every real output
gives it 0, and GNU windmc follows the documentation) and ``English=0x409:MSG00001``.
``SeverityNames=(...)``, ``FacilityNames=(...)`` and ``LanguageNames=(...)`` add names
or give a name a new value in place; a list may run over several lines.  Names match
ignoring case.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..codes import (
    E_MC_FILE_NAME,
    E_MC_NAME_LIST,
    E_MC_SYMBOL,
    E_MC_VALUE_RANGE,
    W_MC_NOT_IDENTIFIER,
    W_MC_REDECLARED,
)
from ..diagnostics import Diagnostic, Severity, Span, diag
from ..writer import file_name_problem as name_problem
from .cursor import Cursor
from .lexer import Kind, Token
from .model import MAX_FACILITY, MAX_LANGID, MAX_SEVERITY, Name
from .shown import shown

SEVERITIES = (Name("Success", 0), Name("Informational", 1), Name("Warning", 2), Name("Error", 3))
FACILITIES = (Name("System", 0x0FF), Name("Application", 0x000))
LANGUAGES = (Name("English", 0x409, file="MSG00001"),)

_SYMBOL_CHARS = re.compile(r"[A-Za-z0-9_]+")
_FILE_CHARS = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
KEYWORDS = {
    k.casefold(): k
    for k in (
        "MessageIdTypedef",
        "SeverityNames",
        "FacilityNames",
        "LanguageNames",
        "OutputBase",
        "MessageId",
        "Severity",
        "Facility",
        "SymbolicName",
        "Language",
    )
}


class NameTable:
    """One kind of name, in declaration order; a redeclared name keeps its place."""

    def __init__(self, kind: str, predefined: tuple[Name, ...]) -> None:
        self.kind = kind
        self._names = {n.name.casefold(): n for n in predefined}

    def get(self, name: str) -> Name | None:
        return self._names.get(name.casefold())

    def declare(self, name: Name, report: list[Diagnostic]) -> None:
        key = name.name.casefold()
        old = self._names.get(key)
        if old is not None and old.span is not None and name.span is not None:
            report.append(
                diag(
                    W_MC_REDECLARED,
                    name.span,
                    f"{self.kind} {shown(name.name)} is declared again (first at line "
                    f"{old.span.line}); this declaration replaces that one",
                    hint="declare each name once",
                )
            )
        self._names[key] = name

    def names(self) -> tuple[Name, ...]:
        return tuple(self._names.values())


def symbol_problem(token: Token, line: int, path: str, what: str) -> Diagnostic | None:
    """A name the header defines (a symbolic name, a :symbol, a MessageIdTypedef):
    only letters, digits and ``_`` can be in it (anything else could end the
    ``#define`` line's meaning or open a comment); a leading digit only draws a warning,
    as mc writes such names too."""
    span = Span(path, line, token.col)
    if not _SYMBOL_CHARS.fullmatch(token.text):
        return diag(
            E_MC_SYMBOL,
            span,
            f"{what} {shown(token.text)} holds characters other than letters, digits and "
            "'_', which the C header cannot define",
            hint="use a C identifier",
        )
    if token.text[0].isdigit():
        return diag(
            W_MC_NOT_IDENTIFIER,
            span,
            f"{what} {shown(token.text)} starts with a digit: the header's #define of it "
            "does not compile",
            hint="use a C identifier",
        )
    return None


def file_problem(token: Token, line: int, path: str) -> Diagnostic | None:
    """A language's table file name: it becomes ``NAME.bin`` and a quoted file name in
    the .rc, so it must be a plain file name of letters, digits, ``_ . -``."""
    problem = None
    if not _FILE_CHARS.fullmatch(token.text):
        problem = "only letters, digits, '_', '.' and '-' can be in it"
    else:
        problem = name_problem(token.text + ".bin")
    if problem is None:
        return None
    return diag(
        E_MC_FILE_NAME,
        Span(path, line, token.col),
        f"the table file name {shown(token.text)} cannot be used: {problem}",
        hint="name the file like MSG00409",
    )


_LIMITS = {"severity": MAX_SEVERITY, "facility": MAX_FACILITY, "language": MAX_LANGID}


def read_list(
    cursor: Cursor,
    opening: Span,
    kind: str,
    path: str,
    declare: Callable[[Name], None],
    report: list[Diagnostic],
) -> None:
    """The items of a name list after its ``(``, up to and with its ``)``:
    ``name=number[:symbol]`` (``name=langid:file`` for languages)."""
    keyword = {"severity": "SeverityNames", "facility": "FacilityNames"}.get(kind, "LanguageNames")

    def fail(token: Token | None, message: str, hint: str) -> None:
        at = Span(path, cursor.line, token.col) if token is not None else opening
        report.append(diag(E_MC_NAME_LIST, at, message, hint=hint))

    form = "name=langid:file" if kind == "language" else "name=number[:symbol]"
    while True:
        token = cursor.peek()
        if token is None:
            fail(None, f"the {keyword} list opened here is not closed with ')'", "close it")
            return
        if token.kind is Kind.CLOSE:
            cursor.take()
            return
        if token.kind is Kind.WORD and token.text.casefold() in KEYWORDS:
            fail(
                token,
                f"the {keyword} list opened at line {opening.line} is not closed "
                f"with ')' before {shown(token.text)}",
                "close the list with ')'",
            )
            return  # the statement it stops at is read as one
        cursor.take()
        line = cursor.line
        equal, number = cursor.take(), cursor.take()
        value = number.number if number is not None else None
        if token.kind is not Kind.WORD or equal is None or equal.kind is not Kind.EQUAL:
            fail(token, f"{keyword} items are written {form}", "write each item as " + form)
            _skip_to_close(cursor)
            return
        if value is None:
            fail(number, f"{shown(token.text)} needs a number after '='", "write " + form)
            _skip_to_close(cursor)
            return
        symbol: Token | None = None
        following = cursor.peek()
        if following is not None and following.kind is Kind.COLON:
            cursor.take()
            symbol = cursor.take()
            if symbol is None or symbol.kind is not Kind.WORD:
                fail(symbol, f"a name must follow ':' in {keyword}", "write " + form)
                _skip_to_close(cursor)
                return
        if kind == "language" and symbol is None:
            fail(
                token,
                f"language {shown(token.text)} has no table file name",
                "write name=langid:file, such as English=0x409:MSG00409",
            )
            continue
        span = Span(path, line, token.col)
        if value > _LIMITS[kind] or (kind == "language" and value == 0):
            report.append(_out_of_range(span, kind, token.text, value))
            continue
        problem = None
        if symbol is not None:
            sym_line = cursor.line
            if kind == "language":
                problem = file_problem(symbol, sym_line, path)
            else:
                problem = symbol_problem(symbol, sym_line, path, f"the {kind} symbol")
        if problem is not None:
            report.append(problem)
            if problem.severity == Severity.ERROR:
                continue
        text = symbol.text if symbol is not None else None
        if kind == "language":
            declare(Name(token.text, value, file=text, span=span))
        else:
            declare(Name(token.text, value, symbol=text, span=span))


def _skip_to_close(cursor: Cursor) -> None:
    """After a malformed item: on to the list's ``)``, or to a statement keyword."""
    while (token := cursor.peek()) is not None:
        if token.kind is Kind.WORD and token.text.casefold() in KEYWORDS:
            return
        cursor.take()
        if token.kind is Kind.CLOSE:
            return


def _out_of_range(span: Span, kind: str, name: str, value: int) -> Diagnostic:
    limit = _LIMITS[kind]
    shown_value = f"0x{value:X}" if value < 1 << 64 else "a number that large"
    rule = {
        "severity": f"a severity is 0 to {limit} (two bits)",
        "facility": f"a facility is 0 to 0x{limit:X} (12 bits)",
        "language": f"a language id is 1 to 0x{limit:X}",
    }[kind]
    return diag(
        E_MC_VALUE_RANGE,
        span,
        f"{kind} {shown(name)} = {shown_value} is out of range: {rule}",
        hint=f"give {shown(name)} a value in range",
    )
