"""The Windows backend: real ETW through the provider API, with ctypes.

Rules this module keeps (each one prevents a crash or a silent corruption):

* The ctypes callback thunk of every registration lives in :attr:`WindowsBackend.live`
  until *after* EventUnregister returns: a collected thunk crashes the process on the
  next enable.
* The callback may fire inside EventRegister (a session is already listening), so the
  registration object, its handle storage and the provider's state exist first.
* The callback runs on a thread ETW owns; it forwards to the provider and swallows any
  exception, because ctypes would print it.  It forwards exactly what ETW reports:
  level 0 included, which the enable rule reads as "every level".  Event-id and payload
  filters, provider groups and disallow lists are applied by ETW itself, so nothing
  here filters events.
* No argtypes on the hot functions (argtypes conversion costs about 200 ns per call):
  64-bit values go as pre-made ``c_uint64`` objects, pointers as ``bytes`` objects
  (passed as pointers to their buffers) or ``None``.  A raw Python int would be passed
  as a 32-bit C int.
* EventWriteTransfer gets one EVENT_DATA_DESCRIPTOR for the whole payload (plus one
  for the provider traits, type 2, as mc does) packed with ``struct``; its array is a
  ``bytes`` object owned by the call, so concurrent writers never share it.

The DLL is injectable: ``WindowsBackend(dll)`` takes any object with the five
functions (tests pass a fake that records calls and drives the callback).
"""

from __future__ import annotations

import ctypes
import struct
import sys
import threading
import uuid
from collections.abc import Callable
from typing import Any

from .base import (
    ERROR_INVALID_HANDLE,
    ERROR_INVALID_PARAMETER,
    ERROR_SUCCESS,
    BackendError,
    EnableCallback,
)

EVENT_PROVIDER_SET_TRAITS = 2  # EVENT_INFO_CLASS.EventProviderSetTraits
EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA = 2
LOAD_LIBRARY_SEARCH_SYSTEM32 = 0x800

# EventActivityIdControl control codes.
EVENT_ACTIVITY_CTRL_GET_ID = 1
EVENT_ACTIVITY_CTRL_SET_ID = 2
EVENT_ACTIVITY_CTRL_CREATE_ID = 3
EVENT_ACTIVITY_CTRL_GET_SET_ID = 4
EVENT_ACTIVITY_CTRL_CREATE_SET_ID = 5

_EDD = struct.Struct("<QII")  # EVENT_DATA_DESCRIPTOR: Ptr, Size, Type/Reserved
_pack_edd = _EDD.pack

_CALLBACK_FACTORY: Callable[..., Any] = getattr(ctypes, "WINFUNCTYPE", ctypes.CFUNCTYPE)
# VOID (LPCGUID SourceId, ULONG IsEnabled, UCHAR Level, ULONGLONG MatchAny,
#       ULONGLONG MatchAll, PEVENT_FILTER_DESCRIPTOR FilterData, PVOID Context)
ENABLE_CALLBACK = _CALLBACK_FACTORY(
    None,
    ctypes.c_void_p,
    ctypes.c_ulong,
    ctypes.c_ubyte,
    ctypes.c_uint64,
    ctypes.c_uint64,
    ctypes.c_void_p,
    ctypes.c_void_p,
)


def _bytes_data_offset() -> int | None:
    """Offset of a bytes object's data from ``id()``, or None where that is unknown.

    CPython lays ``PyBytesObject`` out as a header followed by the characters, so
    ``id(b) + offset`` is the buffer address.  It is verified against ``ctypes.cast``
    before use; anywhere else the portable (slower) cast is used.
    """
    if sys.implementation.name != "cpython":
        return None
    offset = sys.getsizeof(b"") - 1
    probe = b"etwmc-probe"
    if ctypes.cast(ctypes.c_char_p(probe), ctypes.c_void_p).value != id(probe) + offset:
        return None
    return offset


_OFFSET = _bytes_data_offset()


def _address_portable(data: bytes) -> int:
    return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value or 0


def _address_cpython(data: bytes) -> int:
    return id(data) + _OFFSET  # type: ignore[operator]  # only bound when _OFFSET is set


address_of: Callable[[bytes], int] = _address_cpython if _OFFSET is not None else _address_portable


def load_provider_dll() -> Any:
    """The ETW provider API: the API set DLL from System32, else advapi32."""
    windll = getattr(ctypes, "WinDLL", None)
    if sys.platform != "win32" or windll is None:
        raise BackendError("the windows backend needs Windows; use ETWMC_BACKEND=inproc or null")
    try:
        return windll("api-ms-win-eventing-provider-l1-1-0.dll", mode=LOAD_LIBRARY_SEARCH_SYSTEM32)
    except OSError:
        try:
            return windll("advapi32.dll", mode=LOAD_LIBRARY_SEARCH_SYSTEM32)
        except OSError as exc:
            raise BackendError(f"cannot load the ETW provider API: {exc}") from None


