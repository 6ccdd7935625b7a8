"""Payload plans: each template becomes field specs for the runtime's generic encoder,
the event functions' parameters, and (for simple templates) an inlined encoder.

Templates of fixed-size scalars, GUIDs and NUL-terminated strings get an inlined encoder
(one precompiled ``struct.Struct`` per run of scalars).  Parameter types: int, float,
bool, str, bytes, uuid.UUID, datetime, ``str | bytes`` for SIDs; ``Sequence[...]`` for
arrays; a tuple (or a dict by member name) for a struct.  Count and length fields are
not parameters: they are filled in from the sequences and strings they measure.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..codes import E_UNRESOLVED
from ..diagnostics import Diagnostic, diag
from ..model import Field, Struct, Template
from ..naming import Kind, Scope
from ..record import Record, slot_setters
from ..winmeta import SCALAR_FORMATS, InTypeCode
from . import layout
from .imports import Imports
from .literals import pystr
from .reserved import PARAM_SCOPE

_I = InTypeCode
STRUCT_CODE = _I.NULL  # the code the generic encoder uses for a <struct>

# The Python type of a value, for the inTypes that are not integers.
_PY_TYPES: dict[int, str] = {
    _I.UNICODE_STRING: "str", _I.ANSI_STRING: "str",
    _I.COUNTED_UNICODE_STRING: "str", _I.COUNTED_ANSI_STRING: "str",
    _I.FLOAT: "float", _I.DOUBLE: "float", _I.BOOLEAN: "bool",
    _I.BINARY: "bytes", _I.COUNTED_BINARY: "bytes", _I.GUID: "uuid.UUID",
    _I.FILETIME: "datetime", _I.SYSTEMTIME: "datetime", _I.SID: "str | bytes",
}  # fmt: skip
_ANSI = frozenset({_I.ANSI_STRING, _I.COUNTED_ANSI_STRING})
# A count or length that is none (a constant 0 is none: see _count).
_NONE = (None, 0)
# SCALAR_FORMATS as a plain dict: read for every field of every template planned.
_FORMATS: dict[int, str] = dict(SCALAR_FORMATS)


class ParamCtx(Record):
    """A parameter of an event's write function: its name and signature text."""

    name: str
    text: str  # the parameter as its signature line(s) print it
    doc: str  # what the docstring says of it (identifiers and fixed text)

    def __init__(self, name: str, text: str, doc: str) -> None:
        # Written out (etwmc.record): one per field of every template compiled.
        s = _PARAM_SLOTS
        s[0](self, name)
        s[1](self, text)
        s[2](self, doc)


_PARAM_SLOTS = slot_setters(ParamCtx)


# One statement of an inlined encoder: (struct variable, its arguments), or (string
# function or None for UTF-8, the parameter, the terminator literal).
Pack = tuple[str, list[str]]
Terminated = tuple[str | None, str, str]


class Plan:
    """One template's field specs (``name`` is the global that holds them), parameters,
    and (when possible) inlined encoder."""

    __slots__ = ("name", "spec", "params", "values", "inline", "names")

    def __init__(
        self,
        name: str,
        spec: list[str],
        params: list[ParamCtx],
        values: list[str],
        inline: list[Pack | Terminated] | None,
        names: list[str],
    ) -> None:
        self.name = name
        self.spec = spec  # the `_Field(...),` lines of the spec, indented
        self.params = params
        self.values = values  # per top-level item: its parameter, or "None" (derived)
        self.inline = inline
        self.names = names  # every top-level item's Python name, derived ones too

    def encoder(self, imports: Imports) -> list[str]:
        """The statements that encode the payload into ``_payload`` in a write function:
        the inlined encoder, or a call of the generic one."""
        if self.inline is not None:
            return _encoder(self.inline, "        ")
        head = f"_payload = {imports.use('_encode')}"
        return [call("        ", head, [self.name, *self.values])]


