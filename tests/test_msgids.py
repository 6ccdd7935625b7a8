"""Message-id assignment: each rule of manifest-and-mc.md §7a on a small manifest."""

from __future__ import annotations

from pathlib import Path

import pytest

from etwmc import msgids
from etwmc.compile import compile_manifest
from etwmc.model import Manifest
from etwmc.msgids import assign_message_ids
from etwmc.options import CompileOptions
from etwmc.outputs import lint_checks as output_checks
from etwmc.validate import check_bytes, check_file
from etwmc.wevt import output_diagnostics

HEAD = """<?xml version="1.0" encoding="utf-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
"""


def _provider(i: int, body: str, message: str | None = None) -> str:
    msg = f' message="$(string.{message})"' if message else ""
    return (
        f'<provider name="P{i}" guid="{{00000000-0000-0000-0000-{i:012d}}}" symbol="P{i}"'
        f' resourceFileName="p.dll" messageFileName="p.dll"{msg}>{body}</provider>'
    )


def _manifest(providers: str, strings: list[str], extra: str = "") -> Manifest:
    table = "".join(f'<string id="{s}" value="text of {s}"/>' for s in strings)
    xml = (
        HEAD
        + providers
        + extra
        + '</events></instrumentation><localization><resources culture="en-US"><stringTable>'
        + table
        + "</stringTable></resources></localization></instrumentationManifest>"
    )
    checked = check_bytes(xml.encode(), "m.man")
    assert checked.manifest is not None
    return checked.manifest


FULL = """
<events>
  <event value="1000" version="2" channel="C1" level="L" task="T" opcode="O" keywords="K"
         message="$(string.ev)"/>
  <event value="7" channel="System" level="win:Error" message="$(string.sys)"/>
  <event value="8" channel="TraceClassic" message="$(string.classic)"/>
</events>
<channels>
  <channel name="C1" type="Operational" message="$(string.c1)"/>
  <importChannel name="System" chid="System"/>
  <channel name="C2" type="Operational" message="$(string.c2)"/>
</channels>
<levels><level name="L" value="16" message="$(string.lv)"/></levels>
<tasks><task name="T" value="0x11" message="$(string.task)">
  <opcodes><opcode name="O" value="101" message="$(string.op)"/></opcodes>
</task></tasks>
<opcodes><opcode name="G" value="12" message="$(string.gop)"/></opcodes>
<keywords><keyword name="K" mask="0x1000000000" message="$(string.kw)"/></keywords>
<maps>
  <valueMap name="V1">
    <map value="22" message="$(string.v1a)"/><map value="0" message="$(string.v1b)"/>
  </valueMap>
  <bitMap name="B1"><map value="0x1" message="$(string.b1a)"/></bitMap>
  <valueMap name="V2"><map value="5" message="$(string.v2a)"/></valueMap>
</maps>
<filters><filter name="F" value="33" version="2" message="$(string.flt)"/></filters>
"""
FULL_STRINGS = ["prov", "ev", "sys", "classic", "c1", "c2", "lv", "task", "op", "gop", "kw",
                "v1a", "v1b", "b1a", "v2a", "flt"]  # fmt: skip


@pytest.fixture(scope="module")
def full() -> Manifest:
    return _manifest(_provider(1, FULL, "prov"), FULL_STRINGS)


@pytest.mark.parametrize(
    ("string", "expected"),
    [
        ("prov", 0x90000001),  # provider: counter 1
        ("c1", 0x90000002),  # channels continue the counter, in list order
        ("c2", 0x90000004),  # ... after the imported System channel (3)
        ("lv", 0x50000010),  # level: its value
        ("task", 0x70000011),  # task: its value
        ("op", 0x30110065),  # task-scoped opcode: task value << 16 | opcode value
        ("gop", 0x3000000C),  # provider opcode
        ("kw", 0x10000025),  # keyword: highest bit (36) + 1
        ("ev", 0xB002_03E8),  # event: version << 16 | id
        ("sys", 0x00000007),  # event on System: tag 0
        ("classic", 0xB0000008),  # TraceClassic is not a global Event Log channel
        ("v1a", 0xD0000001),  # value-map items: own counter, manifest order
        ("v1b", 0xD0000002),
        ("v2a", 0xD0000003),
        ("b1a", 0xF0000001),  # bit-map items: separate counter
        ("flt", 0x50800221),  # filter: 0x80 marker, version, value
    ],
)
def test_rule(full: Manifest, string: str, expected: int) -> None:
    assert assign_message_ids(full).strings[string] == expected


