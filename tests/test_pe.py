"""The resource-only PE32+ writer, read back with pefile and (when present) objdump."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from etwmc.pe import (
    RT_MESSAGETABLE,
    WEVT_TEMPLATE,
    ResourceError,
    build_resource_dll,
    event_resources,
)

pefile = pytest.importorskip("pefile")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GOLDEN = SHARED / "golden" / "event-trace-kit"


def _read_resources(dll: bytes) -> dict[tuple[int | str, int | str, int], bytes]:
    pe = pefile.PE(data=dll)
    out: dict[tuple[int | str, int | str, int], bytes] = {}
    for t in pe.DIRECTORY_ENTRY_RESOURCE.entries:
        tkey = str(t.name) if t.name is not None else t.id
        for n in t.directory.entries:
            nkey = str(n.name) if n.name is not None else n.id
            for lang in n.directory.entries:
                s = lang.data.struct
                out[(tkey, nkey, lang.id)] = pe.get_data(s.OffsetToData, s.Size)
    return out


def _golden_pairs() -> list[tuple[str, Path, Path | None]]:
    if not GOLDEN.is_dir():
        return []
    pairs = []
    for wevt in sorted(GOLDEN.glob("*.wevt.v5.bin")):
        stem = wevt.name.removesuffix(".wevt.v5.bin")
        msg = GOLDEN / f"{stem}.msg.bin"
        pairs.append((stem, wevt, msg if msg.exists() else None))
    return pairs


def test_headers_describe_a_resource_only_x64_dll() -> None:
    dll = build_resource_dll({(RT_MESSAGETABLE, 1, 0x409): b"\x00" * 12})
    pe = pefile.PE(data=dll)
    assert pe.FILE_HEADER.Machine == 0x8664
    assert pe.OPTIONAL_HEADER.Magic == 0x20B
    assert pe.is_dll() and not pe.is_exe()
    assert pe.OPTIONAL_HEADER.AddressOfEntryPoint == 0
    assert [s.Name.rstrip(b"\0") for s in pe.sections] == [b".rsrc"]
    assert pe.FILE_HEADER.TimeDateStamp == 0
    assert pe.verify_checksum()
    assert not hasattr(pe, "DIRECTORY_ENTRY_IMPORT")
    assert len(dll) % 0x200 == 0


def test_output_is_deterministic_and_independent_of_key_order() -> None:
    a = {(WEVT_TEMPLATE, 1, 0x409): b"CRIM", (RT_MESSAGETABLE, 1, 0x409): b"\x01\x02"}
    b = dict(reversed(list(a.items())))
    assert build_resource_dll(a) == build_resource_dll(b)


def test_entry_order_names_first_upper_case_then_ids() -> None:
    res = {
        (16, 1, 0x409): b"v",
        ("zeta", 1, 0x409): b"z",
        (RT_MESSAGETABLE, 2, 0x409): b"m2",
        (RT_MESSAGETABLE, 1, 0x407): b"m1de",
        (RT_MESSAGETABLE, 1, 0x409): b"m1en",
        ("Alpha", "Name", 0): b"a",
    }
    pe = pefile.PE(data=build_resource_dll(res))
    types = pe.DIRECTORY_ENTRY_RESOURCE.entries
    assert [str(t.name) if t.name else t.id for t in types] == ["ALPHA", "ZETA", 11, 16]
    msg = types[2]
    assert [n.id for n in msg.directory.entries] == [1, 2]
    assert [lang.id for lang in msg.directory.entries[0].directory.entries] == [0x407, 0x409]
    got = _read_resources(build_resource_dll(res))
    assert got[("ALPHA", "NAME", 0)] == b"a"
    assert got[(11, 1, 0x407)] == b"m1de"


def test_hash_number_name_is_the_number() -> None:
    got = _read_resources(build_resource_dll({("#11", "#1", 0x409): b"x"}))
    assert got == {(11, 1, 0x409): b"x"}


@pytest.mark.parametrize(
    "key",
    [(70000, 1, 0x409), (11, -1, 0x409), (11, 1, 0x10000), ("", 1, 0x409), (True, 1, 0)],
)
def test_bad_keys_raise_resource_error(key: tuple[int | str, int | str, int]) -> None:
    with pytest.raises(ResourceError):
        build_resource_dll({key: b"x"})


def test_duplicate_after_normalisation_is_an_error() -> None:
    with pytest.raises(ResourceError):
        build_resource_dll({("abc", 1, 0x409): b"1", ("ABC", 1, 0x409): b"2"})


def test_event_resources_files_wevt_under_last_culture() -> None:
    res = event_resources(b"CRIM", [(0x409, b"en"), (0x407, b"de")])
    assert res == {
        (RT_MESSAGETABLE, 1, 0x409): b"en",
        (RT_MESSAGETABLE, 1, 0x407): b"de",
        (WEVT_TEMPLATE, 1, 0x407): b"CRIM",
    }
    assert event_resources(b"CRIM", []) == {(WEVT_TEMPLATE, 1, 0x409): b"CRIM"}


@pytest.mark.parametrize("stem", [p[0] for p in _golden_pairs()] or ["<no golden>"])
def test_golden_blobs_round_trip_byte_identical(stem: str) -> None:
    pairs = {p[0]: p for p in _golden_pairs()}
    if stem not in pairs:
        pytest.skip("../shared/golden is absent")
    _, wevt_path, msg_path = pairs[stem]
    wevt = wevt_path.read_bytes()
    tables = [(0x409, msg_path.read_bytes())] if msg_path else []
    dll = build_resource_dll(event_resources(wevt, tables))
    got = _read_resources(dll)
    assert got[(WEVT_TEMPLATE, 1, 0x409)] == wevt
    if msg_path:
        assert got[(RT_MESSAGETABLE, 1, 0x409)] == msg_path.read_bytes()
    assert len(got) == 1 + len(tables)


def _objdump() -> str | None:
    for tool in ("x86_64-w64-mingw32-objdump", "objdump"):
        exe = shutil.which(tool)
        if exe is None:
            continue
        formats = subprocess.run([exe, "-i"], capture_output=True, text=True).stdout
        if "pei-x86-64" in formats:
            return exe
    return None


def test_objdump_reads_the_resource_directory(tmp_path: Path) -> None:
    exe = _objdump()
    if exe is None:
        pytest.skip("no objdump that reads pei-x86-64")
    wevt = b"CRIM" + bytes(range(60))
    msg = b"\x01\x00\x00\x00" + bytes(20)
    path = tmp_path / "x.dll"
    path.write_bytes(build_resource_dll(event_resources(wevt, [(0x409, msg)])))
    out = subprocess.run([exe, "-p", str(path)], capture_output=True, text=True, check=True).stdout
    assert (
        "pei-x86-64"
        in subprocess.run([exe, "-f", str(path)], capture_output=True, text=True, check=True).stdout
    )
    assert re.search(r"name: \[val: [0-9a-f]+ len 13\]: WEVT_TEMPLATE", out)
    assert re.search(r"Entry: ID: 0x00000b", out)
    sizes = sorted(
        int(m, 16) for m in re.findall(r"Leaf: Addr: 0x[0-9a-f]+, Size: 0x([0-9a-f]+)", out)
    )
    assert sizes == sorted([len(wevt), len(msg)])


def test_dissect_parses_the_wevt_resource() -> None:
    wevt_mod = pytest.importorskip("dissect.eventlog.wevt")
    pairs = {p[0]: p for p in _golden_pairs()}
    if "TaskOpcodes" not in pairs:
        pytest.skip("../shared/golden is absent")
    import io

    wevt = pairs["TaskOpcodes"][1].read_bytes()
    got = _read_resources(build_resource_dll(event_resources(wevt, [])))
    crim = wevt_mod.CRIM(io.BytesIO(got[(WEVT_TEMPLATE, 1, 0x409)]))
    assert crim.header.signature == b"CRIM"
    assert len(list(crim.wevt_headers())) == 1


def _golden_manifests() -> list[str]:
    if not GOLDEN.is_dir():
        return ["<no golden>"]
    return sorted(p.name for p in GOLDEN.glob("*.man"))


@pytest.mark.parametrize("name", _golden_manifests())
def test_resource_dll_of_golden_manifest_holds_compiled_blobs(name: str) -> None:
    if not (GOLDEN / name).exists():
        pytest.skip("../shared/golden is absent")
    from etwmc.pe import resource_dll
    from etwmc.validate import check_file
    from etwmc.wevt import binary_outputs

    manifest = check_file(GOLDEN / name).manifest
    assert manifest is not None
    files = binary_outputs(manifest, "x", version=5)
    got = _read_resources(resource_dll(manifest, version=5))
    assert got.pop((WEVT_TEMPLATE, 1, 0x409)) == files["xTEMP.BIN"]
    tables = {k: v for k, v in files.items() if "_MSG" in k}
    assert len(tables) == len(manifest.resources)
    for n, res in enumerate(manifest.resources, 1):
        assert res.culture == "en-US"
        assert got.pop((RT_MESSAGETABLE, 1, 0x409)) == files[f"x_MSG{n:05d}.bin"]
    assert got == {}


TWO_CULTURES = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Acme-Two" guid="{6b0e3b8c-2f7a-4c1e-9d55-0a7c3e91f2b4}" symbol="ACME_TWO"
              resourceFileName="two.dll" messageFileName="two.dll" message="$(string.p)">
      <events><event value="1" level="win:Informational" message="$(string.e1)"/></events>
    </provider>
  </events></instrumentation>
  <localization>
    <resources culture="en-US"><stringTable>
      <string id="p" value="Two"/><string id="e1" value="Hello"/>
    </stringTable></resources>
    <resources culture="de-DE"><stringTable>
      <string id="p" value="Zwei"/><string id="e1" value="Hallo"/>
    </stringTable></resources>
  </localization>
</instrumentationManifest>
"""


