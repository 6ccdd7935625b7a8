"""SHA-1 and SHA-256 from CPython's built-in hash modules, without loading OpenSSL.

:mod:`hashlib` loads OpenSSL's libcrypto on import, which costs a compile more than
all the hashing it does (template ids, the output journal, name-derived GUIDs: a few
hundred kilobytes).  CPython always builds its own implementations as the modules
``_sha1`` and ``_sha256`` (3.11) or ``_sha2`` (3.12 and later); where neither is
there, hashlib's are used.  The digests are the same either way.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

_Hash = Callable[[bytes], Any]  # a constructor whose objects have digest()/hexdigest()


def builtin(name: str, modules: tuple[str, ...]) -> _Hash:
    """The constructor ``name`` from the first of ``modules`` that can be imported,
    else hashlib's."""
    for module in modules:
        try:
            found: _Hash = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
        return found
    import hashlib

    fallback: _Hash = getattr(hashlib, name)
    return fallback


@functools.cache
def _constructor(name: str) -> _Hash:
    # Found on first use: lint imports the modules that hash, and hashes nothing.
    return builtin(name, ("_sha1",) if name == "sha1" else ("_sha2", "_sha256"))


def sha1(data: bytes) -> bytes:
    digest: bytes = _constructor("sha1")(data).digest()
    return digest


def sha256(data: bytes) -> bytes:
    digest: bytes = _constructor("sha256")(data).digest()
    return digest


def sha256_hex(data: bytes) -> str:
    text: str = _constructor("sha256")(data).hexdigest()
    return text
