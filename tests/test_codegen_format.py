"""The module is exactly what black prints: literals spelled as black spells them, and
chunks that need reformatting (very long names) formatted by black itself."""

from __future__ import annotations

import ast
from pathlib import Path

from codegen_helpers import generate, manifest
from hypothesis import given, settings
from hypothesis import strategies as st

from etwmc.python import literals, render
from etwmc.python.literals import pybytes, pystr
from etwmc.python.render import black_check


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=20))
def test_pystr_is_ascii_exact_and_black_stable(s: str) -> None:
    lit = pystr(s)
    assert lit.isascii() and "\n" not in lit
    assert ast.literal_eval(lit) == s
    line = f"x = {lit}\n"
    assert black_check(line) == line


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=20))
def test_pybytes_is_ascii_exact_and_black_stable(b: bytes) -> None:
    lit = pybytes(b)
    assert lit.isascii()
    assert ast.literal_eval(lit) == b
    line = f"x = {lit}\n"
    assert black_check(line) == line


def test_unsafe_literals_are_refused() -> None:
    import pytest

    with pytest.raises(ValueError):
        literals._checked('"a" + exec("x") + "b"', '"')
    with pytest.raises(ValueError):
        literals._checked('"\n"\nimport os', '"')


LONG = "A" * 70
BODY = f"""
      <keywords><keyword name="{LONG}Keyword" mask="0x1"/></keywords>
      <maps>
        <valueMap name="{LONG}Map">
          <map value="1" message="$(string.m1)"/>
        </valueMap>
      </maps>
      <templates>
        <template tid="T">
          <data name="{LONG}_first_field" inType="win:UInt32" map="{LONG}Map"/>
          <data name="{LONG}_second_field" inType="win:UnicodeString"/>
          <data name="{LONG}_count" inType="win:UInt16"/>
          <data name="{LONG}_array" inType="win:UInt8" count="{LONG}_count"/>
        </template>
      </templates>
      <events>
        <event value="1" symbol="{LONG}_{LONG}_Event" level="win:Informational"
               keywords="{LONG}Keyword" template="T"/>
      </events>
"""


def test_long_names_go_through_black_and_match_it(tmp_path: Path) -> None:
    render.black_format.cache_clear()
    text, _ = generate(manifest(BODY, strings=f'<string id="m1" value="{LONG * 2}"/>'), tmp_path)
    assert render.black_format.cache_info().misses > 0  # some chunks needed black
    assert black_check(text) == text


def test_chunks_without_long_lines_skip_black(tmp_path: Path) -> None:
    render.black_format.cache_clear()
    text, _ = generate(manifest('<events><event value="1" symbol="E"/></events>'), tmp_path)
    assert render.black_format.cache_info().misses == 0
    assert black_check(text) == text
