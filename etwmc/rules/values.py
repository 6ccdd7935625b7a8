"""Values and ranges (ETW201-ETW299).

The numeric spaces of ETW are shared between Windows and providers; these rules keep a
provider's own values inside the part Windows leaves to it:

* keyword masks have exactly one bit, and only bits 0-47 (48-63 belong to Windows:
  win: keywords and the per-channel bits mc adds to every event's keyword);
* user channel values are 16-255 (0-15 are the win: channels);
* user level values are 16-255 (0-15 are win: levels, 6-15 reserved);
* user opcode values are 10-239, provider-level and task-scoped alike (0-9 and 240-255
  are win: opcodes); a task-scoped opcode must not be named in the win: namespace;
* a task value of 0 is a warning, not an error: it is win:None, so the task cannot be
  told apart from "no task" (manifests rebuilt from installed metadata name that task
  "task_0", and are otherwise fine);
* event ids are 0-65535: the XML type allows 32 bits, the EVENT_DESCRIPTOR field has 16;
* channel names and chids are 1-255 characters without ``> < & " | \\ : ' ? *`` or
  control characters (they become registry keys and Event Log paths);
* an event written to an Admin channel has a level of Critical, Error, Warning or
  Informational, and should have a message (what the Event Viewer shows
  administrators).  A missing message is only a warning: mc requires it, but the
  event is still delivered and decoded, and real, working manifests omit it;
* a channel's ``access`` is an SDDL security descriptor;
* a bitMap item's value is a single bit (a warning: mc accepts any value, but the
  decoder tests each item as a flag, so a multi-bit item only shows when all its bits
  are set, and a zero item never shows).

Values above the width of their XML type (a level value of 300, a version of 256, a
task of 70000) and more than 8 channels in a provider are the schema's to report
(ETW122, ETW102), so they are not repeated here.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import winmeta as wm
from ..codes import (
    E_ACCESS,
    E_CHANNEL_CHID,
    E_CHANNEL_NAME,
    E_CHANNEL_VALUE,
    E_EVENT_VALUE,
    E_KEYWORD_BITS,
    E_KEYWORD_RESERVED,
    E_LEVEL_VALUE,
    E_OPCODE_VALUE,
    E_TASK_OPCODE_WIN,
    W_ADMIN_LEVEL,
    W_ADMIN_MESSAGE,
    W_BITMAP_VALUE,
    W_TASK_ZERO,
)
from ..diagnostics import Diagnostic, diag
from ..model import Channel, Manifest
from ._sddl import sddl_problem
from ._util import event_label, name_problem

_ADMIN_LEVELS = range(1, 5)


def keyword_masks(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        for k in p.keywords:
            bit = wm.keyword_bit(k.mask)
            if bit is None:
                set_bits = bin(k.mask).count("1")
                yield diag(
                    E_KEYWORD_BITS,
                    k.span,
                    f'<keyword name="{k.name}"> has mask 0x{k.mask:X} with {set_bits} bits set; '
                    "a keyword mask has exactly one bit set",
                    hint="give each keyword its own bit: 0x1, 0x2, 0x4, ... up to 0x800000000000",
                    attr="mask",
                )
            elif bit not in wm.USER_KEYWORD_BITS:
                yield diag(
                    E_KEYWORD_RESERVED,
                    k.span,
                    f'<keyword name="{k.name}"> has mask 0x{k.mask:X} (bit {bit}); bits 48-63 are '
                    "reserved for win: keywords and channel bits",
                    hint="use a free bit from 0 to 47 (mask 0x1 to 0x800000000000)",
                    attr="mask",
                )


def channels(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        for c in p.channels:
            if c.imported or c.builtin:
                continue
            yield from _channel(c)


def _channel(c: Channel) -> Iterator[Diagnostic]:
    label = f'<channel name="{c.name}">'
    if c.value_given and c.value < wm.USER_CHANNELS.start:
        yield diag(
            E_CHANNEL_VALUE,
            c.span,
            f"{label} has value {c.value}; channel values 0-15 belong to Windows and user "
            "channels take 16-255",
            hint="leave value out (the next free value from 16 is assigned) or pick 16-255",
            attr="value",
        )
    problem = name_problem(c.name)
    if problem:
        yield diag(
            E_CHANNEL_NAME,
            c.span,
            f"{label} is not a legal channel name: {problem}",
            hint="channel names are usually 'Provider-Name/Operational'",
            attr="name",
        )
    if c.chid is not None:
        chid_problem = "it is empty" if not c.chid.strip() else name_problem(c.chid)
        if chid_problem:
            yield diag(
                E_CHANNEL_CHID,
                c.span,
                f'{label} has chid="{c.chid}": {chid_problem}',
                hint="a chid is a short identifier such as 'Operational'",
                attr="chid",
            )
    if c.access is not None:
        sddl = sddl_problem(c.access)
        if sddl:
            yield diag(
                E_ACCESS,
                c.span,
                f'{label} has access="{c.access}", which is not a valid SDDL string: {sddl}',
                hint="write a security descriptor such as O:BAG:SYD:(A;;0xf0007;;;SY)(A;;0x7;;;BA)",
                attr="access",
            )


def admin_events(m: Manifest) -> Iterator[Diagnostic]:
    """Events of Admin channels are read by administrators in the Event Viewer: they
    need a message (a warning here; mc rejects it, but the event itself is fine) and
    a level from Critical to Informational.  The level rule is a warning too: Microsoft's
    documentation states it, but mc compiles Admin events that name no level
    (event-trace-kit's ImportChannelFromProvider.man at 8587e71 and its mc outputs)."""
    for p in m.providers:
        for e in p.events:
            if e.channel is None or e.channel.type != "Admin":
                continue
            chan = e.channel.chid or e.channel.name
            if e.message is None:
                yield diag(
                    W_ADMIN_MESSAGE,
                    e.span,
                    f"{event_label(e)} is written to the Admin channel '{chan}' but has no "
                    "message; the Event Viewer will say its description cannot be found",
                    hint='add message="$(string.ID)" describing the event for an administrator',
                )
            unknown = "level" in e.unresolved  # ETW401 already names it
            if not unknown and (e.level is None or e.level.value not in _ADMIN_LEVELS):
                shown = e.level.name if e.level else "no level (win:LogAlways)"
                yield diag(
                    W_ADMIN_LEVEL,
                    e.span,
                    f"{event_label(e)} is written to the Admin channel '{chan}' with {shown}; "
                    "Admin events are win:Critical, win:Error, win:Warning or win:Informational",
                    hint="use one of those levels, or write the event to an Operational channel",
                    attr="level" if e.level else None,
                )


def levels_opcodes_tasks(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        for lv in p.levels:
            if lv.value < wm.USER_LEVELS.start:
                yield diag(
                    E_LEVEL_VALUE,
                    lv.span,
                    f'<level name="{lv.name}"> has value {lv.value}; user levels take 16-255 '
                    "(0-15 belong to Windows)",
                    hint="pick a value from 16 to 255, or use a win: level such as win:Verbose",
                    attr="value",
                )
        for op in p.all_opcodes():
            if op.value not in wm.USER_OPCODES and op.value <= 0xFF:
                where = f" of task '{op.task}'" if op.task else ""
                yield diag(
                    E_OPCODE_VALUE,
                    op.span,
                    f'<opcode name="{op.name}">{where} has value {op.value}; user opcodes take '
                    "10-239 (0-9 and 240-255 are win: opcodes)",
                    hint="pick a value from 10 to 239, or use the win: opcode itself",
                    attr="value",
                )
        for t in p.tasks:
            if t.value == 0:
                yield diag(
                    W_TASK_ZERO,
                    t.span,
                    f'<task name="{t.name}"> has value 0, the value of win:None; its '
                    "events cannot be told apart from events without a task",
                    hint="pick a value from 1 to 65535",
                    attr="value",
                )
            for op in t.opcodes:
                if op.qname[0] == wm.WIN_NS:
                    yield diag(
                        E_TASK_OPCODE_WIN,
                        op.span,
                        f"<opcode name=\"{op.name}\"> of task '{t.name}' is in the win: "
                        "namespace; a task's own opcodes must not redefine win: opcodes",
                        hint="give the opcode a name of your own, or use the win: opcode "
                        "directly on the event",
                        attr="name",
                    )


def event_ids(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        for e in p.events:
            if 0xFFFF < e.value <= 0xFFFFFFFF:
                yield diag(
                    E_EVENT_VALUE,
                    e.span,
                    f"{event_label(e)} has id {e.value}; event ids are 16-bit (0-65535)",
                    hint="pick an id from 0 to 65535",
                    attr="value",
                )


def bitmap_items(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        for mp in p.maps:
            if mp.kind != "bit":
                continue
            for item in mp.items:
                if wm.keyword_bit(item.value) is None:
                    what = (
                        "0, which never shows"
                        if item.value == 0
                        else (f"0x{item.value:X}, which only shows when all of its bits are set")
                    )
                    yield diag(
                        W_BITMAP_VALUE,
                        item.span,
                        f'<bitMap name="{mp.name}"> has an item with value {what}; a bitMap '
                        "names single bits",
                        hint="give each item one bit (0x1, 0x2, 0x4, ...), or use a valueMap "
                        "for enumerated values",
                        attr="value",
                    )
