"""What keeps a compile linear in the size of its manifest, asserted as behaviour (work
counted, garbage found), never as time: bench/run.py measures the time."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import corpus_files
from etwmc import __version__, cli, winmeta
from etwmc.commands import COMMANDS
from etwmc.gcpolicy import collection_policy
from etwmc.header import HeaderOptions, build_header
from etwmc.model import BINARY_LENGTH_FIELD, Field, Map, Provider, Struct, Template
from etwmc.pe import resource_dll
from etwmc.python import check, docstrings, generate, literals
from etwmc.validate import check_file
from etwmc.wevt import binary_outputs, binxml, output_diagnostics
from etwmc.wevt.reader_binxml import Buf, Element, Subst, Text, parse_fragment

VALID = Path(__file__).parent / "manifests" / "valid"


class _CountedName(str):
    """A map name that counts the comparisons made with it."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _CountedName.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_a_map_is_found_by_name_without_a_scan() -> None:
    maps = tuple(Map(kind="value", name=_CountedName(f"Map{i}")) for i in range(2000))
    p = Provider(name="P", guid=uuid.UUID(int=1), maps=maps)
    _CountedName.compared = 0
    found = [p.map_named(f"Map{i}") for i in range(2000)]
    assert found == list(maps)
    # A scan compares about 1,000 names per lookup; a table one or none.
    assert _CountedName.compared <= 2000


def test_map_named_gives_the_first_of_a_name() -> None:
    first, second = Map(kind="value", name="M"), Map(kind="bit", name="M")
    p = Provider(name="P", guid=uuid.UUID(int=1), maps=(first, second))
    assert p.map_named("M") is first
    assert p.map_named("N") is None


# Real manifests with every kind of template (UserData, structs, maps, counts).
_REAL = (
    "microsoft__perfview__ClrEtwAll.man",
    "microsoft__Tx__SystemEvents.man",
    "gix__event-trace-kit__TypeMangling.man",
    "PowerShell__PowerShell__PowerShell.Core.Instrumentation.man",
)


def _manifests() -> list[Path]:
    return sorted(VALID.glob("*.man")) + [p for p in corpus_files() if p.name in _REAL]


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize("path", _manifests(), ids=lambda p: p.name)
def test_compiling_leaves_no_reference_cycles(path: Path, collector_off: None) -> None:
    """Every stage of a compile frees what it made by reference counting alone, which
    is what lets the command line switch the cycle collector off (etwmc.gcpolicy)."""
    checked = check_file(path)
    manifest = checked.manifest
    if manifest is None or not checked.ok:
        pytest.skip("not compilable")
    check(manifest)
    output_diagnostics(manifest)
    generate(manifest, source=path.name, version=__version__)
    outputs = binary_outputs(manifest, "x")
    binary_outputs(manifest, "x", version=3, legacy_ids=True)
    build_header(manifest, HeaderOptions())
    build_header(manifest, HeaderOptions(kernel=True))
    resource_dll(manifest, outputs=outputs, base="x")
    del checked, manifest, outputs
    assert gc.collect() == 0


def test_compile_commands_run_without_automatic_collection() -> None:
    assert {c.name for c in COMMANDS if c.pauses_collector} == {"lint", "compile", "mc"}
    assert gc.isenabled()
    for command in COMMANDS:
        with collection_policy(command.pauses_collector):
            assert gc.isenabled() is not command.pauses_collector, command.name
        assert gc.isenabled()


def test_the_policy_leaves_a_collector_that_was_off_off(collector_off: None) -> None:
    with collection_policy(True):
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_the_collector_is_back_after_a_command_fails(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), collection_policy(True):
        raise RuntimeError
    assert gc.isenabled()


def test_the_command_line_compiles_with_the_collector_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from etwmc.commands import compile as command

    seen: list[bool] = []
    real = command.compile_manifest

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(command, "compile_manifest", spy)
    manifest = VALID / "template_edges.man"
    assert cli.main(["compile", str(manifest), "-o", str(tmp_path)]) == 0
    assert seen == [False]
    assert gc.isenabled()  # a process that runs commands in turn gets it back


def test_the_command_line_leaves_the_compiled_model_out_of_the_collections_at_exit(
    tmp_path: Path,
) -> None:
    """The model a compile leaves alive (its per-model caches keep it to the end) is frozen
    before the interpreter exits, whose collections would walk it all once more."""
    probe = (
        "import atexit, gc, sys\n"
        "from etwmc import cli, model\n"
        "def left() -> None:\n"
        "    print(sum(type(o) is model.Event for o in gc.get_objects()))\n"
        "atexit.register(left)\n"
        f"sys.argv = ['etwmc', 'compile', {str(VALID / 'template_edges.man')!r}, '-o', "
        f"{str(tmp_path)!r}]\n"
        "cli.console()\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0"]
    assert any(tmp_path.glob("*.py"))  # the compile ran


