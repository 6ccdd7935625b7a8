"""Templates (ETW501-ETW519).

* ``count`` and ``length`` are a number or the name of an integer ``<data>`` that comes
  *earlier* in the same scope (the template's top level, or the same struct): decoders
  read the payload front to back, so the size must be known before the array or string
  it sizes.  Naming nothing, a later item, a struct or a non-integer field is an error.
* win:Binary needs a ``length`` (it has no terminator); counted types
  (win:CountedUnicodeString, win:CountedAnsiString, win:CountedBinary) carry their own
  length and must not have one; a ``length`` on a fixed-size type is ignored by mc
  (a warning).
* A template has at most 99 top-level properties: message inserts stop at %99 (a
  struct counts once, as it does for the inserts).
* An unknown inType is an error (the payload cannot be decoded); an unknown outType,
  or one that does not go with the inType, is a warning: mc accepts them and the
  decoder falls back to the inType's default formatting.
* Every ``<data>`` and ``<struct>`` has a non-empty name (it names the event field).
* A template used by a ``<filter>`` describes filter data: no UserData, structs, arrays
  or maps (warnings: mc documents these limits but etwmc can still write the rest).
  mc also documents an explicit outType for each item, but compiles filter templates
  without one, so that is not reported.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .. import winmeta as wm
from ..codes import (
    E_BINARY_LENGTH,
    E_COUNTED_LENGTH,
    E_EXTENT_LATER,
    E_EXTENT_TYPE,
    E_EXTENT_UNKNOWN,
    E_NO_NAME,
    E_TOO_MANY_PROPERTIES,
    E_UNKNOWN_INTYPE,
    W_FILTER_TEMPLATE,
    W_FIXED_LENGTH,
    W_OUTTYPE,
)
from ..diagnostics import Diagnostic, diag
from ..model import Field, Manifest, Struct, Template
from ..winmeta import InTypeCode
from ._util import fields_of

# inTypes whose length is meaningful: characters of a string, bytes of binary data.
_LENGTH_CODES = frozenset({InTypeCode.UNICODE_STRING, InTypeCode.ANSI_STRING, InTypeCode.BINARY})


def template_items(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        for t in p.templates:
            yield from _scope(t, None, t.items)
            for s in t.items:
                if isinstance(s, Struct):
                    yield from _scope(t, s, s.fields)
            for f in fields_of(t):
                yield from _field(t, f)
            count = len(t.properties)
            if count > wm.MAX_TEMPLATE_PROPERTIES:
                yield diag(
                    E_TOO_MANY_PROPERTIES,
                    t.span,
                    f'<template tid="{t.tid}"> has {count} top-level properties; at most '
                    f"{wm.MAX_TEMPLATE_PROPERTIES} are allowed (message inserts stop at %99)",
                    hint="split the event, or group fields into a binary blob",
                )


def _where(t: Template, struct: Struct | None) -> str:
    if struct is None:
        return f"template '{t.tid}'"
    return f"struct '{struct.name}' of template '{t.tid}'"


def _scope(
    t: Template, struct: Struct | None, items: Sequence[Field | Struct]
) -> Iterator[Diagnostic]:
    """count/length references of the items of one scope (the template's top level, or
    ``struct``), and their names."""
    position: dict[str, int] | None = None  # made for the first reference by name
    for n, item in enumerate(items):
        kind = "struct" if isinstance(item, Struct) else "data"
        if not item.name.strip():
            yield diag(
                E_NO_NAME,
                item.span,
                f"a <{kind}> of {_where(t, struct)} has no name",
                hint=f'give it a name: <{kind} name="...">',
                attr="name",
            )
        if not isinstance(item.count, str) and not isinstance(item.length, str):
            continue
        if position is None:
            position = {i.name: n for n, i in reversed(list(enumerate(items))) if i.name}
        where = _where(t, struct)
        for attr in ("count", "length"):
            ref = getattr(item, attr)
            if not isinstance(ref, str):
                continue
            label = f'<{kind} name="{item.name}"> of {where}'
            target_at = position.get(ref)
            if target_at is None:
                yield diag(
                    E_EXTENT_UNKNOWN,
                    item.span,
                    f'{label} has {attr}="{ref}", but no data item of the same scope is named '
                    f"'{ref}'",
                    hint=f"write a number, or the name of an earlier integer <data> of the {where}",
                    attr=attr,
                )
                continue
            target = items[target_at]
            if target_at >= n:
                yield diag(
                    E_EXTENT_LATER,
                    item.span,
                    f"{label} has {attr}=\"{ref}\", but '{ref}' "
                    f"{'comes later' if target_at > n else 'is the item itself'}; the {attr} "
                    "must be known before the data it sizes",
                    hint=f"move <data name=\"{ref}\"> before '{item.name}'",
                    attr=attr,
                )
            elif isinstance(target, Struct):
                yield diag(
                    E_EXTENT_TYPE,
                    item.span,
                    f'{label} has {attr}="{ref}", which names a struct; it must name '
                    "an integer data item",
                    attr=attr,
                    hint="name a win:UInt8/UInt16/UInt32 <data> that holds the " + attr,
                )
            elif target.in_type is not None and target.in_type.code not in wm.COUNT_LENGTH_CODES:
                yield diag(
                    E_EXTENT_TYPE,
                    item.span,
                    f'{label} has {attr}="{ref}", which is a {target.in_type.qname}; '
                    "it must name an integer data item",
                    attr=attr,
                    hint="name a win:UInt8/UInt16/UInt32 <data> that holds the " + attr,
                )


def _label(t: Template, f: Field) -> str:
    return f"<data name=\"{f.name}\"> of template '{t.tid}'"


def _field(t: Template, f: Field) -> Iterator[Diagnostic]:
    # Most fields have no problem: a field's label is made only for one.
    it = f.in_type
    if it is None:
        if f.in_type_text.strip():
            yield diag(
                E_UNKNOWN_INTYPE,
                f.span,
                f'{_label(t, f)} has inType "{f.in_type_text}", which is not a win: input type',
                hint="use one of " + ", ".join(list(wm.IN_TYPES)[:6]) + ", ...",
                attr="inType",
            )
        return
    if it.code == InTypeCode.BINARY and f.length is None:
        yield diag(
            E_BINARY_LENGTH,
            f.span,
            f"{_label(t, f)} is win:Binary without a length; binary data has no terminator",
            hint='add length="N" or length="<name of an earlier size field>", or use '
            "win:CountedBinary",
            attr="inType",
        )
    if f.length is not None and it.is_counted:
        yield diag(
            E_COUNTED_LENGTH,
            f.span,
            f"{_label(t, f)} is {it.qname}, which carries its own length; it must not have a "
            "length attribute",
            hint="remove the length attribute",
            attr="length",
        )
    elif f.length is not None and it.size is not None and it.code not in _LENGTH_CODES:
        yield diag(
            W_FIXED_LENGTH,
            f.span,
            f"{_label(t, f)} is {it.qname}, a {it.size}-byte type; its length is ignored",
            hint="remove the length attribute (use count for an array)",
            attr="length",
        )
    if f.out_type_text is not None:
        if f.out_type is None:
            yield diag(
                W_OUTTYPE,
                f.span,
                f'{_label(t, f)} has outType "{f.out_type_text}", which is not a known output '
                f"type; it will be shown as {it.default_out}",
                hint=_outs_hint(it),
                attr="outType",
            )
        elif f.out_type.qname not in it.outs:
            yield diag(
                W_OUTTYPE,
                f.span,
                f"{_label(t, f)} has outType {f.out_type.qname}, which does not go with "
                f"inType {it.qname}",
                hint=_outs_hint(it),
                attr="outType",
            )


def _outs_hint(it: wm.InType) -> str:
    return f"{it.qname} takes " + ", ".join(it.outs) + f" (default {it.default_out})"


def filter_templates(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        seen: set[str] = set()
        for flt in p.filters:
            t = flt.template
            if t is None or t.tid in seen:
                continue
            seen.add(t.tid)
            where = f'<template tid="{t.tid}"> is used by <filter name="{flt.name}">'
            if t.user_data is not None:
                yield diag(
                    W_FILTER_TEMPLATE,
                    t.span,
                    f"{where} but has UserData",
                    hint="filter templates describe plain data items",
                )
            for item in t.items:
                if isinstance(item, Struct):
                    what: str | None = "is a struct"
                elif item.count is not None:
                    what = "is an array"
                elif item.map is not None:
                    what = "has a map"
                else:
                    what = None
                if what:
                    yield diag(
                        W_FILTER_TEMPLATE,
                        item.span,
                        f"{where}, and its item '{item.name}' {what}",
                        hint="filter data items are single values without maps",
                    )