class Registration:
    """One EventRegister registration: its handle, thunk, traits and write arguments."""

    __slots__ = (
        "guid",
        "handle",
        "thunk",
        "callback",
        "traits",
        "traits_edd",
        "traits_count",
        "closed",
    )

    def __init__(self, guid: uuid.UUID, callback: EnableCallback) -> None:
        self.guid = guid
        self.handle = ctypes.c_uint64(0)  # filled by EventRegister, passed as-is to writes
        self.callback = callback
        self.traits = b""
        self.traits_edd = b""
        self.traits_count = 0
        self.closed = False
        self.thunk = ENABLE_CALLBACK(self._on_enable)

    def _on_enable(
        self,
        source_id: int | None,
        control_code: int,
        level: int,
        match_any: int,
        match_all: int,
        filter_data: int | None,
        context: int | None,
    ) -> None:
        if self.closed:
            return
        try:
            self.callback(control_code, level, match_any, match_all)
        except BaseException:  # never raise into ETW's thread (ctypes would print it)
            pass


class WindowsBackend:
    """ETW through advapi32 (or an injected DLL-like object)."""

    name = "windows"

    def __init__(self, dll: Any = None) -> None:
        self.dll = dll if dll is not None else load_provider_dll()
        self._register = self.dll.EventRegister
        self._unregister = self.dll.EventUnregister
        self._write_transfer = self.dll.EventWriteTransfer
        self._set_information = getattr(self.dll, "EventSetInformation", None)
        self._activity_control = getattr(self.dll, "EventActivityIdControl", None)
        self._lock = threading.Lock()
        # Registrations by id(): keeps every thunk alive until EventUnregister returns.
        self.live: dict[int, Registration] = {}

    def register(self, guid: uuid.UUID, callback: EnableCallback) -> Registration:
        reg = Registration(guid, callback)
        guid_buf = ctypes.create_string_buffer(guid.bytes_le, 16)
        with self._lock:
            self.live[id(reg)] = reg
        status = self._register(guid_buf, reg.thunk, None, ctypes.pointer(reg.handle))
        if status != ERROR_SUCCESS:
            reg.closed = True
            with self._lock:
                self.live.pop(id(reg), None)
            raise BackendError(
                f"EventRegister failed for provider {{{guid}}}: Windows error {status}"
            )
        return reg

    def set_traits(self, handle: object, blob: bytes) -> int:
        """EventSetInformation(EventProviderSetTraits); once per registration.

        ETW refuses a second call (the traits stay those of the first), so a second
        call returns ERROR_INVALID_PARAMETER without reaching ETW, and the events keep
        carrying the traits ETW holds.
        """
        reg = _registration(handle)
        if reg is None or reg.traits:
            return ERROR_INVALID_PARAMETER
        blob = bytes(blob)
        if self._set_information is not None:
            status: int = self._set_information(
                reg.handle, EVENT_PROVIDER_SET_TRAITS, blob, ctypes.c_ulong(len(blob))
            )
            if status != ERROR_SUCCESS:
                return status
        # Kept on the registration: ETW reads the traits from this buffer on each write
        # (before Windows 8, without EventSetInformation, that is all there is).
        reg.traits = blob
        reg.traits_edd = _EDD.pack(
            address_of(blob), len(blob), EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA
        )
        reg.traits_count = 1
        return ERROR_SUCCESS

    def write(
        self,
        handle: object,
        descriptor: bytes,
        activity: bytes | None,
        related: bytes | None,
        payload: bytes,
    ) -> int:
        reg: Registration = handle  # type: ignore[assignment]  # hot path: no isinstance
        if reg.closed:  # a writer that read the provider's write function before unregister
            return ERROR_INVALID_HANDLE
        # ETW reads 16 bytes behind each pointer: a short buffer would be read past its end.
        if (
            len(descriptor) != 16
            or (activity is not None and len(activity) != 16)
            or (related is not None and len(related) != 16)
        ):
            return ERROR_INVALID_PARAMETER
        if type(payload) is not bytes:
            payload = bytes(payload)
        if payload:
            status: int = self._write_transfer(
                reg.handle,
                descriptor,
                activity,
                related,
                reg.traits_count + 1,
                reg.traits_edd
                + _pack_edd(
                    id(payload) + _OFFSET if _OFFSET is not None else _address_portable(payload),
                    len(payload),
                    0,
                ),
            )
        else:
            status = self._write_transfer(
                reg.handle, descriptor, activity, related, reg.traits_count, reg.traits_edd or None
            )
        return status

    def unregister(self, handle: object) -> None:
        reg = _registration(handle)
        if reg is None or reg.closed:
            return
        # Closed first: writes still on their way are refused from now on.
        reg.closed = True
        try:
            self._unregister(reg.handle)
        finally:
            with self._lock:
                self.live.pop(id(reg), None)

    # -- activity ids of the calling thread (ETW's own notion) ---------------------------

    def activity_id_control(self, code: int, activity_id: bytes | None = None) -> bytes:
        """EventActivityIdControl: returns the 16-byte GUID ETW leaves in the buffer."""
        if self._activity_control is None:
            raise BackendError("EventActivityIdControl is not available")
        buf = ctypes.create_string_buffer(activity_id or bytes(16), 16)
        status = self._activity_control(ctypes.c_ulong(code), buf)
        if status != ERROR_SUCCESS:
            raise BackendError(f"EventActivityIdControl({code}) failed: Windows error {status}")
        return buf.raw

    def thread_activity_id(self) -> bytes:
        """The calling thread's current ETW activity id."""
        return self.activity_id_control(EVENT_ACTIVITY_CTRL_GET_ID)

    def create_activity_id(self) -> bytes:
        """A locally unique id from ETW (does not change the thread's id)."""
        return self.activity_id_control(EVENT_ACTIVITY_CTRL_CREATE_ID)


def _registration(handle: object) -> Registration | None:
    return handle if isinstance(handle, Registration) else None
