"""Event-id and payload filters of in-process sessions.

Written from Microsoft's pages on EVENT_FILTER_DESCRIPTOR, EVENT_FILTER_EVENT_ID,
TdhCreatePayloadFilter, PAYLOAD_FILTER_PREDICATE and TdhAggregatePayloadFilters:
integer operators EQ NE LE GT LT GE, BETWEEN/NOTBETWEEN on a closed interval, MODULO for
periodic sampling; CONTAINS/DOESNTCONTAIN/IS/ISNOT on strings, case-insensitively; GUIDs
with IS/ISNOT only, written in braces; no floats, binary, SIDs, SYSTEMTIME; EventMatchANY
joins a filter's predicates with OR, else AND; filters apply after level and keyword.
"""

from __future__ import annotations

import datetime as dt
import uuid

import pytest

from etwmc.runtime import (
    EventIdFilter,
    PayloadFilter,
    ProviderRuntime,
    pack_descriptor,
)
from etwmc.runtime.backends.inproc import InProcBackend, Session
from etwmc.runtime.encoding import filetime
from etwmc.runtime.payload import Field, encode

GUID = uuid.UUID("f11e0000-0000-4000-8000-000000000001")
THING = uuid.UUID("12345678-9abc-4def-8123-456789abcdef")
LAYOUT = (
    Field("Count", 8),  # UInt32
    Field("Delta", 5),  # Int16
    Field("Name", 1),  # UnicodeString
    Field("Path", 2),  # AnsiString
    Field("Id", 15),  # GUID
    Field("When", 17),  # FILETIME
    Field("Ratio", 11),  # Float
    Field("Blob", 14, length_const=2),  # Binary
    Field("Flag", 13),  # Boolean
    Field("Items", 4, count_const=2),  # UInt8[2]
    Field("Label", 22),  # CountedUnicodeString
)
NOON = filetime(dt.datetime(2024, 1, 2, 12, 0, tzinfo=dt.UTC))
EVENT = pack_descriptor(10, level=4)
OTHER = pack_descriptor(11, level=4)


