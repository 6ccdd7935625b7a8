"""Event filters a session passes when it enables a provider (EVENT_FILTER_DESCRIPTOR).

A filter narrows what one session receives from one provider, after the level and
keyword test of the enable rule.  Two of ETW's filter types apply to manifest events:

* :class:`EventIdFilter` (EVENT_FILTER_TYPE_EVENT_ID, an EVENT_FILTER_EVENT_ID): only
  these event ids (``filter_in=True``) or all but these (``filter_in=False``); 1 to 64
  ids (MAX_EVENT_FILTER_EVENT_ID_COUNT).
* :class:`PayloadFilter` (EVENT_FILTER_TYPE_PAYLOAD, what TdhCreatePayloadFilter builds):
  predicates ``(field_name, operator, value)`` on the decoded payload of one event id
  and version, 1 to 8 of them (MAX_PAYLOAD_PREDICATES), all of which must hold
  (``match_any=False``) or any one (``match_any=True``).

How TdhCreatePayloadFilter defines the predicates, and so how they are evaluated here:

* integer fields (the integer types, Boolean and FILETIME) take ``EQ NE LE GT LT GE``,
  ``BETWEEN``/``NOTBETWEEN`` (a closed interval: ``low <= value <= high``, given as a
  pair or as TDH's ``"low,high"`` string) and ``MODULO`` (the value divides evenly:
  ``value % n == 0``, for periodic sampling).  A value may be an ``int`` or its text
  (decimal or ``0x`` hex); it must fit the field's type.
* string fields (UnicodeString, AnsiString and their counted forms) take ``CONTAINS``,
  ``DOESNTCONTAIN`` (a substring), ``IS`` and ``ISNOT`` (the whole string); every
  string comparison ignores case.
* GUID fields take only ``IS`` and ``ISNOT``, with a ``uuid.UUID`` or TDH's braced text
  ``"{...}"``.
* Floating-point numbers, binary data and pointers, SIDs, SYSTEMTIME, structs and arrays
  cannot be filtered: such a predicate is refused with ``ValueError``.

Several payload filters for the same event pass it when any one of them does (what
TdhAggregatePayloadFilters does when no filter is flagged "match all"); payload filters
never affect other events.  A payload that does not decode by its layout fails every
payload filter on it.

Field names are resolved when the session enables the provider, against the event's
layout installed on the backend (:meth:`InProcBackend.install_layouts
<etwmc.runtime.backends.inproc.InProcBackend.install_layouts>`): as TdhCreatePayloadFilter
needs the provider's manifest, an unknown event, field or operator is an error then,
not a silent mismatch later.

There is no event-name filter: ETW defines EVENT_FILTER_TYPE_EVENT_NAME for TraceLogging
events, whose name travels in each event's own metadata; a manifest event carries no
name in the event, so the filter has no faithful meaning for the events etwmc writes.
"""

from __future__ import annotations

import operator as op
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, TypeVar

from ..winmeta import INTEGER_CODES, SCALAR_FORMATS
from .decoding import PayloadDecodeError, decode_payload
from .encoder import BOOLEAN, FILETIME, GUID, STRINGS
from .fields import Field

__all__ = [
    "MAX_EVENT_IDS",
    "MAX_PREDICATES",
    "OPERATORS",
    "CompiledPayloadFilter",
    "EventIdFilter",
    "PayloadFilter",
    "compile_payload_filter",
    "passing",
]

MAX_EVENT_IDS: Final = 64  # MAX_EVENT_FILTER_EVENT_ID_COUNT
MAX_PREDICATES: Final = 8  # MAX_PAYLOAD_PREDICATES
INTEGER_OPERATORS: Final = ("EQ", "NE", "LE", "GT", "LT", "GE", "BETWEEN", "NOTBETWEEN", "MODULO")
STRING_OPERATORS: Final = ("CONTAINS", "DOESNTCONTAIN", "IS", "ISNOT")
OPERATORS: Final = INTEGER_OPERATORS + STRING_OPERATORS

# Boolean (a 4-byte int) and FILETIME (a u64 count) compare as the integers they hold.
_INTEGER_FIELD_CODES: Final = INTEGER_CODES | {BOOLEAN, FILETIME}
_BITS: Final = {"b": 8, "B": 8, "h": 16, "H": 16, "i": 32, "I": 32, "q": 64, "Q": 64}
_COMPARE: Final[dict[str, Callable[[int, int], bool]]] = {
    "EQ": op.eq,
    "NE": op.ne,
    "LE": op.le,
    "GT": op.gt,
    "LT": op.lt,
    "GE": op.ge,
}

