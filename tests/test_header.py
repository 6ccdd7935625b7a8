"""The C header generator (etwmc.header): names, literals, options, diagnostics, safety.

What the header holds is compared with mc's own headers in test_header_golden.py and
compiled with mingw-w64 in test_header_mingw.py; this file checks the parts on their
own, and that no manifest text can become C code.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from header_helpers import c_literal_bytes, facts, traits
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import GOLDEN
from etwmc import winmeta as wm
from etwmc.compile import compile_manifest
from etwmc.descriptors import traits_blob
from etwmc.diagnostics import Severity
from etwmc.header import HeaderOptions, build_header
from etwmc.header.names import c_string, comment, guid_initializer, sanitize, usable_symbol
from etwmc.header.params import helper
from etwmc.model import Event, Field, Manifest, Provider, Struct, Template, Traits
from etwmc.options import CompileOptions
from etwmc.validate import check_file

ROOT = Path(__file__).resolve().parents[1]
INVALID = ROOT / "tests" / "manifests" / "invalid"
HELLO = ROOT / "examples" / "hello.man"
EXPECT = re.compile(r"<!-- expect: ((?:ETW\d{3}\s*)+)-->")


def _header(path: Path, options: HeaderOptions | None = None) -> str:
    checked = check_file(path)
    assert checked.ok and checked.manifest is not None, checked.diagnostics
    result = build_header(checked.manifest, options)
    assert result.ok, result.diagnostics
    return result.text


# ------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("text", "ident"),
    [
        (
            "Microsoft-Windows-SampleProvider/Operational",
            "Microsoft_Windows_SampleProvider_Operational",
        ),
        ("ns1:LevelName1", "ns1_LevelName1"),
        ("1abc", "_abc"),
        ("12x3", "__x3"),
        ("a b.c", "a_b_c"),
        ("caf\u00e9", "caf_"),
        ("x\U0001f600y", "x__y"),  # mc counts UTF-16 units
        (
            "ProviderName1{646E035B+4651-4D15-BC40-1897CC99E967)",
            "ProviderName1_646E035B_4651_4D15_BC40_1897CC99E967_",
        ),
    ],
)
def test_sanitize_is_mcs_rule(text: str, ident: str) -> None:
    assert sanitize(text) == ident


@given(st.text())
def test_sanitize_gives_an_identifier_or_nothing(text: str) -> None:
    s = sanitize(text)
    assert s == "" if text == "" else re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", s)


@pytest.mark.parametrize("name", ["int", "class", "and", "__VA_ARGS__", "", "a-b", "9x"])
def test_keywords_and_non_identifiers_are_not_usable(name: str) -> None:
    assert not usable_symbol(name)


@given(st.text())
def test_a_comment_cannot_end_or_continue(text: str) -> None:
    c = comment(text)
    assert c.isascii() and c.isprintable()
    assert "\\" not in c and "?" not in c  # no line splice, no ??/ trigraph


@given(st.binary())
def test_c_string_holds_exactly_the_bytes(data: bytes) -> None:
    lit = c_string(data)
    assert lit.isascii() and lit.isprintable()
    assert lit[0] == lit[-1] == '"' and '"' not in lit[1:-1] and "?" not in lit
    assert c_literal_bytes(lit) == data


@given(st.uuids())
def test_guid_initializer_holds_the_guid(g: uuid.UUID) -> None:
    text = f"const GUID G = {guid_initializer(g)};"
    assert facts(text).guids == {("G", g)}


# ------------------------------------------------------------------------- helpers


def _template(*items: Field | Struct) -> Template:
    return Template(tid="T", items=items)


def _field(name: str, in_type: str, **kw: int | str | None) -> Field:
    t = wm.in_type(in_type)
    assert t is not None
    return Field(name=name, in_type=t, in_type_text=in_type, **kw)  # type: ignore[arg-type]


def test_helper_arguments_follow_the_packing_rules() -> None:
    h = helper(
        _template(
            _field("N", "win:UInt8"),
            _field("Plain", "win:UnicodeString"),
            _field("Strings", "win:AnsiString", count="N"),
            _field("Fixed", "win:UnicodeString", length=4, count=2),
            _field("Bytes", "win:Binary", length="N"),
            _field("Counted", "win:CountedUnicodeString"),
            _field("Sids", "win:SID", count=3),
            Struct(name="Pair", fields=(_field("A", "win:UInt8"),), count="N"),
        ),
        kernel=False,
    )
    assert h.name == "McTemplateU0uzSRZ8br0wK3NR0"
    assert h.arg_names == (
        "N", "Plain", "Strings_Len_", "Strings", "Fixed", "Bytes",
        "Counted_Len_", "Counted", "Sids_Len_", "Sids", "Pair_Len_", "Pair",
    )  # fmt: skip
    # A counted string is two descriptors (its 16-bit size, then the data).
    assert h.descriptor_count == 9
    assert h.packed
    assert helper(None, kernel=True).name == "McTemplateK0"


# ------------------------------------------------------------------------- options


def test_kernel_mode_macros_take_an_activity_first() -> None:
    um, km = _header(HELLO), _header(HELLO, HeaderOptions(kernel=True))
    assert ("EventWriteHello", 3) in facts(um).macros
    assert ("EventWriteHello", 4) in facts(km).macros
    assert "#define EventWriteHello(Activity, Name, Count, Mood) \\" in km
    assert "McTemplateK0zqu(&HELLO_PROVIDER_Context, &Hello, Activity, Name, Count, Mood)" in km
    assert ("HELLO_PROVIDER_EventWriteActivity", 1) in facts(km).defines
    assert ("HELLO_PROVIDER_EventWriteActivity", 0) in facts(um).defines
    assert "McTemplateU0" not in km and "McTemplateK0" not in um


def test_macro_prefixes() -> None:
    text = _header(HELLO, HeaderOptions(write_prefix="Log", strip_prefix="REQUEST"))
    macros = set(re.findall(r"^#define (\w+)\(", text, re.M))
    assert {"LogHello", "LogStart", "LogStop", "LogStart_AssumeEnabled"} <= macros
    assert {"EventEnabledHello", "EventEnabledStart", "EventRegisterEtwmc_Examples_Hello"} <= macros
    assert not any(m.startswith("EventWrite") for m in macros)
    assert "MCGEN_EVENT_ENABLED(Start)" in text and "&RequestStart, RequestId" in text
    with pytest.raises(ValueError):
        HeaderOptions(write_prefix="not-an-identifier")


_CUSTOMER = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Etwmc-Test-Customer" guid="{6E0C2D51-0B8E-4E7B-9B0A-3C1D2E3F4A54}"
              symbol="CUSTOMER" resourceFileName="t.dll" messageFileName="t.dll"
              message="$(string.Provider)">
      <keywords><keyword name="Read" mask="0x1" message="$(string.Read)"/></keywords>
      <events>
        <event value="1" symbol="One" keywords="Read" level="win:Informational" EVENT_MESSAGE/>
      </events>
    </provider>
  </events></instrumentation>
  <localization><resources culture="en-US"><stringTable>
    <string id="Provider" value="Customer"/>
    <string id="Read" value="Read"/>
    <string id="One" value="One"/>
  </stringTable></resources></localization>
</instrumentationManifest>
"""