def payload(
    count: int = 7,
    delta: int = -3,
    name: str = "Hello World",
    path: str = r"C:\Temp\Log.txt",
    when: int = NOON,
    label: str = "Ünïcode",
) -> bytes:
    stamp = dt.datetime(1601, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=when // 10)
    return encode(LAYOUT, count, delta, name, path, THING, stamp, 0.5, b"xy", 1, [1, 2], label)


@pytest.fixture
def backend() -> InProcBackend:
    b = InProcBackend(clock=lambda: 0)
    b.install_layouts(GUID, {(10, 0): LAYOUT, (11, 0): LAYOUT})
    return b


@pytest.fixture
def provider(backend: InProcBackend) -> ProviderRuntime:
    return ProviderRuntime(GUID, "Filtered").register(backend)


def passes(
    backend: InProcBackend, provider: ProviderRuntime, *predicates: object, **kw: object
) -> bool:
    """Whether one event with the default payload reaches a session with this filter."""
    session = backend.session().enable(
        GUID,
        filters=[PayloadFilter(10, list(predicates), **kw)],  # type: ignore[arg-type]
    )
    provider.write(EVENT, payload())
    got = bool(session.events())
    session.stop()
    return got


# -- each operator, on the field type the documentation gives it -----------------------------


@pytest.mark.parametrize(
    ("predicate", "expected"),
    [
        (("Count", "EQ", 7), True),
        (("Count", "EQ", 8), False),
        (("Count", "NE", 8), True),
        (("Count", "NE", 7), False),
        (("Count", "LE", 7), True),
        (("Count", "LE", 6), False),
        (("Count", "GT", 6), True),
        (("Count", "GT", 7), False),
        (("Count", "LT", 8), True),
        (("Count", "LT", 7), False),
        (("Count", "GE", 7), True),
        (("Count", "GE", 8), False),
        # BETWEEN uses the closed interval: LowerBound <= value <= UpperBound
        (("Count", "BETWEEN", (7, 9)), True),
        (("Count", "BETWEEN", (5, 7)), True),
        (("Count", "BETWEEN", (8, 9)), False),
        (("Count", "BETWEEN", "1,7"), True),  # TDH's "low,high" text
        (("Count", "NOTBETWEEN", (8, 20)), True),
        (("Count", "NOTBETWEEN", (7, 20)), False),
        (("Count", "NOTBETWEEN", "0,7"), False),
        # MODULO: periodic sampling, the value is a multiple of the operand
        (("Count", "MODULO", 7), True),
        (("Count", "MODULO", 1), True),
        (("Count", "MODULO", 2), False),
        # the value is a string converted to the field's type in TDH: numeric text works
        (("Count", "EQ", "7"), True),
        (("Count", "EQ", "0x7"), True),
        # signed fields compare as signed
        (("Delta", "LT", 0), True),
        (("Delta", "EQ", -3), True),
        (("Delta", "BETWEEN", (-5, -1)), True),
        # FILETIME compares as the integer it holds
        (("When", "EQ", NOON), True),
        (("When", "GT", NOON - 1), True),
        (("When", "LT", NOON), False),
        # Boolean is a 4-byte integer
        (("Flag", "EQ", 1), True),
        (("Flag", "NE", 1), False),
        # strings: substring and whole-string tests, always case-insensitive
        (("Name", "CONTAINS", "lo wo"), True),
        (("Name", "CONTAINS", "LO WO"), True),
        (("Name", "CONTAINS", "bye"), False),
        (("Name", "DOESNTCONTAIN", "bye"), True),
        (("Name", "DOESNTCONTAIN", "WORLD"), False),
        (("Name", "IS", "hello world"), True),
        (("Name", "IS", "Hello"), False),
        (("Name", "ISNOT", "Hello"), True),
        (("Name", "ISNOT", "HELLO WORLD"), False),
        # ANSI strings too
        (("Path", "CONTAINS", "\\temp\\"), True),
        (("Path", "IS", r"c:\temp\log.TXT"), True),
        # counted strings too
        (("Label", "IS", "ÜNÏCODE"), True),
        (("Label", "CONTAINS", "nïc"), True),
        # GUIDs: IS / ISNOT, the text in braces
        (("Id", "IS", "{12345678-9ABC-4DEF-8123-456789ABCDEF}"), True),
        (("Id", "IS", THING), True),
        (("Id", "ISNOT", THING), False),
        (("Id", "ISNOT", "{00000000-0000-0000-0000-000000000000}"), True),
    ],
)
def test_operator(
    backend: InProcBackend,
    provider: ProviderRuntime,
    predicate: tuple[str, str, object],
    expected: bool,
) -> None:
    assert passes(backend, provider, predicate) is expected


def test_operator_names_are_case_insensitive(
    backend: InProcBackend, provider: ProviderRuntime
) -> None:
    assert passes(backend, provider, ("Count", "between", (1, 9)))


# -- combining predicates and filters --------------------------------------------------------


def test_match_all_needs_every_predicate(backend: InProcBackend, provider: ProviderRuntime) -> None:
    assert passes(backend, provider, ("Count", "EQ", 7), ("Name", "CONTAINS", "hello"))
    assert not passes(backend, provider, ("Count", "EQ", 7), ("Name", "CONTAINS", "bye"))


def test_match_any_needs_one_predicate(backend: InProcBackend, provider: ProviderRuntime) -> None:
    preds = (("Count", "EQ", 1), ("Name", "CONTAINS", "hello"))
    assert passes(backend, provider, *preds, match_any=True)
    assert not passes(backend, provider, ("Count", "EQ", 1), ("Delta", "GT", 0), match_any=True)


def test_several_filters_for_one_event_pass_when_any_passes(
    backend: InProcBackend, provider: ProviderRuntime
) -> None:
    s = backend.session().enable(
        GUID,
        filters=[
            PayloadFilter(10, [("Count", "EQ", 1)]),
            PayloadFilter(10, [("Count", "EQ", 2)]),
        ],
    )
    for count in (1, 2, 3):
        provider.write(EVENT, payload(count=count))
    assert [r.user_data for r in s.events()] == [payload(count=1), payload(count=2)]


def test_payload_filter_concerns_only_its_event_and_version(
    backend: InProcBackend, provider: ProviderRuntime
) -> None:
    s = backend.session().enable(GUID, filters=[PayloadFilter(10, [("Count", "EQ", 99)])])
    provider.write(EVENT, payload())  # filtered out
    provider.write(OTHER, payload())  # another event: no payload filter applies
    provider.write(pack_descriptor(10, version=1, level=4), payload())  # another version
    assert [(r.id, r.version) for r in s.events()] == [(11, 0), (10, 1)]


def test_filters_are_per_session(backend: InProcBackend, provider: ProviderRuntime) -> None:
    narrow = backend.session("narrow").enable(
        GUID, filters=[PayloadFilter(10, [("Count", "GT", 5)])]
    )
    wide = backend.session("wide").enable(GUID)
    provider.write(EVENT, payload(count=3))
    provider.write(EVENT, payload(count=30))
    assert len(wide.events()) == 2
    assert [r.user_data for r in narrow.events()] == [payload(count=30)]


def test_filters_apply_after_level_and_keyword(
    backend: InProcBackend, provider: ProviderRuntime
) -> None:
    s = backend.session().enable(
        GUID, level=3, filters=[EventIdFilter([10]), PayloadFilter(10, [("Count", "EQ", 7)])]
    )
    provider.write(EVENT, payload())  # level 4 > 3: the level test fails first
    provider.write(pack_descriptor(10, level=2), payload())
    assert [r.level for r in s.events()] == [2]


def test_undecodable_payload_fails_the_filter(
    backend: InProcBackend, provider: ProviderRuntime
) -> None:
    s = backend.session().enable(GUID, filters=[PayloadFilter(10, [("Count", "NE", 1)])])
    assert provider.write(EVENT, b"\x07\x00") == 0  # too short for the layout
    assert s.events() == []


# -- event-id filters -------------------------------------------------------------------------


def test_event_id_filter_in(backend: InProcBackend, provider: ProviderRuntime) -> None:
    s = backend.session().enable(GUID, filters=[EventIdFilter([2, 4])])
    for i in range(1, 6):
        provider.write(pack_descriptor(i, level=4), b"")
    assert [r.id for r in s.events()] == [2, 4]


def test_event_id_filter_out(backend: InProcBackend, provider: ProviderRuntime) -> None:
    s = backend.session().enable(GUID, filters=[EventIdFilter([2, 4], filter_in=False)])
    for i in range(1, 6):
        provider.write(pack_descriptor(i, level=4), b"")
    assert [r.id for r in s.events()] == [1, 3, 5]


def test_event_id_filter_updated_by_enabling_again(
    backend: InProcBackend, provider: ProviderRuntime
) -> None:
    s = backend.session().enable(GUID, filters=[EventIdFilter([1])])
    provider.write(pack_descriptor(1, level=4), b"")
    provider.write(pack_descriptor(2, level=4), b"")
    s.enable(GUID)  # no filter any more
    provider.write(pack_descriptor(2, level=4), b"")
    assert [r.id for r in s.events()] == [1, 2]


def test_combined_state_does_not_know_filters(
    backend: InProcBackend, provider: ProviderRuntime
) -> None:
    # the callback's state is a superset: filters are applied per session at write time
    backend.session().enable(GUID, level=4, filters=[EventIdFilter([99])])
    assert provider.enabled(4, 0)


# -- what is refused, and when ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("predicate", "message"),
    [
        (("Nope", "EQ", 1), "no field 'Nope'"),
        (("Count", "CONTAINS", "7"), "integer field"),
        (("Name", "EQ", 1), "string field"),
        (("Id", "EQ", 1), "GUID field"),
        (("Id", "CONTAINS", "1234"), "GUID field"),
        (("Id", "IS", "12345678-9abc-4def-8123-456789abcdef"), "braces"),
        (("Ratio", "GT", 0), "cannot be filtered"),  # floating point
        (("Blob", "IS", "xy"), "cannot be filtered"),  # binary
        (("Items", "EQ", 1), "array"),
        (("Count", "EQ", -1), "does not fit"),  # UInt32
        (("Count", "EQ", 2**32), "does not fit"),
        (("Delta", "GT", 2**15), "does not fit"),  # Int16
        (("Count", "EQ", "seven"), "not a number"),
        (("Count", "EQ", True), "bool"),
        (("Count", "BETWEEN", 3), "two bounds"),
        (("Count", "BETWEEN", (1, 2, 3)), "two bounds"),
        (("Count", "MODULO", 0), "MODULO by 0"),
        (("Name", "IS", 5), "str"),
    ],
)
def test_predicates_that_do_not_fit_are_refused_at_enable(
    backend: InProcBackend, predicate: tuple[str, str, object], message: str
) -> None:
    s = backend.session()
    with pytest.raises(ValueError, match=message):
        s.enable(GUID, filters=[PayloadFilter(10, [predicate])])
    assert not s.providers  # nothing was enabled


