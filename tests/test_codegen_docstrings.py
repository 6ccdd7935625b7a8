"""The generated module as a Python user meets it: ruff's default rules pass, and each
write function's docstring says what the event means, where it goes and what each
parameter is; manifest text in a docstring cannot get out of it."""

from __future__ import annotations

import ast
import builtins
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from codegen_helpers import HELLO, black_check, generate, load, manifest

from etwmc.python.docstrings import docstring, message
from etwmc.python.verify import safety_problem

VALID = sorted((Path(__file__).parent / "manifests" / "valid").glob("*.man"))


def _ruff() -> str:
    path = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if path is None:
        pytest.skip("ruff is not installed")
    return path


def ruff_defaults(*paths: Path) -> subprocess.CompletedProcess[str]:
    """ruff with its default rules and no configuration of ours (``--isolated``)."""
    return subprocess.run(
        [_ruff(), "check", "--isolated", "--no-cache", *map(str, paths)],
        capture_output=True,
        text=True,
    )


def docstring_of(module_text: str, function: str) -> str:
    tree = ast.parse(module_text)
    [node] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function]
    doc = ast.get_docstring(node, clean=False)
    assert doc is not None
    return doc


def test_generated_modules_pass_ruffs_default_rules(tmp_path: Path) -> None:
    paths = []
    for i, man in enumerate([HELLO, *VALID]):
        folder = tmp_path / str(i)
        folder.mkdir()
        paths.append(generate(man, folder)[1])
    run = ruff_defaults(*paths)
    assert run.returncode == 0, run.stdout[-3000:]


def test_hello_write_docstring() -> None:
    text = (Path(__file__).parent / "codegen_snapshots" / "hello.py.snapshot").read_text()
    assert docstring_of(text, "write_Hello") == (
        "Write the Hello event (id 1, version 0).\n"
        "\n"
        "    Message: Hello {Name} ({Count} times, feeling {Mood})\n"
        "\n"
        "    Level: Informational (4); opcode: Info (0); task: none (0).\n"
        "    Keywords: Greetings (0x1); channel: Operational (16).\n"
        "    (The enums of HELLO_PROVIDER name these values.)\n"
        "\n"
        "    Args:\n"
        "        Name: win:UnicodeString.\n"
        "        Count: win:UInt32.\n"
        "        Mood: win:UInt8, a HELLO_PROVIDER.Mood value.\n"
        "        activity_id, related_activity_id: see the module's docstring.\n"
        "    "
    )
    start = docstring_of(text, "write_RequestStart")
    assert "Message: Request {RequestId} for {Path} started" in start
    assert "Level: Verbose (5); opcode: Start (1); task: Request (1)." in start


BODY = """
      <channels>
        <channel name="Etwmc-Test/Operational" chid="ops" type="Operational"/>
      </channels>
      <levels><level name="Chatty" value="16" message="$(string.lvl)"/></levels>
      <keywords>
        <keyword name="Disk" mask="0x1"/><keyword name="Net" mask="0x4"/>
      </keywords>
      <tasks>
        <task name="Copy" value="7">
          <opcodes><opcode name="Chunk" value="11"/></opcodes>
        </task>
      </tasks>
      <maps>
        <bitMap name="Flags"><map value="0x1" message="$(string.f1)"/></bitMap>
      </maps>
      <templates>
        <template tid="T">
          <data name="Count" inType="win:UInt16"/>
          <data name="Sizes" inType="win:UInt32" count="Count"/>
          <data name="Tag" inType="win:UnicodeString" length="8"/>
          <data name="Mode" inType="win:UInt32" map="Flags"/>
          <data name="Four" inType="win:UInt8" count="4"/>
          <struct name="Pair">
            <data name="X" inType="win:Int32"/><data name="Y" inType="win:Double"/>
          </struct>
        </template>
      </templates>
      <events>
        <event value="9" version="2" symbol="Copied" level="Chatty" task="Copy"
               opcode="Chunk" keywords="Disk Net" channel="ops" template="T"
               message="$(string.msg)"/>
        <event value="10" symbol="Bare" level="win:Error"/>
      </events>
"""
STRINGS = """
    <string id="lvl" value="Chatty"/>
    <string id="f1" value="Fast"/>
    <string id="msg" value="copied %2 (%1 sizes) as %3%n 100%% done, mode %4!x! %0 never shown"/>
"""