def _templates() -> list[Template]:
    found: list[Template] = []
    for path in _manifests() + sorted(VALID.parent.glob("invalid/*.man")):
        manifest = check_file(path).manifest
        if manifest is not None:
            found += [t for p in manifest.providers for t in p.templates]
    u32 = winmeta.in_type("win:UInt32")
    odd = 'a"b&c<d>\te\nf\rg'
    for name in (None, "", odd):
        found.append(Template(tid="t", name=name))
        found.append(
            Template(
                tid="t",
                name=name,
                items=(
                    Field(name=odd, in_type=u32, in_type_text="win:UInt32", count=2),
                    Struct(name="s", fields=(Field(name="m", in_type=u32, in_type_text="x"),)),
                    Field(name=BINARY_LENGTH_FIELD, in_type=u32, in_type_text="win:UInt32"),
                    Field(name="b", in_type=None, in_type_text="win:Nope", length="L"),
                ),
                binary="b",
            )
        )
    return found


_ATTR_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
_ATTR_ESCAPES |= {"\t": "&#x9;", "\n": "&#xA;", "\r": "&#xD;"}


def _attr(value: str) -> str:
    return "".join(_ATTR_ESCAPES.get(c, c) for c in value)


def test_eventdata_templates_encode_their_fixed_shape() -> None:
    """Every EventData template read, and odd ones (markup characters in names, structs,
    counts, binary items, no items): the id hashes mc's XML text of the template, and the
    BinXML reads back as one element per item, each with its Name and its substitution."""
    templates = [t for t in _templates() if t.user_data is None]
    assert len(templates) > 100
    for t in templates:
        types = binxml.value_types(t)
        items = t.items[:-2] if t.binary is not None else t.items
        expected: list[tuple[str, list[tuple[str, list[Text | Subst]]], list[object]]] = []
        texts: list[str] = []
        for n, item in enumerate(items, 1):
            tag = "ComplexData" if isinstance(item, Struct) else "Data"
            texts.append(f'<{tag} Name="{_attr(item.name)}">%{n}</{tag}>')
            expected.append((tag, [("Name", [Text(item.name)])], [Subst(n - 1, types[n - 1])]))
        if t.binary is not None:
            n = len(t.items)
            texts.append(f"<Binary>%{n}</Binary>")
            expected.append(("Binary", [], [Subst(n - 1, types[n - 1])]))
        head = "<EventData" if t.name is None else f'<EventData Name="{_attr(t.name)}"'
        text = f"{head}>{''.join(texts)}</EventData>" if texts else head + "/>"

        tid, data = binxml.encode_template(t)
        assert tid == binxml.template_id(text, types), t.tid
        assert len(data) % 4 == 0
        root, end = parse_fragment(Buf(data), 0, len(data))
        assert root is not None and data[end:] == b"\0" * (len(data) - end)
        assert root.name == "EventData"
        assert root.attrs == ([] if t.name is None else [("Name", [Text(t.name)])]), t.tid
        children = [(c.name, c.attrs, c.children) for c in root.children if isinstance(c, Element)]
        assert children == expected, t.tid
        assert all(isinstance(c, Element) for c in root.children), t.tid


def _texts() -> list[str]:
    chars = [chr(c) for c in range(0x300)] + ["\ud800", "\u2028", "\uffff", "\U0001f600"]
    mixed = ["", "plain text", 'say "hi"', "it's", "back\\slash", "tab\there", "é and ü"]
    return chars + mixed + [a + b for a in mixed for b in mixed]


@pytest.mark.parametrize("quote", ['"', "'"])
def test_text_that_needs_no_escape_is_kept_as_the_escaper_would_keep_it(quote: str) -> None:
    for text in _texts():
        assert literals.escaped(text, quote) == literals._escape(text, quote), repr(text)


def test_a_paragraph_that_fits_is_the_line_textwrap_makes_of_it() -> None:
    paragraphs = ["", " ", "x", "word " * 16, "a-b " * 20, "z" * 84, "z" * 85, "y" * 200]
    for p in paragraphs:
        text = docstrings.docstring("    ", "S.", [p])
        words = " ".join(p.split())
        wrapped = textwrap.wrap(words, docstrings.WIDTH - 4, break_on_hyphens=False)
        assert text.splitlines()[2:-1] == ["    " + w for w in wrapped], repr(p)
