"""Enable state and the enable rule.

ETW hands a provider's enable callback one state combined over every session that
enables it: the most verbose level, the OR of the sessions' MatchAnyKeyword and the AND
of their MatchAllKeyword.  The runtime still filters each event per session, so the
combined state is a superset: "could any session want this event?".

The rule is the contract of ETW's documentation (etwmc's docs/runtime.md restates it),
applied per session by the in-process backend and to the combined state here::

    level_ok   = level == 0 or L == 0 or level <= L
    keyword_ok = keyword == 0 or ((keyword & any) != 0 and (keyword & all) == all)

An event of level 0 (LogAlways) always passes the level test, and a session enabled at
level 0 receives every level, as mc's generated ``McGenLevelKeywordEnabled`` has it
("if the event Level is 0 or the channel is enabled at level 0, all levels are
enabled").  When sessions combine, level 0 therefore counts as the most verbose level.
A keyword of 0 always passes the keyword test; a MatchAnyKeyword of 0 is *not* "all
keywords" (that is .NET EventSource's convention, not ETW's).  A disabled provider
enables nothing.
"""

from __future__ import annotations

from collections import namedtuple

# typing.TYPE_CHECKING without importing typing, which would cost a generated module a
# third of its import time; type checkers treat any name TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import NamedTuple

# Control codes ETW passes as the callback's IsEnabled argument.
DISABLE_PROVIDER = 0
ENABLE_PROVIDER = 1
CAPTURE_STATE = 2

MAX_LEVEL = 0xFF
ALL_KEYWORDS = 0xFFFF_FFFF_FFFF_FFFF


if TYPE_CHECKING:

    class EnableState(NamedTuple):
        """(What type checkers see: the run-time class below has the same fields.)"""

        is_enabled: int
        level: int
        match_any: int
        match_all: int

else:
    # collections.namedtuple at run time (enum, which every generated module imports,
    # has loaded collections already): typing.NamedTuple would import typing.
    EnableState = namedtuple("EnableState", "is_enabled level match_any match_all")
    EnableState.__doc__ = """A provider's combined enable state as the last enable callback
    reported it.

    ``is_enabled`` is 0 (disabled) or 1 (enabled); a capture-state request passed to a
    capture-state hook carries 2.
    """


DISABLED = EnableState(0, 0, 0, 0)


def event_enabled(level: int, keyword: int, state: EnableState) -> bool:
    """Whether an event with this level and keyword passes ``state`` (mc's rule, above)."""
    if not state.is_enabled:
        return False
    if level > state.level and level != 0 and state.level != 0:
        return False
    if keyword == 0:
        return True
    return bool(keyword & state.match_any) and (keyword & state.match_all) == state.match_all


def combine_levels(levels: Iterable[int]) -> int:
    """The level a provider's callback is told for sessions enabled at ``levels``: the
    most verbose one, where 0 (every level) is more verbose than any other."""
    combined = 0
    for level in levels:
        if level == 0:
            return 0
        combined = max(combined, level)
    return combined


def compute_flags(pairs: Sequence[tuple[int, int]], state: EnableState) -> tuple[bool, ...]:
    """One flag per deduplicated ``(level, keyword)`` pair, in order.

    Generated modules call this from their ``on_enable`` hook and rebind one module
    global per flag, so the call site of an event tests a single bool.
    """
    if not state.is_enabled:
        return (False,) * len(pairs)
    return tuple(event_enabled(level, keyword, state) for level, keyword in pairs)


def flags_mask(flags: Sequence[bool]) -> int:
    """The flags as an int bitmask (bit ``i`` set when ``flags[i]``), for introspection."""
    mask = 0
    for i, on in enumerate(flags):
        if on:
            mask |= 1 << i
    return mask
