"""Descriptors, enable bits and provider traits of generated modules against the C
headers real mc.exe wrote for the same manifests (../shared/golden)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from codegen_helpers import load

from conftest import CORPUS, GOLDEN
from etwmc.compile import compile_manifest
from etwmc.options import CompileOptions
from etwmc.runtime import EventDescriptor

_DESC = re.compile(r"const EVENT_DESCRIPTOR \w+ = \{([^}]*)\};")
_ARRAY = re.compile(
    r"const (ULONGLONG|unsigned char|UCHAR) (\w+?)(Keywords|Levels)\[\d+\] = \{([^}]*)\};"
)
_TRAITS = re.compile(r"#define (\w+)_Traits \( \\\n(.*?)\n    \)", re.S)
_CONTEXT = re.compile(r"MCGEN_TRACE_CONTEXT (\w+)_Context = \{0, \(ULONG_PTR\)(\w+)")


def cases() -> list[tuple[Path, Path]]:
    out = []
    etk = GOLDEN / "event-trace-kit"
    if etk.is_dir():
        for h in sorted(etk.glob("*.h")):
            man = etk / (h.stem + ".man")
            if man.is_file():
                out.append((h, man))
    wpf = GOLDEN / "dotnet-wpf" / "wpf-etw.h"
    if wpf.is_file():
        out.append((wpf, CORPUS / "dotnet__wpf__wpf-etw.man"))
    return out


def c_string_bytes(text: str) -> bytes:
    out = b""
    for literal in re.findall(r'"((?:[^"\\]|\\.)*)"', text):
        out += literal.encode("latin-1").decode("unicode_escape").encode("latin-1")
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, object]:
    out = tmp_path_factory.mktemp("golden")
    mods = {}
    for h, man in cases():
        result = compile_manifest(man, CompileOptions(binary=False))
        assert result.ok, man
        [(name, data)] = result.files.items()
        (out / f"{h.stem.replace('-', '_')}_{name}").write_bytes(data)
        mods[h] = load(out / f"{h.stem.replace('-', '_')}_{name}")
    return mods


@pytest.mark.parametrize("header", [h for h, _ in cases()], ids=lambda h: h.name)
def test_descriptors_match_mc(header: Path, generated: dict[Path, object]) -> None:
    mod = generated[header]
    want = Counter(
        tuple(int(v.strip(), 16) for v in m.group(1).split(","))
        for m in _DESC.finditer(header.read_text())
    )
    got = Counter(tuple(v) for v in vars(mod).values() if isinstance(v, EventDescriptor))
    assert got == want


@pytest.mark.parametrize("header", [h for h, _ in cases()], ids=lambda h: h.name)
def test_enable_bits_match_mc(header: Path, generated: dict[Path, object]) -> None:
    mod = generated[header]
    text = header.read_text()
    arrays: dict[str, dict[str, list[int]]] = {}
    for m in _ARRAY.finditer(text):
        arrays.setdefault(m.group(2), {})[m.group(3)] = [
            int(v.strip(), 0) for v in m.group(4).split(",")
        ]
    want = [list(zip(a["Levels"], a["Keywords"], strict=True)) for a in arrays.values()]
    got = [
        list(getattr(mod, f"_PAIRS_{i}"))
        for i in range(len(mod.PROVIDERS))  # type: ignore[attr-defined]
        if getattr(mod, f"_PAIRS_{i}")
    ]
    assert got == want


@pytest.mark.parametrize("header", [h for h, _ in cases()], ids=lambda h: h.name)
def test_traits_match_mc(header: Path, generated: dict[Path, object]) -> None:
    mod = generated[header]
    text = header.read_text()
    blobs = {m.group(1): c_string_bytes(m.group(2)) for m in _TRAITS.finditer(text)}
    want = [blobs.get(m.group(2).removesuffix("_Traits"), b"") for m in _CONTEXT.finditer(text)]
    got = [p.traits for p in mod.PROVIDERS]  # type: ignore[attr-defined]
    if not want:
        pytest.skip("this header predates provider traits")
    assert got == want


_BIT_NEW = re.compile(r"#define EventEnabled\w+\(\) MCGEN_EVENT_BIT_SET\((\w+)EnableBits, (\d+)\)")
_BIT_OLD = re.compile(
    r"#define EventEnabled\w+\(\) \(\((\w+)EnableBits\[(\d+)\] & 0x([0-9A-Fa-f]+)\)"
)


@pytest.mark.parametrize("case", cases(), ids=lambda c: c[0].name)
def test_each_event_tests_the_bit_mc_assigns(case: tuple[Path, Path]) -> None:
    from etwmc.python import build_context
    from etwmc.validate import check_file

    header, man = case
    text = header.read_text()
    want: dict[str, list[int]] = {}
    for m in _BIT_NEW.finditer(text):
        want.setdefault(m.group(1), []).append(int(m.group(2)))
    for m in _BIT_OLD.finditer(text):
        bit = int(m.group(3), 16).bit_length() - 1
        want.setdefault(m.group(1), []).append(32 * int(m.group(2)) + bit)
    checked = check_file(man)
    assert checked.manifest is not None
    ctx, _ = build_context(checked.manifest, version="", source="")
    got = []
    for p in ctx.providers:
        if p.events:
            first = int(p.flags[0].removeprefix("_on_"))
            got.append([int(e.flag.removeprefix("_on_")) - first for e in p.events])
    assert got == list(want.values())
