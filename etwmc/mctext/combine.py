"""One run of mc with a manifest and a message text file: one set of resources.

A module has one message table per language, so mc merges: the outputs take the
message text file's base name (``BASE.rc``, ``BASETEMP.BIN``; a real build,
tpn/perfecthash's ``mc -um PerfectHashEvents.man PerfectHashErrors.mc``, gets
``PerfectHashErrorsTEMP.BIN`` and ``PerfectHashErrors_English.bin`` with ``-b``), and
the manifest's strings of a culture join the table of the message text file's language
with the same language id.  A culture no language of the message text file has keeps a
table of its own, named as the manifest's tables are (``MSG0000n.bin``).  Each header
stays its input's.

The .rc lists the message text file's languages first, then those cultures, then the
WEVT_TEMPLATE.  One id given to two texts in one table is an error (ETW940), as is one
file name given to two tables.
"""

from __future__ import annotations

from ..codes import E_MC_DUP_FILE, E_MC_SHARED_ID
from ..diagnostics import Diagnostic, Span, diag
from ..model import Manifest
from ..msgids import MessageIds
from ..record import Record
from ..wevt.cultures import langid
from ..wevt.msgtable import TableEntry, culture_messages, encode_table, text_entry
from ..wevt.rc import message_table_file, template_file
from .model import MessageFile
from .resources import TableStyle, entries, rc_lines, table_file


class Culture(Record):
    """A manifest's strings for one ``<resources culture>``: its number among the
    cultures (1-based, for the file name), its language id, id -> text as the manifest's
    tables store it (without the closing CR LF), and where it is declared."""

    number: int
    langid: int
    messages: dict[int, str]
    span: Span


def manifest_cultures(manifest: Manifest, ids: MessageIds) -> list[Culture]:
    """The manifest's tables as :func:`combine` takes them (its cultures have language
    ids: the manifest's output checks said so)."""
    return [
        Culture(n, langid(res.culture), culture_messages(manifest, res, ids), res.span)
        for n, res in enumerate(manifest.resources, 1)
    ]


class Combined(Record):
    rc: str
    tables: dict[str, bytes]
    diagnostics: list[Diagnostic]


def combine(
    mf: MessageFile,
    style: TableStyle,
    cultures: list[Culture],
    *,
    base: str,
    prefixed: bool,
) -> Combined:
    """The .rc and the tables of both inputs (``base``: the message text file's)."""
    prefix = base if prefixed else None
    diags: list[Diagnostic] = []
    merged: dict[str, dict[int, TableEntry]] = {}
    rc: list[str] = []
    claimed: set[int] = set()
    for lang in mf.used_languages():
        name = table_file(lang, prefix)
        table = entries(mf, lang, style)
        for culture in cultures:
            if culture.langid != lang.value or culture.number in claimed:
                continue
            claimed.add(culture.number)
            for mid, text in culture.messages.items():
                if mid in table:
                    diags.append(_shared(mf, mid, culture))
                    continue
                table[mid] = text_entry(text + "\r\n")
        _add(merged, name, table, lang.span or culture_span(cultures), diags)
        rc.append(rc_lines(lang.value, name))
    for culture in cultures:
        if culture.number in claimed:
            continue
        name = message_table_file(base, culture.number, prefixed=prefixed)
        table = {mid: text_entry(text + "\r\n") for mid, text in culture.messages.items()}
        _add(merged, name, table, culture.span, diags)
        rc.append(rc_lines(culture.langid, name))
    rc.append(f'1 WEVT_TEMPLATE "{template_file(base)}"\n')
    tables = {name: encode_table(table) for name, table in merged.items()}
    return Combined("".join(rc), tables, diags)


def culture_span(cultures: list[Culture]) -> Span:
    return cultures[0].span if cultures else Span("<manifest>")


def _add(
    merged: dict[str, dict[int, TableEntry]],
    name: str,
    table: dict[int, TableEntry],
    where: Span,
    diags: list[Diagnostic],
) -> None:
    if name.casefold() in {n.casefold() for n in merged}:
        diags.append(
            diag(
                E_MC_DUP_FILE,
                where,
                f"the message text file and the manifest both write a table named {name}",
                hint="rename the language's file in LanguageNames",
            )
        )
        return
    merged[name] = table


def _shared(mf: MessageFile, mid: int, culture: Culture) -> Diagnostic:
    message = next(m for m in mf.messages if m.id == mid)
    return diag(
        E_MC_SHARED_ID,
        message.span,
        f"message id 0x{mid:08X} is also the id of a string of the manifest "
        f"(<resources> at line {culture.span.line}): one table cannot hold both texts",
        hint="give the message another id, facility or severity",
    )
