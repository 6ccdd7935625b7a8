"""Lowering: attribute readers, and how references resolve (the orders its modules document)."""

from __future__ import annotations

import uuid

import pytest
from lxml import etree

from etwmc import winmeta as wm
from etwmc.diagnostics import Diagnostic
from etwmc.lower import lower_document
from etwmc.lower.attributes import extent, parse_bool, parse_guid, parse_int, qname, string_ref
from etwmc.lower.templates import xml_node
from etwmc.model import Manifest, Provider
from etwmc.parse import parse_bytes

# ------------------------------------------------------------------ attribute readers


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12", 12),
        (" 12 ", 12),
        ("+7", 7),
        ("0x1F", 31),
        ("0XfF", 255),
        ("0x", None),
        ("-1", None),
        ("1.5", None),
        ("٣", None),  # a digit, but not an ASCII one
        ("", None),
        (None, None),
    ],
)
def test_parse_int(text: str | None, value: int | None) -> None:
    assert parse_int(text) == value


def test_parse_guid_with_and_without_braces() -> None:
    g = uuid.UUID("6a1b2c3d-4e5f-4061-8273-94a5b6c7d8f6")
    assert parse_guid("{6A1B2C3D-4E5F-4061-8273-94A5B6C7D8F6}") == g
    assert parse_guid(" 6a1b2c3d-4e5f-4061-8273-94a5b6c7d8f6 ") == g
    assert parse_guid("{6A1B2C3D4E5F4061827394A5B6C7D8F6}") is None  # not 36 characters
    assert parse_guid("{6A1B2C3D-4E5F-4061-8273-94A5B6C7D8FZ}") is None
    assert parse_guid("") is None


def test_parse_bool() -> None:
    assert parse_bool("true") and parse_bool(" 1 ")
    assert not parse_bool("false") and not parse_bool("0") and not parse_bool("True")
    assert parse_bool(None, default=True)


@pytest.mark.parametrize(
    ("text", "sid"),
    [
        ("$(string.Ev)", "Ev"),
        ("$(String.Ev)", "Ev"),
        ("$(mc.Ev)", "Ev"),
        ("$(MC.Ev)", "Ev"),
        ("$(string.map_Names (S))", "map_Names (S)"),  # to the last ')'
        ("$(string.Ev", None),
        ("$(strings.Ev)", None),
        ("$(string)", None),
        ("string.Ev", None),
        ("Plain text", None),
        (None, None),
    ],
)
def test_string_ref(text: str | None, sid: str | None) -> None:
    assert string_ref(text) == sid


def test_qname_resolution() -> None:
    nsmap: dict[str | None, str] = {None: wm.EVENTS_NS, "ns1": "urn:one", "win": "urn:not-win"}
    assert qname(nsmap, "Level") == (wm.EVENTS_NS, "Level")
    assert qname(nsmap, " ns1:Level ") == ("urn:one", "Level")
    assert qname(nsmap, "win:Error") == ("urn:not-win", "Error")  # a declared prefix wins
    assert qname({}, "win:Error") == (wm.WIN_NS, "Error")
    assert qname({}, "xs:string") == (wm.XS_NS, "string")
    assert qname({}, "Level") == ("", "Level")
    # An undeclared prefix keeps names apart from every namespace.
    assert qname({}, "nope:Level") != qname({}, "other:Level")
    assert qname({}, "nope:Level")[0] not in (wm.WIN_NS, wm.EVENTS_NS, "")


def test_extent() -> None:
    assert extent("4") == 4
    assert extent("0x10") == 16
    assert extent(" Count ") == "Count"
    assert extent("4x") == "4x"  # starts with a digit but is not a number: kept as written
    assert extent(None) is None


# ------------------------------------------------------------------ references


