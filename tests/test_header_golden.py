"""The header etwmc writes against every header mc.exe wrote (../shared/golden).

For each golden header, the header etwmc writes from the same manifest defines the
same set of numeric #defines (values, <event>_value, MSG_* ids), GUID constants and
EVENT_DESCRIPTOR constants, and the same EventWrite/EventEnabled/EventRegister/
EventUnregister macros with the same number of parameters (compared as sets).

mc 10.0.18362's layout (event-trace-kit's headers) is compared whole, including the
McTemplate* helpers (their names and _ARGCOUNT defines) and the traits macros.  The
older layouts (mc 8.1: wpf-etw.wevt.v3-8.1-compat.h, dotnet-wpf's wpf-etw.h,
perfview's ETWClrProfiler.h) lack the _AssumeEnabled and EventRegisterByGuid macros
etwmc writes, and count helper arguments under other names: their macros must all be
among ours, and the defines must match except those of the support code.
(ETWClrProfiler.h was made from an older ETWClrProfiler.man, whose CaptureState
template had four win:Int8 fields where the manifest now has win:UInt8: only the
helper's name differs.)

Two things current mc writes that these headers (mc 10.0.18362 and older) predate are
compared apart: the ``<channel>_KEYWORD`` defines, whose values must be the channel
bits the golden event descriptors carry, and the ``_ForContext`` macros, one set per
provider and per write macro of the golden header, each taking a context first.  The
header of definitions only (mc without -um or -km) defines every value, GUID and
descriptor of the golden header, and no macro.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from header_helpers import (
    HeaderFacts,
    channel_keywords,
    current_layout,
    facts,
    golden_cases,
    predating,
    traits,
)

from etwmc.header import HeaderOptions, build_header
from etwmc.validate import check_file

CASES = golden_cases()
# Support-code defines, not manifest values: helper argument counts, the activity flag
# mc 10 added, and two constants of mc 8.1's -mof support code (dotnet-wpf's header).
_HELPER_COUNT = re.compile(
    r"(.*_ARGCOUNT|ARGUMENT_COUNT_.*|.*_EventWriteActivity|MANIFEST_MAX_MOF_FIELDS_SUPPORTED"
    r"|__WARNING_\w+)\Z"
)
_HELPER = re.compile(r"^(McTemplate[UK]0\w*)\($", re.M)


_CONTEXT = re.compile(r".*_ForContext(AssumeEnabled)?\Z")


def _ours(man: Path, options: HeaderOptions | None = None) -> str:
    checked = check_file(man)
    assert checked.ok and checked.manifest is not None, man
    result = build_header(checked.manifest, options)
    assert result.ok, result.diagnostics
    return result.text


def _split(defines: frozenset[tuple[str, int]]) -> tuple[set[tuple[str, int]], dict[str, int]]:
    """(the other defines, channel symbol -> its _KEYWORD define's value)."""
    f = HeaderFacts(defines, frozenset(), frozenset(), frozenset())
    return set(predating(f).defines), channel_keywords(f)


@pytest.mark.parametrize("case", CASES, ids=[f"{h.parent.name}/{h.name}" for h, _ in CASES] or None)
def test_header_defines_what_mc_defines(case: tuple[Path, Path]) -> None:
    golden, man = case
    text = golden.read_text(encoding="utf-8", errors="replace")
    want, got = facts(text), facts(_ours(man))
    assert want.guids and want.macros  # the parser read the golden header
    assert got.guids == want.guids
    assert got.descriptors == want.descriptors
    defines, _ = _split(got.defines)
    macros = {m for m in got.macros if not _CONTEXT.match(m[0])}
    if current_layout(text):
        assert defines == want.defines
        assert macros == want.macros
    else:
        mine = {d for d in defines if not _HELPER_COUNT.match(d[0])}
        theirs = {d for d in want.defines if not _HELPER_COUNT.match(d[0])}
        assert mine == theirs
        assert want.macros <= macros


_PROVIDER = re.compile(r'^// Provider (?:"[^"\n]*"|\S+) event count', re.M | re.I)


@pytest.mark.parametrize("case", CASES, ids=[f"{h.parent.name}/{h.name}" for h, _ in CASES] or None)
def test_channel_keyword_defines_are_the_bits_of_the_goldens_descriptors(
    case: tuple[Path, Path],
) -> None:
    golden, man = case
    _, keywords = _split(facts(_ours(man)).defines)
    checked = 0
    # Provider by provider: two providers may give their channels the same value.
    for section in _PROVIDER.split(golden.read_text(encoding="utf-8", errors="replace"))[1:]:
        want = facts(section)
        values = dict(want.defines)
        for channel, bit in keywords.items():
            if channel not in values:
                continue
            assert bit in {1 << b for b in range(56, 64)}, channel
            if values[channel] == 0:
                continue  # win:TraceClassic: its events look like events without a channel
            carried = [d[6] for _, d in want.descriptors if d[2] == values[channel]]
            # Every event of the channel carries exactly that channel bit.
            assert all(k >> 56 == bit >> 56 for k in carried), (channel, hex(bit), carried)
            checked += len(carried)
    if any(name.endswith("_KEYWORD") for name, _ in facts(_ours(man)).defines):
        assert checked or not keywords


@pytest.mark.parametrize("case", CASES, ids=[f"{h.parent.name}/{h.name}" for h, _ in CASES] or None)
def test_for_context_macros_follow_the_goldens_macros(case: tuple[Path, Path]) -> None:
    golden, man = case
    want = facts(golden.read_text(encoding="utf-8", errors="replace"))
    got = facts(_ours(man))
    context = {m for m in got.macros if _CONTEXT.match(m[0])}
    expected: set[tuple[str, int]] = set()
    for name, count in want.macros:
        if name.startswith("EventWrite") and not name.endswith("_AssumeEnabled"):
            expected |= {
                (f"{name}_ForContext", count + 1),
                (f"{name}_ForContextAssumeEnabled", count + 1),
            }
        elif name.startswith("EventEnabled"):
            expected.add((f"{name}_ForContext", 1))
        elif name.startswith("EventRegisterByGuid"):
            expected.add((f"{name}_ForContext", 2))
        elif name.startswith(("EventRegister", "EventUnregister")):
            expected.add((f"{name}_ForContext", 1))
    if current_layout(golden.read_text(encoding="utf-8", errors="replace")):
        assert context == expected
    else:  # older headers lack EventRegisterByGuid...
        assert expected <= context


@pytest.mark.parametrize("case", CASES, ids=[f"{h.parent.name}/{h.name}" for h, _ in CASES] or None)
def test_definitions_only_header_defines_the_goldens_values(case: tuple[Path, Path]) -> None:
    golden, man = case
    want = facts(golden.read_text(encoding="utf-8", errors="replace"))
    got = facts(_ours(man, HeaderOptions(logging=False)))
    assert got.macros == frozenset()
    assert got.guids == want.guids
    assert got.descriptors == want.descriptors
    defines, keywords = _split(got.defines)
    theirs = {d for d in want.defines if not _HELPER_COUNT.match(d[0])}
    assert defines == theirs and keywords == _split(facts(_ours(man)).defines)[1]


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if current_layout(c[0].read_text(errors="replace"))],
    ids=lambda c: c[0].name,
)
def test_helpers_and_traits_are_mcs(case: tuple[Path, Path]) -> None:
    golden, man = case
    text = golden.read_text(encoding="utf-8", errors="replace")
    ours = _ours(man)
    assert set(_HELPER.findall(ours)) == set(_HELPER.findall(text))
    assert traits(ours) == traits(text)


def test_the_goldens_are_there() -> None:
    if not CASES:
        pytest.skip("../shared/golden is not present next to this checkout")
    assert len(CASES) == 12
