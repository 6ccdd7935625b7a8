"""Templates read back from TEMP records: their items, and the XML the BinXML stands for.

What the blob does not store is rebuilt by rule (see :mod:`etwmc.wevt.reader`):

- templates are named ``T0``, ``T1`` ... in order (their ``tid`` is not stored);
- ``count="0"``/``length="0"`` read as none, as mc stores them the same way; a SID's
  constant length is stored without its flag;
- an EventData template ending in mc's exact ``<binary>`` shape gets its ``<binary>``
  item back (:func:`_binary_item`);
- UserData formatting is not stored but the template id hashes it: the usual layouts
  (one child per line, with or without spaces around ``%n``) are tried against the
  stored id and the matching one is kept;
- a prefixed name keeps its prefix; the namespace URI is not stored, so it resolves to
  ``urn:etwmc:prefix:<prefix>`` (:func:`prefix_uri`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import quote

from .. import winmeta as wm
from ..diagnostics import Span
from ..model import BINARY_LENGTH_FIELD, Extent, Field, Map, Struct, Template, XmlNode
from ..winmeta import InTypeCode
from .binxml import encode_template
from .crim import PROP_FIXED_COUNT, PROP_FIXED_LENGTH, PROP_VAR_COUNT, PROP_VAR_LENGTH
from .reader_binxml import Element, Subst, Text, WevtError
from .reader_raw import RawProperty, RawTemplate

PREFIX_URI = "urn:etwmc:prefix:"


def prefix_uri(prefix: str) -> str:
    """The namespace URI a stored ``prefix:name`` resolves to (the blob keeps no URI).

    A prefix may hold characters a URI cannot: they are percent-encoded (UTF-8)."""
    return PREFIX_URI + quote(prefix, safe="")


def read_template(
    t: RawTemplate, index: int, by_map: Mapping[int, Map], *, span: Span, v3: bool
) -> Template:
    """The model of TEMP record ``t``, the ``index``-th of its provider (named ``T<index>``);
    ``by_map`` gives the maps its properties point at, by offset."""
    props = t.properties

    def extent(p: RawProperty, value: int, fixed: int, var: int) -> Extent:
        if p.flags & var:
            if value >= len(props):
                raise WevtError(
                    f"TEMP at 0x{t.offset:x}: property '{p.name}' refers to property {value}"
                )
            return props[value].name
        if p.flags & fixed:
            return value
        return None

    def field(p: RawProperty) -> Field:
        it = wm.IN_TYPES_BY_CODE.get(p.in_type)
        ot = wm.OUT_TYPES_BY_CODE.get(p.out_type)
        length = extent(p, p.length, PROP_FIXED_LENGTH, PROP_VAR_LENGTH)
        if length is None and p.in_type == InTypeCode.SID and p.length:
            length = p.length  # mc stores a SID's constant length without the flag
        mp = by_map.get(p.map_offset) if p.map_offset else None
        if p.map_offset and mp is None:
            raise WevtError(f"property '{p.name}' at TEMP 0x{t.offset:x} names no map")
        return Field(
            name=p.name,
            in_type=it,
            in_type_text=it.qname if it else str(p.in_type),
            out_type=ot,
            out_type_text=ot.qname if ot and p.out_type else None,
            map=mp.name if mp else None,
            length=length,
            count=extent(p, p.count, PROP_FIXED_COUNT, PROP_VAR_COUNT),
            span=span,
        )

    items: list[Field | Struct] = []
    # Struct members are disjoint runs after the top-level entries: overlapping runs
    # would let a small blob ask for a quadratic number of fields.
    member_total = sum(p.member_count for p in props[: t.param_count] if p.is_struct)
    if member_total > len(props) - t.param_count:
        raise WevtError(
            f"TEMP at 0x{t.offset:x}: structs claim {member_total} members, "
            f"but only {len(props) - t.param_count} member entries follow"
        )
    for p in props[: t.param_count]:
        if p.is_struct:
            members = props[p.first_member : p.first_member + p.member_count]
            if any(m.is_struct for m in members):
                raise WevtError(f"TEMP at 0x{t.offset:x}: struct '{p.name}' nests a struct")
            items.append(
                Struct(
                    name=p.name,
                    fields=tuple(field(m) for m in members),
                    length=extent(p, p.length, PROP_FIXED_LENGTH, PROP_VAR_LENGTH),
                    count=extent(p, p.count, PROP_FIXED_COUNT, PROP_VAR_COUNT),
                    span=span,
                )
            )
        else:
            items.append(field(p))
    name = None
    user_data = None
    binary = None
    if t.flags & 2 and t.root is not None:
        user_data = _user_data(t, tuple(items), v3)
    elif t.root is not None:
        for aname, value in t.root.attrs:
            if aname == "Name":
                name = "".join(v.text for v in value if isinstance(v, Text))
        binary = _binary_item(t)
    return Template(
        tid=f"T{index}",
        name=name,
        items=tuple(items),
        user_data=user_data,
        binary=binary,
        span=span,
    )


# The default outTypes of win:UInt32 and win:Binary, which mc stores for those two fields.
_UNSIGNED_INT = wm.OUT_TYPES["xs:unsignedInt"].code
_HEX_BINARY = wm.OUT_TYPES["xs:hexBinary"].code


def _binary_item(t: RawTemplate) -> str | None:
    """The name of the ``<binary>`` item an EventData template ends with, if it has one.

    Only the exact shape mc writes counts: the last two top-level entries are
    ``__binLength`` (UInt32, default outType, no flags) and a Binary field (default
    outType) whose variable length is ``__binLength``, and the last element of the
    BinXML is ``<Binary>`` holding only the Binary field's substitution."""
    n = t.param_count
    if t.root is None or n < 2 or not t.root.children:
        return None
    last = t.root.children[-1]
    size, data = t.properties[n - 2], t.properties[n - 1]
    shape = (
        isinstance(last, Element)
        and last.name == "Binary"
        and not last.attrs
        and last.children == [Subst(n - 1, InTypeCode.BINARY)]
        and size.name == BINARY_LENGTH_FIELD
        and (size.flags, size.in_type, size.out_type) == (0, InTypeCode.UINT32, _UNSIGNED_INT)
        and (size.map_offset, size.count, size.length) == (0, 0, 0)
        and (data.flags, data.in_type, data.out_type)
        == (PROP_VAR_LENGTH, InTypeCode.BINARY, _HEX_BINARY)
        and (data.map_offset, data.count, data.length) == (0, 0, n - 2)
    )
    return data.name if shape else None


