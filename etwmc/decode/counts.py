"""What ``--summary`` counts: per provider, events seen, decoded, and why the rest
were not.  Bounded: a hostile trace's many providers and reasons are counted together
past a limit."""

from __future__ import annotations

from collections import Counter

MAX_PROVIDERS = 10_000  # providers counted one by one; the rest are counted together
MAX_REASONS = 64  # distinct reasons kept per provider; the rest are counted together
OTHERS = "(other providers)"
OTHER_REASONS = "other reasons"
CLASSIC_REASON = "classic event: no metadata format to decode it with"
OVERSIZED_REASON = "its fields are larger than one event may write"


class ProviderCount:
    """Events of one provider: how many, how many decoded, why the others were not.
    It changes as a trace is read: a plain class with slots, not a record."""

    __slots__ = (
        "decoded", "events", "kinds", "name", "oversized", "pass_reason", "passed", "reasons",
        "trailing",
    )  # fmt: skip

    def __init__(self) -> None:
        self.name: str | None = None
        self.kinds: Counter[str] = Counter()
        self.events = 0
        self.decoded = 0
        self.reasons: Counter[str] = Counter()
        self.trailing = 0  # decoded events with bytes after the fields their metadata describes
        self.oversized = 0  # events whose fields took more than MAX_EVENT_JSON
        # records that passed through, not yet in ``events``, ``kinds`` and ``reasons``
        # (see pass_through); ``settle`` adds them, under the reason chosen for the first
        self.passed = 0
        self.pass_reason: str | None = None

    def settle(self) -> None:
        """Add the records that passed through to the other counts."""
        if self.passed:
            self.events += self.passed
            self.kinds["classic"] += self.passed
            self.reasons[self.pass_reason or CLASSIC_REASON] += self.passed
            self.passed = 0


def provider_count(counts: dict[str, ProviderCount], key: str) -> ProviderCount:
    """The count of the provider with this key (a GUID's text or "(none)")."""
    c = counts.get(key)
    if c is None:
        if len(counts) >= MAX_PROVIDERS:
            key = OTHERS
            c = counts.get(key)
        if c is None:
            c = counts[key] = ProviderCount()
    return c


def pass_through(c: ProviderCount) -> None:
    """Get ``c`` ready to count records that pass through (classic records: no format
    to decode them with) by adding one to ``c.passed`` each, the cheapest count there
    is for most of a trace's records.  Their reason is chosen now, before the first of
    them, as :func:`tally` would choose it for that one."""
    if c.pass_reason is None:
        full = CLASSIC_REASON not in c.reasons and len(c.reasons) >= MAX_REASONS
        c.pass_reason = OTHER_REASONS if full else CLASSIC_REASON
        c.reasons[c.pass_reason] += 0  # a reason admitted now, counted when settled


def tally(c: ProviderCount, kind: str, name: str | None, reason: str | None) -> None:
    """Count one event; ``reason`` is why it was not decoded (None: it was)."""
    c.events += 1
    c.kinds[kind] += 1
    if name:
        c.name = name
    if reason is None:
        c.decoded += 1
        return
    if reason not in c.reasons and len(c.reasons) >= MAX_REASONS:
        reason = OTHER_REASONS
    c.reasons[reason] += 1
