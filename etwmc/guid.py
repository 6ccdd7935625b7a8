"""Provider GUIDs derived from names, and the lint hint about hand-made GUIDs.

The rule is the one .NET ``EventSource`` and TraceLogging use (and PerfView, TraceEvent,
``dotnet-trace``, go-winio and others repeat), so a tool that enables a provider *by
name* finds a provider whose GUID follows it:

1. upper-case the name (invariant; provider names are ASCII in practice);
2. SHA-1 over the 16 namespace bytes ``48 2C 2D B2 C3 90 47 C8 87 F8 1A 15 BF C1 30 FB``
   followed by the name in UTF-16 big-endian, no terminator;
3. keep the first 16 bytes and set the high nibble of byte 7 to 5;
4. read those bytes as a Windows GUID (first three fields little-endian).

mc.exe never derives a GUID (``guid=`` is required); this is a convenience.

:func:`guid_hint` is what ``etwmc lint`` calls for each manifest.  It says something
only about a GUID that a person evidently typed (see :func:`looks_hand_made`), because
two products that both typed ``11111111-2222-…`` collide in every trace session; a
GUID that looks random is never questioned, whatever the name.
"""

from __future__ import annotations

import re
import uuid
from typing import Final

from .codes import N_HAND_MADE_GUID
from .diagnostics import Diagnostic, diag
from .digest import sha1
from .model import Manifest

_NAMESPACE: Final = bytes.fromhex("482C2DB2C39047C887F81A15BFC130FB")


# What an EventSource / TraceLogging provider name looks like: no spaces, braces or
# other punctuation a name-based enable syntax (``*Name`` in PerfView, ``--providers``
# in dotnet-trace) could not carry.
_EVENTSOURCE_NAME = r"[A-Za-z0-9_][A-Za-z0-9_.\-]*\Z"  # compiled on first use

# A run this long of equal or consecutive digits is a 1-in-10^4 event in a random GUID.
_RUN: Final = 6
# Fewer distinct hex digits than this in 32 random ones is a 1-in-10^7 event.
_MIN_DISTINCT: Final = 8


def provider_guid(name: str) -> uuid.UUID:
    """The GUID EventSource and TraceLogging derive from a provider name."""
    digest = bytearray(sha1(_NAMESPACE + name.upper().encode("utf-16-be"))[:16])
    digest[7] = (digest[7] & 0x0F) | 0x50
    return uuid.UUID(bytes_le=bytes(digest))


def is_eventsource_name(name: str) -> bool:
    """True for names an EventSource or a by-name enable syntax can use as they are."""
    return bool(re.match(_EVENTSOURCE_NAME, name))


def looks_hand_made(guid: uuid.UUID) -> bool:
    """True when the GUID's digits show a pattern no generator produces.

    The patterns: fewer than 8 distinct hex digits (``00000000-…-000000000001``,
    ``deadbeef-dead-beef-…``), or a run of 6 or more digits that are all equal
    (``11111111-2222-…``) or step by +1 or -1 modulo 16 (``12345678-1234-…``,
    ``…-9abc-def012345678``).  Together these fire for about one random GUID in ten
    thousand, which is why what follows from them is a note and not a warning.
    """
    digits = [int(c, 16) for c in guid.hex]
    if len(set(digits)) < _MIN_DISTINCT:
        return True
    for step in (0, 1, 15):
        run = 1
        for prev, cur in zip(digits, digits[1:], strict=False):
            run = run + 1 if (cur - prev) % 16 == step else 1
            if run >= _RUN:
                return True
    return False


def guid_hint(manifest: Manifest) -> list[Diagnostic]:
    """Notes for providers whose GUID looks typed by hand.

    A GUID that equals the name-derived one is never reported, nor is any GUID that
    looks generated.  For an EventSource-style name the hint offers the derived GUID
    (what by-name tools will look for); for other names it suggests a random one.
    """
    out: list[Diagnostic] = []
    for p in manifest.providers:
        # The cheap test first: a GUID that looks generated needs no derived one.
        if not looks_hand_made(p.guid):
            continue
        derived = provider_guid(p.name)
        if p.guid == derived:
            continue
        if is_eventsource_name(p.name):
            hint = (
                f"use {{{derived}}}, the GUID derived from the name '{p.name}' "
                f"(`etwmc guid {p.name}`), which tools that enable providers by name compute"
            )
        else:
            # No example GUID: a random one would make the output differ between runs.
            hint = "use a randomly generated GUID (python -c 'import uuid; print(uuid.uuid4())')"
        out.append(
            diag(
                N_HAND_MADE_GUID,
                p.span,
                f"provider '{p.name}' has GUID {{{p.guid}}}, which looks typed by hand; "
                "any other provider that uses the same pattern collides with it in trace sessions",
                hint=hint,
                attr="guid",
            )
        )
    return out
