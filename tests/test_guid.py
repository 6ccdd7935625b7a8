"""`etwmc guid` and the hand-made-GUID hint."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from conftest import slow
from etwmc.cli import main
from etwmc.diagnostics import Severity
from etwmc.guid import guid_hint, is_eventsource_name, looks_hand_made, provider_guid
from etwmc.model import Manifest, Provider

SHARED = Path(__file__).resolve().parents[1].parent / "shared"

# Published GUIDs of EventSource / TraceLogging providers (manifest-and-mc.md §7).
VECTORS = [
    ("System.Runtime", "49592c0f-5a05-516d-aa4b-a64e02026c89"),
    ("Microsoft-Diagnostics-DiagnosticSource", "adb401e1-5296-51f8-c125-5fda75826144"),
    ("Microsoft-AspNetCore-Server-Kestrel", "bdeb4676-a36e-5442-db99-4764e2326c7d"),
    ("Microsoft-Windows-DotNETRuntime", "5e5bb766-bbfc-5662-0548-1d44fad9bb56"),
]


@pytest.mark.parametrize(("name", "expected"), VECTORS)
def test_published_vectors(name: str, expected: str) -> None:
    assert provider_guid(name) == uuid.UUID(expected)


def test_name_is_case_insensitive() -> None:
    assert provider_guid("system.runtime") == provider_guid("SYSTEM.RUNTIME")
    assert provider_guid("System.Runtime") != provider_guid("System.Runtime2")


def test_version_nibble_is_5() -> None:
    for name, _ in VECTORS:
        assert provider_guid(name).bytes_le[7] >> 4 == 5


def test_cli_single_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["guid", "System.Runtime"]) == 0
    assert capsys.readouterr().out == "49592c0f-5a05-516d-aa4b-a64e02026c89\n"


def test_cli_several_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["guid", "System.Runtime", "Microsoft-AspNetCore-Server-Kestrel"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "49592c0f-5a05-516d-aa4b-a64e02026c89  System.Runtime",
        "bdeb4676-a36e-5442-db99-4764e2326c7d  Microsoft-AspNetCore-Server-Kestrel",
    ]


def test_cli_empty_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["guid", ""]) == 2
    assert "empty" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text",
    [
        "00000000-0000-0000-0000-000000000001",
        "00000001-0002-0003-0004-000000000005",
        "11111111-2222-3333-4444-555566667777",
        "12345678-1234-1234-1234-123456789012",
        "aabbccdd-1234-5678-9abc-def012345678",
        "deadbeef-dead-beef-dead-beefdeadbeef",
        "d0883fa6-f3fd-43c3-a0e4-000000000001",
        "a8c1e9f0-7654-3210-b5d7-2c4e6f8a0b1d",  # a descending run
    ],
)
def test_hand_made_patterns(text: str) -> None:
    assert looks_hand_made(uuid.UUID(text))


@pytest.mark.parametrize(
    "text",
    [
        "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4",
        "21a9201e-73b0-43fe-9821-7e159a59bc70",
        "77754e9b-264b-4d8d-b981-e4135c1ecb0c",
        "49592c0f-5a05-516d-aa4b-a64e02026c89",
    ],
)
def test_generated_guids_pass(text: str) -> None:
    assert not looks_hand_made(uuid.UUID(text))


def test_false_positive_rate_is_small() -> None:
    import random

    rng = random.Random(20261121)
    hits = sum(looks_hand_made(uuid.UUID(int=rng.getrandbits(128))) for _ in range(20000))
    assert hits <= 10  # expected about 1.3 in 20,000


def test_eventsource_names() -> None:
    assert is_eventsource_name("MyCompany.MyComponent")
    assert is_eventsource_name("Microsoft-Windows-DotNETRuntime")
    assert not is_eventsource_name("My.Special-Provider (v2)")
    assert not is_eventsource_name("ProviderName1{646E035B+4651-4D15-BC40-1897CC99E967)")


def _manifest(*providers: tuple[str, str]) -> Manifest:
    return Manifest(
        path="x.man",
        providers=tuple(
            Provider(name=n, guid=uuid.UUID(g), index=i) for i, (n, g) in enumerate(providers)
        ),
    )


def test_hint_for_hand_made_guid_offers_derived_one() -> None:
    diags = guid_hint(_manifest(("MyCompany.MyComponent", "11111111-2222-3333-4444-555566667777")))
    assert len(diags) == 1
    d = diags[0]
    assert d.code == "ETW292" and d.severity == Severity.NOTE and d.attr == "guid"
    assert "ce5fa4ea-ab00-5402-8b76-9f76ac858fb5" in (d.hint or "")


def test_hint_for_odd_name_suggests_random_guid_deterministically() -> None:
    m = _manifest(("My Provider (v2)", "11111111-2222-3333-4444-555566667777"))
    first, second = guid_hint(m), guid_hint(m)
    assert first == second and len(first) == 1
    assert "random" in (first[0].hint or "")


def test_no_hint_for_random_or_derived_guid() -> None:
    derived = str(provider_guid("ETWClrProfiler"))
    m = _manifest(
        ("Acme-Widget", "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"),
        ("ETWClrProfiler", derived),
    )
    assert guid_hint(m) == []


@slow
def test_corpus_gets_notes_only_for_hand_made_guids() -> None:
    corpus = SHARED / "corpus"
    if not corpus.is_dir():
        pytest.skip("../shared/corpus is absent")
    try:
        from etwmc.validate import check_file
    except ImportError:
        pytest.skip("etwmc.validate is not available")
    noted: dict[str, list[str]] = {}
    for path in sorted(corpus.iterdir()):
        if path.suffix not in (".man", ".xml", ".manifest"):
            continue
        checked = check_file(path)
        if checked.manifest is None:
            continue
        for d in guid_hint(checked.manifest):
            assert d.severity == Severity.NOTE
            noted.setdefault(path.name, []).append(d.message)
        for p in checked.manifest.providers:
            flagged = any(p.name in msg for msg in noted.get(path.name, []))
            assert flagged == (looks_hand_made(p.guid) and p.guid != provider_guid(p.name))
    # The perfview test manifests type their GUIDs (11111111-2222-…), the Windows
    # samples generated theirs.
    assert "microsoft__perfview__SimpleTest.manifest.xml" in noted
    assert not any("Windows-classic-samples" in name for name in noted)
    assert "microsoft__perfview__ETWClrProfiler.man" not in noted
