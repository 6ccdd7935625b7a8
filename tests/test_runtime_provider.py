"""ProviderRuntime: registration life cycle, hooks, backend choice, the write path."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import uuid

import pytest

from etwmc.runtime import (
    BACKEND_ENV,
    BackendError,
    EnableState,
    ProviderRuntime,
    get_backend,
    pack_descriptor,
)
from etwmc.runtime.backends.inproc import InProcBackend
from etwmc.runtime.backends.null import NullBackend

GUID = uuid.UUID("0d7a0c31-1111-4222-8333-444455556666")


class RecordingBackend:
    """A backend that records every call and lets the test fire callbacks."""

    name = "recording"

    def __init__(self, fire_on_register: tuple[int, int, int, int] | None = None) -> None:
        self.calls: list[tuple[object, ...]] = []
        self.callback = None
        self.fire_on_register = fire_on_register

    def register(self, guid, callback):  # type: ignore[no-untyped-def]
        self.calls.append(("register", guid))
        self.callback = callback
        if self.fire_on_register:
            callback(*self.fire_on_register)
        return "H"

    def set_traits(self, handle, blob):  # type: ignore[no-untyped-def]
        self.calls.append(("set_traits", handle, blob))
        return 0

    def write(self, handle, descriptor, activity, related, payload):  # type: ignore[no-untyped-def]
        self.calls.append(("write", handle, descriptor, activity, related, payload))
        return 0

    def unregister(self, handle):  # type: ignore[no-untyped-def]
        self.calls.append(("unregister", handle))


def test_construction_does_nothing() -> None:
    p = ProviderRuntime(str(GUID), "P")
    assert p.guid == GUID and not p.registered and p.backend is None
    assert p.state == EnableState(0, 0, 0, 0)
    assert p.write(pack_descriptor(1), b"x") == 0  # dropped, no error


def test_register_is_idempotent_and_sets_traits_once() -> None:
    backend = RecordingBackend()
    p = ProviderRuntime(GUID, "P", traits=b"\x05\x00P\x00\x00")
    assert p.register(backend) is p
    p.register(backend)
    assert backend.calls == [("register", GUID), ("set_traits", "H", b"\x05\x00P\x00\x00")]
    p.write(b"D" * 16, b"pay", b"A" * 16, b"R" * 16)
    assert backend.calls[-1] == ("write", "H", b"D" * 16, b"A" * 16, b"R" * 16, b"pay")
    p.unregister()
    p.unregister()
    assert [c[0] for c in backend.calls].count("unregister") == 1
    n = len(backend.calls)
    assert p.write(b"D" * 16, b"pay") == 0
    assert len(backend.calls) == n  # unregistered: nothing reaches the backend


def test_callback_during_register_is_recorded() -> None:
    seen: list[EnableState] = []
    backend = RecordingBackend(fire_on_register=(1, 5, 0xF, 0))
    p = ProviderRuntime(GUID, "P", on_enable=seen.append)
    p.register(backend)
    assert seen == [EnableState(1, 5, 0xF, 0)] and p.is_enabled
    assert p.enabled(5, 0x1) and not p.enabled(5, 0x10)


def test_control_codes() -> None:
    seen: list[EnableState] = []
    captured: list[EnableState] = []
    backend = RecordingBackend()
    p = ProviderRuntime(GUID, "P", on_enable=seen.append, on_capture_state=captured.append)
    p.register(backend)
    cb = backend.callback
    assert cb is not None
    cb(1, 4, 0x3, 0x1)
    cb(2, 5, 0x1, 0)
    cb(7, 1, 1, 1)  # unknown control code: ignored
    assert p.state == EnableState(1, 4, 0x3, 0x1)
    cb(0, 0, 0, 0)
    assert seen == [EnableState(1, 4, 0x3, 0x1), EnableState(0, 0, 0, 0)]
    assert captured == [EnableState(2, 5, 0x1, 0)]


def test_hook_error_is_kept_not_raised() -> None:
    backend = RecordingBackend()

    def bad(_: EnableState) -> None:
        raise KeyError("hook")

    p = ProviderRuntime(GUID, "P", on_enable=bad)
    p.register(backend)
    assert backend.callback is not None
    backend.callback(1, 4, 0, 0)
    assert isinstance(p.hook_error, KeyError)
    assert p.state.is_enabled == 1


def test_unregister_reports_disable_to_hook() -> None:
    seen: list[EnableState] = []
    backend = InProcBackend()
    backend.session().enable(GUID)
    with ProviderRuntime(GUID, "P", on_enable=seen.append).register(backend) as p:
        assert p.is_enabled
    assert seen[-1] == EnableState(0, 0, 0, 0) and not p.registered


def test_write_uses_current_activity() -> None:
    from etwmc.runtime import activity

    backend = RecordingBackend()
    p = ProviderRuntime(GUID, "P").register(backend)
    with activity() as act:
        p.write(b"D" * 16, b"")
        p.write(b"D" * 16, b"", b"X" * 16)
    p.write(b"D" * 16, b"")
    writes = [c for c in backend.calls if c[0] == "write"]
    assert [w[3] for w in writes] == [act.id, b"X" * 16, None]


def test_backend_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BACKEND_ENV, "null")
    assert isinstance(get_backend(), NullBackend)
    monkeypatch.setenv(BACKEND_ENV, "inproc")
    assert isinstance(get_backend(), InProcBackend)
    assert get_backend() is get_backend("inproc")  # one set of sessions per process
    assert isinstance(get_backend("null"), NullBackend)  # the argument wins
    with pytest.raises(ValueError, match="unknown ETW backend 'etw'"):
        get_backend("etw")
    monkeypatch.delenv(BACKEND_ENV)
    expected = "windows" if sys.platform == "win32" else "null"
    assert get_backend().name == expected
    p = ProviderRuntime(GUID, "P").register("null")
    assert p.backend is get_backend("null")
    p.unregister()


@pytest.mark.skipif(sys.platform == "win32", reason="the windows backend works there")
def test_windows_backend_off_windows_is_a_clear_error() -> None:
    with pytest.raises(BackendError, match="needs Windows"):
        get_backend("windows")


def test_unregistered_at_exit() -> None:
    code = textwrap.dedent(
        """
        import uuid
        from etwmc.runtime import ProviderRuntime
        from etwmc.runtime.backends import get_backend
        backend = get_backend("inproc")
        backend.session().enable(uuid.UUID(int=7))
        def hook(state):
            print("state", state.is_enabled, flush=True)
        ProviderRuntime(uuid.UUID(int=7), "P", on_enable=hook).register(backend)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.split("\n")[:2] == ["state 1", "state 0"]
    assert out.stderr == ""