T = TypeVar("T")
Predicate = tuple[str, str, object]
Check = Callable[[Mapping[str, object]], bool]


@dataclass(frozen=True, slots=True, init=False)
class EventIdFilter:
    """Only these event ids (``filter_in=True``), or all but these (``filter_in=False``)."""

    ids: frozenset[int]
    filter_in: bool

    def __init__(self, ids: Iterable[int], filter_in: bool = True) -> None:
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
            raise ValueError("EventIdFilter takes an iterable of event ids")
        chosen = frozenset(ids)
        for event_id in chosen:
            if not isinstance(event_id, int) or isinstance(event_id, bool):
                raise ValueError(f"event id {event_id!r} is not an int")
            if not 0 <= event_id <= 0xFFFF:
                raise ValueError(f"event id {event_id} is outside 0..65535")
        if not 1 <= len(chosen) <= MAX_EVENT_IDS:
            raise ValueError(
                f"an event-id filter holds 1 to {MAX_EVENT_IDS} ids, not {len(chosen)}"
            )
        object.__setattr__(self, "ids", chosen)
        object.__setattr__(self, "filter_in", bool(filter_in))

    def admits(self, event_id: int) -> bool:
        return (event_id in self.ids) is self.filter_in


@dataclass(frozen=True, slots=True, init=False)
class PayloadFilter:
    """Predicates on the decoded payload of event ``event_id`` (of ``version``)."""

    event_id: int
    predicates: tuple[Predicate, ...]
    version: int
    match_any: bool

    def __init__(
        self,
        event_id: int,
        predicates: Sequence[Predicate],
        *,
        version: int = 0,
        match_any: bool = False,
    ) -> None:
        for name, value, limit in (("event id", event_id, 0xFFFF), ("version", version, 0xFF)):
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= limit:
                raise ValueError(f"payload filter {name} {value!r} is not an int in 0..{limit}")
        if isinstance(predicates, (str, bytes)) or not isinstance(predicates, Sequence):
            raise ValueError("a payload filter takes a sequence of (field, operator, value)")
        if not 1 <= len(predicates) <= MAX_PREDICATES:
            raise ValueError(
                f"a payload filter holds 1 to {MAX_PREDICATES} predicates, not {len(predicates)}"
            )
        object.__setattr__(self, "event_id", event_id)
        object.__setattr__(self, "predicates", tuple(_predicate(p) for p in predicates))
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "match_any", bool(match_any))


def _predicate(p: object) -> Predicate:
    if not isinstance(p, tuple) or len(p) != 3:
        raise ValueError(f"a predicate is a (field, operator, value) tuple, not {p!r}")
    field, operator, value = p
    if not isinstance(field, str) or not field:
        raise ValueError(f"a predicate's field name must be a non-empty str, not {field!r}")
    name = operator.upper() if isinstance(operator, str) else operator
    if name not in OPERATORS:
        raise ValueError(f"unknown payload operator {operator!r}; use one of {' '.join(OPERATORS)}")
    return (field, name, value)


@dataclass(frozen=True, slots=True)
class CompiledPayloadFilter:
    """A payload filter resolved against its event's layout."""

    layout: tuple[Field, ...]
    check: Check


def compile_payload_filter(pf: PayloadFilter, layout: Sequence[Field]) -> CompiledPayloadFilter:
    """Resolve ``pf``'s field names and values against ``layout``; ``ValueError`` names
    the first predicate that does not fit (unknown field, wrong operator, bad value)."""
    fields = {f.name: f for f in layout}
    checks: list[Check] = []
    for field_name, operator, value in pf.predicates:
        f = fields.get(field_name)
        where = f"event {pf.event_id} version {pf.version}"
        if f is None:
            known = ", ".join(fields) or "no fields"
            raise ValueError(f"{where} has no field {field_name!r} (it has {known})")
        try:
            checks.append(_check(f, operator, value))
        except ValueError as exc:
            raise ValueError(
                f"{where}: predicate on {field_name!r} with {operator}: {exc}"
            ) from None
    combine = any if pf.match_any else all
    bound = tuple(checks)

    def check(decoded: Mapping[str, object]) -> bool:
        return combine(c(decoded) for c in bound)

    return CompiledPayloadFilter(tuple(layout), check)


