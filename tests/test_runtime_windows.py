"""The Windows backend against a fake provider DLL (runs everywhere).

The fake records every call with the objects ctypes would receive, and drives the
real ctypes callback thunk, so 64-bit values cross a genuine C conversion.
"""

from __future__ import annotations

import ctypes
import gc
import struct
import uuid

import pytest

from etwmc.runtime import (
    EnableState,
    ProviderRuntime,
    build_traits,
    compute_flags,
    pack_descriptor,
)
from etwmc.runtime.backends.base import BackendError
from etwmc.runtime.backends.windows import WindowsBackend

GUID = uuid.UUID("a0b1c2d3-e4f5-4a6b-8c7d-8e9fa0b1c2d3")
HANDLE = 0x0123_4567_89AB_CDEF  # does not fit in 32 bits on purpose
ANY = 0xFFFF_0000_0000_0001
ALL = 0x8000_0000_0000_0000


class FakeDll:
    def __init__(self, fire_during_register: bool = False, register_status: int = 0) -> None:
        self.calls: list[tuple[object, ...]] = []
        self.thunk: object = None
        self.fire_during_register = fire_during_register
        self.register_status = register_status
        self.writes: list[dict[str, object]] = []

    def fire(self, code: int, level: int, match_any: int, match_all: int) -> None:
        self.thunk(None, code, level, match_any, match_all, None, None)  # type: ignore[operator]

    def EventRegister(self, guid, thunk, context, handle_ptr):  # type: ignore[no-untyped-def]  # noqa: N802
        self.calls.append(("EventRegister", guid.raw, context))
        if self.register_status:
            return self.register_status
        handle_ptr.contents.value = HANDLE
        self.thunk = thunk
        if self.fire_during_register:
            self.fire(1, 5, ANY, ALL)
        return 0

    def EventSetInformation(self, handle, info_class, blob, length):  # type: ignore[no-untyped-def]  # noqa: N802
        self.calls.append(("EventSetInformation", handle, info_class, blob, length.value))
        return 0

    def EventWriteTransfer(self, handle, descriptor, activity, related, count, edd):  # type: ignore[no-untyped-def]  # noqa: N802
        # What ETW would read: every EVENT_DATA_DESCRIPTOR's bytes, through its pointer.
        pieces = []
        for i in range(count):
            ptr, size, kind = struct.unpack_from("<QII", edd, 16 * i)
            pieces.append((kind, ctypes.string_at(ptr, size)))
        self.writes.append(
            {
                "handle": handle,
                "descriptor": descriptor,
                "activity": activity,
                "related": related,
                "count": count,
                "pieces": pieces,
            }
        )
        return 0

    def EventUnregister(self, handle):  # type: ignore[no-untyped-def]  # noqa: N802
        self.calls.append(("EventUnregister", handle.value))
        return 0

    def EventActivityIdControl(self, code, buf):  # type: ignore[no-untyped-def]  # noqa: N802
        self.calls.append(("EventActivityIdControl", code.value, buf.raw))
        buf.raw = bytes(range(16))
        return 0


def test_register_passes_guid_and_keeps_thunk_alive() -> None:
    dll = FakeDll()
    backend = WindowsBackend(dll)
    seen: list[EnableState] = []
    provider = ProviderRuntime(GUID, "P", on_enable=seen.append).register(backend)
    assert dll.calls[0] == ("EventRegister", GUID.bytes_le, None)
    assert len(backend.live) == 1
    gc.collect()
    dll.fire(1, 4, ANY, ALL)  # the thunk must still be valid
    assert seen == [EnableState(1, 4, ANY, ALL)]
    provider.unregister()
    assert dll.calls[-1] == ("EventUnregister", HANDLE)
    assert backend.live == {}
    dll.fire(1, 5, 1, 0)  # a late callback after unregistration is ignored
    assert seen[-1] == EnableState(0, 0, 0, 0)


def test_callback_fires_inside_event_register() -> None:
    dll = FakeDll(fire_during_register=True)
    seen: list[EnableState] = []
    provider = ProviderRuntime(GUID, "P", on_enable=seen.append).register(WindowsBackend(dll))
    assert seen == [EnableState(1, 5, ANY, ALL)]
    assert provider.enabled(5, 0x8000_0000_0000_0001)


