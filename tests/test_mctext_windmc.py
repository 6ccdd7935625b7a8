"""GNU windmc as a second opinion: any message text file etwmc accepts gives the
message tables windmc writes from it.

windmc (binutils-mingw-w64) differs from mc.exe in known ways, aligned here:

* it gives the Application facility 0xFFF (mc gives 0): windmc's input declares
  ``FacilityNames=(Application=0x0)`` first;
* it keeps the source's line ends in the tables (mc writes CR LF): windmc reads the
  file with CR LF line ends;
* its automatic ids continue from the previous message whatever its facility (mc's
  from the previous message of the same facility): the files generated here use
  ``MessageId=`` and ``MessageId=+n`` only after a message of the same facility;
* a message without ``Severity=`` or ``Facility=`` gets Success and Application (mc's
  keep the previous message's, as its documentation says): every message generated
  here states both;
* it refuses a text with no line: every text generated here has one.

Skips when windmc is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import slow
from etwmc import mctext

WINDMC = shutil.which("x86_64-w64-mingw32-windmc")
pytestmark = pytest.mark.skipif(WINDMC is None, reason="GNU windmc is not installed")

_TEXT_CHARS = st.characters(min_codepoint=0x20, max_codepoint=0x7E) | st.sampled_from(
    "\t\u00e9\u00fc"
)
_NAME = st.from_regex(r"[A-Z][A-Za-z0-9_]{0,12}", fullmatch=True)


@dataclass
class _File:
    text: str  # LF line ends

    def __repr__(self) -> str:  # hypothesis shows the file as it is
        return "\n" + self.text


def _text_line() -> st.SearchStrategy[str]:
    line = st.text(_TEXT_CHARS, max_size=30).filter(
        lambda s: s.strip() != "." and not s.startswith(";")
    )
    return st.one_of(line, st.just(""), st.just("%1!s! %% %n %0"))


@st.composite
def message_files(draw: st.DrawFn) -> _File:
    out: list[str] = []
    if draw(st.booleans()):
        out.append(f"MessageIdTypedef={draw(st.sampled_from(['DWORD', 'WORD', 'HRESULT']))}")
    severities = ["Success", "Informational", "Warning", "Error"]
    if draw(st.booleans()):
        out.append("SeverityNames=(Fatal=0x3:SEV_FATAL\n  Note=0x1)")
        severities += ["Fatal", "Note"]
    facility_values = {"Application": 0}
    for n, value in enumerate(draw(st.lists(st.integers(1, 0xFFE), max_size=3, unique=True))):
        out.append(f"FacilityNames=(Fac{n}={value:#x}:FACILITY_{n})")
        facility_values[f"Fac{n}"] = value
    facilities = list(facility_values)
    langs = draw(
        st.lists(
            st.sampled_from(
                [("English", 0x409), ("French", 0x40C), ("German", 0x407), ("Italian", 0x410)]
            ),  # fmt: skip
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    for name, langid in langs:
        out.append(f"LanguageNames=({name}={langid:#x}:MSG{langid:05X})")
    symbols: set[str] = set()
    used: set[int] = set()
    last: dict[str, int] = {}
    facility, severity, previous = "Application", "Success", None
    for _ in range(draw(st.integers(1, 12))):
        if draw(st.booleans()):
            out.append(";// " + draw(st.text(_TEXT_CHARS, max_size=20)))
        new_facility = draw(st.sampled_from(facilities)) if draw(st.booleans()) else facility
        new_severity = draw(st.sampled_from(severities)) if draw(st.booleans()) else severity
        form = draw(st.sampled_from(["absolute", "next", "plus"]))
        if new_facility != previous:
            form = "absolute"
        code = {"next": last.get(new_facility, 0) + 1, "plus": last.get(new_facility, 0) + 3}.get(
            form, draw(st.integers(0, 0x400))
        )
        sev = {"Success": 0, "Informational": 1, "Warning": 2, "Error": 3, "Fatal": 3, "Note": 1}
        full = sev[new_severity] << 30 | facility_values[new_facility] << 16 | code
        if code > 0xFFFF or full in used:
            continue
        used.add(full)
        last[new_facility] = code
        facility, severity, previous = new_facility, new_severity, new_facility
        head = {"absolute": f"MessageId={code}", "next": "MessageId=", "plus": "MessageId=+3"}[form]
        statements = [head, f"Severity={new_severity}", f"Facility={new_facility}"]
        symbol = draw(_NAME)
        if symbol not in symbols and draw(st.booleans()):
            symbols.add(symbol)
            statements.append(f"SymbolicName={symbol}")
        out.append((" " if draw(st.booleans()) else "\n").join(statements))
        for name, _ in langs:
            out.append(f"Language={name}")
            out.extend(draw(st.lists(_text_line(), min_size=1, max_size=3)))
            out.append(".")
    return _File("\n".join(out) + "\n")


def _windmc(text: str) -> dict[str, bytes]:
    assert WINDMC
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = "FacilityNames=(Application=0x0)\n" + text
        (folder / "m.mc").write_bytes(source.replace("\n", "\r\n").encode("cp1252"))
        run = subprocess.run(
            [WINDMC, "-U", "-C", "1252", "-h", tmp, "-r", tmp, "m.mc"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 0, run.stderr
        return {p.name: p.read_bytes() for p in folder.glob("*.bin")}


@slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(message_files(), st.booleans())
def test_windmc_writes_the_same_tables(mc: _File, crlf: bool) -> None:
    data = (mc.text.replace("\n", "\r\n") if crlf else mc.text).encode("cp1252")
    model, diags = mctext.read(data, "m.mc")
    assert model is not None and mctext.usable(diags), diags
    ours = mctext.build(model, mctext.McTextOptions(), base="m", prefixed=False)
    assert ours.tables == _windmc(mc.text)


def test_a_known_file_agrees() -> None:
    text = (
        "LanguageNames=(English=0x409:MSG00409)\n"
        "MessageId=1\nSeverity=Error\nSymbolicName=A\nLanguage=English\nOne %1\n\n.\n"
        "MessageId=\nSeverity=Error\nSymbolicName=B\nLanguage=English\nTwo%0\n.\n"
    )
    model, diags = mctext.read(text.encode(), "m.mc")
    assert model is not None and not diags
    ours = mctext.build(model, mctext.McTextOptions(), base="m", prefixed=False)
    assert ours.tables == _windmc(text) and list(ours.tables) == ["MSG00409.bin"]