def _check(f: Field, operator: str, value: object) -> Check:
    if f.count_const is not None or f.count_ref is not None:
        raise ValueError("an array cannot be filtered")
    name = f.name
    if f.code in _INTEGER_FIELD_CODES:
        if operator not in INTEGER_OPERATORS:
            raise ValueError(f"an integer field takes {' '.join(INTEGER_OPERATORS)}")
        return _integer_check(name, operator, value, _range(f.code))
    if f.code in STRINGS:
        if operator not in STRING_OPERATORS:
            raise ValueError(f"a string field takes {' '.join(STRING_OPERATORS)}")
        if not isinstance(value, str):
            raise ValueError(f"the value must be a str, not {type(value).__name__}")
        return _string_check(name, operator, value.casefold())
    if f.code == GUID:
        if operator not in ("IS", "ISNOT"):
            raise ValueError("a GUID field takes IS and ISNOT only")
        return _guid_check(name, operator == "IS", _guid(value))
    raise ValueError(
        "payload filters compare integers, strings and GUIDs; "
        f"this field's inType {f.code} cannot be filtered"
    )


def _range(code: int) -> tuple[int, int]:
    if code == FILETIME:
        return 0, 2**64 - 1
    bits = _BITS[SCALAR_FORMATS[code]]
    if SCALAR_FORMATS[code].isupper():
        return 0, 2**bits - 1
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def _integer(value: object, bounds: tuple[int, int]) -> int:
    if isinstance(value, bool):
        raise ValueError("the value must be an int, not bool")
    if isinstance(value, str):
        try:
            value = int(value.strip(), 0)
        except ValueError:
            raise ValueError(f"{value!r} is not a number") from None
    if not isinstance(value, int):
        raise ValueError(f"the value must be an int, not {type(value).__name__}")
    low, high = bounds
    if not low <= value <= high:
        raise ValueError(f"{value} does not fit the field's type ({low}..{high})")
    return value


def _integer_check(name: str, operator: str, value: object, bounds: tuple[int, int]) -> Check:
    if operator in ("BETWEEN", "NOTBETWEEN"):
        pair = value.split(",") if isinstance(value, str) else value
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError('the value must be two bounds: (low, high) or "low,high"')
        low, high = (_integer(v, bounds) for v in pair)
        inside = operator == "BETWEEN"

        def between(decoded: Mapping[str, object]) -> bool:
            v = decoded.get(name)
            return isinstance(v, int) and (low <= v <= high) is inside

        return between
    number = _integer(value, bounds)
    if operator == "MODULO":
        if number == 0:
            raise ValueError("MODULO by 0")

        def modulo(decoded: Mapping[str, object]) -> bool:
            v = decoded.get(name)
            return isinstance(v, int) and v % number == 0

        return modulo
    compare = _COMPARE[operator]

    def compared(decoded: Mapping[str, object]) -> bool:
        v = decoded.get(name)
        return isinstance(v, int) and compare(v, number)

    return compared


def _string_check(name: str, operator: str, folded: str) -> Check:
    whole = operator in ("IS", "ISNOT")
    wanted = operator in ("IS", "CONTAINS")

    def compared(decoded: Mapping[str, object]) -> bool:
        v = decoded.get(name)
        if not isinstance(v, str):
            return False
        text = v.casefold()
        return (text == folded if whole else folded in text) is wanted

    return compared


def _guid(value: object) -> uuid.UUID:
    if isinstance(value, uuid.UUID):
        return value
    if isinstance(value, str):
        text = value.strip()
        if not (text.startswith("{") and text.endswith("}")):
            raise ValueError(f"a GUID is written in braces, {{...}}, not {value!r}")
        try:
            return uuid.UUID(text)
        except ValueError:
            raise ValueError(f"{value!r} is not a GUID") from None
    raise ValueError(f"the value must be a uuid.UUID or a braced GUID, not {type(value).__name__}")


def _guid_check(name: str, wanted: bool, guid: uuid.UUID) -> Check:
    def compared(decoded: Mapping[str, object]) -> bool:
        v = decoded.get(name)
        return isinstance(v, uuid.UUID) and (v == guid) is wanted

    return compared


def passing(
    checked: Sequence[tuple[T, Sequence[CompiledPayloadFilter]]], payload: bytes
) -> tuple[T, ...]:
    """The owners (sessions) any one of whose payload filters passes ``payload``; each
    layout decodes the payload once, and a payload that does not decode passes none."""
    decoded: dict[int, Mapping[str, object] | None] = {}
    passed: list[T] = []
    for owner, filters in checked:
        for f in filters:
            key = id(f.layout)
            if key not in decoded:
                try:
                    decoded[key] = decode_payload(f.layout, payload)
                except PayloadDecodeError:
                    decoded[key] = None
            values = decoded[key]
            if values is not None and f.check(values):
                passed.append(owner)
                break
    return tuple(passed)
