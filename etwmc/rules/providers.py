"""Providers (ETW530-ETW549).

* A provider name is 1-255 characters without ``> < & " | \\ : ' ? *`` or control
  characters: it becomes a registry key and an Event Log path.
* With ``controlGuid``, the provider name must end with the provider GUID: mc reads
  the last 32 hexadecimal digits of the name backwards, skipping any other character,
  and compares them with ``guid``.
* ``resourceFileName`` and ``messageFileName`` tell Windows where the compiled metadata
  and messages live.  An empty value is an error (as in mc); leaving the attribute out
  is a warning — the manifest can still be compiled and its code generated, but
  ``wevtutil im`` cannot install it for decoding.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..codes import E_CONTROL_GUID_NAME, E_EMPTY_FILE, E_PROVIDER_NAME, W_NO_FILE
from ..diagnostics import Diagnostic, diag
from ..model import Manifest
from ._util import name_problem

_HEX = frozenset("0123456789ABCDEFabcdef")


def guid_from_name_tail(name: str) -> str | None:
    """The last 32 hex digits of ``name`` read backwards (other characters skipped), as
    32 lower-case hex digits; None when the name has fewer than 32."""
    digits = [c for c in name if c in _HEX]
    if len(digits) < 32:
        return None
    return "".join(digits[-32:]).lower()


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