def test_customer_bit_is_set_in_every_message_id(tmp_path: Path) -> None:
    man = tmp_path / "c.man"
    man.write_text(_CUSTOMER.replace("EVENT_MESSAGE", ""))
    plain = {d for d in facts(_header(man)).defines if d[0].startswith("MSG_")}
    marked = {
        d
        for d in facts(_header(man, HeaderOptions(customer_bit=True))).defines
        if d[0].startswith("MSG_")
    }
    assert plain == {("MSG_Read", 0x10000001), ("MSG_Provider", 0x90000001)}
    assert marked == {(n, v | 0x20000000) for n, v in plain}


def test_customer_bit_collisions_are_errors(tmp_path: Path) -> None:
    # The provider's message is 0x90000001 and event 1's 0xB0000001: with the
    # customer bit both would be 0xB0000001.
    man = tmp_path / "c.man"
    man.write_text(_CUSTOMER.replace("EVENT_MESSAGE", 'message="$(string.One)"'))
    checked = check_file(man)
    assert checked.ok and checked.manifest is not None
    assert build_header(checked.manifest).ok
    result = build_header(checked.manifest, HeaderOptions(customer_bit=True))
    assert [d.code for d in result.diagnostics if d.severity == Severity.ERROR] == ["ETW651"]
    assert "0xB0000001" in result.diagnostics[0].message
    assert result.text == ""


