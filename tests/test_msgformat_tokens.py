"""etwmc.msgformat: a message's tokens, its inserts, and the text a reader is shown."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from etwmc.msgformat import Insert, Stop, insert_fields, shown, tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", ["plain"]),
        ("a %1 b", ["a ", Insert(1, None), " b"]),
        ("%1!S! and %2!d", [Insert(1, "S"), " and ", Insert(2, "d", closed=False)]),
        ("%1!%2! %3", [Insert(1, "%2"), " ", Insert(3, None)]),  # a format is not scanned
        ("x%%y%n%t%b%.%0tail", ["x", "%", "y", "\r\n", "\t", " ", ".", Stop(), "tail"]),
        ("ends with %", ["ends with "]),
        ("%12%100", [Insert(12, None), Insert(10, None), "0"]),
    ],
)
def test_tokens(text: str, expected: list[object]) -> None:
    assert list(tokens(text)) == expected
    assert insert_fields(text) == [
        (t.number, t.format, t.closed) for t in expected if isinstance(t, Insert)
    ]


def test_shown_reads_escapes_replaces_inserts_and_stops_at_the_first_stop() -> None:
    def name(n: int) -> str:
        return f"<{n}>"

    assert shown("no inserts", name) == "no inserts"
    assert shown("a=%1!x!, b=%2%n100%% %3!s", name) == "a=<1>, b=<2>\r\n100% <3>"
    assert shown("before%0after %1", name) == "before"
    assert shown("%1!%0! kept", name) == "<1> kept"  # %0 inside a format is no stop
    assert shown("trailing %", name) == "trailing "


def _shown_by_tokens(text: str) -> str:
    """What :func:`shown` documents, from :func:`tokens`: pieces up to the first stop."""
    out = []
    for t in tokens(text):
        if isinstance(t, Stop):
            break
        out.append(f"<{t.number}>" if isinstance(t, Insert) else t)
    return "".join(out)


@given(st.text("%!0129nx \n"))
def test_shown_is_the_text_of_the_tokens_up_to_the_first_stop(text: str) -> None:
    assert shown(text, lambda n: f"<{n}>") == _shown_by_tokens(text)
