"""Providers and their message ids (ETW530-ETW549).

* A provider name is 1-255 characters without ``> < & " | \\ : ' ? *`` or control
  characters: it becomes a registry key and an Event Log path.
* With ``controlGuid``, the provider name must end with the provider GUID: mc reads
  the last 32 hexadecimal digits of the name backwards, skipping any other character,
  and compares them with ``guid``.
* ``resourceFileName`` and ``messageFileName`` tell Windows where the compiled metadata
  and messages live.  An empty value is an error (as in mc); leaving the attribute out
  is a warning — the manifest can still be compiled and its code generated, but
  ``wevtutil im`` cannot install it for decoding.
* Message ids carry a 4-bit provider index, so only the first 16 providers get unique
  automatic ids; from the 17th on the index wraps around (the 17th provider's ids are
  the 1st provider's).  Ids belong to strings: a string a ``<messageTable>`` entry names
  keeps that entry's id, and a string an earlier provider uses keeps the id it got
  there.  A provider after the 16th whose messages need new ids gets a warning, once,
  naming the ids that actually collide.  It is not an error because Windows' own
  multi-provider manifests (the kernel's, with 30-odd providers) are built this way:
  their providers install separate message files, where the ids do not meet.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..diagnostics import Diagnostic, Severity, code, diag
from ..model import Manifest
from . import rule
from ._msgids import Assigned, assign
from ._util import name_problem, plural

E_PROVIDER_NAME = code("ETW530", Severity.ERROR, "a provider name is not a legal provider name")
E_CONTROL_GUID_NAME = code(
    "ETW531", Severity.ERROR, "a provider with a controlGuid does not end its name with its GUID"
)
E_EMPTY_FILE = code(
    "ETW532", Severity.ERROR, "a provider's resourceFileName or messageFileName is empty"
)
W_NO_FILE = code(
    "ETW533", Severity.WARNING, "a provider has no resourceFileName or messageFileName"
)
W_MANUAL_IDS = code(
    "ETW535",
    Severity.WARNING,
    "a provider after the 16th has messages with automatic ids, which wrap around",
)

_HEX = re.compile(r"[0-9A-Fa-f]")
MAX_AUTO_PROVIDERS = 16


def guid_from_name_tail(name: str) -> str | None:
    """The last 32 hex digits of ``name`` read backwards (other characters skipped), as
    32 lower-case hex digits; None when the name has fewer than 32."""
    digits = [c for c in name if _HEX.match(c)]
    if len(digits) < 32:
        return None
    return "".join(digits[-32:]).lower()


@rule
def provider_attributes(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        label = f'<provider name="{p.name}">'
        problem = name_problem(p.name)
        if problem:
            yield diag(
                E_PROVIDER_NAME,
                p.span,
                f"{label} is not a legal provider name: {problem}",
                hint="provider names look like Company-Product-Component",
                attr="name",
            )
        if p.control_guid is not None and p.guid.int:
            tail = guid_from_name_tail(p.name)
            if tail != p.guid.hex:
                yield diag(
                    E_CONTROL_GUID_NAME,
                    p.span,
                    f"{label} has a controlGuid, so its name must end with its guid "
                    f"{{{p.guid}}}; "
                    + (
                        "the name ends with other hex digits"
                        if tail
                        else "the name has fewer than 32 hex digits"
                    ),
                    hint=f'name it e.g. "{p.name}{{{str(p.guid).upper()}}}"',
                    attr="name",
                )
        for attr, value in (
            ("resourceFileName", p.resource_file),
            ("messageFileName", p.message_file),
        ):
            if value is None:
                yield diag(
                    W_NO_FILE,
                    p.span,
                    f"{label} has no {attr}; the manifest cannot be installed with wevtutil "
                    "without it",
                    hint=f'add {attr}="%ProgramFiles%\\...\\your.dll" naming the '
                    "binary that will hold the compiled resources",
                )
            elif not value.strip():
                yield diag(
                    E_EMPTY_FILE,
                    p.span,
                    f"{label} has an empty {attr}",
                    hint="name the binary that holds the compiled resources",
                    attr=attr,
                )


@rule
def manual_message_ids(m: Manifest) -> Iterator[Diagnostic]:
    if len(m.providers) <= MAX_AUTO_PROVIDERS:
        return
    assigned = assign(m)
    by_id: dict[int, list[Assigned]] = {}
    for a in assigned.values():
        by_id.setdefault(a.id, []).append(a)
    for p in m.providers[MAX_AUTO_PROVIDERS:]:
        own = [a for a in assigned.values() if a.provider == p.index]
        if not own:
            continue
        clashes = [(a, b) for a in own for b in by_id[a.id] if b is not a]
        same = m.providers[p.index % MAX_AUTO_PROVIDERS]
        text = (
            f'provider "{p.name}" is the {_ordinal(p.index + 1)} of the manifest and '
            f"{plural(len(own), 'message')} of it get automatic ids; message ids have "
            f"room for {MAX_AUTO_PROVIDERS} providers, so its ids share the index of "
            f'provider "{same.name}"'
        )
        if clashes:
            a, b = clashes[0]
            text += (
                f"; '{a.string}' gets 0x{a.id:08X}, the id of '{b.string}' "
                f"({plural(len(clashes), 'clash', 'clashes')} in all)"
            )
        yield diag(
            W_MANUAL_IDS,
            p.span,
            text,
            hint='give its strings fixed ids with <messageTable><message value="..." '
            'message="$(string.ID)"/>, or move it to a manifest of its own',
        )


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
