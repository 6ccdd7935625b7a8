"""Payload plans: each template becomes field specs for the runtime's generic encoder,
the event functions' parameters, and (for simple templates) an inlined encoder.

Templates of fixed-size scalars, GUIDs and NUL-terminated strings get an inlined encoder
(one precompiled ``struct.Struct`` per run of scalars).  Parameter types: int, float,
bool, str, bytes, uuid.UUID, datetime, ``str | bytes`` for SIDs; ``Sequence[...]`` for
arrays; a tuple (or a dict by member name) for a struct.  Count and length fields are
not parameters: they are filled in from the sequences and strings they measure.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..codes import E_UNRESOLVED
from ..diagnostics import Diagnostic, diag
from ..model import Field, Struct, Template
from ..naming import Kind, Scope
from ..winmeta import SCALAR_FORMATS, InTypeCode
from . import layout
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


@dataclass(frozen=True, slots=True)
class ParamCtx:
    """A parameter of an event's write function: its name, annotation and signature text."""

    name: str
    annotation: str
    text: str  # the parameter as its signature line(s) print it


# One statement of an inlined encoder: (struct variable, its arguments), or (string
# function or None for UTF-8, the parameter, the terminator literal).
Pack = tuple[str, list[str]]
Terminated = tuple[str | None, str, str]


class Plan:
    """One template's field specs (``name`` is the global that holds them), parameters,
    and (when possible) inlined encoder."""

    __slots__ = ("name", "spec", "params", "values", "inline", "_laid_out")

    def __init__(
        self,
        name: str,
        spec: list[str],
        params: list[ParamCtx],
        values: list[str],
        inline: list[Pack | Terminated] | None,
    ) -> None:
        self.name = name
        self.spec = spec  # the `_Field(...),` lines of the spec, indented
        self.params = params
        self.values = values  # per top-level item: its parameter, or "None" (derived)
        self.inline = inline
        self._laid_out: dict[tuple[int, int], list[str]] = {}

    def encoder(self, indent: int, dedent: int = 0) -> list[str] | None:
        """The inlined encoder's statements laid out at ``indent`` spaces, then shifted
        ``dedent`` spaces left (for a template that indents them back); None when the
        template has no inlined encoder.  Laid out once per indentation."""
        if self.inline is None:
            return None
        key = (indent, dedent)
        lines = self._laid_out.get(key)
        if lines is None:
            lines = _encoder(self.inline, " " * indent)
            if dedent:
                lines = ["\n".join(x[dedent:] for x in s.split("\n")) for s in lines]
            self._laid_out[key] = lines
        return lines


def _encoder(statements: list[Pack | Terminated], pad: str) -> list[str]:
    out: list[str] = []
    for statement in statements:
        target = "_payload +=" if out else "_payload ="
        if len(statement) == 2:
            var, args = statement
            body = "".join(f"{pad}    {a},\n" for a in args)
            out.append(f"{pad}{target} {var}.pack(\n{body}{pad})")
        else:
            function, name, end = statement
            out.append(layout.concat(pad, target, function, name, end))
    return out


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


def _py_type(f: Field) -> str:
    assert f.in_type is not None
    c = f.in_type.code
    base = "int" if c in SCALAR_FORMATS and c not in _PY_TYPES else _PY_TYPES[c]
    return f"Sequence[{base}]" if _count(f) is not None else base


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
    indent: str = "    ",
) -> tuple[list[str], list[bool], list[str]]:
    """Field-spec lines at ``indent``, which items are derived, and their Python types.
    :func:`_problems` reports what this reports, in the same order."""
    names = {it.name: i for i, it in enumerate(items) if isinstance(it, Field)}
    counted = _referenced(items)
    specs: list[str] = []
    derived: list[bool] = []
    types: list[str] = []
    for it in items:
        count, count_ref, ok1 = _extent(_count(it), names)
        length, length_ref, ok2 = _extent(_length(it), names)
        if not (ok1 and ok2):
            _unresolved(it, where, diags)
        is_derived = isinstance(it, Field) and it.name in counted
        members: list[str] = []
        if isinstance(it, Struct):
            members, m_derived, m_types = _specs(
                it.fields, where, aliases, diags, indent + "        "
            )
            user = tuple(t for t, d in zip(m_types, m_derived, strict=True) if not d)
            # A type alias per struct shape keeps signatures short.
            alias = aliases.setdefault(user, f"_Struct{len(aliases)}")
            types.append(f"Sequence[{alias}]" if _count(it) is not None else alias)
            code_: int = STRUCT_CODE
        else:
            if it.in_type is None:
                _unknown_in_type(it, where, diags)
                types.append("object")
                code_ = -1
            else:
                types.append(_py_type(it))
                code_ = it.in_type.code
        args = [pystr(it.name), str(int(code_))]
        for key, val in (
            ("count_const", count),
            ("count_ref", count_ref),
            ("length_const", length),
            ("length_ref", length_ref),
        ):
            if val != "None":
                args.append(f"{key}={val}")
        if is_derived:
            args.append("derived=True")
        if isinstance(it, Field) and _utf8(it):
            args.append("utf8=True")
        if isinstance(it, Struct):
            # Exploded with magic trailing commas: black keeps this shape at any width.
            specs.append(f"{indent}_Field(")
            specs.extend(f"{indent}    {a}," for a in args)
            specs.append(f"{indent}    members=_fields(")
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
    items: tuple[Field | Struct, ...], params: list[str], structs: dict[str, str]
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
        if _count(it) is not None or _length(it) is not None:
            return None
        c = it.in_type.code
        if c in SCALAR_FORMATS or c == _I.GUID:
            run_fmt += SCALAR_FORMATS.get(c, "16s")
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
) -> Plan:
    """The plan of template ``t``, whose specs the module will hold in ``spec_name``."""
    specs, derived, types = _specs(t.items, where, aliases, diags)
    scope = Scope(f"field of {where}", Kind.PARAM, PARAM_SCOPE)
    params: list[ParamCtx] = []
    values: list[str] = []
    names: list[str] = []
    for it, is_derived, ty in zip(t.items, derived, types, strict=True):
        name = scope.claim(it.name, it.span)
        names.append(name)
        if is_derived:
            values.append("None")
        else:
            params.append(ParamCtx(name, ty, layout.parameter(name, ty)))
            values.append(name)
    diags.extend(scope.diagnostics)
    inline = None if any(derived) else _inline(t.items, names, structs)
    return Plan(spec_name, specs, params, values, inline)


def template_problems(t: Template, where: str, diags: list[Diagnostic]) -> None:
    """What :func:`plan_template` reports for ``t``, in its order, without planning: the
    count and length references and inTypes, then the parameter names."""
    _problems(t.items, where, diags)
    scope = Scope(f"field of {where}", Kind.PARAM, PARAM_SCOPE)
    for it in t.items:
        scope.claim(it.name, it.span)
    diags.extend(scope.diagnostics)
