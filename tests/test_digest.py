"""etwmc.digest: SHA-1 and SHA-256 as hashlib computes them."""

from __future__ import annotations

import hashlib

import pytest

from etwmc import digest

SAMPLES = [b"", b"abc", b"MS-WEVT\0" + "EventData".encode("utf-16-le"), bytes(range(256)) * 40]


@pytest.mark.parametrize("data", SAMPLES, ids=["empty", "abc", "wevt", "long"])
def test_digests_match_hashlib(data: bytes) -> None:
    assert digest.sha1(data) == hashlib.sha1(data).digest()
    assert digest.sha256(data) == hashlib.sha256(data).digest()
    assert digest.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_known_answers() -> None:
    # FIPS 180 test vectors, so a wrong algorithm cannot pass by agreeing with itself.
    assert digest.sha1(b"abc").hex() == "a9993e364706816aba3e25717850c26c9cd0d89d"
    assert digest.sha256_hex(b"abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


@pytest.mark.parametrize(
    ("pieces", "data", "same"),
    [
        ([], b"", True),
        ([b"ab", b"c"], b"abc", True),
        ([b"ab", b"d"], b"abc", False),  # same length, last piece differs
        ([b"xb", b"c"], b"abc", False),  # the first piece differs
        ([b"ab"], b"abc", False),  # a prefix
        ([], b"abc", False),  # empty
        ([b"ab", b"cd"], b"abc", False),  # longer
    ],
)
def test_a_reading_compared_and_hashed_when_it_differs(
    pieces: list[bytes], data: bytes, same: bool
) -> None:
    got = digest.sha256_unless_equal(iter(pieces), data)
    assert got == (None if same else hashlib.sha256(b"".join(pieces)).digest())