def test_write_one_descriptor_with_64bit_safe_arguments() -> None:
    dll = FakeDll()
    provider = ProviderRuntime(GUID, "P").register(WindowsBackend(dll))
    desc = pack_descriptor(7, 1, 0, 4, 0, 3, 0x10)
    act, rel = uuid.uuid4().bytes_le, uuid.uuid4().bytes_le
    payload = struct.pack("<IQ", 5, 2**63 + 9) + "hé".encode("utf-16-le") + b"\0\0"
    assert provider.write(desc, payload, act, rel) == 0
    (w,) = dll.writes
    handle = w["handle"]
    assert isinstance(handle, ctypes.c_uint64) and handle.value == HANDLE
    assert w["descriptor"] is desc and w["activity"] is act and w["related"] is rel
    assert w["count"] == 1 and w["pieces"] == [(0, payload)]


def test_write_with_traits_puts_them_first_as_type_2() -> None:
    dll = FakeDll()
    traits = build_traits("My-Provider")
    ProviderRuntime(GUID, "My-Provider", traits=traits).register(WindowsBackend(dll)).write(
        pack_descriptor(1), b"xy"
    )
    set_info = [c for c in dll.calls if c[0] == "EventSetInformation"]
    assert len(set_info) == 1
    _, handle, info_class, blob, length = set_info[0]
    assert isinstance(handle, ctypes.c_uint64) and handle.value == HANDLE
    assert (info_class, blob, length) == (2, traits, len(traits))
    assert dll.writes[0]["pieces"] == [(2, traits), (0, b"xy")]
    assert dll.writes[0]["count"] == 2


def test_empty_payload_and_no_activity() -> None:
    dll = FakeDll()
    ProviderRuntime(GUID, "P").register(WindowsBackend(dll)).write(pack_descriptor(1), b"")
    w = dll.writes[0]
    assert w["count"] == 0 and w["activity"] is None and w["related"] is None


def test_malformed_write_arguments_never_reach_etw() -> None:
    dll = FakeDll()
    provider = ProviderRuntime(GUID, "P").register(WindowsBackend(dll))
    assert provider.write(b"\0" * 8, b"") == 87
    assert provider.write(pack_descriptor(1), b"", b"\0" * 4) == 87
    assert provider.write(pack_descriptor(1), b"", None, b"\0" * 20) == 87
    assert dll.writes == []


def test_non_bytes_payload_is_copied() -> None:
    dll = FakeDll()
    provider = ProviderRuntime(GUID, "P").register(WindowsBackend(dll))
    provider.write(pack_descriptor(1), bytearray(b"abc"))  # type: ignore[arg-type]
    assert dll.writes[0]["pieces"] == [(0, b"abc")]


def test_failing_register_is_a_backend_error() -> None:
    backend = WindowsBackend(FakeDll(register_status=87))
    provider = ProviderRuntime(GUID, "P")
    with pytest.raises(BackendError, match="error 87"):
        provider.register(backend)
    assert not provider.registered and backend.live == {}


def test_hook_exception_does_not_escape_the_thunk(capfd: pytest.CaptureFixture[str]) -> None:
    dll = FakeDll()

    def bad(_: EnableState) -> None:
        raise RuntimeError("bug in hook")

    provider = ProviderRuntime(GUID, "P", on_enable=bad).register(WindowsBackend(dll))
    dll.fire(1, 5, 1, 0)
    assert isinstance(provider.hook_error, RuntimeError)
    assert capfd.readouterr().err == ""


def test_activity_id_control() -> None:
    dll = FakeDll()
    backend = WindowsBackend(dll)
    assert backend.create_activity_id() == bytes(range(16))
    assert dll.calls[-1] == ("EventActivityIdControl", 3, bytes(16))
    assert backend.thread_activity_id() == bytes(range(16))
    assert dll.calls[-1][1] == 1


