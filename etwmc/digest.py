"""The SHA-1 and SHA-256 digests etwmc's outputs depend on (hashlib's).

None of them protects anything: SHA-1 derives a provider GUID from its name (the
EventSource rule), SHA-256 makes WEVT_TEMPLATE template ids and fingerprints the files
an output journal records.  So they are computed with ``usedforsecurity=False``, which
lets them run where the security policy (FIPS mode) refuses SHA-1.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable


def sha1(data: bytes) -> bytes:
    return hashlib.sha1(data, usedforsecurity=False).digest()


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data, usedforsecurity=False).digest()


def sha256_of_pieces(pieces: Iterable[bytes]) -> bytes:
    """The SHA-256 of the pieces one after another (a file read in parts)."""
    h = hashlib.sha256(usedforsecurity=False)
    for piece in pieces:
        h.update(piece)
    return h.digest()


def sha256_unless_equal(pieces: Iterable[bytes], data: bytes) -> bytes | None:
    """None when the pieces one after another are exactly ``data``, else their SHA-256:
    a file compared with what is about to replace it, and hashed only when it differs.
    The bytes of ``data`` stand in for the pieces that matched, so the file is read
    once either way."""
    h = None
    at = 0
    for piece in pieces:
        if h is None:
            if data.startswith(piece, at):
                at += len(piece)
                continue
            h = hashlib.sha256(memoryview(data)[:at], usedforsecurity=False)
        h.update(piece)
    if h is None:
        if at == len(data):
            return None
        h = hashlib.sha256(memoryview(data)[:at], usedforsecurity=False)
    return h.digest()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data, usedforsecurity=False).hexdigest()
