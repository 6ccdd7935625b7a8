"""etwmc.digest: the same digests as hashlib, from CPython's built-in modules."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from etwmc import digest

SAMPLES = [b"", b"abc", b"MS-WEVT\0" + "EventData".encode("utf-16-le"), bytes(range(256)) * 40]


@pytest.mark.parametrize("data", SAMPLES, ids=["empty", "abc", "wevt", "long"])
def test_digests_match_hashlib(data: bytes) -> None:
    assert digest.sha1(data) == hashlib.sha1(data).digest()
    assert digest.sha256(data) == hashlib.sha256(data).digest()
    assert digest.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_a_missing_builtin_module_falls_back_to_hashlib() -> None:
    made = digest.builtin("sha256", ("_etwmc_no_such_module",))
    assert made is hashlib.sha256
    assert made(b"abc").digest() == hashlib.sha256(b"abc").digest()


def test_hashing_does_not_load_openssl() -> None:
    probe = (
        "import sys\n"
        "from etwmc import digest\n"
        "digest.sha256(b'x'); digest.sha1(b'x')\n"
        "print('_hashlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
