"""The text rules the binary readers apply agree with what lxml (libxml2) accepts, so
what a reader hands on can always be written as XML by the decompiler."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from conftest import slow
from etwmc.wevt.xmltext import first_bad_char, is_ncname, is_qname, is_uri_reference, utf16_offset


def _lxml_name_ok(name: str) -> bool:
    try:
        etree.Element(name)
    except ValueError:
        return False
    return True


def _lxml_uri_ok(uri: str) -> bool:
    try:
        etree.Element("{urn:x}e", nsmap={"p": uri})
    except ValueError:
        return False
    return True


def _lxml_text_ok(text: str) -> bool:
    try:
        etree.Element("e").text = text
    except ValueError:  # UnicodeEncodeError (a surrogate) is a ValueError too
        return False
    return True


# Characters near the edges of the name and text classes, plus random ones.
_EDGES = "aZ_-.09:\xb7\xc0\xd7\xf7\u0300\u037e\u2070\u203f\u3000\ufdd0\ufffe\x01\t \ud800\U00010000"
_chars = st.one_of(st.sampled_from(list(_EDGES)), st.characters())


@slow
@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.text(_chars, max_size=6))
def test_ncname_is_what_lxml_takes_as_a_tag(name: str) -> None:
    assert is_ncname(name) == _lxml_name_ok(name)


@settings(max_examples=800, deadline=None, derandomize=True)
@given(st.text(_chars, max_size=6))
def test_xml_text_is_accepted_by_lxml(text: str) -> None:
    if first_bad_char(text) is None:
        assert _lxml_text_ok(text)


@pytest.mark.parametrize("ch", ["\x00", "\x01", "\x1f", "\ud800", "\udfff", "\ufffe", "\uffff"])
def test_what_xml_text_cannot_hold(ch: str) -> None:
    assert first_bad_char("ab" + ch) == 2


_URI_ALPHABET = "aA0:/?#[]@!$&'()*+,;=-._~% \"<>\\^`{|}\xe9"


@slow
@settings(max_examples=3000, deadline=None, derandomize=True)
@given(st.text(st.sampled_from(list(_URI_ALPHABET)), max_size=12))
def test_every_uri_reference_is_accepted_by_lxml(uri: str) -> None:
    if is_uri_reference(uri):
        assert _lxml_uri_ok(uri), uri


def test_every_short_uri_reference_is_accepted_by_lxml() -> None:
    # Every string of up to four of the characters that shape a URI.
    for n in range(5):
        for chars in itertools.product("a:/?#[]@%1.v", repeat=n):
            uri = "".join(chars)
            if is_uri_reference(uri):
                assert _lxml_uri_ok(uri), uri


@pytest.mark.parametrize(
    ("uri", "ok"),
    [
        ("http://schemas.microsoft.com/win/2004/08/events", True),
        ("urn:etwmc:prefix:n%EA%B5%A91", True),
        ("", True),
        ("a#b#c", False),
        ("a b", False),
        ("urn:x:\xe9", False),
        ("%zz", False),
        ("1a:b", False),
        ("//:", False),  # a ':' must be followed by a port
        ("//a:1", True),
    ],
)
def test_uri_examples(uri: str, ok: bool) -> None:
    assert is_uri_reference(uri) is ok
    assert _lxml_uri_ok(uri) is ok


def test_qnames() -> None:
    assert is_qname("win:Error") and is_qname("Error")
    assert not is_qname(":Error") and not is_qname("a:b:c") and not is_qname("-a:b")


def test_offsets_count_utf16_code_units() -> None:
    text = "a\U0001f600b\x01"
    assert first_bad_char(text) == 3
    assert utf16_offset(text, 3) == 8