def test_winmeta_items(full: Manifest) -> None:
    ids = assign_message_ids(full)
    assert ids.winmeta[0x50000002] == "Error"  # win:Error, provider index 0
    assert ids.winmeta[0x90000003] == "System"  # imported winmeta channel: next counter value
    p = full.providers[0]
    system = next(c for c in p.channels if c.name == "System")
    assert ids.channel_id(system) == 0x90000003


def test_second_provider_index_and_winmeta_level_of_its_first_user() -> None:
    # A win: level only the second provider uses carries that provider's index, as in
    # mc's message table of SensorsUtilsV2.dll (win:Warning 0x51000003, libyal/winevt-kb).
    body = '<events><event value="3" level="win:Warning" message="$(string.e2)"/></events>'
    m = _manifest(_provider(1, "", "p1") + _provider(2, body, "p2"), ["p1", "p2", "e2"])
    ids = assign_message_ids(m)
    assert ids.strings == {"p1": 0x90000001, "p2": 0x91000001, "e2": 0xB1000003}
    lvl = m.providers[1].events[0].level
    assert lvl is not None and ids.level_id(lvl) == 0x51000003
    assert ids.winmeta == {0x51000003: "Warning"}


def test_shared_string_keeps_its_first_id() -> None:
    body = (
        '<events><event value="1" message="$(string.same)"/>'
        '<event value="2" message="$(string.same)"/></events>'
    )
    ids = assign_message_ids(_manifest(_provider(1, body), ["same"]))
    assert ids.strings == {"same": 0xB0000001}


def test_message_table_entry_overrides_the_generator() -> None:
    body = '<events><event value="1" message="$(string.e)"/></events>'
    extra = '<messageTable><message value="0x1234" message="$(string.e)"/></messageTable>'
    ids = assign_message_ids(_manifest(_provider(1, body), ["e"], extra))
    assert ids.strings["e"] == 0x1234


def test_clashing_explicit_id_is_reported() -> None:
    body = '<events><event value="1" message="$(string.e)"/></events>'
    extra = '<messageTable><message value="0xB0000001" message="$(string.other)"/></messageTable>'
    m = _manifest(_provider(1, body), ["e", "other"], extra)
    assert "ETW651" in {d.code for d in output_diagnostics(m)}


def test_providers_after_the_sixteenth_get_overflow_ids() -> None:
    provs = "".join(_provider(i, "", f"p{i}") for i in range(1, 19))
    m = _manifest(provs, [f"p{i}" for i in range(1, 19)])
    ids = assign_message_ids(m)
    assert ids.strings["p16"] == 0x9F000001
    assert ids.strings["p17"] == 0xE0000001
    assert ids.strings["p18"] == 0xE0000002
    assert len(set(ids.strings.values())) == 18
    warnings = [d for d in output_diagnostics(m) if d.code == "ETW650"]
    assert len(warnings) == 2 and all(d.severity.label == "warning" for d in warnings)


def test_explicit_ids_for_providers_after_the_sixteenth_need_no_warning() -> None:
    """ETW650's hint: strings given ids in <messageTable> need no automatic id, so a
    17th provider whose strings all have one is what mc asks for ("requires manual
    message ids") and gets no warning; one automatic id left still warns."""
    body = (
        '<events><event value="1" message="$(string.e17)"/></events>'
        '<maps><valueMap name="M"><map value="0" message="$(string.m17)"/></valueMap></maps>'
    )
    provs = "".join(_provider(i, "", f"p{i}") for i in range(1, 17)) + _provider(17, body, "p17")
    strings = [*(f"p{i}" for i in range(1, 18)), "e17", "m17"]
    table = "".join(
        f'<message value="0x{0x2000 + n:X}" message="$(string.{s})"/>'
        for n, s in enumerate(("p17", "e17", "m17"))
    )
    m = _manifest(provs, strings, f"<messageTable>{table}</messageTable>")
    ids = assign_message_ids(m)
    assert [ids.strings[s] for s in ("p17", "e17", "m17")] == [0x2000, 0x2001, 0x2002]
    assert [d.code for d in output_diagnostics(m) if d.code == "ETW650"] == []
    partial = table.replace('<message value="0x2002" message="$(string.m17)"/>', "")
    m = _manifest(provs, strings, f"<messageTable>{partial}</messageTable>")
    assert assign_message_ids(m).strings["m17"] == 0xE0000001
    assert [d.code for d in output_diagnostics(m) if d.code == "ETW650"] == ["ETW650"]


