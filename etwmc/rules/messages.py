"""Event message texts (ETW520-ETW529).

Event messages are FormatMessage strings: ``%1`` .. ``%99`` insert the event's
properties (numbered by the template's top-level items), ``%1!x!`` adds a printf-style
format, ``%%`` is a literal percent sign (``%%1234`` names a parameter string), and
``%n %r %t %b %. %! %0`` and ``% `` are escapes.  The rules:

* ``%n`` must name a property the event's template has (error);
* a message with inserts needs a template (error);
* ``%n!fmt`` must be closed with a second ``!`` (error).

Every culture's text is checked; problems are reported on the event.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..codes import E_INSERT_FORMAT, E_INSERT_NO_TEMPLATE, E_INSERT_RANGE
from ..diagnostics import Diagnostic, diag
from ..model import Event, Manifest
from ..msgformat import insert_fields
from ._util import event_label


def event_messages(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        for e in p.events:
            if e.message is None:
                continue
            for res in m.resources:
                s = res.strings.get(e.message)
                # Most messages insert nothing: only those with inserts are checked.
                if s is not None and "%" in s.value:
                    found = insert_fields(s.value)
                    if found:
                        yield from _check(e, found, e.message, res.culture)


def _check(
    e: Event, found: list[tuple[int, str | None, bool]], sid: str, culture: str
) -> Iterator[Diagnostic]:
    # Most messages are fine: the description of the place is made only for a problem.
    highest = 0
    for number, fmt, closed in found:
        if number > highest:
            highest = number
        if not closed:
            yield diag(
                E_INSERT_FORMAT,
                e.span,
                f"{_where(e, sid, culture)} has %{number}!{fmt} without the closing '!'",
                hint=f"write %{number}!{fmt}! (or %{number} alone)",
                attr="message",
            )
    if e.template is None:
        first = min(number for number, _, _ in found)
        yield diag(
            E_INSERT_NO_TEMPLATE,
            e.span,
            f"{_where(e, sid, culture)} inserts %{first}, but the event has no template, so "
            "there is nothing to insert",
            hint='add template="..." to the event, or write %% for a literal percent sign',
            attr="message",
        )
        return
    count = len(e.template.items)  # the top-level properties, which %n numbers
    if highest <= count:
        return
    beyond = sorted({number for number, _, _ in found if number > count})
    shown = ", ".join(f"%{n}" for n in beyond)
    yield diag(
        E_INSERT_RANGE,
        e.span,
        f"{_where(e, sid, culture)} inserts {shown}, but template '{e.template.tid}' has "
        f"{count} top-level {'property' if count == 1 else 'properties'}",
        hint=(
            f"inserts run from %1 to %{count}"
            if count
            else "the template has no properties: remove the inserts"
        ),
        attr="message",
    )


def _where(e: Event, sid: str, culture: str) -> str:
    return f"the message '{sid}' of {event_label(e)} (culture {culture})"
