"""Values as decoders show them: times, addresses, integers in hex, 8-bit text."""

from __future__ import annotations

import datetime as dt
import ipaddress

from ..winmeta import InTypeCode
from .plan import HEX_OUTS

_HEX_INTEGERS = frozenset({InTypeCode.HEX_INT32, InTypeCode.HEX_INT64})


def utf16_end(data: bytes, start: int) -> int:
    """Where the UTF-16 string at ``start`` ends: its first NUL code unit, a 00 00 pair
    at an even distance (-1 when none)."""
    end = data.find(b"\0\0", start)
    while end >= 0 and (end - start) & 1:
        end = data.find(b"\0\0", end + 1)
    return end


def format_int(v: int, size: int, in_type: int, out: str | None) -> str | int:
    if in_type in _HEX_INTEGERS and out not in HEX_OUTS:
        return f"0x{v:0{2 * size}X}"
    if out in HEX_OUTS:
        width = HEX_OUTS[out]
        return f"0x{v & ((1 << (8 * size)) - 1):0{width}X}"
    return v


def ansi_text(b: bytes, out: str | None) -> str:
    if out == "win:Utf8":
        return b.decode("utf-8", errors="replace")
    return b.decode("cp1252", errors="replace")


def trim(text: str | None) -> str | None:
    return text.rstrip("\r\n") if text is not None else None


def filetime_text(v: int) -> str:
    """A FILETIME (100 ns since 1601-01-01 UTC) as ISO 8601 with 7 fraction digits."""
    secs, frac = divmod(v, 10_000_000)
    try:
        t = dt.datetime(1601, 1, 1) + dt.timedelta(seconds=secs)
    except OverflowError:
        return f"0x{v:016X}"
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{frac:07d}Z"


def socket_address(b: bytes) -> str | None:
    """A SOCKADDR_IN / SOCKADDR_IN6 as ``a.b.c.d:port`` / ``[v6]:port`` (None if neither)."""
    if len(b) >= 8 and int.from_bytes(b[:2], "little") == 2:
        return f"{ipaddress.IPv4Address(b[4:8])}:{int.from_bytes(b[2:4], 'big')}"
    if len(b) >= 28 and int.from_bytes(b[:2], "little") == 23:
        scope = int.from_bytes(b[24:28], "little")
        addr = str(ipaddress.IPv6Address(b[8:24])) + (f"%{scope}" if scope else "")
        return f"[{addr}]:{int.from_bytes(b[2:4], 'big')}"
    return None
