"""Hostile message text files: reading never raises, work stays linear, and nothing of
the input escapes its place in the outputs or in a report.

* Any bytes, and any soup of the format's own tokens, are read without an exception.
* When etwmc accepts a file, every line of the .rc is a LANGUAGE line or a quoted plain
  file name; every line of the header is a ``//`` comment, a ``#define`` of a word and a
  number, a blank line, or one of the file's own ``;`` lines; every line of the .dbg is
  one of its fixed lines or a word and its name.
* Every line of a text report starts with the file's name.
* Large and pathological files are read in one linear pass (no time is asserted: the
  test would hang or exhaust memory if a pass were quadratic or unbounded).
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import slow
from etwmc import mctext
from etwmc.diagnostics import render_text

_RC_LINE = re.compile(r'LANGUAGE 0x[0-9a-f]+,0x[0-9a-f]+|1 11 "[A-Za-z0-9_][A-Za-z0-9_.-]*\.bin"')
_NUMBER = r"(0x[0-9A-F]{8}|\d+)L"
_VALUE = rf"{_NUMBER}|\(\(\w+\){_NUMBER}\)|_HRESULT_TYPEDEF_\({_NUMBER}\)|0x[0-9A-F]+|\d+"
_HEADER_LINE = re.compile(rf"//[^\r\n\0]*|#define \w+ +({_VALUE})|")
_DBG_LINE = re.compile(
    r"//.*|struct \{|    \w+ MessageId;|    char \*SymbolicName;|\} \w+SymbolicNames\[\] = \{"
    r'| \(\w+\) \w+, "\w+",| \(\w+\) 0xFFFFFFFF, NULL|\};|'
)

_VOCABULARY = [
    "MessageId", "Severity", "Facility", "SymbolicName", "Language", "OutputBase",
    "MessageIdTypedef", "SeverityNames", "FacilityNames", "LanguageNames", "messageid",
    "=", "(", ")", ":", "+", ";", ".", " ", " ", "\t", "\n", "\n", "\n", "\r\n", "\r", "\0",
    "English", "Error", "Warning", "Application", "System", "0x409", "MSG00409", "1", "10",
    "16", "0xFFFF", "0x10000", "99999999999999999999999999", "A", "B_2", "x y", "%1!s!",
    "%0", "\u00e9", "\u2028", "\x1b[2J", "CON", 'a"b', "a/b", "/*", "\\", "..",
]  # fmt: skip


def _check_outputs(data: bytes, **options: object) -> None:
    opts = mctext.McTextOptions(**options)  # type: ignore[arg-type]
    model, diags = mctext.read(data, "m.mc", opts)
    report = render_text(diags)
    assert all(line.startswith("m.mc:") for line in report.splitlines()), report
    if model is None or not mctext.usable(diags):
        return
    out = mctext.build(model, opts, base="m", prefixed=True)
    for line in out.rc.splitlines():
        assert _RC_LINE.fullmatch(line), line
    comments = {c.text for c in model.body if isinstance(c, mctext.model.Comment)}
    for line in out.header.split("\n"):
        assert line in comments or _HEADER_LINE.fullmatch(line), repr(line)
    for line in out.dbg.split("\n"):
        assert _DBG_LINE.fullmatch(line), repr(line)
    assert set(out.tables) == {f"m_{lang.file}.bin" for lang in model.used_languages()}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400), st.booleans())
def test_any_bytes(data: bytes, unicode: bool) -> None:
    _check_outputs(data, unicode_input=unicode)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(_VOCABULARY), max_size=80), st.sampled_from(["", "Language=English\n"])
)
def test_token_soup(tokens: list[str], prefix: str) -> None:
    text = "MessageId=1\n" + prefix + "".join(tokens) + "\n.\n"
    _check_outputs(text.encode("utf-8"), code_page="utf-8")
    _check_outputs(text.encode("utf-8"), code_page="utf-8", ole2=True, decimal=True)


@slow
def test_a_large_file_is_read_in_one_pass() -> None:
    message = "MessageId=\nSymbolicName=M{n}\nLanguage=English\nText of message {n}\n.\n"
    text = "".join(message.format(n=n) for n in range(20_000))
    model, diags = mctext.read(text.encode(), "m.mc")
    assert model is not None and mctext.usable(diags)
    assert len(model.messages) == 20_000


@slow
def test_pathological_lines() -> None:
    for text in (
        "SeverityNames=(" + "A=1 " * 100_000,  # a list that never closes
        "(" * 200_000,  # a long line of punctuation
        "MessageId=" + "9" * 1_000_000 + "\n",  # a huge number
        "MessageId=1\nLanguage=English\n" + "x\n" * 200_000,  # a text without its '.'
        "MessageId=1 " * 100_000,  # statements that never get a text
    ):
        model, diags = mctext.read(text.encode(), "m.mc")
        assert not mctext.usable(diags)
        assert len(diags) <= 100_001
