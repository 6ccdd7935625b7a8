"""Mutated real manifests never make the validator raise: every outcome is diagnostics."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, corpus_files
from etwmc.diagnostics import Severity
from etwmc.validate import check_bytes

# Small and medium manifests that together use most of the schema (maps, structs,
# channels, task opcodes, filters, several cultures' worth of strings).
SEEDS = [
    p for p in corpus_files() if p.stat().st_size < 60_000 and not p.name.startswith("repnz__")
]

FRAGMENTS = [
    b'value="70000"',
    b'mask="0x1000000000000"',
    b'version="256"',
    b'level="win:Nope"',
    b'inType="win:Bogus"',
    b'count="Missing"',
    b'length="-1"',
    b"<event/>",
    b"</provider>",
    b'guid="{bad}"',
    b"$(string.",
    b"%999",
    b"\x00",
    b"\xff\xfe",
    b"&amp;",
    b"<![CDATA[x]]>",
    b'<struct name="s"><struct name="t"/></struct>',
    b'<channel name="c" type="Admin" value="3"/>',
    b'symbol="1abc"',
    b'chid=""',
    b'xmlns:p="urn:x"',
    b"<!-- c -->",
    b'tid="T"',
    b'map="M"',
]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    seed: Path = draw(st.sampled_from(SEEDS))
    data = bytearray(seed.read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "replace_attr", "flip"]))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "delete":
            del data[pos : pos + draw(st.integers(1, 200))]
        elif op == "insert":
            data[pos:pos] = draw(st.sampled_from(FRAGMENTS))
        elif op == "flip" and data:
            data[pos] ^= 1 << draw(st.integers(0, 7))
        else:
            # Replace the value of the next attribute after pos with a hostile one.
            eq = data.find(b'="', pos)
            end = data.find(b'"', eq + 2) if eq >= 0 else -1
            if eq >= 0 and end > eq:
                value = draw(
                    st.sampled_from(
                        [
                            b"",
                            b"0x",
                            b"99999999999999999999",
                            b"win:",
                            b" a b ",
                            b"$(string.)",
                            b"%1!",
                            b"\xc3\x28",
                            b"{}",
                            b"-5",
                        ]
                    )
                )
                data[eq + 2 : end] = value
    return bytes(data)


@pytest.mark.skipif(not SEEDS, reason="../shared/corpus is not present next to this checkout")
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_manifests_give_diagnostics_not_tracebacks(data: bytes) -> None:
    checked = check_bytes(data, "mutated.man")
    for d in checked.diagnostics:
        assert d.code.startswith("ETW") and len(d.code) == 6
        assert isinstance(d.severity, Severity)
        assert d.message and d.span.file == "mutated.man"
    if checked.manifest is None:
        assert any(d.severity == Severity.ERROR for d in checked.diagnostics)


def test_seed_list_is_not_empty_when_corpus_present() -> None:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present next to this checkout")
    assert len(SEEDS) >= 10
