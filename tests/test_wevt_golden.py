"""Byte-for-byte comparison of the binary writers with mc.exe's own outputs.

Every ``*.wevt.v5.bin``, ``*.wevt.v3.bin`` and ``*.msg.bin`` in golden/event-trace-kit is
rebuilt from the manifest next to it; golden/dotnet-wpf's MSG00001.bin, wpf-etw.rc and
wpf-etwTEMP.BIN (Windows 8.1 SDK mc: CRIM 3.1 with MD5 template ids) from the corpus
manifest.  A failure names the first differing offset, the block it lies in and both
byte runs around it.  Every valid corpus manifest must produce every binary output.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CORPUS, GOLDEN, corpus_files, expected_failures, sized_cases
from etwmc import winmeta as wm
from etwmc.model import Manifest
from etwmc.validate import check_file
from etwmc.wevt import binary_outputs, build_message_tables, build_rc, build_wevt
from etwmc.wevt.crim import explain_difference, first_difference
from etwmc.wevt.msgtable import read_message_table

ETK = GOLDEN / "event-trace-kit"
WPF = GOLDEN / "dotnet-wpf"

# Where mc and etwmc's front end are known to disagree (not the writers): the reason.
KNOWN: dict[str, str] = {}


def _goldens() -> list[tuple[str, str]]:
    if not ETK.is_dir():
        return []
    out = []
    for f in sorted(ETK.iterdir()):
        for suffix in (".wevt.v5.bin", ".wevt.v3.bin", ".msg.bin"):
            if f.name.endswith(suffix):
                out.append((f.name[: -len(suffix)], suffix))
    return out


def _model(path: Path) -> Manifest:
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    checked = check_file(path)
    assert checked.manifest is not None, [d.message for d in checked.diagnostics]
    return checked.manifest


def _assert_same(got: bytes, expected: bytes, *, crim: bool) -> None:
    if got == expected:
        return
    if crim:
        pytest.fail(explain_difference(got, expected))
    i = first_difference(got, expected)
    assert i is not None
    lo = max(0, i - 16)
    pytest.fail(
        f"first difference at offset 0x{i:x}; lengths {len(got)} vs {len(expected)}\n"
        f"  got      @0x{lo:x}: {got[lo : i + 16].hex(' ')}\n"
        f"  expected @0x{lo:x}: {expected[lo : i + 16].hex(' ')}"
    )


@pytest.mark.parametrize(("stem", "suffix"), _goldens())
def test_event_trace_kit_golden(stem: str, suffix: str) -> None:
    manifest = _model(ETK / f"{stem}.man")
    expected = (ETK / f"{stem}{suffix}").read_bytes()
    try:
        _compare(manifest, suffix, expected)
    except pytest.fail.Exception as exc:
        if stem in KNOWN:
            pytest.xfail(f"{KNOWN[stem]}\n{exc}")
        raise


def _compare(manifest: Manifest, suffix: str, expected: bytes) -> None:
    if suffix == ".msg.bin":
        tables = build_message_tables(manifest)
        assert len(tables) == 1
        _assert_same(tables[0][1], expected, crim=False)
    else:
        version = 5 if suffix == ".wevt.v5.bin" else 3
        _assert_same(build_wevt(manifest, version=version), expected, crim=True)


def test_event_trace_kit_mc81_legacy_template_ids() -> None:
    manifest = _model(ETK / "wpf-etw.man")
    expected = ETK / "wpf-etw.wevt.v3-8.1-compat.bin"
    if not expected.is_file():
        pytest.skip("golden absent")
    _assert_same(build_wevt(manifest, version=3, legacy_ids=True), expected.read_bytes(), crim=True)
    msg = (ETK / "wpf-etw.msg.v3-8.1-compat.bin").read_bytes()
    _assert_same(build_message_tables(manifest)[0][1], msg, crim=False)


def test_dotnet_wpf_outputs() -> None:
    if not WPF.is_dir():
        pytest.skip("../shared/golden/dotnet-wpf is absent")
    manifest = _model(CORPUS / "dotnet__wpf__wpf-etw.man")
    _assert_same(
        build_message_tables(manifest)[0][1], (WPF / "MSG00001.bin").read_bytes(), crim=False
    )
    # mc ran without -z there, so the message table is plain MSG00001.bin.
    _assert_same(
        build_rc(manifest, "wpf-etw", prefixed=False), (WPF / "wpf-etw.rc").read_bytes(), crim=False
    )
    _assert_same(
        build_wevt(manifest, version=3, legacy_ids=True),
        (WPF / "wpf-etwTEMP.BIN").read_bytes(),
        crim=True,
    )


def test_sha256_and_md5_template_ids_differ() -> None:
    manifest = _model(ETK / "wpf-etw.man")
    assert build_wevt(manifest, version=3) != build_wevt(manifest, version=3, legacy_ids=True)


_WINMETA_TEXTS = {
    i.text
    for table in (wm.LEVELS, wm.OPCODES, wm.TASKS, wm.KEYWORDS)
    for i in table.values()
    if i.text is not None
} | set(wm.CHANNELS)

_VALID = [p for p in corpus_files() if p.name not in expected_failures()]


@pytest.mark.parametrize("path", sized_cases(_VALID))
def test_corpus_manifest_produces_all_binary_outputs(path: Path) -> None:
    manifest = _model(path)
    outputs = binary_outputs(manifest, "x", version=5)
    assert outputs["xTEMP.BIN"][:4] == b"CRIM"
    assert set(outputs) == {"xTEMP.BIN", "x.rc"} | {
        f"x_MSG{n:05d}.bin" for n in range(1, len(manifest.resources) + 1)
    }
    v3 = build_wevt(manifest, version=3)
    assert v3[8:12] == b"\x03\x00\x01\x00"
    # Every message table decodes, and each text is one of the culture's strings (as mc
    # stores it: a line feed as CR LF) or a predefined item's text.
    from etwmc.msgformat import table_text

    for n, res in enumerate(manifest.resources, 1):
        table = read_message_table(outputs[f"x_MSG{n:05d}.bin"])
        allowed = {table_text(s.value) for s in res.strings.values()} | _WINMETA_TEXTS
        for mid, text in table.items():
            assert text in allowed, (hex(mid), text)


# --------------------------------------------------------------------------- an independent reader

_DISSECT_CASES = [p for p in _VALID if "Large" not in p.name]  # dissect cannot read QTAB


@pytest.mark.parametrize("path", _DISSECT_CASES[:12], ids=[p.name for p in _DISSECT_CASES[:12]])
def test_dissect_reads_what_we_write(path: Path) -> None:
    """dissect.eventlog (written from Microsoft-built blobs) parses our blobs back."""
    import io

    wevt = pytest.importorskip("dissect.eventlog.wevt")
    manifest = _model(path)
    # dissect does not know EVTA (event names/attributes), which only CRIM 5 has.
    named = any(e.name is not None or e.attributes for p in manifest.providers for e in p.events)
    crim = wevt.CRIM(io.BytesIO(build_wevt(manifest, version=3 if named else 5)))
    providers = list(crim.wevt_headers())
    assert [str(p.provider_id) for p in providers] == [str(p.guid) for p in manifest.providers]
    for prov, model in zip(providers, manifest.providers, strict=True):
        blocks = {_text(b.signature): list(b) for b in prov}
        assert len(blocks.get("EVNT", [])) == len(model.events)
        assert len(blocks.get("TTBL", [])) == len(model.templates)
        levels = {lv.name: lv.value for lv in model.levels}
        levels.update({e.level.name: e.level.value for e in model.events if e.level})
        assert [lv.name for lv in blocks["LEVL"]] == sorted(levels, key=levels.__getitem__)


def _text(sig: object) -> str:
    return sig.decode() if isinstance(sig, bytes) else str(sig)


def test_outputs_do_not_depend_on_the_hash_seed() -> None:
    import hashlib
    import subprocess
    import sys

    path = CORPUS / "microsoft__perfview__ClrEtwAll.man"
    if not path.is_file():
        pytest.skip("corpus absent")
    code = (
        "import hashlib, sys\n"
        "from etwmc.validate import check_file\n"
        "from etwmc.wevt import binary_outputs\n"
        "out = binary_outputs(check_file(sys.argv[1]).manifest, 'x')\n"
        "blob = b''.join(k.encode() + v for k, v in sorted(out.items()))\n"
        "print(hashlib.sha256(blob).hexdigest())\n"
    )
    digests = set()
    for seed in ("0", "12345"):
        env = {"PYTHONHASHSEED": seed, "PATH": ""}
        r = subprocess.run(
            [sys.executable, "-c", code, str(path)],
            capture_output=True, text=True, env=env, cwd=Path(__file__).resolve().parents[1],
            check=True,
        )  # fmt: skip
        digests.add(r.stdout.strip())
    assert len(digests) == 1
    manifest = _model(path)
    here = binary_outputs(manifest, "x")
    assert (
        hashlib.sha256(b"".join(k.encode() + v for k, v in sorted(here.items()))).hexdigest()
        in digests
    )
