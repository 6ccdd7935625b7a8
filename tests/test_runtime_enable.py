"""The enable rule (mc's McGenLevelKeywordEnabled) and per-pair flags."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from etwmc.runtime import (
    DISABLED,
    EnableState,
    compute_flags,
    event_enabled,
    flags_mask,
)
from etwmc.runtime.state import combine_levels

ALL = 0xFFFF_FFFF_FFFF_FFFF
on = EnableState


@pytest.mark.parametrize(
    ("level", "keyword", "state", "expected"),
    [
        # level: lower is more severe; an event passes when its level <= the session's
        (4, 0, on(1, 4, 0, 0), True),
        (5, 0, on(1, 4, 0, 0), False),
        (1, 0, on(1, 4, 0, 0), True),
        # event level 0 (LogAlways) always passes the level test
        (0, 0, on(1, 1, 0, 0), True),
        # session level 0 enables every level (mc: "|| Level == 0")
        (5, 0, on(1, 0, 0, 0), True),
        (200, 0, on(1, 0, 0, 0), True),
        (1, 0, on(1, 0, 0, 0), True),
        (0, 0, on(1, 0, 0, 0), True),
        # ... but not every keyword: the keyword test still applies at level 0
        (5, 0x2, on(1, 0, 0x1, 0), False),
        (5, 0x1, on(1, 0, 0x1, 0), True),
        # keyword 0 bypasses keyword filtering, even with MatchAny 0 and MatchAll set
        (4, 0, on(1, 5, 0, 0xF0), True),
        # MatchAnyKeyword 0 is not "all keywords"
        (4, 0x1, on(1, 5, 0, 0), False),
        (4, 0x1, on(1, 5, 0x1, 0), True),
        (4, 0x2, on(1, 5, 0x1, 0), False),
        (4, 0x3, on(1, 5, 0x1, 0), True),
        # MatchAllKeyword: every bit of it must be in the event's keyword
        (4, 0x3, on(1, 5, ALL, 0x3), True),
        (4, 0x1, on(1, 5, ALL, 0x3), False),
        (4, 0x7, on(1, 5, ALL, 0x3), True),
        # ... and the event must still match some MatchAny bit
        (4, 0x3, on(1, 5, 0x4, 0x3), False),
        # disabled enables nothing, not even LogAlways keyword-0 events
        (0, 0, DISABLED, False),
        (4, 1, on(0, 5, ALL, 0), False),
    ],
)
def test_event_enabled_table(level: int, keyword: int, state: EnableState, expected: bool) -> None:
    assert event_enabled(level, keyword, state) is expected


def _reference(level: int, keyword: int, state: EnableState) -> bool:
    # The documented formula, written out independently.
    if state.is_enabled == 0:
        return False
    level_ok = level == 0 or state.level == 0 or level <= state.level
    keyword_ok = keyword == 0 or (
        (keyword & state.match_any) != 0 and (keyword & state.match_all) == state.match_all
    )
    return level_ok and keyword_ok


levels = st.integers(0, 255)
keywords = st.one_of(st.sampled_from([0, 1, 2, 3, 0x8000_0000_0000_0000, ALL]), st.integers(0, ALL))


@given(levels, keywords, levels, keywords, keywords)
def test_event_enabled_matches_formula(lv: int, kw: int, sl: int, any_: int, all_: int) -> None:
    state = EnableState(1, sl, any_, all_)
    assert event_enabled(lv, kw, state) == _reference(lv, kw, state)


def test_compute_flags_one_per_pair_in_order() -> None:
    pairs = [(4, 0), (5, 0), (4, 0x1), (2, 0x2)]
    flags = compute_flags(pairs, EnableState(1, 4, 0x1, 0))
    assert flags == (True, False, True, False)
    assert flags_mask(flags) == 0b0101


def test_compute_flags_disabled_all_false() -> None:
    assert compute_flags([(0, 0), (1, 1)], DISABLED) == (False, False)
    assert compute_flags([], EnableState(1, 5, ALL, 0)) == ()


def test_compute_flags_session_level_zero_enables_every_level() -> None:
    pairs = [(0, 0), (1, 0), (5, 0), (200, 0), (5, 0x4)]
    assert compute_flags(pairs, EnableState(1, 0, 0x1, 0)) == (True, True, True, True, False)


@pytest.mark.parametrize(
    ("levels", "expected"),
    [
        ([4], 4),
        ([2, 5, 3], 5),
        ([0], 0),
        ([3, 0], 0),  # level 0 is the most verbose: every level
        ([0, 255], 0),
    ],
)
def test_combined_level_counts_zero_as_most_verbose(levels: list[int], expected: int) -> None:
    assert combine_levels(levels) == expected
