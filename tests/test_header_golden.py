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
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from header_helpers import current_layout, facts, golden_cases, traits

from etwmc.header import build_header
from etwmc.validate import check_file

CASES = golden_cases()
# Support-code defines, not manifest values: helper argument counts, the activity flag
# mc 10 added, and two constants of mc 8.1's -mof support code (dotnet-wpf's header).
_HELPER_COUNT = re.compile(
    r"(.*_ARGCOUNT|ARGUMENT_COUNT_.*|.*_EventWriteActivity|MANIFEST_MAX_MOF_FIELDS_SUPPORTED"
    r"|__WARNING_\w+)\Z"
)
_HELPER = re.compile(r"^(McTemplate[UK]0\w*)\($", re.M)


def _ours(man: Path) -> str:
    checked = check_file(man)
    assert checked.ok and checked.manifest is not None, man
    result = build_header(checked.manifest)
    assert result.ok, result.diagnostics
    return result.text


@pytest.mark.parametrize("case", CASES, ids=[f"{h.parent.name}/{h.name}" for h, _ in CASES] or None)
def test_header_defines_what_mc_defines(case: tuple[Path, Path]) -> None:
    golden, man = case
    text = golden.read_text(encoding="utf-8", errors="replace")
    want, got = facts(text), facts(_ours(man))
    assert want.guids and want.macros  # the parser read the golden header
    assert got.guids == want.guids
    assert got.descriptors == want.descriptors
    if current_layout(text):
        assert got.defines == want.defines
        assert got.macros == want.macros
    else:
        mine = {d for d in got.defines if not _HELPER_COUNT.match(d[0])}
        theirs = {d for d in want.defines if not _HELPER_COUNT.match(d[0])}
        assert mine == theirs
        assert want.macros <= got.macros


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