def _lower(provider_body: str, *, more: str = "") -> tuple[Manifest, list[Diagnostic]]:
    data = f"""<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="{wm.EVENTS_NS}" xmlns:win="{wm.WIN_NS}">
  <instrumentation>
    <events>
      <provider name="P" guid="{{6A1B2C3D-4E5F-4061-8273-94A5B6C7D8F6}}" symbol="P">
{provider_body}
      </provider>
{more}
    </events>
  </instrumentation>
</instrumentationManifest>
""".encode()
    doc, diags = parse_bytes(data, "x.man")
    assert doc is not None, diags
    return lower_document(doc)


def _provider(provider_body: str) -> tuple[Provider, list[Diagnostic]]:
    manifest, diags = _lower(provider_body)
    return manifest.providers[0], diags


def test_an_opcode_resolves_in_its_task_first_then_the_provider_then_win() -> None:
    p, diags = _provider("""
        <tasks>
          <task name="T" value="1"><opcodes><opcode name="Go" value="20"/></opcodes></task>
          <task name="U" value="2"/>
        </tasks>
        <opcodes><opcode name="Go" value="30"/><opcode name="win:Start" value="31"/></opcodes>
        <events>
          <event value="1" task="T" opcode="Go"/>
          <event value="2" task="U" opcode="Go"/>
          <event value="3" opcode="Go"/>
          <event value="4" task="T" opcode="win:Start"/>
          <event value="5" task="T" opcode="win:Stop"/>
        </events>""")
    assert not diags
    got = [(e.opcode.value, e.opcode.task) if e.opcode else None for e in p.events]
    assert got == [(20, "T"), (30, None), (30, None), (31, None), (2, None)]
    assert p.events[4].opcode is not None and p.events[4].opcode.builtin


def test_provider_declarations_come_before_win_items_and_the_first_one_counts() -> None:
    p, diags = _provider("""
        <levels>
          <level name="win:Informational" value="16"/>
          <level name="win:Informational" value="17"/>
        </levels>
        <keywords><keyword name="K" mask="0x1"/><keyword name="K" mask="0x2"/></keywords>
        <templates>
          <template tid="T"/>
          <template tid="T"><data name="a" inType="win:UInt8"/></template>
        </templates>
        <events>
          <event value="1" level="win:Informational" keywords="K win:AnyKeyword" template=" T "/>
          <event value="2" level="win:Error"/>
        </events>""")
    assert not diags
    first, second = p.events
    assert first.level is not None and (first.level.value, first.level.builtin) == (16, False)
    assert [(k.mask, k.builtin) for k in first.keywords] == [
        (0x1, False),
        (wm.KEYWORDS["AnyKeyword"].value, True),
    ]
    assert first.template is p.templates[0]
    assert second.level is not None and second.level.builtin and second.level.value == 2


def test_a_channel_token_names_the_first_channel_whose_chid_or_name_it_is() -> None:
    p, diags = _provider("""
        <channels>
          <channel name="A" chid="B" type="Admin"/>
          <channel name="B" chid="A" type="Operational"/>
          <importChannel name="System"/>
        </channels>
        <events>
          <event value="1" channel="A"/>
          <event value="2" channel="B"/>
          <event value="3" channel=" System "/>
          <event value="4" channel="Application"/>
        </events>""")
    assert not diags
    assert [e.channel.index if e.channel else None for e in p.events] == [0, 0, 2, None]
    application = p.events[3].channel
    assert application is not None and application.builtin and application.value == 9