def test_a_docstring_names_the_event_values_and_each_parameter(tmp_path: Path) -> None:
    text, path = generate(manifest(BODY, strings=STRINGS), tmp_path)
    doc = docstring_of(text, "write_Copied")
    assert doc.startswith("Write the Copied event (id 9, version 2).\n")
    # The inserts by field name (the count field too), escapes read, %0 ends it.
    assert "Message: copied {Sizes} ({Count} sizes) as {Tag} 100% done, mode {Mode}\n" in doc
    assert "Level: Chatty (16); opcode: Chunk (11); task: Copy (7)." in doc
    assert "Keywords: Disk, Net (0x5); channel: ops (16)." in doc
    assert "        Sizes: a sequence of win:UInt32; its length goes in Count.\n" in doc
    assert "        Tag: win:UnicodeString; 8 units long (shorter is padded).\n" in doc
    assert "        Mode: win:UInt32, a TEST.Flags value.\n" in doc
    assert "        Four: 4 values: win:UInt8.\n" in doc
    assert "        Pair: a struct of X (win:Int32), Y (win:Double), as a tuple or a dict" in doc
    assert "Count:" not in doc.split("Args:")[1]  # filled in: not a parameter
    bare = docstring_of(text, "write_Bare")
    assert "Message" not in bare
    assert "Level: Error (2); opcode: Info (0); task: none (0)." in bare
    assert "Keywords: none (0x0); channel: none (0)." in bare
    module = load(path)
    assert module.write_Copied.__doc__.startswith("Write the Copied event")  # what help() shows
    assert black_check(text) == text


INJECTIONS = [
    '"""; import builtins; builtins.PWNED = 5; """',
    "'''; import builtins; builtins.PWNED = 6; '''",
    "ends with a backslash \\",
    'ends with a quote "',
    "\\N{BULLET} \\x41 \\u0041 \\\\",
    "line\nfeed\r\nand\ttab\u2028separator\x85next",
    "caf\u00e9 \U0001f600 \ufeff",
]


@pytest.mark.parametrize("text", INJECTIONS)
def test_manifest_text_cannot_leave_a_docstring(tmp_path: Path, text: str) -> None:
    xml = (
        text.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
        .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    )  # fmt: skip
    body = """
      <templates><template tid="T"><data name="A" inType="win:UInt8"/></template></templates>
      <events>
        <event value="1" symbol="E" level="win:Error" template="T" message="$(string.m)"/>
      </events>
"""
    module_text, path = generate(
        manifest(body, strings=f'<string id="m" value="{xml}"/>'), tmp_path
    )
    assert module_text.isascii() and safety_problem(module_text) is None
    assert black_check(module_text) == module_text
    probe = (
        "import builtins, importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('m', {str(path)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "print(getattr(builtins, 'PWNED', None))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["None"]
    assert not hasattr(builtins, "PWNED")
    # The text is in the docstring, whole, as one line of its words.
    doc = docstring_of(module_text, "write_E")
    assert f"Message: {' '.join(text.split())}" in " ".join(doc.split())
    assert ruff_defaults(path).returncode == 0


def test_docstring_text_is_escaped_and_its_whitespace_made_single_spaces() -> None:
    got = docstring("    ", 'S "x"', ['a """ b \\ c', ["Args:", '    x: y"\\z\u00e9\U0001f600']])
    assert got == (
        '    """S \\"x\\"\n'
        "\n"
        '    a \\"\\"\\" b \\\\ c\n'
        "\n"
        "    Args:\n"
        '        x: y\\"\\\\z\\xe9\\U0001f600\n'
        '    """'
    )
    assert docstring("", "S", ["x\n\n  y\u2028z"]) == '"""S\n\nx y z\n"""'
    assert message("%1 and %2 of %3%0 hidden", ["a", "b"]) == "{a} and {b} of %3"
    assert message("50%% %n%t%r%b.", []) == "50% \r\n\t\r ."
