"""The module is exactly what black prints: literals spelled as black spells them, and
statements that long names make too long for a line laid out as black lays them out
(without black: a compile never imports it)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from codegen_helpers import black_check, generate, manifest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import slow
from etwmc.python import literals
from etwmc.python.docstrings import docstring, paragraphs_text
from etwmc.python.literals import escaped, pybytes, pystr


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=20))
def test_pystr_is_ascii_exact_and_black_stable(s: str) -> None:
    lit = pystr(s)
    assert lit.isascii() and "\n" not in lit
    assert ast.literal_eval(lit) == s
    line = f"x = {lit}\n"
    assert black_check(line) == line


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(max_codepoint=127), max_size=20))
def test_pystr_of_plain_ascii_is_the_escaped_literal(s: str) -> None:
    q = literals._quote(s)
    assert pystr(s) == literals._checked(f"{q}{literals._escape(s, q)}{q}", q)


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


def test_long_names_are_laid_out_as_black_lays_them_out(tmp_path: Path) -> None:
    text, _ = generate(manifest(BODY, strings=f'<string id="m1" value="{LONG * 2}"/>'), tmp_path)
    # Statements the long names make too long are split, as black splits them.
    assert f"{LONG}_{LONG}_Event: (\n    Final\n) = EventDescriptor(\n" in text
    assert f"def is_enabled_{LONG}_{LONG}_Event() -> (\n    bool\n):\n" in text
    assert f"    {LONG}_array: Sequence[\n        int\n    ],\n" in text
    assert black_check(text) == text


def test_a_compile_imports_neither_black_nor_jinja(tmp_path: Path) -> None:
    man = tmp_path / "long.man"
    man.write_text(manifest(BODY, strings=f'<string id="m1" value="{LONG * 2}"/>'))
    probe = (
        "import sys\n"
        "from etwmc.compile import compile_manifest\n"
        "from etwmc.options import CompileOptions\n"
        f"r = compile_manifest({str(man)!r}, CompileOptions(verify=True))\n"
        "assert r.ok and any(n.endswith('.py') for n in r.files), r.diagnostics\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'black', 'jinja2'}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def _long_names_manifest(n: list[int], utf8: bool) -> str:
    """A manifest where every name that reaches the module has a chosen length."""
    a, c, r, g, x, y, e, s, t, k, m = (
        letter * size for letter, size in zip("abcdefghijk", n[1:12], strict=True)
    )
    out_type = ' outType="win:Utf8"' if utf8 else ""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="P{"p" * n[0]}" guid="{{0C6A2C4E-1F0B-4C59-9E1A-6B1D0F3A7E21}}"
              symbol="S{"s" * n[0]}" resourceFileName="t.dll" messageFileName="t.dll">
      <keywords><keyword name="K{k}" mask="0x1"/></keywords>
      <tasks><task name="T{t}" value="1"/></tasks>
      <maps>
        <valueMap name="M{m}"><map value="1" message="$(string.m1)"/></valueMap>
        <bitMap name="B{m}"><map value="0x1" message="$(string.m2)"/></bitMap>
      </maps>
      <templates>
        <template tid="Inline">
          <data name="U{a}" inType="win:UnicodeString"/>
          <data name="A{a}" inType="win:AnsiString"{out_type}/>
          <data name="N{r}" inType="win:UInt32" map="M{m}"/>
          <data name="G{g}" inType="win:GUID"/>
          <data name="Q{g}" inType="win:Pointer"/>
          <data name="V{r}" inType="win:UnicodeString"/>
        </template>
        <template tid="Generic">
          <data name="C{c}" inType="win:UInt16"/>
          <data name="R{r}" inType="win:UInt32" count="C{c}"/>
          <data name="D{s}" inType="win:SID"/>
          <data name="W{x}" inType="win:SID" count="2"/>
          <struct name="X{x}" count="C{c}">
            <data name="Y{y}" inType="win:Int8"/>
            <data name="Z{y}" inType="win:UnicodeString" length="3"/>
          </struct>
        </template>
      </templates>
      <events>
        <event value="1" symbol="E{e}" level="win:Informational" keywords="K{k}"
               template="Inline"/>
        <event value="2" symbol="B{e}" level="win:Informational" task="T{t}"
               opcode="win:Start" template="Inline"/>
        <event value="3" symbol="F{e}" level="win:Informational" task="T{t}"
               opcode="win:Stop" template="Generic"/>
      </events>
    </provider>
  </events></instrumentation>
  <localization><resources culture="en-US"><stringTable>
    <string id="m1" value="One {"o" * n[12]}"/>
    <string id="m2" value="Two {"t" * n[12]}"/>
  </stringTable></resources></localization>
</instrumentationManifest>
"""


@slow
@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.integers(1, 120), min_size=13, max_size=13), st.booleans(), st.integers(1, 150))
def test_modules_with_long_names_are_what_black_prints(
    tmp_path: Path, sizes: list[int], utf8: bool, source: int
) -> None:
    text, _ = generate(_long_names_manifest(sizes, utf8), tmp_path, filename=f"{'m' * source}.man")
    assert black_check(text) == text


def test_docstring_lines_are_left_as_they_are_or_each_escaped_when_needed() -> None:
    plain = ["Write the event.", "", "    Level: win:Informational (4)."]
    assert paragraphs_text("", [plain]) == "\n".join(["", *plain])
    # Each line gets its own escape, and only the lines that need one.
    mixed = ["a", 'say "hi" now', "c\\d", "é"]
    text = paragraphs_text("", [mixed])
    assert text.split("\n") == ["", *(escaped(t, '"') for t in mixed)]
    assert text.split("\n")[2] == 'say \\"hi\\" now'
    # A line break inside a text is escaped, not written; no paragraphs, no lines.
    assert docstring("", "a\nb", []) == '"""a\\nb\n"""' and paragraphs_text("", []) == ""