def test_resource_dll_one_message_table_per_culture(tmp_path: Path) -> None:
    from etwmc.pe import resource_dll
    from etwmc.validate import check_file
    from etwmc.wevt.msgtable import read_message_table

    path = tmp_path / "two.man"
    path.write_text(TWO_CULTURES, encoding="utf-8")
    checked = check_file(path)
    assert checked.ok and checked.manifest is not None
    got = _read_resources(resource_dll(checked.manifest))
    assert sorted(got, key=str) == sorted(
        [(RT_MESSAGETABLE, 1, 0x409), (RT_MESSAGETABLE, 1, 0x407), (WEVT_TEMPLATE, 1, 0x407)],
        key=str,
    )
    en = read_message_table(got[(RT_MESSAGETABLE, 1, 0x409)])
    de = read_message_table(got[(RT_MESSAGETABLE, 1, 0x407)])
    assert sorted(en) == sorted(de)
    assert any(t.startswith("Hallo") for t in de.values())
    assert any(t.startswith("Hello") for t in en.values())


def test_dll_name_follows_resource_file_name() -> None:
    import uuid

    from etwmc.model import Manifest, Provider
    from etwmc.pe import dll_name

    def provider(resource_file: str | None) -> Provider:
        return Provider(name="P", guid=uuid.uuid4(), resource_file=resource_file)

    one = Manifest(path="m", providers=(provider(r"%ProgramFiles%\Acme\acme_events.dll"),))
    assert dll_name(one, "m.dll") == "acme_events.dll"
    agree = Manifest(path="m", providers=(provider("a.dll"), provider(r"C:\x\a.dll")))
    assert dll_name(agree, "m.dll") == "a.dll"
    differ = Manifest(path="m", providers=(provider("a.dll"), provider("b.dll")))
    assert dll_name(differ, "m.dll") == "m.dll"
    assert dll_name(Manifest(path="m"), "m.dll") == "m.dll"


