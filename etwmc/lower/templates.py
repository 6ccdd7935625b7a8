"""Templates: ``<data>`` fields, ``<struct>`` groups, ``<binary>`` and ``<UserData>``.

Rules applied here (each reported with its own code):

* ``inType`` and ``outType`` are QNames; only ``win:`` in-types and ``win:``/``xs:``
  out-types are known (the text is kept as written either way, for the rules to check).
* ``count`` and ``length`` are constants or the names of other fields.
* ``<binary name="N"/>`` becomes two fields, as mc makes them: ``__binLength``
  (``win:UInt32``) and N (``win:Binary``, its length being ``__binLength``).  A
  ``<binary>`` without a name gets the field name ``binary``, with a warning
  (``ETW512``).
* ``<UserData>``'s first element is kept as an XML tree, with the namespace
  declarations each element adds.
"""

from __future__ import annotations

from lxml import etree

from .. import winmeta as wm
from ..codes import W_BINARY_NAME
from ..model import BINARY_LENGTH_FIELD, Field, Struct, Template, XmlNode
from .attributes import children, extent, qname
from .context import Lowering


def template(cx: Lowering, e: etree._Element) -> Template:
    items: list[Field | Struct] = []
    binary = None
    user_data = None
    for c in children(e):
        kind = c.tag.rpartition("}")[2]  # children() yields elements only
        if kind == "data":
            items.append(field(cx, c))
        elif kind == "struct":
            items.append(
                Struct(
                    name=c.get("name", ""),
                    fields=tuple(field(cx, d) for d in children(c, "data")),
                    length=extent(c.get("length")),
                    count=extent(c.get("count")),
                    span=cx.doc.span(c),
                )
            )
        elif kind == "binary":
            binary, fields = _binary(cx, c)
            items.extend(fields)
        elif kind == "UserData":
            root = next(iter(children(c)), None)
            if root is not None:
                user_data = xml_node(root)
    return Template(
        tid=e.get("tid", ""),
        name=e.get("name"),
        items=tuple(items),
        user_data=user_data,
        binary=binary,
        span=cx.doc.named_span(e, "template"),
    )


def field(cx: Lowering, e: etree._Element) -> Field:
    get = e.get  # one <data> of every template: each attribute read once
    in_text = get("inType", "")
    out_text = get("outType")
    nsmap = e.nsmap if in_text or out_text is not None else _NO_NSMAP
    uri, name = qname(nsmap, in_text) if in_text else ("", "")
    it = wm.in_type("win:" + name) if uri == wm.WIN_NS else None
    ot = None
    if out_text is not None:
        ouri, oname = qname(nsmap, out_text)
        prefix = "xs:" if ouri == wm.XS_NS else "win:" if ouri == wm.WIN_NS else None
        ot = wm.out_type(prefix + oname) if prefix else None
    length = get("length")
    count = get("count")
    return Field(
        name=get("name", ""),
        in_type=it,
        in_type_text=in_text,
        out_type=ot,
        out_type_text=out_text,
        map=get("map"),
        length=None if length is None else extent(length),
        count=None if count is None else extent(count),
        span=cx.doc.named_span(e, "data"),
    )


_NO_NSMAP: dict[str | None, str] = {}


def _binary(cx: Lowering, e: etree._Element) -> tuple[str, tuple[Field, Field]]:
    name = e.get("name")
    if name is None:
        # Which name mc gives an unnamed one is not known; Windows' own providers
        # mostly call this field 'binary'.
        cx.error(
            W_BINARY_NAME,
            e,
            "this <binary> has no name; etwmc calls its field 'binary', which need not "
            "be the name mc gives it",
            hint='name it: <binary name="BinaryData"/>',
        )
        name = "binary"
    span = cx.doc.span(e)
    length = Field(
        name=BINARY_LENGTH_FIELD,
        in_type=wm.in_type("win:UInt32"),
        in_type_text="win:UInt32",
        span=span,
    )
    data = Field(
        name=name,
        in_type=wm.in_type("win:Binary"),
        in_type_text="win:Binary",
        length=BINARY_LENGTH_FIELD,
        span=span,
    )
    return name, (length, data)


def xml_node(e: etree._Element) -> XmlNode:
    """``e`` and its element children as a frozen tree; each node's ``nsmap`` holds only
    the declarations its element adds to its parent's."""
    parent = e.getparent()
    # One walk in lxml reports each element's own namespace declarations ("start-ns",
    # before its "start"): cheaper than reading every element's nsmap, which lxml
    # builds from all its ancestors.  A declaration that repeats what is already in
    # scope adds nothing, as when the two nsmaps are compared.
    scope: dict[str | None, str] = dict(parent.nsmap) if parent is not None else {}
    declared: list[tuple[str, str]] = []
    # Per open element: the scope around it, its own declarations, its children so far.
    open_: list[tuple[dict[str | None, str], list[tuple[str | None, str]], list[XmlNode]]] = []
    root: XmlNode | None = None
    for event, item in etree.iterwalk(e, events=("start-ns", "start", "end")):
        if event == "start-ns":
            declared.append(item)
            continue
        if not isinstance(item.tag, str):
            continue
        if event == "start":
            own: list[tuple[str | None, str]] = []
            inner = scope
            if declared:
                inner = dict(scope)
                for prefix, uri in declared:
                    key = prefix or None
                    if scope.get(key) != uri:
                        own.append((key, uri))
                    inner[key] = uri
                declared = []
            open_.append((scope, own, []))
            scope = inner
            continue
        scope, own, kids = open_.pop()
        node = _xml_node(item, own, kids)
        if open_:
            open_[-1][2].append(node)
        else:
            root = node
    assert root is not None
    return root


def _ns_order(decl: tuple[str | None, str]) -> tuple[str, str]:
    return (decl[0] or "", decl[1])


def _xml_node(
    e: etree._Element, own: list[tuple[str | None, str]], children: list[XmlNode]
) -> XmlNode:
    tag = e.tag
    assert isinstance(tag, str)
    ns, _, name = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
    attrs = []
    for k, v in e.items():  # as e.attrib.items(), without the mapping view
        kns, _, kname = k[1:].partition("}") if k.startswith("{") else ("", "", k)
        attrs.append(((kns, kname), v))
    return XmlNode(
        tag=(ns, name),
        prefix=e.prefix,
        attrs=tuple(attrs),
        nsmap=tuple(sorted(own, key=_ns_order)) if own else (),
        text=e.text,
        children=tuple(children),
        tail=e.tail,
    )
