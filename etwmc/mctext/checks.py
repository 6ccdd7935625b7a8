"""Checks on a whole message text file, after it is parsed.

* two messages with one symbolic name (ETW930) or one id (ETW931);
* two languages with messages writing one table file (ETW934), or sharing a language id
  (ETW935: rc.exe refuses two message tables of one language);
* a message without a text in a language other messages have (ETW936): its table
  lacks the id, and FormatMessage falls back to another language;
* a text longer than a table entry holds (ETW919), or, with ``-A``, holding a
  character the ANSI code page cannot (ETW920);
* with ``-m``, a text longer than the limit (ETW623).
"""

from __future__ import annotations

from ..codes import (
    E_MC_CODE_PAGE,
    E_MC_DUP_FILE,
    E_MC_DUP_ID,
    E_MC_DUP_SYMBOL,
    E_MC_TOO_LONG,
    W_LONG_MESSAGE,
    W_MC_DUP_LANGID,
    W_MC_MISSING_TEXT,
)
from ..diagnostics import Diagnostic, Span, diag
from ..wevt.msgtable import MAX_ENTRY, MESSAGE_RESOURCE_ANSI, entry_size, text_entry
from .model import Message, MessageFile, Name
from .resources import TableStyle
from .shown import shown


def check(mf: MessageFile, style: TableStyle, max_length: int | None = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    out += _unique(mf)
    out += _languages(mf)
    out += _texts(mf, style, max_length)
    return out


def _unique(mf: MessageFile) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    symbols: dict[str, Message] = {}
    ids: dict[int, Message] = {}
    for m in mf.messages:
        if m.symbol is not None:
            first = symbols.setdefault(m.symbol, m)
            if first is not m:
                out.append(
                    diag(
                        E_MC_DUP_SYMBOL,
                        m.span,
                        f"symbolic name {shown(m.symbol)} is given to the message at line "
                        f"{first.span.line} too",
                        hint="give each message its own SymbolicName",
                    )
                )
        first = ids.setdefault(m.id, m)
        if first is not m:
            out.append(
                diag(
                    E_MC_DUP_ID,
                    m.span,
                    f"message id 0x{m.id:08X} is the id of the message at line "
                    f"{first.span.line} too",
                    hint="give the message another MessageId, severity or facility",
                )
            )
    return out


def _languages(mf: MessageFile) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    used = mf.used_languages()
    files: dict[str, Name] = {}
    langids: dict[int, Name] = {}
    for lang in used:
        file = lang.file or ""
        other = files.setdefault(file.casefold(), lang)
        if other is not lang:
            out.append(
                diag(
                    E_MC_DUP_FILE,
                    lang.span or other.span or mf.messages[0].span,
                    f"languages {shown(other.name)} and {shown(lang.name)} both write "
                    f"{shown(file + '.bin')}",
                    hint="give each language its own file name in LanguageNames",
                )
            )
        other = langids.setdefault(lang.value, lang)
        if other is not lang:
            out.append(
                diag(
                    W_MC_DUP_LANGID,
                    lang.span or other.span or mf.messages[0].span,
                    f"languages {shown(other.name)} and {shown(lang.name)} both have "
                    f"language id 0x{lang.value:04X}: the .rc gets two message tables "
                    "for one language, which the resource compiler refuses",
                    hint="give each language its own id, or put their texts under one",
                )
            )
    for m in mf.messages:
        missing = [lang.name for lang in used if m.text(lang.name) is None]
        if missing:
            out.append(
                diag(
                    W_MC_MISSING_TEXT,
                    m.span,
                    f"the message has no {', '.join(missing)} text, which other messages "
                    "have: those tables will lack its id",
                    hint="give the message a text in every language",
                )
            )
    return out


def _texts(mf: MessageFile, style: TableStyle, max_length: int | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for m in mf.messages:
        for t in m.texts:
            stored = t.stored(final_line_end=style.final_line_end)
            if max_length is not None and len(stored) > max_length:
                out.append(
                    diag(
                        W_LONG_MESSAGE,
                        t.span,
                        f"the {t.language} text is {len(stored)} characters long, more "
                        f"than the {max_length} that -m allows",
                        hint="shorten the message, or raise -m",
                    )
                )
            try:
                entry = text_entry(stored, style.flags, style.codec)
            except UnicodeEncodeError as exc:
                assert style.flags == MESSAGE_RESOURCE_ANSI
                out.append(_code_page(t.span, stored, exc, style.codec))
                continue
            if entry_size(entry) > MAX_ENTRY:
                out.append(
                    diag(
                        E_MC_TOO_LONG,
                        t.span,
                        f"the {t.language} text takes {entry_size(entry)} bytes in its table "
                        f"entry; an entry holds at most {MAX_ENTRY}",
                        hint="split the message",
                    )
                )
    return out


def _code_page(span: Span, stored: str, exc: UnicodeEncodeError, codec: str) -> Diagnostic:
    before = stored[: exc.start]
    line = span.line + 1 + before.count("\r\n")
    col = len(before) - (before.rfind("\n") + 1) + 1
    ch = stored[exc.start]
    return diag(
        E_MC_CODE_PAGE,
        Span(span.file, line, col),
        f"{shown(ch)} (U+{ord(ch):04X}) cannot be written in code page {codec}, which -A "
        "stores the text in",
        hint="write the tables in UTF-16 (leave out -A), or give the code page that has it",
    )
