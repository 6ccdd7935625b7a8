"""Every problem a message text file can have: its code, its place (line:col), and a
message that says what is wrong and what would be right.  Reading never raises."""

from __future__ import annotations

import codecs

import pytest

from etwmc import mctext
from etwmc.diagnostics import Diagnostic, render_text

GOOD = "MessageId=1\nSymbolicName=ONE\nLanguage=English\nOne\n.\n"


def _diags(text: str | bytes, **options: object) -> list[Diagnostic]:
    data = text.encode("cp1252") if isinstance(text, str) else text
    model, diags = mctext.read(data, "m.mc", mctext.McTextOptions(**options))  # type: ignore[arg-type]
    return diags


def _found(text: str | bytes, code: str, line: int, col: int, **options: object) -> Diagnostic:
    diags = _diags(text, **options)
    hits = [d for d in diags if d.code == code and (d.span.line, d.span.col) == (line, col)]
    assert hits, [(d.code, d.span.line, d.span.col, d.message) for d in diags]
    return hits[0]


CASES = [
    # ETW900: the encoding
    pytest.param(
        codecs.BOM_UTF16_BE + GOOD.encode("utf-16-be"),
        "ETW900",
        1,
        1,
        "big-endian",
        id="utf-16 big-endian",
    ),
    pytest.param(
        codecs.BOM_UTF32_LE + GOOD.encode("utf-32-le"), "ETW900", 1, 1, "UTF-32", id="utf-32"
    ),
    pytest.param(
        codecs.BOM_UTF8 + b"MessageId=1\nSymbolicName=\xff\n",
        "ETW900",
        2,
        14,
        "0xFF",
        id="bad utf-8",
    ),
    pytest.param(
        b"MessageId=1\nLanguage=English\nOne\x81\n.\n",
        "ETW900",
        3,
        4,
        "0x81",
        id="undefined in cp1252",
    ),
    pytest.param(GOOD.encode("utf-16-le"), "ETW900", 1, 1, "give -u", id="utf-16 without -u"),
    # ETW901: characters no output may hold
    pytest.param("MessageId=1\nLanguage=English\nO\0ne\n.\n", "ETW901", 3, 2, "NUL", id="nul"),
    pytest.param(
        "MessageId=1\nLanguage=English\nOne\rTwo\n.\n",
        "ETW901",
        3,
        4,
        "carriage return",
        id="lone cr",
    ),
    # ETW902: malformed statements
    pytest.param("MesageId=1\n", "ETW902", 1, 1, "did you mean MessageId?", id="misspelt keyword"),
    pytest.param("MessageId 1\n", "ETW902", 1, 1, "'=' must follow MessageId", id="no equal sign"),
    pytest.param(
        "MessageId=1\nSymbolicName=\n", "ETW902", 2, 1, "SymbolicName= has no value", id="no value"
    ),
    pytest.param(
        "MessageId=1\nSymbolicName=Language=English\n",
        "ETW902",
        2,
        1,
        "has no value",
        id="value is a keyword",
    ),
    pytest.param(
        "MessageId=one\n",
        "ETW902",
        1,
        11,
        "takes a number, +number or nothing",
        id="bad message id",
    ),
    pytest.param(
        "MessageId=+\n",
        "ETW902",
        1,
        11,
        "a number must follow MessageId=+",
        id="plus without number",
    ),
    pytest.param(
        "MessageIdTypedef=(\n", "ETW902", 1, 18, "takes a type name", id="typedef not a name"
    ),
    pytest.param(
        "SeverityNames=Fatal\n",
        "ETW902",
        1,
        15,
        "takes a list in parentheses",
        id="list not a list",
    ),
    pytest.param(
        "MessageId=1\nLanguage=English One\n.\n",
        "ETW902",
        2,
        18,
        "starts on the next line",
        id="text on the language line",
    ),
    pytest.param(")\n", "ETW902", 1, 1, "cannot start a statement", id="stray punctuation"),
    pytest.param("Hello world\n", "ETW902", 1, 1, "not a statement", id="text outside a message"),
    # ETW903: a text without its '.' line
    pytest.param(
        "MessageId=1\nLanguage=English\nOne\nMessageId=2\n",
        "ETW903",
        2,
        1,
        "runs on into the statement at line 4",
        id="no dot",
    ),
    # ETW904: statements out of place
    pytest.param(
        "Severity=Error\n",
        "ETW904",
        1,
        1,
        "outside a message definition",
        id="severity before a message",
    ),
    pytest.param(
        "Language=English\nOne\n.\n",
        "ETW904",
        1,
        1,
        "outside a message definition",
        id="language before a message",
    ),
    pytest.param(
        GOOD + "SymbolicName=TWO\n",
        "ETW904",
        6,
        1,
        "outside a message definition",
        id="symbolic name after the text",
    ),
    pytest.param(
        "MessageId=1\nMessageId=2\nLanguage=English\nTwo\n.\n",
        "ETW904",
        2,
        1,
        "before the message at line 1 has a text",
        id="two ids, no text",
    ),
    pytest.param(
        "MessageId=1\nLanguageNames=(German=0x407:MSG00407)\n",
        "ETW904",
        2,
        1,
        "inside the definition",
        id="list inside a message",
    ),
    pytest.param(GOOD + "MessageId=2\n", "ETW904", 6, 1, "has no text", id="message without text"),
    # ETW905: name lists
    pytest.param("SeverityNames=(Fatal=3\n", "ETW905", 1, 15, "not closed", id="list not closed"),
    pytest.param(
        "SeverityNames=(Fatal=3\n" + GOOD,
        "ETW905",
        2,
        1,
        "not closed with ')' before 'MessageId'",
        id="list runs into a statement",
    ),
    pytest.param(
        "FacilityNames=(Disk)\n", "ETW905", 1, 16, "name=number[:symbol]", id="item without value"
    ),
    pytest.param(
        "FacilityNames=(Disk=x)\n", "ETW905", 1, 21, "needs a number", id="item value not a number"
    ),
    pytest.param(
        "LanguageNames=(German=0x407)\n",
        "ETW905",
        1,
        16,
        "has no table file name",
        id="language without file",
    ),
    pytest.param(
        "FacilityNames=(Disk=1:)\n",
        "ETW905",
        1,
        23,
        "a name must follow ':'",
        id="nothing after colon",
    ),
    # ETW906, ETW907: warnings about what the file probably meant
    pytest.param(
        "MessageId=1 ;first\nLanguage=English\nOne\n.\n",
        "ETW906",
        1,
        13,
        "left out of the header",
        id="comment after a statement",
    ),
    pytest.param(
        "MessageId=1\nLanguage=English\nOne\n. \n.\n",
        "ETW907",
        4,
        1,
        "part of the text",
        id="dot with spaces",
    ),
    # ETW910, ETW911: values out of range
    pytest.param(
        "MessageId=0x10000\nLanguage=English\nOne\n.\n",
        "ETW910",
        1,
        1,
        "0x10000",
        id="id too large",
    ),
    pytest.param(
        "MessageId=0xFFFF\nLanguage=English\nA\n.\nMessageId=\nLanguage=English\nB\n.\n",
        "ETW910",
        5,
        1,
        "previous id + 1",
        id="next id too large",
    ),
    pytest.param(
        "MessageId=99999999999999999999999999999\nLanguage=English\nOne\n.\n",
        "ETW910",
        1,
        1,
        "that large",
        id="huge id",
    ),
    pytest.param("SeverityNames=(Fatal=4)\n", "ETW911", 1, 16, "0 to 3", id="severity too large"),
    pytest.param(
        "FacilityNames=(Disk=0x1000)\n", "ETW911", 1, 16, "0 to 0xFFF", id="facility too large"
    ),
    pytest.param(
        "LanguageNames=(X=0x10000:MSGX)\n",
        "ETW911",
        1,
        16,
        "1 to 0xFFFF",
        id="language id too large",
    ),
    pytest.param(
        "LanguageNames=(X=0:MSGX)\n", "ETW911", 1, 16, "1 to 0xFFFF", id="language id zero"
    ),
    # ETW912-ETW915: names and bases
    pytest.param(
        "MessageId=1\nSeverity=Fatal\nLanguage=English\nOne\n.\n",
        "ETW912",
        2,
        10,
        "Success, Informational, Warning, Error",
        id="unknown severity",
    ),
    pytest.param(
        "MessageId=1\nFacility=Disk\nLanguage=English\nOne\n.\n",
        "ETW913",
        2,
        10,
        "System, Application",
        id="unknown facility",
    ),
    pytest.param(
        "MessageId=1\nLanguage=Klingon\nOne\n.\n",
        "ETW914",
        2,
        10,
        "use one of English",
        id="unknown language",
    ),
    pytest.param("OutputBase=8\n", "ETW915", 1, 12, "10 or 16", id="output base"),
    # ETW916-ETW918: names that reach the header or the .rc
    pytest.param(
        'LanguageNames=(German=0x407:MSG"x)\n',
        "ETW916",
        1,
        29,
        "only letters",
        id="file with a quote",
    ),
    pytest.param(
        "LanguageNames=(German=0x407:CON)\n", "ETW916", 1, 29, "device name", id="file is a device"
    ),
    pytest.param(
        "MessageId=1\nSymbolicName=MSG-ONE\nLanguage=English\nOne\n.\n",
        "ETW917",
        2,
        14,
        "letters, digits and '_'",
        id="symbol with a dash",
    ),
    pytest.param(
        "MessageId=1\nSymbolicName=A/*\nLanguage=English\nOne\n.\n",
        "ETW917",
        2,
        14,
        "cannot define",
        id="symbol opening a comment",
    ),
    pytest.param(
        "MessageIdTypedef=DWORD*\n", "ETW917", 1, 18, "cannot define", id="typedef with a star"
    ),
    pytest.param(
        "SeverityNames=(Fatal=3:SEV-FATAL)\n",
        "ETW917",
        1,
        24,
        "the severity symbol",
        id="severity symbol",
    ),
    pytest.param(
        "MessageId=1\nSymbolicName=0x1L\nLanguage=English\nOne\n.\n",
        "ETW918",
        2,
        14,
        "does not compile",
        id="symbol starting with a digit",
    ),
    # ETW930-ETW936: uniqueness and languages
    pytest.param(
        GOOD + "MessageId=2\nSymbolicName=ONE\nLanguage=English\nTwo\n.\n",
        "ETW930",
        6,
        1,
        "line 1 too",
        id="same symbol",
    ),
    pytest.param(
        GOOD + "MessageId=1\nSymbolicName=TWO\nLanguage=English\nTwo\n.\n",
        "ETW931",
        6,
        1,
        "0x00000001",
        id="same id",
    ),
    pytest.param(
        "MessageId=1\nLanguage=English\nA\n.\nLanguage=english\nB\n.\n",
        "ETW932",
        5,
        1,
        "English text twice",
        id="same language twice",
    ),
    pytest.param(
        "SeverityNames=(Fatal=3)\nSeverityNames=(Fatal=2)\n",
        "ETW933",
        2,
        16,
        "declared again (first at line 1)",
        id="redeclared",
    ),
    pytest.param(
        "LanguageNames=(German=0x407:MSG00001)\nMessageId=1\nLanguage=English\nA\n.\nLanguage=German\nB\n.\n",
        "ETW934",
        1,
        16,
        "both write 'MSG00001.bin'",
        id="same file",
    ),
    pytest.param(
        "LanguageNames=(British=0x409:MSG00809)\nMessageId=1\nLanguage=English\nA\n.\nLanguage=British\nB\n.\n",
        "ETW935",
        1,
        16,
        "0x0409",
        id="same language id",
    ),
    pytest.param(
        "LanguageNames=(German=0x407:MSG00407)\nMessageId=1\nLanguage=English\nA\n.\nLanguage=German\nB\n.\nMessageId=2\nLanguage=English\nC\n.\n",
        "ETW936",
        9,
        1,
        "no German text",
        id="missing translation",
    ),
]