def test_no_message_means_no_id() -> None:
    m = _manifest(_provider(1, '<events><event value="1"/></events>'), [])
    ids = assign_message_ids(m)
    assert ids.event_id(m.providers[0].events[0]) == 0xFFFFFFFF
    assert ids.provider_id(m.providers[0]) == 0xFFFFFFFF


MANIFESTS = Path(__file__).resolve().parent / "manifests"
SAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "golden" / "samples"


def test_winmeta_items_take_the_index_of_their_first_provider() -> None:
    """mc's ids, from its outputs: win:Error 0x51000002 when only the second provider
    uses it (event-trace-kit ImportChannelFromProvider.man @ e40d13b; SensorsUtilsV2.dll's
    message table lists Error/Warning/Information at 0x5100000N and Start/Stop at
    0x3000000N, libyal/winevt-kb); an item the first provider uses keeps index 0."""
    from etwmc.wevt import build_message_tables, build_wevt
    from etwmc.wevt.msgtable import read_message_table
    from etwmc.wevt.reader_raw import parse_blob

    checked = check_file(MANIFESTS / "valid" / "winmeta_level_in_second_provider.man")
    assert checked.ok and checked.manifest is not None
    raw = parse_blob(build_wevt(checked.manifest))
    first, second = raw.providers
    assert [(lv.name, lv.message_id) for lv in first.levels] == [("win:Informational", 0x50000004)]
    assert [(lv.name, lv.message_id) for lv in second.levels] == [
        ("win:Error", 0x51000002),
        ("win:Informational", 0x50000004),
    ]
    assert [(o.name, o.message_id) for o in second.opcodes] == [("win:Start", 0x31000001)]
    ((_, table),) = build_message_tables(checked.manifest)
    texts = read_message_table(table)
    assert texts[0x51000002] == "Error" and texts[0x31000001] == "Start"
    assert texts[0x50000004] == "Information" and 0x50000002 not in texts


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/golden is not available")
def test_winmeta_keyword_of_a_third_provider_as_in_services_wevt() -> None:
    """Microsoft's services.wevt (built by mc) stores win:EventlogClassic, listed first by
    its third provider, with id 0x12000038; a manifest rebuilt from it gets the same."""
    from etwmc.decompile import decompile
    from etwmc.wevt import build_wevt
    from etwmc.wevt.reader import read_wevt
    from etwmc.wevt.reader_raw import parse_blob

    blob = (SAMPLES / "services.wevt").read_bytes()
    stored = parse_blob(blob).providers[2].keywords
    assert [(k.name, k.message_id) for k in stored] == [("win:EventlogClassic", 0x12000038)]
    checked = check_bytes(decompile(read_wevt(blob)).encode(), "services.man")
    assert checked.ok and checked.manifest is not None
    again = parse_blob(build_wevt(checked.manifest)).providers[2].keywords
    assert [(k.name, k.message_id) for k in again] == [("win:EventlogClassic", 0x12000038)]


CORPUS = SAMPLES.parent.parent / "corpus"


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not available")
def test_clr_manifest_winmeta_ids_match_clretwrc_dll() -> None:
    """mc's message table for ClrEtwAll.man (clretwrc.dll of .NET 4.6/4.7, listed by
    libyal/winevt-kb) has win:Critical at 0x53000001, because only the fourth provider
    (DotNETRuntimePrivate) uses it; the other predefined levels and opcodes at index 0."""
    checked = check_file(CORPUS / "microsoft__perfview__ClrEtwAll.man")
    assert checked.manifest is not None
    ids = assign_message_ids(checked.manifest)
    assert ids.builtins == {
        ("level", "win:LogAlways"): 0x50000000,
        ("level", "win:Error"): 0x50000002,
        ("level", "win:Informational"): 0x50000004,
        ("level", "win:Verbose"): 0x50000005,
        ("level", "win:Critical"): 0x53000001,
        ("opcode", "win:Start"): 0x30000001,
        ("opcode", "win:Stop"): 0x30000002,
    }


def test_global_channel_events_keep_classic_ids_whatever_their_version() -> None:
    """libsir's mc header: version-1 events 1-4 on Application have ids 0x1-0x4; the
    version still counts on a provider's own channels."""
    m = _manifest(
        _provider(
            0,
            '<events><event value="3" version="1" channel="Application" message="$(string.a)"/>'
            '<event value="3" version="2" channel="C" message="$(string.c)"/></events>'
            '<channels><importChannel name="Application" chid="Application"/>'
            '<channel name="P0/C" chid="C" type="Operational"/></channels>',
        ),
        ["a", "c"],
    )
    ids = assign_message_ids(m).strings
    assert ids["a"] == 0x00000003
    assert ids["c"] == 0xB0020003