def test_read_resources_round_trip_and_agrees_with_pefile() -> None:
    from etwmc.pe import read_resources

    res = {
        (WEVT_TEMPLATE, 1, 0x407): b"CRIM" + bytes(range(50)),
        (RT_MESSAGETABLE, 1, 0x409): b"\x01" * 13,
        (RT_MESSAGETABLE, 1, 0x407): b"\x02" * 7,
        ("OTHER", "NAME", 0): b"",
    }
    dll = build_resource_dll(res)
    assert read_resources(dll) == res
    assert read_resources(dll) == _read_resources(dll)


def test_read_resources_of_a_mingw_dll(tmp_path: Path) -> None:
    """A DLL from the GNU toolchain (sections other than .rsrc, a real DOS stub)."""
    windres = shutil.which("x86_64-w64-mingw32-windres")
    gcc = shutil.which("x86_64-w64-mingw32-gcc")
    if windres is None or gcc is None:
        pytest.skip("mingw-w64 is not installed")
    from etwmc.pe import read_resources

    (tmp_path / "t.bin").write_bytes(b"CRIM-test")
    (tmp_path / "m.bin").write_bytes(b"\x00\x00\x00\x00")
    (tmp_path / "x.rc").write_text(
        'LANGUAGE 0x9,0x1\r\n1 11 "m.bin"\r\n1 WEVT_TEMPLATE "t.bin"\r\n'
    )
    subprocess.run([windres, "-i", "x.rc", "-O", "coff", "-o", "x.o"], cwd=tmp_path, check=True)
    subprocess.run(
        [gcc, "-shared", "-nostdlib", "-Wl,--entry=0", "-o", "x.dll", "x.o"],
        cwd=tmp_path,
        check=True,
    )
    got = read_resources((tmp_path / "x.dll").read_bytes())
    assert got == {(WEVT_TEMPLATE, 1, 0x409): b"CRIM-test", (11, 1, 0x409): b"\x00" * 4}