def _encoder(statements: list[Pack | Terminated], pad: str) -> list[str]:
    """One statement: a run of scalars packed, or a string and its terminator; several
    are joined in one ``b"".join``, which copies each piece once (concatenating them one
    after the other copies the payload built so far at every step)."""
    if len(statements) == 1:
        [statement] = statements
        if len(statement) == 2:
            var, args = statement
            return [call(pad, f"_payload = {var}.pack", args)]
        function, name, end = statement
        return [layout.concat(pad, "_payload =", function, name, end)]
    pieces: list[layout.Piece] = []
    for statement in statements:
        if len(statement) == 2:
            var, args = statement
            pieces.append(("call", f"{var}.pack", args))
        else:
            function, name, end = statement
            pieces += [("encode", function, name), ("atom", None, end)]
    return [layout.join(pad, "_payload =", pieces)]


def call(indent: str, head: str, arguments: list[str], tail: str = "") -> str:
    """``head(arguments)tail`` as black lays it out (:func:`.layout.call`, and for one
    argument, which black never follows with a comma, the same without it)."""
    if len(arguments) != 1:
        return layout.call(indent, head, arguments, tail)
    line = f"{indent}{head}({arguments[0]}){tail}"
    if len(line) <= layout.LINE_LENGTH:
        return line
    return f"{indent}{head}(\n{indent}    {arguments[0]}\n{indent}){tail}"


def _extent(value: int | str | None, names: dict[str, int]) -> tuple[str, str, bool]:
    """(constant literal, reference-index literal, resolved) for a count or length."""
    if value is None:
        return "None", "None", True
    if isinstance(value, int):
        return str(value), "None", True
    if value in names:
        return "None", str(names[value]), True
    return "None", "None", False


def _referenced(items: tuple[Field | Struct, ...] | tuple[Field, ...]) -> set[str]:
    out: set[str] = set()
    for it in items:
        for v in (it.count, it.length):
            if isinstance(v, str):
                out.add(v)
    return out


def _count(it: Field | Struct) -> int | str | None:
    """An item's count; a constant 0 is no count: mc's binary metadata stores none for
    it, so decoders read one value (and a NUL-terminated string for a length 0), and
    the module must write what they read."""
    return None if it.count == 0 else it.count


def _utf8(f: Field) -> bool:
    """ANSI strings are Windows-1252 unless their outType is win:Utf8."""
    return (
        f.in_type is not None
        and f.in_type.code in _ANSI
        and (f.out_type is not None and f.out_type.qname == "win:Utf8")
    )


def _length(it: Field | Struct) -> int | str | None:
    """Likewise, a constant length 0 is no length."""
    return None if it.length == 0 else it.length


def _py_type(code: int, counted: bool, imports: Imports) -> str:
    """The Python type of a field of inType ``code`` (a sequence of them when
    ``counted``: it has a count)."""
    base = "int" if code in _FORMATS and code not in _PY_TYPES else _PY_TYPES[code]
    if base in _TYPE_IMPORTS:
        imports.use(_TYPE_IMPORTS[base])
    if counted:
        return f"{imports.use('Sequence')}[{base}]"
    return base


# The annotations that name an import (for type checkers only).
_TYPE_IMPORTS: dict[str, str] = {"uuid.UUID": "uuid", "datetime": "datetime"}


def _doc(it: Field | Struct, names: dict[str, str], maps: Mapping[str, str]) -> str:
    """What a parameter's docstring line says: its inType (a struct's members), its
    map's enum, and its count and length (constants, or the fields that hold them)."""
    if isinstance(it, Struct):
        members = ", ".join(
            f"{names.get(m.name, m.name)} ({m.in_type.qname if m.in_type else m.in_type_text})"
            for m in it.fields
        )
        text = f"a struct of {members}, as a tuple or a dict by member name"
    else:
        text = it.in_type.qname if it.in_type else it.in_type_text
        if it.map is not None and it.map in maps:
            text += f", a {maps[it.map]} value"
        if it.count in _NONE and it.length in _NONE:
            return text + "."  # no count and no length (or constant 0s): most fields
    count, length = _count(it), _length(it)
    if isinstance(count, int):
        text = f"{count} values: {text}"
    elif isinstance(count, str):
        text = f"a sequence of {text}; its length goes in {names.get(count, count)}"
    if isinstance(length, int):
        text += f"; {length} units long (shorter is padded)"
    elif isinstance(length, str):
        text += f"; its length goes in {names.get(length, length)}"
    return text + "."