WINMETA_OVERRIDES = ["level.Informational", "task.None", "opcode.Info", "channel.Application"]


def _overriding() -> Manifest:
    events = (
        '<events><event value="1" channel="Application" level="win:Informational" '
        'task="win:None" opcode="win:Info" message="$(string.e)"/></events>'
        '<channels><importChannel name="Application" chid="Application"/></channels>'
    )
    return _manifest(_provider(0, events), ["e", "level.Verbose", *WINMETA_OVERRIDES])


def test_strings_with_winmeta_ids_give_predefined_items_their_text() -> None:
    """A string named as winmeta names an item's text (level.Informational, ...) takes
    that item's id, as mc's headers show (MSG_level_Informational 0x50000004L in
    libsir's and osquery's; MSG_channel_Application 0x90000001L)."""
    ids = assign_message_ids(_overriding())
    expected = {
        "level.Informational": 0x50000004,
        "task.None": 0x70000000,
        "opcode.Info": 0x30000000,
        "channel.Application": 0x90000001,
    }
    assert {sid: ids.strings.get(sid) for sid in WINMETA_OVERRIDES} == expected
    assert not set(expected.values()) & set(ids.winmeta)  # the manifest's text, not winmeta's
    assert "level.Verbose" not in ids.strings  # no event uses win:Verbose


def test_winmeta_overrides_reach_the_table_and_survive_decompiling() -> None:
    from etwmc.decompile import decompile
    from etwmc.rules import run_rules
    from etwmc.wevt import binary_outputs
    from etwmc.wevt.msgtable import read_message_table
    from etwmc.wevt.reader import read_wevt

    m = _overriding()
    out = binary_outputs(m, "x")
    table = read_message_table(out["x_MSG00001.bin"])
    assert table[0x50000004] == "text of level.Informational"
    assert table[0x90000001] == "text of channel.Application"
    back = read_wevt(out["xTEMP.BIN"], messages=[table])
    again = check_bytes(decompile(back).encode(), "again.man")
    assert again.manifest is not None and again.ok
    assert binary_outputs(again.manifest, "x") == out
    # Only the string no item uses is reported as never referenced.
    (unused,) = [d for d in run_rules(m) if d.code == "ETW483"]
    assert unused.message.endswith("never referenced: level.Verbose")


def test_a_second_version_on_a_global_channel_keeps_its_version() -> None:
    m = _manifest(
        _provider(
            0,
            '<events><event value="1" channel="System" message="$(string.v0)"/>'
            '<event value="1" version="1" channel="System" message="$(string.v1)"/>'
            '<event value="2" version="1" channel="System" message="$(string.v0)"/></events>',
        ),
        ["v0", "v1"],
    )
    ids = assign_message_ids(m)
    assert ids.strings == {"v0": 0x00000001, "v1": 0x00010001}
    assert ids.diagnostics == []


# --------------------------------------------------------------------------- once per model


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[Manifest]:
    """Record every manifest whose ids are assigned from now on."""
    seen: list[Manifest] = []
    real = msgids.assign_message_ids

    def counted(m: Manifest) -> msgids.MessageIds:
        seen.append(m)
        return real(m)

    monkeypatch.setattr(msgids, "assign_message_ids", counted)
    return seen