def test_unknown_references_are_reported_once_each_and_listed_as_unresolved() -> None:
    p, diags = _provider("""
        <levels><level name="Chatty" value="16"/></levels>
        <events>
          <event value="1" symbol="E1" level="Chaty" task="Work" opcode="Go" keywords="K1 K2"
                 channel="Op" template="T"/>
        </events>
        <filters><filter name="F" value="1" tid="T"/></filters>""")
    assert [(d.code, d.attr) for d in diags] == [
        ("ETW401", "level"),
        ("ETW402", "task"),
        ("ETW403", "opcode"),
        ("ETW404", "keywords"),
        ("ETW404", "keywords"),
        ("ETW405", "channel"),
        ("ETW406", "template"),
        ("ETW406", "tid"),
    ]
    assert diags[0].message == "<event value=\"1\"> (E1) references unknown level 'Chaty'"
    assert diags[0].hint == "did you mean 'Chatty'?"
    assert diags[1].hint == "define the task in the provider"
    assert diags[2].hint == "define it in the provider, or use a win: opcode such as win:Info"
    assert diags[-1].message == "<filter value=\"1\"> (F) references unknown template 'T'"
    event = p.events[0]
    assert event.unresolved == {"level", "task", "opcode", "keywords", "channel", "template"}
    assert (event.level, event.task, event.opcode, event.channel, event.template) == (None,) * 5
    assert event.keywords == ()
    assert p.filters[0].template is None


def test_an_unknown_reference_hint_lists_what_the_provider_defines() -> None:
    levels = "".join(f'<level name="L{i}" value="{16 + i}"/>' for i in range(10))
    _, diags = _provider(f"""
        <levels>{levels}</levels>
        <events><event value="1" level="Qqqq"/></events>""")
    assert [d.hint for d in diags] == ["this provider defines: L0, L1, L2, L3, L4, L5, L6, L7, ..."]


def test_an_import_of_another_providers_channel_takes_the_next_free_value() -> None:
    later = """
      <provider name="Q" guid="{6A1B2C3D-4E5F-4061-8273-94A5B6C7D8F7}" symbol="Q">
        <channels><channel name="Q/Op" chid="QOP" type="Operational" value="40"/></channels>
      </provider>"""
    manifest, diags = _lower(
        """
        <channels>
          <channel name="P/Op" type="Operational"/>
          <importChannel name="QOP" chid="imp"/>
          <importChannel name="Application"/>
        </channels>""",
        more=later,
    )
    assert not diags
    own, imported, application = manifest.providers[0].channels
    assert (own.value, own.value_given) == (16, False)
    assert (imported.imported, imported.type, imported.value) == (True, "Operational", 17)
    assert (application.imported, application.value) == (True, 9)


def test_a_channel_problem_is_reported_once() -> None:
    p, diags = _provider("""
        <channels><channel name="P/Op" type="Operational" value="zz" message="S"/></channels>""")
    assert [(d.code, d.attr) for d in diags] == [("ETW200", "value"), ("ETW412", "message")]
    assert p.channels[0].value == 16


def test_user_data_nodes_keep_the_namespace_declarations_each_element_adds() -> None:
    root = etree.fromstring(
        b'<r xmlns="urn:a" xmlns:p="urn:p"><UserData>'
        b'<A xmlns="urn:x" xmlns:q="urn:q" p:k="1" k="2"><B xmlns:p="urn:p"/><!-- c -->'
        b'<C xmlns:q="urn:q2"><?pi x?><D xmlns="urn:x"/><E xmlns="">e</E></C>tail</A>'
        b"</UserData></r>"
    )
    a = xml_node(root[0][0])
    assert (a.tag, a.nsmap) == (("urn:x", "A"), ((None, "urn:x"), ("q", "urn:q")))
    assert a.attrs == ((("urn:p", "k"), "1"), (("", "k"), "2"))
    b, c = a.children  # the comment is no node
    assert (b.tag, b.nsmap) == (("urn:x", "B"), ())  # p is already urn:p
    assert (c.tag, c.nsmap, c.tail) == (("urn:x", "C"), (("q", "urn:q2"),), "tail")
    d, e = c.children
    assert (d.tag, d.nsmap) == (("urn:x", "D"), ())  # the default is already urn:x
    assert (e.tag, e.nsmap, e.text) == (("", "E"), ((None, ""),), "e")


# ------------------------------------------------------------------ other namespaces

