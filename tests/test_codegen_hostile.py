"""Hostile manifests: names with quotes, newlines, triple quotes, U+2028, keywords,
builtins, collisions and non-ASCII yield modules that import and only define names."""

from __future__ import annotations

import ast
import builtins
import subprocess
import sys
from pathlib import Path

import pytest
from codegen_helpers import black_check, generate, load, manifest
from hypothesis import given, settings
from hypothesis import strategies as st

from etwmc.python.verify import safety_problem as _syntax_problem
from etwmc.runtime.backends.inproc import InProcBackend
from etwmc.validate import check_bytes

INJ = "x&quot;); import builtins; builtins.PWNED = 1 #"
NL = "a&#10;import builtins; builtins.PWNED = 2&#10;"
Q3 = "&apos;&apos;&apos;; import builtins; builtins.PWNED = 3; &apos;&apos;&apos;"
LS = "b&#x2028;builtins.PWNED = 4"
BODY = f"""
      <channels>
        <channel name="Etwmc-Test/Operational" chid="c1" type="Operational"/>
        <channel name="Etwmc-Test/Debug" chid="Debug" type="Analytic"/>
      </channels>
      <maps>
        <valueMap name="{INJ}">
          <map value="1" message="$(string.m1)"/>
          <map value="2" message="$(string.m2)"/>
          <map value="3" message="$(string.m3)"/>
        </valueMap>
        <valueMap name="class">
          <map value="1" message="$(string.m1)"/>
        </valueMap>
      </maps>
      <templates>
        <template tid="T">
          <data name="{INJ}" inType="win:UnicodeString"/>
          <data name="{NL}" inType="win:UInt32"/>
          <data name="{Q3}" inType="win:AnsiString"/>
          <data name="{LS}" inType="win:UInt8" map="class"/>
          <data name="class" inType="win:UInt8"/>
          <data name="activity_id" inType="win:UInt8"/>
          <data name="_payload" inType="win:UInt8"/>
          <data name="len" inType="win:UInt8"/>
          <data name="caf\u00e9" inType="win:UInt8"/>
          <data name="\ufb01le" inType="win:UInt8"/>
          <data name="file" inType="win:UInt8"/>
        </template>
      </templates>
      <events>
        <event value="1" symbol="import" name="{INJ}" level="win:Informational"
               template="T" channel="c1"/>
        <event value="2" symbol="register" level="win:Informational"/>
        <event value="3" symbol="print" level="win:Informational"/>
        <event value="4" symbol="write_register" level="win:Informational"/>
        <event value="5" symbol="_on_0" level="win:Informational"/>
      </events>
"""
STRINGS = f"""
    <string id="m1" value="{NL}"/>
    <string id="m2" value="{Q3}"/>
    <string id="m3" value="{INJ} \u00e9\u2028"/>
"""


def test_no_injected_statement_runs(tmp_path: Path) -> None:
    text, path = generate(manifest(BODY, strings=STRINGS), tmp_path)
    # Import in a fresh interpreter: an injected statement would set builtins.PWNED.
    probe = (
        "import builtins, importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('hostile', {str(path)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "print(getattr(builtins, 'PWNED', None), m.TEST.runtime.registered)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["None", "False"]
    assert not hasattr(builtins, "PWNED")


def test_module_only_defines_names(tmp_path: Path) -> None:
    text, path = generate(manifest(BODY, strings=STRINGS), tmp_path)
    assert text.isascii()
    assert _syntax_problem(text) is None
    tree = ast.parse(text)
    calls = {
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    assert not calls & {"exec", "eval", "__import__", "compile", "open", "getattr"}
    assert "PWNED" not in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    # Manifest text survives only inside string literals, exactly.
    literals = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    assert 'x"); import builtins; builtins.PWNED = 1 #' in literals
    assert "a\nimport builtins; builtins.PWNED = 2\n" in literals
    assert black_check(text) == text


def test_hostile_names_still_work(tmp_path: Path) -> None:
    _, path = generate(manifest(BODY, strings=STRINGS), tmp_path)
    m = load(path)
    b = InProcBackend()
    with b.session() as s, m.registration(b):
        s.enable(m.TEST.GUID)
        m.write_import_("s", 1, "a", 2, 3, 4, 5, 6, 7, 8, 9)
        m.write_register_()  # the event named "register" did not replace register()
        m.write_print_()
        assert [e.id for e in s.events()] == [1, 2, 3]
    members = m.TEST.x_import_builtins_builtins_PWNED_1_
    assert [x.name for x in members] == [
        "a_import_builtins_builtins_PWNED_2_",
        "import_builtins_builtins_PWNED_3_",
        "x_import_builtins_builtins_PWNED_1_",
    ]
    assert callable(m.register) and callable(m.write_write_register)
    assert m.write_register.id == 4  # the descriptor of the event named "write_register"
    assert m.print_.id == 3 and "print" not in vars(m)
    assert m.on_0.id == 5 and m._on_0 is False  # "_on_0" cannot reach the module's private flags


_xml_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters='<>&"\x85'),
    min_size=1,
    max_size=12,
)


def test_any_field_names_give_a_working_module(tmp_path_factory: pytest.TempPathFactory) -> None:
    # The property runs inside the test, so the count of names that reached code
    # generation is this run's own, whatever ran before.
    accepted: list[int] = []

    @settings(max_examples=25, deadline=None)
    @given(names=st.lists(_xml_text, min_size=1, max_size=4), symbol=_xml_text)
    def generates_a_working_module(names: list[str], symbol: str) -> None:
        data = "".join(f'<data name="{n}" inType="win:UInt8"/>' for n in names)
        body = f"""
      <templates><template tid="T">{data}</template></templates>
      <events><event value="1" name="{symbol}" level="win:Error" template="T"/></events>
"""
        checked = check_bytes(manifest(body).encode(), "fuzz.man")
        if not checked.ok:
            return  # the validator refused these names (e.g. duplicates): nothing to generate
        accepted.append(1)
        tmp = tmp_path_factory.mktemp("fuzz")
        text, path = generate(manifest(body), tmp)
        assert text.isascii() and _syntax_problem(text) is None
        m = load(path)
        [write] = [getattr(m, n) for n in vars(m) if n.startswith("write_")]
        b = InProcBackend()
        with b.session() as s, m.registration(b):
            s.enable(m.TEST.GUID)
            write(*range(len(names)))
            assert [e.user_data for e in s.events()] == [bytes(range(len(names)))]

    generates_a_working_module()
    assert len(accepted) >= 10  # most random names get through to code generation