def test_a_compile_assigns_the_ids_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rules, output checks, WEVT blob, message tables, C header and DLL share one
    assignment: the diagnostics of ETW650/651 come from a single run."""
    seen = _counting(monkeypatch)
    result = compile_manifest(
        MANIFESTS / "valid" / "sixteen_providers.man",
        CompileOptions(c_header="um", resource_dll=True),
        base="x",
    )
    assert result.ok and "xTEMP.BIN" in result.files and "x.h" in result.files
    assert len(seen) == 1


def test_lint_assigns_the_ids_once(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _counting(monkeypatch)
    checked = check_file(MANIFESTS / "invalid" / "duplicates.man")
    assert checked.manifest is not None
    found = output_checks(checked.manifest)
    assert "ETW651" in {d.code for d in checked.diagnostics}
    # One assignment, so validation's rule and the output checks report the same things.
    assert {d for d in found if d.code == "ETW651"} == {
        d for d in checked.diagnostics if d.code == "ETW651"
    }
    assert len(seen) == 1


def test_each_model_has_its_own_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _counting(monkeypatch)
    a = _manifest(_provider(1, '<events><event value="1" message="$(string.e)"/></events>'), ["e"])
    b = _manifest(_provider(1, '<events><event value="2" message="$(string.e)"/></events>'), ["e"])
    assert seen == [a, b]  # each assigned once, by its validation's rule
    assert msgids.message_ids(a) is msgids.message_ids(a)
    assert msgids.message_ids(a).strings == {"e": 0xB0000001}
    assert msgids.message_ids(b).strings == {"e": 0xB0000002}
    assert seen == [a, b]


def test_shared_ids_are_read_only() -> None:
    ids = msgids.message_ids(_manifest(_provider(1, ""), []))
    with pytest.raises(TypeError):
        ids.strings["x"] = 1  # type: ignore[index]


# --------------------------------------------------------------------------- tasks above 255

# Microsoft-Windows-WebAuthN, as Windows registers it: tasks 4 and 516 (0x204) each have
# an opcode 12 with the text "Informational".  An opcode's id keeps the low 8 bits of its
# task's value, so both opcodes' strings get 0x3004000C.
WEBAUTHN_TASKS = """
<tasks>
  <task name="WebAuthNError" value="4" message="$(string.task_WebAuthNError)">
    <opcodes><opcode name="Informational" value="12"
        message="$(string.opcode_WebAuthNErrorInformational)"/></opcodes>
  </task>
  <task name="CtapUsbConnect" value="516" message="$(string.task_CtapUsbConnect)">
    <opcodes><opcode name="Informational" value="12"
        message="$(string.opcode_CtapUsbConnectInformational)"/></opcodes>
  </task>
</tasks>
<events>
  <event value="1010" task="WebAuthNError" opcode="Informational" level="win:Error"/>
  <event value="2207" task="CtapUsbConnect" opcode="Informational" level="win:Informational"/>
</events>
"""


def _webauthn(texts: dict[str, tuple[str, str]]) -> bytes:
    """The provider with its opcode strings given ``texts`` per culture (error, usb)."""
    cultures = "".join(
        f'<resources culture="{culture}"><stringTable>'
        f'<string id="task_WebAuthNError" value="WebAuthNError"/>'
        f'<string id="task_CtapUsbConnect" value="CtapUsbConnect"/>'
        f'<string id="opcode_WebAuthNErrorInformational" value="{error}"/>'
        f'<string id="opcode_CtapUsbConnectInformational" value="{usb}"/>'
        "</stringTable></resources>"
        for culture, (error, usb) in texts.items()
    )
    return (
        HEAD + '<provider name="Microsoft-Windows-WebAuthN"'
        ' guid="{3ae1ea61-c002-47fb-b06c-4022a8c98929}" symbol="WEBAUTHN"'
        ' resourceFileName="webauthn.dll" messageFileName="webauthn.dll">'
        + WEBAUTHN_TASKS
        + "</provider></events></instrumentation><localization>"
        + cultures
        + "</localization></instrumentationManifest>"
    ).encode()


def test_opcodes_of_tasks_above_255_share_an_id_when_their_text_is_one(tmp_path: Path) -> None:
    from etwmc.wevt.msgtable import read_message_table

    data = _webauthn({"en-US": ("Informational", "Informational")})
    checked = check_bytes(data, "webauthn.man")
    assert checked.manifest is not None
    assert [d for d in checked.diagnostics if d.severity >= 1] == []  # no error, no warning
    ids = assign_message_ids(checked.manifest)
    assert ids.strings["opcode_WebAuthNErrorInformational"] == 0x3004000C
    assert ids.strings["opcode_CtapUsbConnectInformational"] == 0x3004000C
    result = compile_manifest("webauthn.man", data=data, base="webauthn")
    assert result.ok, result.diagnostics
    table = read_message_table(result.files["webauthn_MSG00001.bin"])
    assert table[0x3004000C] == "Informational"
    # And with mc's -c (the customer bit), the same.
    custom = msgids.with_customer_bit(checked.manifest, ids)
    assert [d.code for d in custom.diagnostics] == []


def test_opcodes_of_tasks_above_255_with_two_texts_for_one_id_are_an_error() -> None:
    data = _webauthn({"en-US": ("Informational", "Informational"), "de-DE": ("Info", "Hinweis")})
    checked = check_bytes(data, "webauthn.man")
    found = [d for d in checked.diagnostics if d.code == "ETW651"]
    assert len(found) == 1, checked.diagnostics
    assert (
        "'opcode_CtapUsbConnectInformational' would get message id 0x3004000C" in found[0].message
    )
    assert "low 8 bits of its task's value, 516: 0x04" in found[0].message
