"""``etwmc diff OLD NEW``: the changes between two versions of a manifest that break
decoders or consumers (what mc's baseline check, ``-s``/``-t``, is for).

Either side is a manifest, a compiled WEVT_TEMPLATE blob (``<base>TEMP.BIN``,
recognised by its ``CRIM`` signature) or a provider's resource DLL (its WEVT_TEMPLATE
resource), so a project can keep the blob or DLL of its last release as the baseline.

Rules.  Providers are matched by GUID, then by name.  Within a provider, events are
matched by (id, version); keywords, levels, tasks, opcodes, channels and maps by name.

Errors (ETW700-ETW739), each a change that makes an old decoder or consumer wrong:

- a provider removed, its GUID changed (same name) or its name changed (same GUID);
- an event (id + version) removed, or one whose payload layout (field names, inTypes,
  lengths, counts, structs), level, opcode, task or channel changed, whose keywords
  lost a bit, or that had no keywords and now has some (a session takes an event
  without keywords whatever it enables);
- a keyword, channel, level, task, opcode, map or map value removed; a keyword's
  mask, a level's, task's or opcode's value, a channel's value or type, or a map's
  kind changed.

Warnings (ETW740-ETW749): a field's outType or map changed (decoders still read the
payload but show it differently); a keyword, level, task or opcode renamed (same
value, new name).

Notes (ETW750-ETW769), safe changes: new providers, events, event versions, keywords,
levels, tasks, opcodes, channels, maps, map values; new or changed strings; keyword bits
added to an event that had keywords (a session's any/all keyword test only passes more
often for more bits).

What a blob does not store is not compared: channel types, strings, the provider name
of a CRIM 3.1 blob.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

from .codes import (
    E_BASELINE,
    E_CHANNEL_CHANGED,
    E_CHANNEL_REMOVED,
    E_EVENT_CHANNEL,
    E_EVENT_KEYWORDS,
    E_EVENT_LAYOUT,
    E_EVENT_LEVEL,
    E_EVENT_OPCODE,
    E_EVENT_REMOVED,
    E_EVENT_TASK,
    E_KEYWORD_MASK,
    E_KEYWORD_REMOVED,
    E_LEVEL_REMOVED,
    E_LEVEL_VALUE_CHANGED,
    E_MAP_KIND,
    E_MAP_REMOVED,
    E_MAP_VALUE_REMOVED,
    E_OPCODE_REMOVED,
    E_OPCODE_VALUE_CHANGED,
    E_PROVIDER_GUID,
    E_PROVIDER_NAME_CHANGED,
    E_PROVIDER_REMOVED,
    E_TASK_REMOVED,
    E_TASK_VALUE,
    N_EVENT_ADDED,
    N_EVENT_KEYWORDS_ADDED,
    N_EVENT_VERSION,
    N_ITEM_ADDED,
    N_MAP_VALUE_ADDED,
    N_PROVIDER_ADDED,
    N_STRING_ADDED,
    N_STRING_CHANGED,
    W_EVENT_FORMAT,
    W_RENAMED,
    Code,
)
from .diagnostics import Diagnostic, Severity, Span, diag, finalize
from .inputs import kind_of, load_blob, load_dll
from .model import Event, Extent, Field, Manifest, Map, Provider, Struct, Template
from .record import Record
from .validate import check_file
from .winmeta import IN_TYPES_BY_CODE, OUT_TYPES

_NEW_VERSION_HINT = "leave the old definition alone and add the change as a new event version"


class Side(Record):
    """One side of the comparison and what it can be trusted to hold."""

    manifest: Manifest
    from_blob: bool = False


# --------------------------------------------------------------------------- loading


def load(path: str | Path) -> tuple[Side | None, list[Diagnostic]]:
    """Read a manifest, a TEMP.BIN blob or a resource DLL (:mod:`etwmc.inputs`).

    A manifest is validated and its errors are returned (they make ``etwmc diff`` fail);
    the comparison still runs on its model when there is one, since most validation
    errors leave the rest of the manifest meaningful.
    """
    name = str(path)
    kind = kind_of(name)
    if kind != "manifest":
        if kind == "blob":
            manifest, problems = load_blob(name, code=E_BASELINE)
        else:  # a DLL's baseline is its WEVT_TEMPLATE: its strings are not compared
            manifest, problems = load_dll(name, messages=False, code=E_BASELINE)
        return (Side(manifest, from_blob=True) if manifest is not None else None), problems
    checked = check_file(name)
    errors = [d for d in checked.diagnostics if d.severity == Severity.ERROR]
    if checked.manifest is None:
        return None, errors
    return Side(checked.manifest), errors


# --------------------------------------------------------------------------- comparing


class _Out:
    def __init__(self) -> None:
        self.diags: list[Diagnostic] = []

    def add(self, c: Code, span: Span, message: str, hint: str | None = None) -> None:
        self.diags.append(diag(c, span, message, hint=hint))


def diff_manifests(old: Side | Manifest, new: Side | Manifest) -> list[Diagnostic]:
    """Every difference between ``old`` and ``new`` that the rules above name, sorted."""
    o = old if isinstance(old, Side) else Side(old)
    n = new if isinstance(new, Side) else Side(new)
    out = _Out()
    matched_new: set[int] = set()
    for op in o.manifest.providers:
        np_ = _match_provider(op, n.manifest.providers, matched_new)
        if np_ is None:
            out.add(
                E_PROVIDER_REMOVED,
                op.span,
                f"provider '{op.name}' {{{op.guid}}} is gone; consumers that enable it get nothing",
            )
            continue
        matched_new.add(id(np_))
        _provider(out, o, n, op, np_)
    for np_ in n.manifest.providers:
        if id(np_) not in matched_new:
            out.add(N_PROVIDER_ADDED, np_.span, f"new provider '{np_.name}' {{{np_.guid}}}")
    # A blob's string ids are made up from message ids: only manifests compare strings.
    if not (o.from_blob or n.from_blob):
        _strings(out, o.manifest, n.manifest)
    return finalize(out.diags)


def _match_provider(
    op: Provider, candidates: Sequence[Provider], taken: set[int]
) -> Provider | None:
    free = [c for c in candidates if id(c) not in taken]
    return next((c for c in free if c.guid == op.guid), None) or next(
        (c for c in free if c.name == op.name), None
    )


def _names_known(side: Side, p: Provider) -> bool:
    # A CRIM 3.1 blob stores no provider name; the reader makes one up from the GUID.
    return not (side.from_blob and p.name == f"Provider_{str(p.guid).upper()}")


def _provider(out: _Out, o: Side, n: Side, op: Provider, np_: Provider) -> None:
    if op.guid != np_.guid:
        out.add(
            E_PROVIDER_GUID,
            np_.span,
            f"provider '{np_.name}' changed its GUID from {{{op.guid}}} to {{{np_.guid}}}; "
            "sessions enable providers by GUID",
        )
    elif op.name != np_.name and _names_known(o, op) and _names_known(n, np_):
        out.add(
            E_PROVIDER_NAME_CHANGED,
            np_.span,
            f"provider {{{np_.guid}}} was renamed from '{op.name}' to '{np_.name}'; "
            "consumers and channel paths use the name",
        )
    what = f"provider '{np_.name}'"
    hex_ = "0x{:x}".format
    _named(
        out, what, "keyword", _user(op.keywords), _user(np_.keywords), lambda k: k.name,
        lambda k: k.mask, hex_, E_KEYWORD_REMOVED, E_KEYWORD_MASK, "mask",
    )  # fmt: skip
    _named(
        out, what, "level", _user(op.levels), _user(np_.levels), lambda lv: lv.name,
        lambda lv: lv.value, str, E_LEVEL_REMOVED, E_LEVEL_VALUE_CHANGED, "value",
    )  # fmt: skip
    _named(
        out, what, "task", _user(op.tasks), _user(np_.tasks), lambda t: t.name,
        lambda t: t.value, str, E_TASK_REMOVED, E_TASK_VALUE, "value",
    )  # fmt: skip
    _named(
        out, what, "opcode", _user(op.all_opcodes()), _user(np_.all_opcodes()),
        lambda x: (x.task or "", x.name),
        lambda x: x.value, str, E_OPCODE_REMOVED, E_OPCODE_VALUE_CHANGED, "value",
    )  # fmt: skip
    _channels(out, o, n, what, op, np_)
    _maps(out, what, op, np_)
    _events(out, what, op, np_)


_T = TypeVar("_T")


def _user(items: Iterable[_T]) -> list[_T]:
    """Items the manifest declares (``win:`` ones are not the manifest's to remove)."""
    return [i for i in items if not getattr(i, "builtin", False)]


def _named(
    out: _Out,
    what: str,
    kind: str,
    old: Sequence[_T],
    new: Sequence[_T],
    key: Callable[[_T], object],
    value: Callable[[_T], int],
    show: Callable[[int], str],
    removed: Code,
    changed: Code,
    value_word: str,
) -> None:
    """Keywords, levels, tasks, opcodes: matched by ``key``; a removed item whose value
    reappears under a new name is a rename (a warning), not a removal."""
    new_by_key = {key(x): x for x in new}
    old_keys = {key(x) for x in old}
    added = [x for x in new if key(x) not in old_keys]
    for x in old:
        name = _label(x)
        y = new_by_key.get(key(x))
        if y is not None:
            if value(x) != value(y):
                out.add(
                    changed,
                    _span(y),
                    f"{what}: {kind} '{name}' changed its {value_word} from "
                    f"{show(value(x))} to {show(value(y))}",
                )
            continue
        twin = next((a for a in added if value(a) == value(x)), None)
        if twin is not None:
            added.remove(twin)
            out.add(
                W_RENAMED,
                _span(twin),
                f"{what}: {kind} '{name}' ({value_word} {show(value(x))}) is now called "
                f"'{_label(twin)}'; decoders that show names show the new one",
            )
            continue
        out.add(
            removed,
            _span(x),
            f"{what}: {kind} '{name}' ({value_word} {show(value(x))}) was removed",
        )
    for a in added:
        out.add(
            N_ITEM_ADDED,
            _span(a),
            f"{what}: new {kind} '{_label(a)}' ({value_word} {show(value(a))})",
        )


def _label(x: object) -> str:
    task = getattr(x, "task", None)
    name = str(getattr(x, "name", "?"))
    return f"{task}/{name}" if isinstance(task, str) else name


def _span(x: object) -> Span:
    s = getattr(x, "span", None)
    return s if isinstance(s, Span) else Span("<unknown>")


def _channels(out: _Out, o: Side, n: Side, what: str, op: Provider, np_: Provider) -> None:
    # A win: channel an event names without listing it is not the provider's own.
    old_channels, new_channels = _user(op.channels), _user(np_.channels)
    new_by_name = {c.name: c for c in new_channels}
    old_names = {c.name for c in old_channels}
    for c in old_channels:
        d = new_by_name.get(c.name)
        if d is None:
            out.add(
                E_CHANNEL_REMOVED,
                c.span,
                f"{what}: channel '{c.name}' (value {c.value}) was removed; its subscribers "
                "and its events' channel byte lose their meaning",
            )
            continue
        changes = []
        if c.value != d.value:
            changes.append(f"value {c.value} -> {d.value}")
        if c.type != d.type and not (o.from_blob or n.from_blob):
            changes.append(f"type {c.type} -> {d.type}")
        if changes:
            out.add(
                E_CHANNEL_CHANGED,
                d.span,
                f"{what}: channel '{c.name}' changed: {', '.join(changes)}",
            )
    for d in new_channels:
        if d.name not in old_names:
            out.add(N_ITEM_ADDED, d.span, f"{what}: new channel '{d.name}' (value {d.value})")


def _maps(out: _Out, what: str, op: Provider, np_: Provider) -> None:
    new_by_name = {m.name: m for m in np_.maps}
    old_names = {m.name for m in op.maps}
    for m in op.maps:
        k = new_by_name.get(m.name)
        if k is None:
            out.add(E_MAP_REMOVED, m.span, f"{what}: {m.kind} map '{m.name}' was removed")
            continue
        if m.kind != k.kind:
            out.add(
                E_MAP_KIND,
                k.span,
                f"{what}: map '{m.name}' changed from a {m.kind} map to a {k.kind} map",
            )
            continue
        _map_items(out, what, m, k)
    for k in np_.maps:
        if k.name not in old_names:
            out.add(N_ITEM_ADDED, k.span, f"{what}: new {k.kind} map '{k.name}'")


def _map_items(out: _Out, what: str, m: Map, k: Map) -> None:
    old_values = {i.value for i in m.items}
    new_values = {i.value for i in k.items}
    show = (lambda v: f"0x{v:x}") if m.kind == "bit" else str
    for i in m.items:
        if i.value not in new_values:
            out.add(
                E_MAP_VALUE_REMOVED,
                k.span,
                f"{what}: map '{m.name}' lost value {show(i.value)}; decoders show the raw number",
            )
    for i in k.items:
        if i.value not in old_values:
            out.add(
                N_MAP_VALUE_ADDED, i.span, f"{what}: map '{k.name}' has a new value {show(i.value)}"
            )


# --------------------------------------------------------------------------- events


def _events(out: _Out, what: str, op: Provider, np_: Provider) -> None:
    new_by_key = {(e.value, e.version): e for e in np_.events}
    old_keys = {(e.value, e.version) for e in op.events}
    old_ids = {e.value for e in op.events}
    for e in op.events:
        f = new_by_key.get((e.value, e.version))
        if f is None:
            out.add(
                E_EVENT_REMOVED,
                e.span,
                f"{what}: event {_ev(e)} was removed; consumers that filter on it get nothing",
            )
            continue
        _event(out, what, e, f)
    for f in np_.events:
        if (f.value, f.version) in old_keys:
            continue
        if f.value in old_ids:
            out.add(N_EVENT_VERSION, f.span, f"{what}: new version {f.version} of event {f.value}")
        else:
            out.add(N_EVENT_ADDED, f.span, f"{what}: new event {_ev(f)}")


def _ev(e: Event) -> str:
    sym = f" ({e.symbol})" if e.symbol else (f" ({e.name})" if e.name else "")
    return f"{e.value} version {e.version}{sym}"


def _item_text(x: object | None) -> str:
    if x is None:
        return "none"
    return f"{getattr(x, 'name', '?')} ({getattr(x, 'value', 0)})"


def _event(out: _Out, what: str, e: Event, f: Event) -> None:
    where = f"{what}: event {_ev(f)}"

    def value_of(x: object | None) -> int:
        return int(getattr(x, "value", 0)) if x is not None else 0

    checks: list[tuple[Code, str, object | None, object | None]] = [
        (E_EVENT_LEVEL, "level", e.level, f.level),
        (E_EVENT_OPCODE, "opcode", e.opcode, f.opcode),
        (E_EVENT_TASK, "task", e.task, f.task),
        (E_EVENT_CHANNEL, "channel", e.channel, f.channel),
    ]
    for c, word, a, b in checks:
        if value_of(a) != value_of(b):
            out.add(
                c,
                f.span,
                f"{where} changed its {word} from {_item_text(a)} to {_item_text(b)}",
                hint=_NEW_VERSION_HINT,
            )
    _keywords(out, where, e, f, channel_changed=value_of(e.channel) != value_of(f.channel))
    old_layout, new_layout = _layout(e.template), _layout(f.template)
    if old_layout != new_layout:
        out.add(
            E_EVENT_LAYOUT,
            f.span,
            f"{where} changed its payload: {_layout_change(old_layout, new_layout)}",
            hint=_NEW_VERSION_HINT,
        )
    elif _format(e.template) != _format(f.template):
        out.add(
            W_EVENT_FORMAT,
            f.span,
            f"{where} shows its fields differently: {_format_change(e.template, f.template)}",
        )


def _keywords(out: _Out, where: str, e: Event, f: Event, *, channel_changed: bool) -> None:
    """A session takes an event whose keywords are 0, or that has a bit of its
    MatchAnyKeyword and every bit of its MatchAllKeyword.  Bits added to an event's
    keywords can only make those tests pass more often, so every session that took
    the event still does (a note).  Bits removed, or keywords given to an event that
    had none (which every session took), lose it from some sessions (an error).

    The keywords are the event descriptor's: the channel's bit included, since a
    session tests that too.  When the channel changed (ETW716 says so), its bit is left
    out, so one change is not reported twice."""
    old, new = _session_keywords(e), _session_keywords(f)
    old_bits, new_bits = (e.keyword_mask, f.keyword_mask) if channel_changed else (old, new)
    if old_bits == new_bits:
        return
    change = f"from 0x{old_bits:x} to 0x{new_bits:x}"
    if old == 0:
        out.add(
            E_EVENT_KEYWORDS,
            f.span,
            f"{where} changed its keywords {change}: every session took it without "
            "keywords, now only sessions that enable one of them do",
            hint=_NEW_VERSION_HINT,
        )
    elif old_bits & ~new_bits:
        out.add(
            E_EVENT_KEYWORDS,
            f.span,
            f"{where} changed its keywords {change}, losing 0x{old_bits & ~new_bits:x}: a "
            "session that enables only those (MatchAnyKeyword), or requires them "
            "(MatchAllKeyword), no longer receives it",
            hint=_NEW_VERSION_HINT,
        )
    else:
        out.add(
            N_EVENT_KEYWORDS_ADDED,
            f.span,
            f"{where} gained keywords 0x{new_bits & ~old_bits:x} ({change}): every session "
            "that took it still does, and sessions that enable the new keywords take it too",
        )


def _session_keywords(e: Event) -> int:
    return e.keyword_mask | (e.channel.keyword_bit if e.channel is not None else 0)


# A field's place in the payload: what a decoder needs to find the bytes.
_Slot = tuple[object, ...]


def _layout(t: Template | None) -> tuple[_Slot, ...]:
    if t is None:
        return ()
    return tuple(_slot(i) for i in t.items)


def _extent(x: Extent) -> Extent:
    # mc writes length="0" / count="0" as no length / count at all.
    return None if x == 0 else x


def _slot(i: Field | Struct) -> _Slot:
    if isinstance(i, Struct):
        fields = tuple(_slot(f) for f in i.fields)
        return ("struct", i.name, _extent(i.length), _extent(i.count), fields)
    code_ = i.in_type.code if i.in_type is not None else i.in_type_text
    return ("field", i.name, code_, _extent(i.length), _extent(i.count))


def _describe(slot: _Slot) -> str:
    if slot[0] == "struct":
        return f"struct '{slot[1]}'"
    t = IN_TYPES_BY_CODE.get(slot[2]) if isinstance(slot[2], int) else None
    extra = "".join(
        f" {word}={v}" for word, v in (("length", slot[3]), ("count", slot[4])) if v is not None
    )
    return f"'{slot[1]}' {t.qname if t else slot[2]}{extra}"


def _layout_change(old: tuple[_Slot, ...], new: tuple[_Slot, ...], inside: str = "") -> str:
    """The first difference, in words (``struct 'S' member 2 was ..., is now ...``)."""
    what = f"{inside}member" if inside else "field"
    for k, (a, b) in enumerate(zip(old, new, strict=False)):
        if a == b:
            continue
        if a[0] == b[0] == "struct" and a[1:4] == b[1:4]:
            members_a, members_b = a[4], b[4]
            assert isinstance(members_a, tuple) and isinstance(members_b, tuple)
            return _layout_change(members_a, members_b, f"struct '{a[1]}' ")
        return f"{what} {k + 1} was {_describe(a)}, is now {_describe(b)}"
    if len(new) > len(old):
        return f"{what} {len(old) + 1} {_describe(new[len(old)])} was added to an existing version"
    return f"{what} {len(new) + 1} {_describe(old[len(new)])} was removed"


def _fields(t: Template | None) -> list[Field]:
    if t is None:
        return []
    out: list[Field] = []
    for i in t.items:
        out.extend(i.fields if isinstance(i, Struct) else (i,))
    return out


def _out_code(f: Field) -> object:
    if f.out_type is not None:
        return f.out_type.code
    if f.in_type is not None:
        default = OUT_TYPES.get(f.in_type.default_out)
        return default.code if default is not None else f.in_type.default_out
    return f.out_type_text


def _format(t: Template | None) -> list[tuple[object, str | None]]:
    return [(_out_code(f), f.map) for f in _fields(t)]


def _format_change(a: Template | None, b: Template | None) -> str:
    parts = []
    for x, y in zip(_fields(a), _fields(b), strict=False):
        if _out_code(x) != _out_code(y):
            parts.append(f"'{y.name}' outType {_out_name(x)} -> {_out_name(y)}")
        if x.map != y.map:
            parts.append(f"'{y.name}' map {x.map or 'none'} -> {y.map or 'none'}")
    return "; ".join(parts)


def _out_name(f: Field) -> str:
    if f.out_type is not None:
        return f.out_type.qname
    return f.out_type_text or (f.in_type.default_out if f.in_type else "default")


# --------------------------------------------------------------------------- strings


def _strings(out: _Out, old: Manifest, new: Manifest) -> None:
    old_res = {r.culture.lower(): r for r in old.resources}
    for r in new.resources:
        before = old_res.get(r.culture.lower())
        if before is None:
            out.add(
                N_STRING_ADDED, r.span, f"new culture '{r.culture}' with {len(r.strings)} strings"
            )
            continue
        for sid in sorted(r.strings):
            s = r.strings[sid]
            was = before.strings.get(sid)
            if was is None:
                out.add(N_STRING_ADDED, s.span, f"{r.culture}: new string '{sid}'")
            elif was.value != s.value:
                out.add(N_STRING_CHANGED, s.span, f"{r.culture}: string '{sid}' has new text")


# --------------------------------------------------------------------------- command
