"""Manifest names -> Python identifiers: keywords, NFKC, collisions, determinism."""

from __future__ import annotations

import keyword
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from etwmc.naming import ENUM_RESERVED, Kind, Scope, identifier, sanitize


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("Foo", Kind.GLOBAL, "Foo"),
        ("Microsoft-Windows-Shell/Operational", Kind.GLOBAL, "Microsoft_Windows_Shell_Operational"),
        ("data with spaces", Kind.PARAM, "data_with_spaces"),
        ("class", Kind.PARAM, "class_"),
        ("match", Kind.GLOBAL, "match_"),
        ("case", Kind.MEMBER, "case_"),
        ("_", Kind.GLOBAL, "N"),
        ("type", Kind.PARAM, "type_"),
        ("123abc", Kind.GLOBAL, "N123abc"),
        ("123abc", Kind.PARAM, "f123abc"),
        ("1", Kind.MEMBER, "V1"),
        ("_private", Kind.PARAM, "private"),
        ("__dunder__", Kind.MEMBER, "dunder__"),
        ("_sunder_", Kind.MEMBER, "sunder_"),
        ("value", Kind.MEMBER, "value_"),
        ("name", Kind.MEMBER, "name_"),
        ("name", Kind.PARAM, "name"),
        ("\ufb01le", Kind.GLOBAL, "file"),  # the fi ligature: Python would read it as "file"
        ("caf\u00e9", Kind.GLOBAL, "caf_"),  # non-ASCII letters are replaced, not kept
        ("", Kind.GLOBAL, "N"),
        ("'''\n\u2028", Kind.GLOBAL, "N"),
    ],
)
def test_identifier_rules(text: str, kind: Kind, expected: str) -> None:
    assert identifier(text, kind) == expected


def test_reserved_names_get_a_suffix() -> None:
    assert identifier("register", reserved={"register"}) == "register_"
    assert identifier("register_", reserved={"register", "register_"}) == "register__"


@given(st.text(max_size=40), st.sampled_from(list(Kind)))
def test_identifier_is_always_a_safe_ascii_identifier(text: str, kind: Kind) -> None:
    name = identifier(text, kind)
    assert name.isascii() and name.isidentifier()
    assert not keyword.iskeyword(name) and not keyword.issoftkeyword(name)
    assert not name.startswith("_")
    if kind is Kind.MEMBER:
        assert name not in ENUM_RESERVED


def test_scope_collisions_are_suffixed_in_order_and_reported() -> None:
    scope = Scope("event", file="x.man")
    assert scope.claim("a-b") == "a_b"
    assert scope.claim("a b") == "a_b_2"
    assert scope.claim("a_b_2") == "a_b_2_2"  # a literal name that was already handed out
    assert scope.claim("\ufb01") == "fi"
    assert scope.claim("fi") == "fi_2"  # NFKC collision
    codes = [d.code for d in scope.diagnostics]
    assert codes == ["ETW600"] * 3
    assert "'a b'" in scope.diagnostics[0].message and "'a-b'" in scope.diagnostics[0].message


def test_the_same_text_twice_is_numbered_without_a_warning() -> None:
    """Value-map items that share a message (ChakraCore maps eight values to one text)
    are numbered; that the manifest says the same thing twice is no surprise."""
    scope = Scope("map item", Kind.MEMBER)
    assert [scope.claim("Unknown") for _ in range(3)] == ["Unknown", "Unknown_2", "Unknown_3"]
    assert scope.diagnostics == []
    assert scope.claim("\uff35nknown") == "Unknown_4"  # another text, the same name (NFKC)
    assert [d.code for d in scope.diagnostics] == ["ETW600"]


def test_scope_is_deterministic() -> None:
    names = ["x", "x", "X", "x-1", "x_1", "class", "class_"]

    def run() -> list[str]:
        s = Scope("n")
        return [s.claim(n) for n in names]

    assert run() == run() == ["x", "x_2", "X", "x_1", "x_1_2", "class_", "class__2"]


def test_sanitize_keeps_mc_shape() -> None:
    assert sanitize("Microsoft-Windows-Foo") == "Microsoft_Windows_Foo"
    assert sanitize("9lives") == "_9lives"


TWO_PROVIDERS = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="A" guid="{1B7A2C4E-1F0B-4C59-9E1A-6B1D0F3A7E21}" symbol="ProvA"
              resourceFileName="a.dll" messageFileName="a.dll">
      <events>
        <event value="1" version="0" symbol="Started" level="win:Error"/>
        <event value="3" version="0" level="win:Error"/>
        <event value="3" version="1" level="win:Error"/>
        <event value="2" symbol="OnlyA" level="win:Error"/>
      </events>
    </provider>
    <provider name="B" guid="{2B7A2C4E-1F0B-4C59-9E1A-6B1D0F3A7E21}" symbol="ProvB"
              resourceFileName="a.dll" messageFileName="a.dll">
      <events><event value="1" symbol="Started" level="win:Error"/></events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
"""


def test_event_names_shared_by_versions_or_providers() -> None:
    from etwmc.python import build_context
    from etwmc.validate import check_bytes

    checked = check_bytes(TWO_PROVIDERS.encode(), "two.man")
    assert checked.ok and checked.manifest is not None
    ctx, diags = build_context(checked.manifest, version="", source="")
    assert [[e.write for e in p.events] for p in ctx.providers] == [
        ["write_ProvA_Started", "write_Event3", "write_Event3_v1", "write_OnlyA"],
        ["write_ProvB_Started"],
    ]
    assert diags == []


@given(st.text(st.characters(max_codepoint=127), max_size=30))
def test_ascii_names_follow_the_replacement_rule(text: str) -> None:
    # Rules 2 and 3 written out: runs of other characters become one "_", then a
    # leading digit gets a "_" in front (NFKC changes no ASCII text).
    expected = re.sub(r"[^A-Za-z0-9_]+", "_", text) or "_"
    if expected[0].isdigit():
        expected = "_" + expected
    assert sanitize(text) == expected


@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["write_", "is_enabled_", "start_", "stop_", ""])),
            st.sampled_from(["a", "b", "write_a", "print", "register", "x_2", "a_2"]),
        ),
        max_size=12,
    )
)
def test_claim_derived_is_claim_of_the_joined_text(claims: list[tuple[list[str], str]]) -> None:
    # The derived names of events (write_<event>...) take claim's result, in the
    # prefixes' order, and report the same collisions, whatever was claimed before them.
    reserved = {"print", "register", "write_b"}
    plain = Scope("name", Kind.GLOBAL, reserved, file="f.man")
    derived = Scope("name", Kind.GLOBAL, reserved, file="f.man")
    for prefixes, text in claims:
        name = plain.claim(text)
        assert derived.claim(text) == name
        expected = [plain.claim(prefix + name) for prefix in prefixes]
        assert derived.claim_derived(prefixes, name) == expected
    assert derived.diagnostics == plain.diagnostics
