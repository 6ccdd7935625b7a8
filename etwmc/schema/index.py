"""A small index of etwmc.xsd, read from the schema file itself.

Diagnostics need to know, for an element in a manifest, which attributes and child
elements the schema allows there and of which type an attribute is.  Rather than
keep a second hand-written table, this module reads the XSD, which follows simple
conventions (see its header comment): every complex type is named and global, and
local elements and attributes name their types.

Rules:

* an element's type is found by walking from a global element down the child-element
  declarations of each type; inside extension content (``xs:any``) there is no type;
* a type's children are all ``xs:element`` declarations in its content model, with the
  largest ``maxOccurs`` they can reach and whether the model fixes their order;
* attribute types keep their XSD names (``GUIDType``, ``xs:boolean``) so that
  :mod:`etwmc.schema.explain` can word its messages by type.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from ..record import Record
from ..winmeta import EVENTS_NS

XSD_NS = "http://www.w3.org/2001/XMLSchema"
_XS = f"{{{XSD_NS}}}"
UNBOUNDED = 1 << 30


class AttrDecl(Record):
    """An attribute an element type of etwmc.xsd declares."""

    name: str
    type: str  # "GUIDType", "xs:boolean", ...
    required: bool


class TypeDecl:
    """A complex type, filled in while the schema is read."""

    __slots__ = (
        "name",
        "attrs",
        "children",
        "max_occurs",
        "ordered",
        "group_max",
        "order",
        "simple",
        "other_elements",
    )

    def __init__(self, name: str) -> None:
        self.name = name
        self.attrs: dict[str, AttrDecl] = {}
        self.children: dict[str, str] = {}  # element name -> type name
        self.max_occurs: dict[str, int] = {}  # element name -> max count
        self.ordered = False  # a sequence of several particles: order matters
        self.group_max = UNBOUNDED  # a top-level choice with a finite maxOccurs (channels: 8)
        self.order: list[str] = []  # for ordered types: "data/struct", "binary"
        self.simple = False  # simple-typed element (publishing/level ...)
        self.other_elements = False  # an xs:any for elements of other namespaces


class SchemaIndex(Record):
    """etwmc.xsd's global elements, complex types and enumerations, by name."""

    globals: dict[str, str]  # global element name -> type name
    types: dict[str, TypeDecl]
    enumerations: dict[str, tuple[str, ...]]  # simple type name -> allowed values

    def type_of_path(self, names: list[str]) -> TypeDecl | None:
        """The type of the element reached by ``names`` (local names from a global
        element down), or None inside extension content."""
        if not names or names[0] not in self.globals:
            return None
        current = self.types.get(self.globals[names[0]])
        for name in names[1:]:
            if current is None:
                return None
            child = current.children.get(name)
            current = self.types.get(child) if child else None
        return current

    def child_type(self, parent: TypeDecl, name: str) -> TypeDecl | None:
        child = parent.children.get(name)
        return self.types.get(child) if child else None


def _occurs(elem: etree._Element, attr: str) -> int:
    raw = elem.get(attr, "1")
    return UNBOUNDED if raw == "unbounded" else int(raw)


def _type_name(raw: str) -> str:
    # Types in the target namespace are written unprefixed in etwmc.xsd.
    return raw if raw.startswith("xs:") else raw.rpartition(":")[2]


def _collect_particles(group: etree._Element, decl: TypeDecl, factor: int) -> None:
    """Record the child elements of a model group, multiplying maxOccurs through
    nested groups so that ``max_occurs`` is what the whole model can hold."""
    for particle in group:
        if not isinstance(particle.tag, str):
            continue
        tag = particle.tag
        if tag == f"{_XS}element":
            name = particle.get("name") or ""
            decl.children[name] = _type_name(particle.get("type", "xs:anyType"))
            reach = min(UNBOUNDED, factor * _occurs(particle, "maxOccurs"))
            decl.max_occurs[name] = max(decl.max_occurs.get(name, 0), reach)
        elif tag in (f"{_XS}sequence", f"{_XS}choice"):
            inner = min(UNBOUNDED, factor * _occurs(particle, "maxOccurs"))
            _collect_particles(particle, decl, inner)
        elif tag == f"{_XS}any":
            decl.other_elements = True


def _particle_names(particle: etree._Element) -> str:
    if particle.tag == f"{_XS}element":
        return particle.get("name") or ""
    return "/".join(e.get("name") or "" for e in particle.iter(f"{_XS}element"))


def _read_complex(ct: etree._Element) -> TypeDecl:
    decl = TypeDecl(ct.get("name") or "")
    attr_owner: etree._Element = ct
    for child in ct:
        if not isinstance(child.tag, str):
            continue
        if child.tag in (f"{_XS}sequence", f"{_XS}choice"):
            top_max = _occurs(child, "maxOccurs")
            if child.tag == f"{_XS}choice" and top_max < UNBOUNDED:
                decl.group_max = top_max
            particles = [p for p in child if isinstance(p.tag, str)]
            decl.ordered = child.tag == f"{_XS}sequence" and len(particles) > 1
            if decl.ordered:
                decl.order = [_particle_names(p) for p in particles if _particle_names(p)]
            _collect_particles(child, decl, top_max)
        elif child.tag in (f"{_XS}simpleContent", f"{_XS}complexContent"):
            ext = child[0] if len(child) else None
            if ext is not None:
                attr_owner = ext
                decl.simple = child.tag == f"{_XS}simpleContent"
    for attr in attr_owner.iter(f"{_XS}attribute"):
        name = attr.get("name") or ""
        decl.attrs[name] = AttrDecl(
            name, _type_name(attr.get("type", "xs:string")), attr.get("use") == "required"
        )
    return decl


def read_index(path: Path) -> SchemaIndex:
    tree = etree.parse(str(path))
    root = tree.getroot()
    if root.get("targetNamespace") != EVENTS_NS:
        raise ValueError(f"{path} does not describe the manifest namespace")
    globals_: dict[str, str] = {}
    types: dict[str, TypeDecl] = {}
    enums: dict[str, tuple[str, ...]] = {}
    for child in root:
        if not isinstance(child.tag, str):
            continue
        if child.tag == f"{_XS}element":
            globals_[child.get("name") or ""] = _type_name(child.get("type") or "")
        elif child.tag == f"{_XS}complexType":
            decl = _read_complex(child)
            types[decl.name] = decl
        elif child.tag == f"{_XS}simpleType":
            values = tuple(e.get("value") or "" for e in child.iter(f"{_XS}enumeration"))
            if values:
                enums[child.get("name") or ""] = values
    return SchemaIndex(globals_, types, enums)