@pytest.mark.parametrize(
    "mutate",
    [
        lambda b: b"ZZ" + b[2:],
        lambda b: b[:0x40] + b"XX" + b[0x42:],
        lambda b: b[:0x200],
        lambda b: b[: 0x200 + 12] + b"\xff\xff\xff\xff" + b[0x200 + 16 :],
    ],
)
def test_read_resources_rejects_broken_images(mutate: object) -> None:
    from etwmc.pe import read_resources

    dll = build_resource_dll({(RT_MESSAGETABLE, 1, 0x409): b"x" * 40})
    assert callable(mutate)
    with pytest.raises(ResourceError):
        read_resources(mutate(dll))


def test_compile_resource_dll_writes_the_dll(tmp_path: Path) -> None:
    from etwmc.cli import main
    from etwmc.pe import read_resources

    man = tmp_path / "two.man"
    man.write_text(TWO_CULTURES, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["compile", "--resource-dll", "-o", str(out), str(man)]) == 0
    dll = read_resources((out / "two.dll").read_bytes())
    assert dll[(WEVT_TEMPLATE, 1, 0x407)] == (out / "twoTEMP.BIN").read_bytes()
    assert dll[(RT_MESSAGETABLE, 1, 0x409)] == (out / "two_MSG00001.bin").read_bytes()
    assert dll[(RT_MESSAGETABLE, 1, 0x407)] == (out / "two_MSG00002.bin").read_bytes()
    assert main(["compile", "--resource-dll", "--check", "-o", str(out), str(man)]) == 0
    only = tmp_path / "only"
    assert (
        main(["compile", "--resource-dll", "--no-binary", "--no-python", "-o", str(only), str(man)])
        == 0
    )
    assert sorted(p.name for p in only.iterdir()) == ["two.dll"]