def _unresolved(it: Field | Struct, where: str, diags: list[Diagnostic]) -> None:
    diags.append(
        diag(
            E_UNRESOLVED,
            it.span,
            f"{where}: field {it.name!r} refers to a count or length field that is "
            "not in the same template or struct",
        )
    )


def _unknown_in_type(it: Field, where: str, diags: list[Diagnostic]) -> None:
    diags.append(diag(E_UNRESOLVED, it.span, f"{where}: field {it.name!r} has an unknown inType"))


def _specs(
    items: tuple[Field | Struct, ...] | tuple[Field, ...],
    where: str,
    aliases: dict[tuple[str, ...], str],
    diags: list[Diagnostic],
    imports: Imports,
    indent: str = "    ",
) -> tuple[list[str], list[bool], list[str]]:
    """Field-spec lines at ``indent``, which items are derived, and their Python types.
    :func:`_problems` reports what this reports, in the same order."""
    names = {it.name: i for i, it in enumerate(items) if isinstance(it, Field)}
    counted = _referenced(items)
    if items:
        imports.use("_Field")
    specs: list[str] = []
    derived: list[bool] = []
    types: list[str] = []
    for it in items:
        is_field = not isinstance(it, Struct)
        count = None if it.count in _NONE else it.count  # as _count and _length
        length = None if it.length in _NONE else it.length
        # `count_const=`/`count_ref=`, then `length_const=`/`length_ref=`, when present.
        extents: list[str] = []
        if count is not None or length is not None:
            resolved = True
            for key, value in (("count", count), ("length", length)):
                if value is None:
                    continue
                if isinstance(value, int):
                    extents.append(f"{key}_const={value}")
                elif value in names:
                    extents.append(f"{key}_ref={names[value]}")
                else:
                    resolved = False
            if not resolved:
                _unresolved(it, where, diags)
        is_derived = is_field and it.name in counted
        members: list[str] = []
        if isinstance(it, Struct):
            members, m_derived, m_types = _specs(
                it.fields, where, aliases, diags, imports, indent + "        "
            )
            user = tuple(t for t, d in zip(m_types, m_derived, strict=True) if not d)
            # A type alias per struct shape keeps signatures short.
            alias = aliases.setdefault(user, f"_Struct{len(aliases)}")
            seq = imports.use("Sequence") if count is not None else ""
            types.append(f"{seq}[{alias}]" if seq else alias)
            code_: int = STRUCT_CODE
        else:
            if it.in_type is None:
                _unknown_in_type(it, where, diags)
                types.append("object")
                code_ = -1
            else:
                code_ = it.in_type.code
                types.append(_py_type(code_, count is not None, imports))
        args = [pystr(it.name), str(int(code_)), *extents]
        if is_derived:
            args.append("derived=True")
        if code_ in _ANSI and isinstance(it, Field) and _utf8(it):
            args.append("utf8=True")
        if not is_field:
            # Exploded with magic trailing commas: black keeps this shape at any width.
            specs.append(f"{indent}_Field(")
            specs.extend(f"{indent}    {a}," for a in args)
            specs.append(f"{indent}    members={imports.use('_fields')}(")
            specs.extend(members)
            specs.append(f"{indent}    ),")
            specs.append(f"{indent}),")
        else:
            specs.append(layout.call(indent, "_Field", args, ","))
        derived.append(is_derived)
    return specs, derived, types