@pytest.mark.parametrize(("text", "code", "line", "col", "says"), CASES)
def test_each_problem_is_reported_where_it_is(
    text: str | bytes, code: str, line: int, col: int, says: str
) -> None:
    d = _found(text, code, line, col)
    assert says in d.message + " " + (d.hint or "")
    assert d.hint  # what would be right


def test_every_message_text_file_code_has_a_case() -> None:
    from etwmc.codes import REGISTRY

    mc_codes = {c for c in REGISTRY if c.startswith("ETW9") and c < "ETW940"}
    assert mc_codes <= {c.values[1] for c in CASES} | {"ETW919", "ETW920"}


def test_text_too_long_for_an_entry() -> None:
    long_line = "x" * 40_000  # 80,000 bytes in UTF-16
    d = _found(f"MessageId=1\nLanguage=English\n{long_line}\n.\n", "ETW919", 2, 1)
    assert "at most 65532" in d.message
    # The same text fits in an ANSI entry.
    assert not [d for d in _diags(f"MessageId=1\nLanguage=English\n{long_line}\n.\n",
                                  table_flags=mctext.MESSAGE_RESOURCE_ANSI)]  # fmt: skip


def test_ansi_tables_need_the_code_page_to_hold_the_text() -> None:
    text = "MessageId=1\nLanguage=English\nfine\nalpha \u03b1 here\n.\n"
    data = codecs.BOM_UTF8 + text.encode("utf-8")
    d = _found(data, "ETW920", 4, 7, table_flags=mctext.MESSAGE_RESOURCE_ANSI)
    assert "U+03B1" in d.message and "code page cp1252" in d.message
    assert not _diags(data)  # UTF-16 tables hold it
    assert not _diags(data, table_flags=mctext.MESSAGE_RESOURCE_ANSI, code_page="cp1253")


