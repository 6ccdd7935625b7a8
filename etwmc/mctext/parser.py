"""Parsing a message text file's statements into the model.

The grammar, as mc reads it (message-text-files.md §1).  Statements are ``Keyword=value``
with keywords in any case; several may share a line.  At file level:
``MessageIdTypedef=type``, ``SeverityNames=(...)``, ``FacilityNames=(...)``,
``LanguageNames=(...)`` and ``OutputBase=10|16``, in any order and repeated.  A message
starts with ``MessageId=`` (empty: the facility's previous id + 1; ``+n``: previous +
n; a number), then ``Severity=``, ``Facility=``, ``SymbolicName=`` and ``OutputBase=``
in any order, then one or more ``Language=name`` each followed by its text: the lines
after it, verbatim, up to a line holding a single ``.``.  Severity and facility carry
over from message to message (at first Success and Application).  The id is fixed at
the message's first ``Language=``, when its facility is known.

Errors do not stop the parse: the rest of a bad line is skipped and the next statement
read, so one run reports every problem.  A message with an error is left out of the
model (nothing is written when there are errors).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from ..codes import (
    E_MC_DUP_TEXT,
    E_MC_ID_RANGE,
    E_MC_ORDER,
    E_MC_OUTPUT_BASE,
    E_MC_SYNTAX,
    E_MC_UNKNOWN_FACILITY,
    E_MC_UNKNOWN_LANGUAGE,
    E_MC_UNKNOWN_SEVERITY,
    E_MC_UNTERMINATED,
    W_MC_DOT_LINE,
    W_MC_LINE_COMMENT,
    Code,
)
from ..diagnostics import Diagnostic, Severity, Span, diag
from ..record import Record
from .cursor import Cursor
from .lexer import Kind, Token
from .model import (
    CUSTOMER_BIT,
    FACILITY_SHIFT,
    MAX_CODE,
    SEVERITY_SHIFT,
    Comment,
    Message,
    MessageFile,
    Name,
    Text,
)
from .names import (
    FACILITIES,
    KEYWORDS,
    LANGUAGES,
    SEVERITIES,
    NameTable,
    read_list,
    symbol_problem,
)
from .shown import shown
from .source import Source

_STATEMENT_START = re.compile(r"\s*(MessageId|Language|SymbolicName)\s*=", re.I)
_IN_MESSAGE = ("Severity", "Facility", "SymbolicName")
_AT_FILE_LEVEL = ("MessageIdTypedef", "SeverityNames", "FacilityNames", "LanguageNames")


class ParseOptions(Record):
    """``customer_bit``: mc's ``-c``.  ``decimal``: mc's ``-d``, OutputBase=10 until
    the file says otherwise."""

    customer_bit: bool = False
    decimal: bool = False


@dataclass
class _Draft:
    """A message being read."""

    span: Span
    method: str  # "next", "plus" or "absolute"
    number: int
    symbol: str | None = None
    texts: list[Text] = field(default_factory=list)
    id: int | None = None
    typedef: str | None = None  # as in force when the id is fixed
    decimal: bool = False
    failed: bool = False


class _Parser:
    def __init__(self, source: Source, options: ParseOptions) -> None:
        self.path = source.path
        self.options = options
        self.report: list[Diagnostic] = []
        self.severities = NameTable("severity", SEVERITIES)
        self.facilities = NameTable("facility", FACILITIES)
        self.languages = NameTable("language", LANGUAGES)
        self.severity = self.severities.get("Success")
        self.facility = self.facilities.get("Application")
        self.typedef: str | None = None
        self.decimal = options.decimal
        self.last_code: dict[str, int] = {}
        self.body: list[Comment | _Draft] = []
        self.pending: list[Comment] = []
        self.draft: _Draft | None = None
        self.cursor = Cursor(source.lines, self._comment)

    # ------------------------------------------------------------------ plumbing

    def _comment(self, line: int, text: str) -> None:
        self.pending.append(Comment(text, Span(self.path, line, 1)))

    def _span(self, token: Token) -> Span:
        return Span(self.path, self.cursor.line, token.col)

    def _error(self, code: Code, token: Token, message: str, hint: str) -> None:
        self.report.append(diag(code, self._span(token), message, hint=hint))

    # ------------------------------------------------------------------ the file

    def run(self) -> MessageFile:
        while (token := self.cursor.take()) is not None:
            self._statement(token)
        self._finish()
        self.body.extend(self.pending)
        body = tuple(
            self._message(item) if isinstance(item, _Draft) else item
            for item in self.body
            if not (isinstance(item, _Draft) and (item.failed or item.id is None))
        )
        return MessageFile(
            self.path,
            self.severities.names(),
            self.facilities.names(),
            self.languages.names(),
            body,
        )

    def _statement(self, token: Token) -> None:
        if token.kind is Kind.COMMENT:
            self.report.append(
                diag(
                    W_MC_LINE_COMMENT,
                    self._span(token),
                    "a ';' comment after a statement is left out of the header",
                    hint="put the comment on a line of its own, starting with ';'",
                )
            )
            return
        keyword = KEYWORDS.get(token.text.casefold()) if token.kind is Kind.WORD else None
        if keyword is None:
            self._not_a_statement(token)
            return
        equal = self.cursor.peek()
        if equal is None or equal.kind is not Kind.EQUAL:
            self._error(E_MC_SYNTAX, token, f"'=' must follow {keyword}", f"write {keyword}=...")
            self.cursor.rest_of_line()
            return
        self.cursor.take()
        if keyword == "MessageId":
            self._message_id(token)
        elif keyword == "Language":
            self._language(token)
        elif keyword in _IN_MESSAGE:
            self._in_message(keyword, token)
        else:
            self._file_level(keyword, token)

    def _not_a_statement(self, token: Token) -> None:
        if token.kind is Kind.WORD:
            message = f"{shown(token.text)} is not a statement of a message text file"
            hint = (
                "statements are MessageIdTypedef, SeverityNames, FacilityNames, "
                "LanguageNames, OutputBase, MessageId, Severity, Facility, SymbolicName "
                "and Language; a message's text follows its Language= line"
            )
            close = _close_keyword(token.text)
            if close:
                hint = f"did you mean {close}?"
        else:
            message = f"{shown(token.text)} cannot start a statement"
            hint = "a statement is Keyword=value"
        self._error(E_MC_SYNTAX, token, message, hint)
        self.cursor.rest_of_line()

    # ------------------------------------------------------------------ file level

    def _file_level(self, keyword: str, token: Token) -> None:
        if keyword == "OutputBase" and self.draft is not None and not self.draft.texts:
            # Allowed in a message definition too: it applies from this message on.
            value = self._value(keyword, token)
            if value is not None:
                self._output_base(value)
            return
        if self.draft is not None and not self.draft.texts:
            self._error(
                E_MC_ORDER,
                token,
                f"{keyword}= stands inside the definition of the message at line "
                f"{self.draft.span.line}, before its text",
                f"move {keyword}= before that MessageId=, or give the message its "
                "Language= text first",
            )
            self.cursor.rest_of_line()
            return
        self._finish()
        value = self._value(keyword, token)
        if value is None:
            return
        if keyword == "OutputBase":
            self._output_base(value)
        elif keyword == "MessageIdTypedef":
            if value.kind is not Kind.WORD:
                self._missing(keyword, value, "a type name")
                return
            problem = symbol_problem(value, self.cursor.line, self.path, "the MessageIdTypedef")
            if problem is not None:
                self.report.append(problem)
            if problem is None or problem.severity != Severity.ERROR:
                self.typedef = value.text
        else:
            if value.kind is not Kind.OPEN:
                self._missing(keyword, value, "a list in parentheses")
                return
            kind = {"SeverityNames": "severity", "FacilityNames": "facility"}.get(
                keyword, "language"
            )
            table = {"severity": self.severities, "facility": self.facilities}.get(
                kind, self.languages
            )
            read_list(
                self.cursor,
                self._span(value),
                kind,
                self.path,
                lambda name: table.declare(name, self.report),
                self.report,
            )

    def _output_base(self, value: Token) -> None:
        number = value.number
        if number not in (10, 16):
            self._error(
                E_MC_OUTPUT_BASE,
                value,
                f"OutputBase is {shown(value.text)}; it is 10 or 16",
                "write OutputBase=10 for decimal ids in the header, 16 for hexadecimal",
            )
            return
        self.decimal = number == 10

    def _value(self, keyword: str, token: Token) -> Token | None:
        value = self.cursor.take()
        if value is None or (
            value.kind is Kind.WORD
            and value.text.casefold() in KEYWORDS
            and (after := self.cursor.peek_here()) is not None
            and after.kind is Kind.EQUAL
        ):
            self._error(E_MC_SYNTAX, token, f"{keyword}= has no value", f"write {keyword}=...")
            if value is not None:
                self._statement(value)
            return None
        return value

    def _missing(self, keyword: str, value: Token, what: str) -> None:
        self._error(
            E_MC_SYNTAX,
            value,
            f"{keyword}= takes {what}, not {shown(value.text)}",
            f"write {keyword}= and {what}",
        )
        self.cursor.rest_of_line()

    # ------------------------------------------------------------------ messages

    def _message_id(self, token: Token) -> None:
        if self.draft is not None and not self.draft.texts:
            self._error(
                E_MC_ORDER,
                token,
                f"a new MessageId= starts before the message at line {self.draft.span.line} "
                "has a text",
                "give every message a Language= line and its text, ended by a '.' line",
            )
            self.draft.failed = True
        self._finish()
        self.body.extend(self.pending)
        self.pending.clear()
        method, number = "next", 0
        value = self.cursor.peek_here()
        if value is not None and value.kind is Kind.PLUS:
            self.cursor.take()
            amount = self.cursor.peek_here()
            if amount is None or amount.number is None:
                self._error(
                    E_MC_SYNTAX, value, "a number must follow MessageId=+", "write MessageId=+1"
                )
                self.cursor.rest_of_line()
            else:
                self.cursor.take()
                method, number = "plus", amount.number
        elif value is not None and value.kind is Kind.WORD and value.number is not None:
            self.cursor.take()
            method, number = "absolute", value.number
        elif value is not None and not (
            value.kind is Kind.COMMENT or value.text.casefold() in KEYWORDS
        ):
            self._error(
                E_MC_SYNTAX,
                value,
                f"MessageId= takes a number, +number or nothing, not {shown(value.text)}",
                "write MessageId=5, MessageId=+1 or MessageId=",
            )
            self.cursor.rest_of_line()
        self.draft = _Draft(Span(self.path, self.cursor.line, token.col), method, number)
        self.body.append(self.draft)

    def _in_message(self, keyword: str, token: Token) -> None:
        draft = self.draft
        if draft is None or draft.texts:
            where = "before its Language= text" if draft is None else "before its Language="
            self._error(
                E_MC_ORDER,
                token,
                f"{keyword}= is outside a message definition",
                f"{keyword}= belongs after a MessageId= and {where}",
            )
            self.cursor.rest_of_line()
            return
        value = self._value(keyword, token)
        if value is None:
            return
        if value.kind is not Kind.WORD:
            self._missing(keyword, value, "a name")
            draft.failed = True
            return
        if keyword == "SymbolicName":
            problem = symbol_problem(value, self.cursor.line, self.path, "the symbolic name")
            if problem is not None:
                self.report.append(problem)
                draft.failed |= problem.severity == Severity.ERROR
            draft.symbol = value.text
            return
        table = self.severities if keyword == "Severity" else self.facilities
        found = table.get(value.text)
        if found is None:
            code = E_MC_UNKNOWN_SEVERITY if keyword == "Severity" else E_MC_UNKNOWN_FACILITY
            known = ", ".join(n.name for n in table.names())
            self._error(
                code,
                value,
                f"{keyword}={shown(value.text)} names no declared {table.kind}",
                f"use one of {known}, or declare it in {keyword}Names=(...)",
            )
            draft.failed = True
        elif keyword == "Severity":
            self.severity = found
        else:
            self.facility = found

    def _language(self, token: Token) -> None:
        draft = self.draft
        value = self._value("Language", token)
        if value is None:
            return
        if draft is None:
            self._error(
                E_MC_ORDER,
                token,
                "Language= is outside a message definition",
                "start the message with MessageId= first",
            )
        rest = self.cursor.rest_of_line()
        if rest and rest[0].kind is not Kind.COMMENT:
            self._error(
                E_MC_SYNTAX,
                rest[0],
                f"{shown(rest[0].text)} follows Language={shown(value.text)} on its line; "
                "the text starts on the next line",
                "move the text to the lines after Language=",
            )
        span = Span(self.path, self.cursor.line, token.col)
        lines = self._text(span, value.text)
        if draft is None:
            return
        language = self.languages.get(value.text) if value.kind is Kind.WORD else None
        if language is None:
            known = ", ".join(n.name for n in self.languages.names())
            self.report.append(
                diag(
                    E_MC_UNKNOWN_LANGUAGE,
                    Span(span.file, span.line, value.col),
                    f"Language={shown(value.text)} names no declared language",
                    hint=f"use one of {known}, or declare it in LanguageNames=(...)",
                )
            )
            draft.failed = True
            draft.texts.append(Text(value.text, lines, span))  # the message has a text
            return
        if draft.id is None and not draft.texts:
            self._fix_id(draft)
        twice = next((t for t in draft.texts if t.language == language.name), None)
        if twice is not None:
            self.report.append(
                diag(
                    E_MC_DUP_TEXT,
                    span,
                    f"the message at line {draft.span.line} gives its {language.name} text "
                    f"twice (first at line {twice.span.line})",
                    hint="keep one of the two texts",
                )
            )
            draft.failed = True
        draft.texts.append(Text(language.name, lines, span))

    def _text(self, span: Span, language: str) -> tuple[str, ...]:
        """The lines after a Language= line, up to its '.' line (consumed)."""
        lines = self.cursor.lines
        start = span.line  # index of the first text line
        for index in range(start, len(lines)):
            line = lines[index]
            if line == ".":
                self.cursor.resume_at(index + 2)
                return tuple(lines[start:index])
            if line.strip() == ".":
                self.report.append(
                    diag(
                        W_MC_DOT_LINE,
                        Span(self.path, index + 1, 1),
                        "this line holds '.' and white space, so it is part of the text; "
                        "only a line holding a single '.' ends a text",
                        hint="remove the white space to end the text here",
                    )
                )
        runs_into = next(
            (i + 1 for i in range(start, len(lines)) if _STATEMENT_START.match(lines[i])), None
        )
        hint = "end the text with a line holding only '.'"
        if runs_into is not None:
            hint += f"; the text runs on into the statement at line {runs_into}"
        self.report.append(
            diag(
                E_MC_UNTERMINATED,
                span,
                f"the text of Language={shown(language)} has no line holding a single '.' "
                "before the end of the file",
                hint=hint,
            )
        )
        self.cursor.resume_at(len(lines) + 1)
        return tuple(lines[start:])

    def _fix_id(self, draft: _Draft) -> None:
        assert self.severity is not None and self.facility is not None
        key = self.facility.name.casefold()
        previous = self.last_code.get(key, 0)
        code = {"next": previous + 1, "plus": previous + draft.number}.get(
            draft.method, draft.number
        )
        if code > MAX_CODE:
            how = {"next": "the previous id + 1", "plus": f"the previous id + {draft.number}"}
            shown_code = f"0x{code:X}" if code < 1 << 64 else "a number that large"
            self.report.append(
                diag(
                    E_MC_ID_RANGE,
                    draft.span,
                    f"the message id is {shown_code} ({how.get(draft.method, 'as written')}); "
                    "a message id is 0 to 0xFFFF",
                    hint="give the message an id that fits in 16 bits",
                )
            )
            draft.failed = True
            return
        self.last_code[key] = code
        customer = CUSTOMER_BIT if self.options.customer_bit else 0
        draft.id = (
            self.severity.value << SEVERITY_SHIFT
            | customer
            | self.facility.value << FACILITY_SHIFT
            | code
        )
        draft.typedef, draft.decimal = self.typedef, self.decimal

    def _finish(self) -> None:
        draft = self.draft
        if draft is None:
            return
        self.draft = None
        if not draft.texts and not draft.failed:
            self.report.append(
                diag(
                    E_MC_ORDER,
                    draft.span,
                    "this message has no text",
                    hint="follow it with a Language= line and the text, ended by a '.' line",
                )
            )
            draft.failed = True

    def _message(self, draft: _Draft) -> Message:
        assert draft.id is not None
        return Message(
            draft.id, draft.symbol, draft.typedef, draft.decimal, tuple(draft.texts), draft.span
        )


def _close_keyword(word: str) -> str | None:
    found = difflib.get_close_matches(word.casefold(), list(KEYWORDS), n=1, cutoff=0.8)
    return KEYWORDS[found[0]] if found else None


def parse(
    source: Source, options: ParseOptions | None = None
) -> tuple[MessageFile, list[Diagnostic]]:
    """The model of a decoded file and what is wrong with it."""
    parser = _Parser(source, options or ParseOptions())
    model = parser.run()
    return model, parser.report


__all__ = ["Name", "ParseOptions", "parse"]