def test_same_output_under_other_hash_seeds() -> None:
    code = (
        "import sys; from etwmc.validate import check_file; from etwmc.header import build_header;"
        f"sys.stdout.write(build_header(check_file({str(HELLO)!r}).manifest).text)"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert outs == {_header(HELLO)}


def test_traits_macro_holds_the_traits() -> None:
    man = GOLDEN / "event-trace-kit" / "ProviderTraits.man"
    if not man.is_file():
        pytest.skip("../shared/golden is not present next to this checkout")
    checked = check_file(man)
    assert checked.manifest is not None
    text = _header(man)
    assert traits(text) == {
        p.symbol: traits_blob(p) for p in checked.manifest.providers if traits_blob(p)
    }
    assert "McGenEventRegisterContext(&ProviderSym1_ControlGuid" in text


def test_compile_writes_the_header() -> None:
    result = compile_manifest(
        HELLO, CompileOptions(python=False, binary=False, c_header="km"), base="hello"
    )
    assert result.ok
    assert result.files.keys() == {"hello.h"}
    assert result.files["hello.h"].decode("ascii") == _header(HELLO, HeaderOptions(kernel=True))


# ------------------------------------------------------------------------- fixtures

HEADER_FIXTURES = sorted(INVALID.glob("header_*.man"))


@pytest.mark.parametrize("path", HEADER_FIXTURES, ids=[p.stem for p in HEADER_FIXTURES])
def test_header_fixture(path: Path) -> None:
    expected = {
        (n, c)
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for m in EXPECT.finditer(line)
        for c in m.group(1).split()
    }
    assert expected
    checked = check_file(path)
    assert checked.ok and checked.manifest is not None, checked.diagnostics
    result = build_header(checked.manifest)
    found = {(d.span.line, d.code) for d in result.diagnostics}
    assert expected <= found, result.diagnostics
    unexpected = [
        d
        for d in result.diagnostics
        if d.severity == Severity.ERROR and (d.span.line, d.code) not in expected
    ]
    assert not unexpected
    assert all(d.span.file == str(path) for d in result.diagnostics)
    assert (result.text == "") == any(d.severity == Severity.ERROR for d in result.diagnostics)


# ------------------------------------------------------------------------- hostile text

_NASTY = st.sampled_from(
    [
        'x";\nint injected;\n"',
        "*/ int injected; /*",
        "\\",
        "a??/",
        "\r\n#error injected\n",
        "\u2028int injected;",
        "caf\u00e9",
        "\U0001f600",
        "\x00",
        "int",
        "__VA_ARGS__",
    ]
)
_NAME = st.one_of(
    _NASTY, st.text(max_size=8), st.lists(_NASTY, min_size=2, max_size=3).map("".join)
)
_TYPES = [t for t in wm.IN_TYPES]


@st.composite
def _providers(draw: st.DrawFn) -> Provider:
    fields = tuple(
        Field(
            name=draw(_NAME),
            in_type=wm.IN_TYPES[t],
            in_type_text=t,
            length=draw(st.one_of(st.none(), st.integers(0, 3))),
            count=draw(st.one_of(st.none(), st.integers(0, 3))),
        )
        for t in draw(st.lists(st.sampled_from(_TYPES), max_size=4))
    )
    template = Template(tid=draw(_NAME), items=fields)
    events = tuple(
        Event(value=i, symbol=draw(st.one_of(st.none(), _NAME)), template=template)
        for i in range(draw(st.integers(0, 2)))
    )
    return Provider(
        name=draw(_NAME),
        guid=uuid.UUID(int=draw(st.integers(0, 2**128 - 1))),
        symbol=draw(st.one_of(st.none(), _NAME)),
        traits=Traits(include_name=draw(st.booleans())),
        templates=(template,),
        events=events,
    )


def _outside_comments_and_literals(line: str) -> str:
    line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
    return line.split("//", 1)[0].split("/*", 1)[0]


@settings(max_examples=80, deadline=None)
@given(st.lists(_providers(), max_size=2), st.booleans())
def test_manifest_text_never_becomes_code(provs: list[Provider], kernel: bool) -> None:
    manifest = Manifest(path="m.man", providers=tuple(provs))
    result = build_header(manifest, HeaderOptions(kernel=kernel))  # never raises
    if not result.ok:
        assert result.text == ""
        return
    text = result.text
    assert text.isascii()
    for line in text.splitlines():
        code = _outside_comments_and_literals(line)
        assert not re.search(r"(?<![A-Za-z0-9_])injected", code), line
        assert not line.startswith("#error")
    for p in provs:
        got = traits(text)
        blob = traits_blob(p)
        if blob:
            assert got[p.symbol or sanitize(p.name)] == blob


# ------------------------------------------------------------------------- current mc's parts

# microsoft/mimalloc's src/prim/windows/etw.h (mc's header for its provider) writes
# these macros behind MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION, with these parameters;
# the manifest below is that provider as the header describes it.
MIMALLOC = b"""<?xml version="1.0" encoding="utf-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="microsoft-windows-mimalloc" guid="{138f4dbb-ee04-4899-aa0a-572ad4475779}"
              symbol="ETW_MI_Provider" resourceFileName="mimalloc.dll"
              messageFileName="mimalloc.dll">
      <templates>
        <template tid="ETW_CUSTOM_HEAP_ALLOC_DATA">
          <data name="Address" inType="win:UInt64"/>
          <data name="Size" inType="win:UInt64"/>
        </template>
      </templates>
      <events>
        <event value="100" version="1" level="win:Informational" symbol="ETW_MI_ALLOC"
               template="ETW_CUSTOM_HEAP_ALLOC_DATA"/>
        <event value="101" version="1" level="win:Informational" symbol="ETW_MI_FREE"
               template="ETW_CUSTOM_HEAP_ALLOC_DATA"/>
      </events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
"""
_MACRO_LINE = re.compile(r"^#define (\w+)\(([^)]*)\)", re.M)


def _mimalloc(options: HeaderOptions | None = None) -> str:
    from etwmc.validate import check_bytes

    checked = check_bytes(MIMALLOC, "mimalloc.man")
    assert checked.ok and checked.manifest is not None, checked.diagnostics
    result = build_header(checked.manifest, options)
    assert result.ok, result.diagnostics
    return result.text


def test_for_context_macros_are_mimallocs() -> None:
    text = _mimalloc()
    macros = {name: params.replace(" ", "") for name, params in _MACRO_LINE.findall(text)}
    for name, params in {
        "EventRegistermicrosoft_windows_mimalloc_ForContext": "pContext",
        "EventRegisterByGuidmicrosoft_windows_mimalloc_ForContext": "Guid,pContext",
        "EventUnregistermicrosoft_windows_mimalloc_ForContext": "pContext",
        "microsoft_windows_mimallocHandle_ForContext": "pContext",
        "EventEnabledETW_MI_ALLOC_ForContext": "pContext",
        "EventWriteETW_MI_ALLOC_ForContext": "pContext,Address,Size",
        "EventWriteETW_MI_ALLOC_ForContextAssumeEnabled": "pContext,Address,Size",
        "EventEnabledETW_MI_FREE_ForContext": "pContext",
        "EventWriteETW_MI_FREE_ForContext": "pContext,Address,Size",
        "EventWriteETW_MI_FREE_ForContextAssumeEnabled": "pContext,Address,Size",
    }.items():
        assert macros.get(name) == params, name
    assert re.search(
        r"typedef struct tagMcGenContext_microsoft_windows_mimalloc \{\n"
        r"    MCGEN_TRACE_CONTEXT Context;\n    ULONG EnableBits\[1\];\n"
        r"\} McGenContext_microsoft_windows_mimalloc;",
        text,
    )
    # Everything of it stands behind the macro that enables it.
    block = re.compile(
        r"#ifdef MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION\n.*?#endif // MCGEN_ENABLE_", re.S
    )
    outside = block.sub("", text)
    assert len(block.findall(text)) == 3  # the provider's, and one per event
    assert not re.findall(r"#define \w*_ForContext", outside)
    assert "McGenContext_" not in outside
    assert ("ETW_MI_ALLOC", (0x64, 0x1, 0x0, 0x4, 0x0, 0x0, 0x0)) in facts(text).descriptors


def test_definitions_only_header() -> None:
    text = _header(HELLO, HeaderOptions(logging=False))
    assert "EventWrite" not in text and "McTemplate" not in text and "EventRegister" not in text
    assert "MCGEN_TRACE_CONTEXT" not in text and "_Traits" not in text
    got = facts(text)
    assert {name for name, _ in got.descriptors} == {"Hello", "RequestStart", "RequestStop"}
    assert ("HELLO_PROVIDER_CHANNEL_Operational_KEYWORD", 0x8000000000000000) in got.defines
    assert ("HELLO_PROVIDER_KEYWORD_Greetings", 0x1) in got.defines or any(
        v == 1 and "Greetings" in n for n, v in got.defines
    )
    assert any(n.startswith("MSG_") for n, _ in got.defines)
    assert text.startswith("//" + "*" * 77 + "\n// Event Tracing for Windows provider definitions")


def test_channel_keyword_defines_follow_the_channel() -> None:
    text = _header(HELLO)
    assert "#define HELLO_PROVIDER_CHANNEL_Operational 0x10\n" in text
    assert "#define HELLO_PROVIDER_CHANNEL_Operational_KEYWORD 0x8000000000000000\n" in text
