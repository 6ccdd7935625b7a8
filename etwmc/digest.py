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


def sha256_and_compare(pieces: Iterable[bytes], data: bytes) -> tuple[bytes, bool]:
    """The SHA-256 of the pieces one after another, and whether together they are
    exactly ``data``: a file hashed and compared in the one reading."""
    h = hashlib.sha256(usedforsecurity=False)
    view = memoryview(data)
    at = 0
    same = True
    for piece in pieces:
        h.update(piece)
        if same:
            same = view[at : at + len(piece)] == piece
        at += len(piece)
    return h.digest(), same and at == len(data)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data, usedforsecurity=False).hexdigest()