def test_level_zero_from_etw_enables_every_level() -> None:
    # ETW reports level 0 when a session asked for every level (the default of several
    # controllers): the provider's flags must then let every level through.
    dll = FakeDll()
    flags: list[tuple[bool, ...]] = []
    pairs = [(1, 0), (5, 0), (200, 0x1), (4, 0x2)]
    provider = ProviderRuntime(
        GUID, "P", on_enable=lambda state: flags.append(compute_flags(pairs, state))
    ).register(WindowsBackend(dll))
    dll.fire(1, 0, 0x1, 0)
    assert provider.state == EnableState(1, 0, 0x1, 0)
    assert flags[-1] == (True, True, True, False)  # every level; keywords still filter
    dll.fire(0, 0, 0, 0)
    assert flags[-1] == (False, False, False, False)


def test_traits_are_set_once_per_registration() -> None:
    dll = FakeDll()
    backend = WindowsBackend(dll)
    first, second = build_traits("First"), build_traits("Second")
    provider = ProviderRuntime(GUID, "First", traits=first).register(backend)
    assert backend.set_traits(provider._handle, second) == 87  # as EventSetInformation
    assert [c[3] for c in dll.calls if c[0] == "EventSetInformation"] == [first]
    provider.write(pack_descriptor(1), b"x")
    assert dll.writes[-1]["pieces"] == [(2, first), (0, b"x")]  # the first traits travel


def test_refused_traits_are_not_sent_with_events() -> None:
    class Refusing(FakeDll):
        def EventSetInformation(self, handle, info_class, blob, length):  # type: ignore[no-untyped-def]  # noqa: N802
            super().EventSetInformation(handle, info_class, blob, length)
            return 87

    dll = Refusing()
    provider = ProviderRuntime(GUID, "P", traits=build_traits("P")).register(WindowsBackend(dll))
    provider.write(pack_descriptor(1), b"x")
    assert dll.writes[-1]["pieces"] == [(0, b"x")]


class Refusing(FakeDll):
    """EventWriteTransfer answers with a status (ERROR_ARITHMETIC_OVERFLOW by default:
    an event above 64 KiB), as ETW does for an event it does not take."""

    def __init__(self, status: int = 534) -> None:
        super().__init__()
        self.status = status

    def EventWriteTransfer(self, *args):  # type: ignore[no-untyped-def]  # noqa: N802
        super().EventWriteTransfer(*args)
        return self.status


def test_a_refused_write_is_counted_even_when_its_status_is_ignored() -> None:
    dll = Refusing()
    provider = ProviderRuntime(GUID, "P").register(WindowsBackend(dll))
    assert provider.write(pack_descriptor(1), b"x") == 534
    provider.write(pack_descriptor(2), b"y")  # status ignored, as start_<Event> does
    assert provider.write_failures == 2 and provider.last_status == 534
    dll.status = 0
    assert provider.write(pack_descriptor(3), b"z") == 0
    assert provider.write_failures == 2 and provider.last_status == 534


def test_refused_traits_are_counted() -> None:
    class RefusingTraits(FakeDll):
        def EventSetInformation(self, handle, info_class, blob, length):  # type: ignore[no-untyped-def]  # noqa: N802
            super().EventSetInformation(handle, info_class, blob, length)
            return 50  # ERROR_NOT_SUPPORTED

    provider = ProviderRuntime(GUID, "P", traits=build_traits("P"))
    provider.register(WindowsBackend(RefusingTraits()))
    assert provider.write_failures == 1 and provider.last_status == 50


def test_a_write_function_kept_past_unregister_never_reaches_etw() -> None:
    """A writer may read the provider's write function just before another thread
    unregisters: the write is refused (and counted), not sent with a dead handle that
    ETW may have given to another provider."""
    dll = FakeDll()
    provider = ProviderRuntime(GUID, "P").register(WindowsBackend(dll))
    kept = provider.write
    provider.unregister()
    assert kept(pack_descriptor(1), b"late") == 6  # ERROR_INVALID_HANDLE
    assert dll.writes == [] and provider.write_failures == 1
    assert provider.write(pack_descriptor(1), b"dropped") == 0  # unregistered: dropped