_TYPO = "http://schemas.microsoft.com/win/2004/08/event"  # the instance namespace: no "s"


def test_a_section_in_another_namespace_is_not_read() -> None:
    """What ETW143 says: an element of another namespace where the format allows
    extensions is skipped (as mc skips it), even when it has a manifest element's name."""
    m, diags = _lower(
        f'<templates xmlns="{_TYPO}"><template tid="T1"><data name="A" inType="win:UInt32"/>'
        "</template></templates>"
        f'<events xmlns="{_TYPO}"><event value="9"/></events>'
        '<events><event value="1" template="T1"/></events>',
        more=f'<provider xmlns="{_TYPO}" name="Q" guid="{{6A1B2C3D-4E5F-4061-8273-94A5B6C7D8F7}}"'
        ' symbol="Q"/>',
    )
    (p,) = m.providers
    assert p.templates == ()
    # The foreign <events> does not hide the provider's own section behind it.
    assert [e.value for e in p.events] == [1]
    assert [d.code for d in diags] == ["ETW406"]  # T1 is not defined in the manifest


def test_sections_in_the_manifest_namespace_under_any_prefix_are_read() -> None:
    m, diags = _lower(
        f'<e:templates xmlns:e="{wm.EVENTS_NS}"><e:template tid="T1">'
        '<e:data name="A" inType="win:UInt32"/></e:template></e:templates>'
        '<events><event value="1" template="T1"/></events>'
    )
    assert [t.tid for t in m.providers[0].templates] == ["T1"] and diags == []


_STRINGS = """
  <localization>
    <resources culture="en-US"><stringTable>
      <string id="p" value="Provider"/><string id="e1" value="One"/><string id="e2" value="Two"/>
    </stringTable></resources>
    <resources culture="de-DE"><stringTable>
      <string id="e1" value="Eins"/><string id="unused" value="-"/>
    </stringTable></resources>
  </localization>"""


def _lower_with(localization: str) -> list[Diagnostic]:
    data = f"""<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="{wm.EVENTS_NS}" xmlns:win="{wm.WIN_NS}">
  <instrumentation>
    <events>
      <provider name="P" guid="{{6A1B2C3D-4E5F-4061-8273-94A5B6C7D8F6}}" symbol="P"
          message="$(string.p)">
        <events>
          <event value="1" message="$(string.e1)"/>
          <event value="2" message="$(string.e2)"/>
          <event value="3" message="$(string.e3)"/>
          <event value="4" message="$(string.e3)"/>
        </events>
      </provider>
    </events>
  </instrumentation>{localization}
</instrumentationManifest>
""".encode()
    doc, diags = parse_bytes(data, "x.man")
    assert doc is not None, diags
    return lower_document(doc)[1]


def test_string_references_read_before_the_string_tables_are_checked_against_them() -> None:
    # The tables come last in the document; every reference read before them counts.
    found = [(d.code, d.span.line, d.message) for d in _lower_with(_STRINGS)]
    assert found == [
        ("ETW408", 10, "message references string 'e3', which culture 'en-US' does not define"),
        ("ETW408", 11, "message references string 'e3', which culture 'en-US' does not define"),
        # Of the ids en-US answers and the manifest uses, de-DE lacks p and e2, in order.
        (
            "ETW409",
            20,
            "culture 'de-DE' has no string 'e2', which 'en-US' defines and the manifest uses",
        ),
        (
            "ETW409",
            20,
            "culture 'de-DE' has no string 'p', which 'en-US' defines and the manifest uses",
        ),
    ]


def test_without_a_string_table_only_the_first_reference_read_is_reported() -> None:
    # A provider's own attributes are read after its events.
    found = [(d.code, d.span.line, d.message) for d in _lower_with("")]
    assert found == [
        (
            "ETW408",
            8,
            "message references string 'e1' but the manifest has no <localization> string table",
        )
    ]
