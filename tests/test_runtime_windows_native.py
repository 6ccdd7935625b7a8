"""The Windows backend's untyped ctypes calls against a real C library.

A stand-in for the ETW provider API is compiled from C (skipped without a compiler):
it records what arrives on the C side, so 64-bit handles and keywords, the descriptor
array and the payload pointer are checked after a genuine foreign call, and the enable
callback is fired from C (also during EventRegister).  On Windows a further test uses
the real API.
"""

from __future__ import annotations

import ctypes
import shutil
import struct
import subprocess
import sys
import uuid

import pytest

from etwmc.runtime import EnableState, ProviderRuntime, build_traits, pack_descriptor
from etwmc.runtime.backends.windows import WindowsBackend

C_SOURCE = r"""
#include <stdint.h>
#include <string.h>

typedef void (*cb_t)(const void *, unsigned long, unsigned char, uint64_t, uint64_t,
                     const void *, void *);
static cb_t saved_cb;
static uint64_t last_handle, unregistered;
static unsigned char last_desc[16], last_act[16], last_rel[16], last_guid[16];
static int has_act, has_rel;
static unsigned long last_count;
static unsigned char data[65536];
static uint32_t data_len, types;

unsigned long EventRegister(const void *guid, cb_t cb, void *ctx, uint64_t *handle) {
    memcpy(last_guid, guid, 16);
    *handle = 0x0123456789ABCDEFULL;
    saved_cb = cb;
    cb(guid, 1, 5, 0xFFFF000000000001ULL, 0x8000000000000000ULL, 0, ctx);
    return 0;
}

unsigned long EventWriteTransfer(uint64_t handle, const void *desc, const void *act,
                                 const void *rel, unsigned long count, const uint64_t *edd) {
    last_handle = handle;
    memcpy(last_desc, desc, 16);
    has_act = act != 0; if (act) memcpy(last_act, act, 16);
    has_rel = rel != 0; if (rel) memcpy(last_rel, rel, 16);
    last_count = count;
    data_len = 0; types = 0;
    for (unsigned long i = 0; i < count; i++) {
        const unsigned char *ptr = (const unsigned char *)(uintptr_t)edd[2 * i];
        uint32_t size = ((const uint32_t *)&edd[2 * i + 1])[0];
        uint32_t type = ((const uint32_t *)&edd[2 * i + 1])[1];
        memcpy(data + data_len, ptr, size);
        data_len += size;
        types = types * 16 + type;
    }
    return 0;
}

unsigned long EventSetInformation(uint64_t handle, int cls, const void *info, unsigned long n) {
    last_handle = handle;
    return cls == 2 ? 0 : 87;
}

unsigned long EventUnregister(uint64_t handle) { unregistered = handle; return 0; }

void fire(unsigned long code, unsigned char level, uint64_t any, uint64_t all) {
    saved_cb(0, code, level, any, all, 0, 0);
}
uint64_t get_handle(void) { return last_handle; }
uint64_t get_unregistered(void) { return unregistered; }
unsigned long get_count(void) { return last_count; }
uint32_t get_types(void) { return types; }
const void *get_data(void) { return data; }
uint32_t get_data_len(void) { return data_len; }
const void *get_desc(void) { return last_desc; }
const void *get_act(void) { return has_act ? last_act : 0; }
const void *get_rel(void) { return has_rel ? last_rel : 0; }
const void *get_guid(void) { return last_guid; }
"""


@pytest.fixture(scope="module")
def fake_api(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None or sys.platform == "win32":
        pytest.skip("needs a C compiler producing a shared library")
    folder = tmp_path_factory.mktemp("etwapi")
    source, lib = folder / "fake_etw.c", folder / "libfake_etw.so"
    source.write_text(C_SOURCE)
    built = subprocess.run(
        [cc, "-O1", "-shared", "-fPIC", "-o", str(lib), str(source)], capture_output=True
    )
    if built.returncode != 0:
        pytest.skip(f"could not build the stand-in library: {built.stderr[:200]!r}")
    dll = ctypes.CDLL(str(lib))
    for name in ("get_handle", "get_unregistered"):
        getattr(dll, name).restype = ctypes.c_uint64
    for name in ("get_data", "get_desc", "get_act", "get_rel", "get_guid"):
        getattr(dll, name).restype = ctypes.c_void_p
    dll.get_count.restype = ctypes.c_ulong
    dll.get_types.restype = ctypes.c_uint32
    dll.get_data_len.restype = ctypes.c_uint32
    dll.fire.argtypes = (ctypes.c_ulong, ctypes.c_ubyte, ctypes.c_uint64, ctypes.c_uint64)
    return dll


def _bytes(address: int | None, size: int = 16) -> bytes | None:
    return None if address is None else ctypes.string_at(address, size)


def test_values_arrive_intact_in_c(fake_api: ctypes.CDLL) -> None:
    guid = uuid.UUID("0f1e2d3c-4b5a-4968-8776-8594a3b2c1d0")
    seen: list[EnableState] = []
    traits = build_traits("Native")
    provider = ProviderRuntime(guid, "Native", traits, on_enable=seen.append)
    provider.register(WindowsBackend(fake_api))
    # the callback fired from C inside EventRegister, 64-bit keywords intact
    assert seen == [EnableState(1, 5, 0xFFFF_0000_0000_0001, 0x8000_0000_0000_0000)]
    assert _bytes(fake_api.get_guid()) == guid.bytes_le
    assert fake_api.get_handle() == 0x0123_4567_89AB_CDEF  # EventSetInformation's handle

    desc = pack_descriptor(513, 3, 17, 4, 1, 0x1234, 0x8000_0000_0000_0010)
    payload = struct.pack("<QI", 2**64 - 2, 7) + "héllo".encode("utf-16-le") + b"\0\0"
    act, rel = uuid.uuid4().bytes_le, uuid.uuid4().bytes_le
    assert provider.write(desc, payload, act, rel) == 0
    assert fake_api.get_handle() == 0x0123_4567_89AB_CDEF  # not truncated to 32 bits
    assert _bytes(fake_api.get_desc()) == desc
    assert (_bytes(fake_api.get_act()), _bytes(fake_api.get_rel())) == (act, rel)
    assert fake_api.get_count() == 2 and fake_api.get_types() == 0x20  # traits (2), then data (0)
    assert _bytes(fake_api.get_data(), fake_api.get_data_len()) == traits + payload

    provider.write(desc, b"")
    assert fake_api.get_count() == 1 and fake_api.get_act() is None

    fake_api.fire(1, 2, 0x1, 0x0)
    fake_api.fire(2, 5, 0x1, 0x0)  # capture state: no change
    assert provider.state == EnableState(1, 2, 0x1, 0)
    provider.unregister()
    assert fake_api.get_unregistered() == 0x0123_4567_89AB_CDEF
    assert seen[-1] == EnableState(0, 0, 0, 0)


@pytest.mark.skipif(sys.platform != "win32", reason="needs the real ETW provider API")
def test_real_etw_round_trip_without_a_session() -> None:
    provider = ProviderRuntime(uuid.uuid4(), "Etwmc-Test", build_traits("Etwmc-Test"))
    provider.register("windows")
    try:
        assert provider.write(pack_descriptor(1, level=4), b"\x01\x00\x00\x00") == 0
        assert provider.write(pack_descriptor(2), b"", uuid.uuid4().bytes_le) == 0
    finally:
        provider.unregister()
    assert not provider.registered