def _problems(
    items: tuple[Field | Struct, ...] | tuple[Field, ...], where: str, diags: list[Diagnostic]
) -> None:
    """What :func:`_specs` reports for ``items``, in its order, without building specs."""
    names = {it.name: i for i, it in enumerate(items) if isinstance(it, Field)}
    for it in items:
        if not (_extent(_count(it), names)[2] and _extent(_length(it), names)[2]):
            _unresolved(it, where, diags)
        if isinstance(it, Struct):
            _problems(it.fields, where, diags)
        elif it.in_type is None:
            _unknown_in_type(it, where, diags)


def _inline(
    items: tuple[Field | Struct, ...], params: list[str], structs: dict[str, str], imports: Imports
) -> list[Pack | Terminated] | None:
    """The statements that encode a simple template into ``_payload``, or None when it is
    not simple.

    Simple: no arrays, structs, lengths or derived counts; only fixed-size scalars,
    GUIDs (``16s`` of ``bytes_le``) and NUL-terminated strings.
    """
    # Struct variables are given out only once the whole template is known to be simple.
    runs: list[tuple[str, list[str]] | Terminated] = []
    run_fmt = ""
    run_args: list[str] = []
    for it, name in zip(items, params, strict=True):
        if not isinstance(it, Field) or it.in_type is None:
            return None
        if it.count not in _NONE or it.length not in _NONE:
            return None  # a count or a length (see _count)
        c = it.in_type.code
        if c in _FORMATS or c == _I.GUID:
            run_fmt += _FORMATS.get(c, "16s")
            run_args.append(f"{name}.bytes_le" if c == _I.GUID else name)
            continue
        if c not in (_I.UNICODE_STRING, _I.ANSI_STRING):
            return None
        if run_fmt:
            runs.append((run_fmt, run_args))
            run_fmt, run_args = "", []
        if c == _I.UNICODE_STRING:
            runs.append(("_u16", name, 'b"\\x00\\x00"'))
        elif _utf8(it):
            runs.append((None, name, 'b"\\x00"'))
        else:
            runs.append(("_ansi", name, 'b"\\x00"'))
    if run_fmt:
        runs.append((run_fmt, run_args))
    for r in runs:  # the string functions the statements call (the template is simple)
        if len(r) == 3 and r[0] is not None:
            imports.use(r[0])
    return [
        (structs.setdefault(r[0], f"_s{len(structs)}"), r[1]) if len(r) == 2 else r for r in runs
    ]


def plan_template(
    t: Template,
    spec_name: str,
    where: str,
    structs: dict[str, str],
    aliases: dict[tuple[str, ...], str],
    diags: list[Diagnostic],
    imports: Imports,
    maps: Mapping[str, str],
) -> Plan:
    """The plan of template ``t``, whose specs the module will hold in ``spec_name``;
    ``maps`` gives the enum (``NS.Name``) of each of the provider's maps, by name."""
    specs, derived, types = _specs(t.items, where, aliases, diags, imports)
    scope = Scope(f"field of {where}", Kind.PARAM, PARAM_SCOPE)
    names = [scope.claim(it.name, it.span) for it in t.items]
    by_manifest_name = {it.name: n for it, n in zip(t.items, names, strict=True)}
    params: list[ParamCtx] = []
    values: list[str] = []
    for it, name, is_derived, ty in zip(t.items, names, derived, types, strict=True):
        if is_derived:
            values.append("None")
        else:
            doc = _doc(it, by_manifest_name, maps)
            params.append(ParamCtx(name, layout.parameter(name, ty), doc))
            values.append(name)
    diags.extend(scope.diagnostics)
    inline = None if any(derived) else _inline(t.items, names, structs, imports)
    return Plan(spec_name, specs, params, values, inline, names)


def template_problems(t: Template, where: str, diags: list[Diagnostic]) -> None:
    """What :func:`plan_template` reports for ``t``, in its order, without planning: the
    count and length references and inTypes, then the parameter names."""
    _problems(t.items, where, diags)
    scope = Scope(f"field of {where}", Kind.PARAM, PARAM_SCOPE)
    for it in t.items:
        scope.claim(it.name, it.span)
    diags.extend(scope.diagnostics)