# Source formatting the template id may have hashed: (tail after the last child, padding
# around a leaf's text).  BinXML keeps neither, so each is tried against the stored id.
_LAYOUTS = ((True, ""), (False, ""), (True, " "), (False, " "))


def _xml(
    e: Element, scope: dict[str | None, str], layout: tuple[bool, str] = _LAYOUTS[0]
) -> XmlNode:
    """A BinXML element as an :class:`XmlNode`; xmlns attributes become declarations."""
    decls: dict[str | None, str] = {}
    plain: list[tuple[str, str]] = []
    for aname, value in e.attrs:
        atext = _text(value)
        if aname == "xmlns":
            decls[None] = atext
        elif aname.startswith("xmlns:"):
            decls[aname[6:]] = atext
        else:
            plain.append((aname, atext))
    inner = {**scope, **decls}

    def resolve(name: str, default: bool) -> tuple[tuple[str, str], str | None]:
        prefix, sep, local = name.rpartition(":")
        if sep:
            return (inner.get(prefix, prefix_uri(prefix)), local), prefix
        return ((inner.get(None, "") if default else ""), name), None

    tag, prefix = resolve(e.name, True)
    text: str | None = None
    children: list[XmlNode] = []
    pending: list[str] = []
    for c in e.children:
        if isinstance(c, Element):
            if children:
                children[-1] = _with_tail(children[-1], "".join(pending) or None)
            else:
                text = "".join(pending) or None
            pending = []
            children.append(_xml(c, inner, layout))
        else:
            pending.append(_text([c]))
    if children:
        last_tail = "".join(pending) or ("\n" if layout[0] else None)
        children[-1] = _with_tail(children[-1], last_tail)
        # One child per line, as manifests are usually written.
        text = text or "\n"
        children[:-1] = [c if c.tail else _with_tail(c, "\n") for c in children[:-1]]
    else:
        text = "".join(pending) or None
        if text is not None and layout[1]:
            text = layout[1] + text + layout[1]
    return XmlNode(
        tag=tag,
        prefix=prefix,
        attrs=tuple((resolve(n, False)[0], v) for n, v in plain),
        nsmap=tuple(sorted(decls.items(), key=lambda pu: (pu[0] or "", pu[1]))),
        text=text,
        children=tuple(children),
    )


def _user_data(t: RawTemplate, items: tuple[Field | Struct, ...], v3: bool) -> XmlNode:
    """The UserData tree in the source layout whose template id matches the stored one."""
    assert t.root is not None
    first = _xml(t.root, {})
    for layout in _LAYOUTS:
        node = _xml(t.root, {}, layout)
        probe = Template(tid="", items=items, user_data=node)
        for legacy in (False, True) if v3 else (False,):
            if encode_template(probe, legacy_ids=legacy)[0] == t.guid.bytes_le:
                return node
    return first


def _with_tail(node: XmlNode, tail: str | None) -> XmlNode:
    return XmlNode(
        tag=node.tag,
        prefix=node.prefix,
        attrs=node.attrs,
        nsmap=node.nsmap,
        text=node.text,
        children=node.children,
        tail=tail,
    )


def _text(parts: Sequence[Text | Subst | Element]) -> str:
    return "".join(
        p.text if isinstance(p, Text) else f"%{p.index + 1}" if isinstance(p, Subst) else ""
        for p in parts
    )