def test_payload_filter_needs_installed_layout() -> None:
    backend = InProcBackend()
    with pytest.raises(ValueError, match="install_layouts"):
        backend.session().enable(GUID, filters=[PayloadFilter(10, [("Count", "EQ", 1)])])


def test_provider_runtime_installs_its_layouts() -> None:
    backend = InProcBackend()
    provider = ProviderRuntime(GUID, "P", layouts={(10, 0): LAYOUT}).register(backend)
    s = backend.session().enable(GUID, filters=[PayloadFilter(10, [("Count", "EQ", 7)])])
    provider.write(EVENT, payload())
    provider.write(EVENT, payload(count=8))
    assert len(s.events()) == 1


def test_one_event_id_filter_per_enable(backend: InProcBackend) -> None:
    with pytest.raises(ValueError, match="one EventIdFilter"):
        backend.session().enable(GUID, filters=[EventIdFilter([1]), EventIdFilter([2])])


@pytest.mark.parametrize(
    "make",
    [
        lambda: EventIdFilter([]),
        lambda: EventIdFilter(range(65)),  # at most 64 ids (MAX_EVENT_FILTER_EVENT_ID_COUNT)
        lambda: EventIdFilter([70000]),
        lambda: EventIdFilter("12"),
        lambda: PayloadFilter(1, []),
        lambda: PayloadFilter(1, [("a", "EQ", i) for i in range(9)]),  # at most 8 predicates
        lambda: PayloadFilter(1, [("a", "LIKE", 1)]),
        lambda: PayloadFilter(1, [("a", "EQ")]),  # type: ignore[list-item]
        lambda: PayloadFilter(-1, [("a", "EQ", 1)]),
        lambda: PayloadFilter(1, [("a", "EQ", 1)], version=256),
    ],
)
def test_malformed_filters_are_value_errors(make: object) -> None:
    with pytest.raises(ValueError):
        make()  # type: ignore[operator]


def test_largest_filters_are_accepted() -> None:
    assert len(EventIdFilter(range(64)).ids) == 64
    assert len(PayloadFilter(1, [("a", "EQ", i) for i in range(8)]).predicates) == 8


def test_not_a_filter_is_refused(backend: InProcBackend) -> None:
    s: Session = backend.session()
    with pytest.raises(ValueError, match="EventIdFilter or a PayloadFilter"):
        s.enable(GUID, filters=["Count == 7"])  # type: ignore[list-item]