def test_long_messages_with_m() -> None:
    text = "MessageId=1\nLanguage=English\n" + "x" * 30 + "\n.\n"
    d = _found(text, "ETW623", 2, 1, max_length=20)
    assert "32 characters long, more than the 20" in d.message
    assert not _diags(text, max_length=32)


def test_a_quoted_token_cannot_forge_a_report_line() -> None:
    text = "MessageId=1\nSymbolicName=A\x1b[31m\u2028B\nLanguage=English\nOne\n.\n"
    diags = _diags(text.encode("utf-8"), code_page="utf-8")
    report = render_text(diags)
    assert "\x1b" not in report and "\u2028" not in report
    assert all(line.startswith("m.mc:") for line in report.splitlines())
    assert "\\u001B" in report


def test_one_run_reports_every_problem() -> None:
    text = (
        "MessageId=1\nSeverity=Fatal\nLanguage=English\nOne\n.\n"
        "MessageId=2\nFacility=Disk\nLanguage=English\nTwo\n.\n"
        "MessageId=3\nLanguage=Klingon\nThree\n.\n"
    )
    assert [(d.code, d.span.line) for d in _diags(text)] == [
        ("ETW912", 2),
        ("ETW913", 7),
        ("ETW914", 12),
    ]


def test_a_file_with_errors_has_no_message_for_outputs() -> None:
    model, diags = mctext.read(b"MessageId=1\nSeverity=Fatal\nLanguage=English\nOne\n.\n", "m.mc")
    assert model is not None and not mctext.usable(diags)
    assert model.messages == ()


def test_an_unclosed_list_leaves_the_next_statement_whole() -> None:
    text = "LanguageNames=(German=0x407:MSG00407\n" + GOOD
    assert [(d.code, d.span.line) for d in _diags(text)] == [("ETW905", 2)]
