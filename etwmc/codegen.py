"""Model -> template context for the generated Python provider module.

Every decision lives here; the template only loops.  The steps, in order:

1. **Names** (:mod:`etwmc.naming`): one module scope (provider namespace classes, event
   descriptor constants and their ``write_``/``is_enabled_``/``start_``/``stop_``
   functions), one scope per namespace class, one per enum, one per event's parameters.
2. **Descriptors**: the values mc puts in each EVENT_DESCRIPTOR (:func:`descriptor`).
3. **Enable flags**: one flag per distinct (level, keyword) pair of a provider's events,
   in event order, exactly like mc's enable bits (:func:`enable_pairs`).
4. **Payload plans**: each template becomes a tuple of field specs for the module's
   generic encoder; templates of fixed-size scalars, GUIDs and NUL-terminated strings
   also get an inlined encoder (one precompiled ``struct.Struct`` per run of scalars).
   Parameter types: int, float, bool, str, bytes, uuid.UUID, datetime, ``str | bytes``
   for SIDs; ``Sequence[...]`` for arrays; a tuple (or a dict by member name) for a
   struct.  Count and length fields are not parameters: they are filled in from the
   sequences and strings they measure.
5. **Literals**: every manifest text goes through :func:`etwmc.render.pystr`; numbers
   are formatted from ints; GUIDs from :class:`uuid.UUID`.  Nothing else is emitted.
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass, field

from .diagnostics import Diagnostic, Severity, code, diag
from .model import Event, Field, Manifest, Provider, Struct, Template
from .naming import Kind, Scope, identifier
from .render import LINE_LENGTH, pybytes, pystr
from .runtime.traits import build_traits
from .winmeta import LEVELS, OPCODES, SCALAR_FORMATS

E_UNRESOLVED = code("ETW601", Severity.ERROR, "a template field cannot be turned into Python code")
E_TRAITS = code("ETW602", Severity.ERROR, "a provider's traits do not fit in 255 bytes")

# Names the generated module defines or imports itself.  Manifest names never start
# with "_" after naming, so the module's private names need no listing.
MODULE_NAMES = frozenset(
    {
        "Activity",
        "Backend",
        "EnableState",
        "EventDescriptor",
        "EventError",
        "Final",
        "Iterator",
        "NamedTuple",
        "PROVIDERS",
        "ProviderRuntime",
        "SOURCE",
        "Sequence",
        "TypeAlias",
        "annotations",
        "codecs",
        "compute_flags",
        "contextlib",
        "datetime",
        "enum",
        "pack_descriptor",
        "register",
        "registration",
        "set_capture_state_hook",
        "struct",
        "timedelta",
        "timezone",
        "unregister",
        "uuid",
    }
)
# Python's builtins (3.11-3.13, fixed so output does not depend on the interpreter).
BUILTINS = frozenset(
    """ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup
    BlockingIOError BrokenPipeError BufferError BytesWarning ChildProcessError
    ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError
    DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError Exception
    ExceptionGroup False FileExistsError FileNotFoundError FloatingPointError FutureWarning
    GeneratorExit IOError ImportError ImportWarning IndentationError IndexError
    InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError
    ModuleNotFoundError NameError None NotADirectoryError NotImplemented NotImplementedError
    OSError OverflowError PendingDeprecationWarning PermissionError ProcessLookupError
    PythonFinalizationError RecursionError ReferenceError ResourceWarning RuntimeError
    RuntimeWarning StopAsyncIteration StopIteration SyntaxError SyntaxWarning SystemError
    SystemExit TabError TimeoutError True TypeError UnboundLocalError UnicodeDecodeError
    UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning
    ValueError Warning ZeroDivisionError abs aiter all anext any ascii bin bool breakpoint
    bytearray bytes callable chr classmethod compile complex copyright credits delattr dict
    dir divmod enumerate eval exec exit filter float format frozenset getattr globals
    hasattr hash help hex id input int isinstance issubclass iter len license list locals
    map max memoryview min next object oct open ord pow print property quit range repr
    reversed round set setattr slice sorted staticmethod str sum super tuple type vars
    zip""".split()
)
# Attributes every provider namespace class has, and module names its body refers to.
NAMESPACE_NAMES = frozenset(
    {"NAME", "GUID", "CONTROL_GUID", "GROUP_GUID", "Level", "Keyword", "Opcode", "Task"}
    | {"Channel", "runtime", "enum", "uuid", "Final"}
)
PARAM_RESERVED = frozenset({"activity_id", "related_activity_id", "activity"})

STRUCT_CODE = 0  # the code the generic encoder uses for a <struct>

_PY_TYPES = {1: "str", 2: "str", 22: "str", 23: "str", 11: "float", 12: "float"}
_PY_TYPES |= {13: "bool", 14: "bytes", 25: "bytes", 15: "uuid.UUID", 17: "datetime"}
_PY_TYPES |= {18: "datetime", 19: "str | bytes"}

START_OPCODE = 1
STOP_OPCODE = 2


# --------------------------------------------------------------------------- context


@dataclass(slots=True)
class EnumCtx:
    name: str
    base: str  # "enum.IntEnum" or "enum.IntFlag"
    members: list[tuple[str, str]]  # (identifier, value literal)


@dataclass(slots=True)
class ParamCtx:
    name: str
    annotation: str


@dataclass(slots=True)
class EventCtx:
    ident: str
    write: str
    is_enabled: str
    start: str | None
    stop: str | None
    descriptor: tuple[int, int, int, int, int, int, str]  # keyword as a hex literal
    packed: str  # name of the packed-descriptor global
    flag: str
    runtime: str
    params: list[ParamCtx]
    spec: str | None  # name of the template's field-spec global (None: no payload)
    values: list[str]  # the values handed to the encoder (parameters, or None if derived)
    inline: list[str] | None  # inlined encoder statements, or None for the generic one
    doc: str  # docstring literal


@dataclass(slots=True)
class ProviderCtx:
    ns: str
    runtime: str
    name: str  # literal
    guid: str  # literal
    register_guid: str  # literal: the GUID ETW registration uses
    control_guid: str | None
    group_guid: str | None
    traits: str  # bytes literal
    enums: list[EnumCtx]
    maps: list[EnumCtx]
    flags: list[str]
    pairs: list[tuple[int, str]]
    on_enable: str
    events: list[EventCtx]


@dataclass(slots=True)
class SpecCtx:
    name: str
    lines: list[str]  # `_Field(...),` lines, struct members nested and indented


@dataclass(slots=True)
class ModuleCtx:
    version: str
    source: str  # literal
    providers: list[ProviderCtx] = field(default_factory=list)
    structs: list[tuple[str, str]] = field(default_factory=list)  # (name, format literal)
    specs: list[SpecCtx] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    aliases: list[tuple[str, str, bool]] = field(default_factory=list)  # (name, type, fits)


# --------------------------------------------------------------------------- rules


def descriptor(provider: Provider, event: Event) -> tuple[int, int, int, int, int, int, int]:
    """(id, version, channel, level, opcode, task, keyword) as mc writes them.

    Channel: the channel's value; with no channel, 12 (ProviderMetadata) for a provider
    with a controlGuid, else 0.  Keyword: the OR of the event's keywords plus the
    channel's bit (63 - position in the provider's ``<channels>`` list), if listed.
    """
    if event.channel is not None:
        channel = event.channel.value
        keyword = event.keyword_mask | event.channel.keyword_bit
    else:
        channel = 12 if provider.control_guid is not None else 0
        keyword = event.keyword_mask
    return (
        event.value,
        event.version,
        channel,
        event.level.value if event.level else 0,
        event.opcode.value if event.opcode else 0,
        event.task.value if event.task else 0,
        keyword,
    )


def enable_pairs(provider: Provider) -> tuple[list[tuple[int, int]], list[int]]:
    """mc's enable bits: the distinct (level, keyword) pairs in event order, and each
    event's bit index (events with ``notLogged`` included, as mc does)."""
    pairs: list[tuple[int, int]] = []
    index: dict[tuple[int, int], int] = {}
    bits: list[int] = []
    for ev in provider.events:
        d = descriptor(provider, ev)
        key = (d[3], d[6])
        if key not in index:
            index[key] = len(pairs)
            pairs.append(key)
        bits.append(index[key])
    return pairs, bits


def traits_blob(provider: Provider) -> bytes:
    """The provider-traits blob mc registers with (empty when mc registers none).

    mc emits traits when the provider has a controlGuid, a group GUID or
    ``includeName``: the name (or a lone NUL), the group trait and, for controlGuid
    providers, the decode-GUID trait (the provider GUID).  Raises ``ValueError`` when
    the blob would not fit in the 255 bytes ETW allows.
    """
    t = provider.traits
    group = t.group_guid if t else None
    include_name = bool(t and t.include_name)
    if provider.control_guid is None and group is None and not include_name:
        return b""
    return build_traits(
        provider.name if include_name else "",
        group,
        decode_guid=provider.guid if provider.control_guid is not None else None,
    )


def _traits(p: Provider, diags: list[Diagnostic]) -> bytes:
    try:
        return traits_blob(p)
    except ValueError as e:
        diags.append(
            diag(
                E_TRAITS,
                p.span,
                f"provider '{p.name}': {e}",
                hint='shorten the provider name or set includeName="false" in <traits>',
            )
        )
        return b""


def _local(name: str) -> str:
    return name.rsplit(":", 1)[-1]


def _guid(g: uuid.UUID) -> str:
    return f'uuid.UUID("{g}")'


def _hex(v: int) -> str:
    return f"0x{v:X}"


# --------------------------------------------------------------------------- enums


def _enum(
    name: str, base: str, items: list[tuple[str, int]], hexa: bool, file: str
) -> tuple[EnumCtx, list[Diagnostic]]:
    scope = Scope(f"member of {name}", Kind.MEMBER, file=file)
    members = [(scope.claim(text), _hex(v) if hexa else str(v)) for text, v in items]
    return EnumCtx(name, base, members), scope.diagnostics


def _provider_enums(
    manifest: Manifest, p: Provider, ns_scope: Scope
) -> tuple[list[EnumCtx], list[EnumCtx], list[Diagnostic]]:
    file = manifest.path
    diags: list[Diagnostic] = []
    enums: list[EnumCtx] = []

    def add(name: str, base: str, items: list[tuple[str, int]], hexa: bool = False) -> None:
        e, d = _enum(name, base, items, hexa, file)
        enums.append(e)
        diags.extend(d)

    win_levels = [(w.local, w.value) for w in LEVELS.values() if w.text]
    add("Level", "enum.IntEnum", win_levels + [(_local(lv.name), lv.value) for lv in p.levels])
    add("Keyword", "enum.IntFlag", [(_local(k.name), k.mask) for k in p.keywords], True)
    win_ops = [(w.local, w.value) for w in OPCODES.values() if w.text]
    ops = [(_local(o.name), o.value) for o in p.all_opcodes()]
    add("Opcode", "enum.IntEnum", win_ops + ops)
    add("Task", "enum.IntEnum", [(_local(t.name), t.value) for t in p.tasks])
    add("Channel", "enum.IntEnum", [(c.chid or c.name, c.value) for c in p.channels])

    maps: list[EnumCtx] = []
    for m in p.maps:
        items = []
        for item in m.items:
            text = item.symbol or manifest.text(item.message) or f"V{item.value}"
            items.append((text, item.value))
        base = "enum.IntFlag" if m.kind == "bit" else "enum.IntEnum"
        e, d = _enum(ns_scope.claim(m.name, m.span), base, items, m.kind == "bit", file)
        maps.append(e)
        diags.extend(d)
    return enums, maps, diags


# --------------------------------------------------------------------------- payloads


@dataclass(slots=True)
class _Plan:
    """One template's field specs, parameters and (when possible) inlined encoder."""

    spec: list[str]
    params: list[ParamCtx]
    values: list[str]  # per top-level item: its parameter name, or "None" (derived)
    inline: list[str] | None


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
        and f.in_type.code in (2, 23)
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


def _specs(
    items: tuple[Field | Struct, ...] | tuple[Field, ...],
    where: str,
    aliases: dict[str, str],
    diags: list[Diagnostic],
) -> tuple[list[str], list[bool], list[str]]:
    """Field-spec lines, which items are derived, and their Python types."""
    names = {it.name: i for i, it in enumerate(items) if isinstance(it, Field)}
    counted = _referenced(items)
    specs: list[str] = []
    derived: list[bool] = []
    types: list[str] = []
    for it in items:
        count, count_ref, ok1 = _extent(_count(it), names)
        length, length_ref, ok2 = _extent(_length(it), names)
        if not (ok1 and ok2):
            diags.append(
                diag(
                    E_UNRESOLVED,
                    it.span,
                    f"{where}: field {it.name!r} refers to a count or length field that is "
                    "not in the same template or struct",
                )
            )
        is_derived = isinstance(it, Field) and it.name in counted
        members: list[str] = []
        if isinstance(it, Struct):
            members, m_derived, m_types = _specs(it.fields, where, aliases, diags)
            user = [t for t, d in zip(m_types, m_derived, strict=True) if not d]
            tup = f"tuple[{', '.join(user)}]" if user else "tuple[()]"
            # A type alias per struct shape keeps signatures short (and black-stable).
            alias = aliases.setdefault(f"{tup} | dict[str, object]", f"_Struct{len(aliases)}")
            types.append(f"Sequence[{alias}]" if _count(it) is not None else alias)
            code_ = STRUCT_CODE
        else:
            if it.in_type is None:
                diags.append(
                    diag(E_UNRESOLVED, it.span, f"{where}: field {it.name!r} has an unknown inType")
                )
                types.append("object")
                code_ = -1
            else:
                types.append(_py_type(it))
                code_ = it.in_type.code
        args = [pystr(it.name), str(code_)]
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
            specs.append("_Field(")
            specs.extend(f"    {a}," for a in args)
            specs.append("    members=_fields(")
            specs.extend(f"        {line}" for line in members)
            specs.append("    ),")
            specs.append("),")
        else:
            specs.append(f"_Field({', '.join(args)}),")
        derived.append(is_derived)
    return specs, derived, types


def _inline(
    items: tuple[Field | Struct, ...], params: list[str], structs: dict[str, str]
) -> list[str] | None:
    """Statements that encode a simple template into ``_payload``, or None when it is not simple.

    Simple: no arrays, structs, lengths or derived counts; only fixed-size scalars,
    GUIDs (``16s`` of ``bytes_le``) and NUL-terminated strings.
    """
    segments: list[tuple[str, list[str]] | str] = []
    run_fmt = ""
    run_args: list[str] = []
    for it, name in zip(items, params, strict=True):
        if not isinstance(it, Field) or it.in_type is None:
            return None
        if _count(it) is not None or _length(it) is not None:
            return None
        c = it.in_type.code
        if c in SCALAR_FORMATS or c == 15:
            run_fmt += SCALAR_FORMATS.get(c, "16s")
            run_args.append(f"{name}.bytes_le" if c == 15 else name)
            continue
        if c not in (1, 2):
            return None
        if run_fmt:
            segments.append((run_fmt, run_args))
            run_fmt, run_args = "", []
        if c == 1:
            segments.append(f'_u16({name})[0] + b"\\x00\\x00"')
        elif _utf8(it):
            segments.append(f'{name}.encode() + b"\\x00"')
        else:
            segments.append(f'_ansi({name})[0] + b"\\x00"')
    if run_fmt:
        segments.append((run_fmt, run_args))
    lines: list[str] = []
    for seg in segments:
        op = "_payload =" if not lines else "_payload +="
        if isinstance(seg, str):
            lines.append(f"{op} {seg}")
            continue
        fmt, args = seg
        var = structs.setdefault(fmt, f"_s{len(structs)}")
        lines.append(f"{op} {var}.pack(")
        lines.extend(f"    {a}," for a in args)
        lines.append(")")
    return lines


def _plan(
    t: Template,
    where: str,
    structs: dict[str, str],
    aliases: dict[str, str],
    diags: list[Diagnostic],
) -> _Plan:
    specs, derived, types = _specs(t.items, where, aliases, diags)
    scope = Scope(f"field of {where}", Kind.PARAM, PARAM_RESERVED | BUILTINS)
    params: list[ParamCtx] = []
    values: list[str] = []
    names: list[str] = []
    for it, is_derived, ty in zip(t.items, derived, types, strict=True):
        name = scope.claim(it.name, it.span)
        names.append(name)
        if is_derived:
            values.append("None")
        else:
            params.append(ParamCtx(name, ty))
            values.append(name)
    diags.extend(scope.diagnostics)
    inline = None if any(derived) else _inline(t.items, names, structs)
    return _Plan(specs, params, values, inline)


# --------------------------------------------------------------------------- module


def _event_texts(events: tuple[Event, ...]) -> list[str]:
    """The name each event's Python names derive from: its symbol, else its name, else
    ``Event<id>``; versions of one event sharing a name get ``_v<version>``."""
    texts = [e.symbol or e.name or f"Event{e.value}" for e in events]
    shared = Counter(texts)
    return [
        f"{t}_v{e.version}" if shared[t] > 1 and e.version else t
        for t, e in zip(texts, events, strict=True)
    ]


def build_context(
    manifest: Manifest, *, version: str, source: str
) -> tuple[ModuleCtx, list[Diagnostic]]:
    """The template context for ``manifest``'s module, and the naming diagnostics."""
    diags: list[Diagnostic] = []
    file = manifest.path
    mod = Scope("name", Kind.GLOBAL, MODULE_NAMES | BUILTINS, file=file)
    ctx = ModuleCtx(version=version, source=pystr(source))
    structs: dict[str, str] = {}
    aliases: dict[str, str] = {}  # struct type text -> alias name
    plans: dict[int, tuple[str | None, _Plan]] = {}  # id(template) -> (spec name, plan)

    provider_names = [mod.claim(p.symbol or p.name, p.span) for p in manifest.providers]
    texts = [_event_texts(p.events) for p in manifest.providers]
    # An event name used by several providers of the manifest gets its provider's name
    # in front, in every provider that uses it.
    owners = Counter(t for ts in texts for t in set(ts))
    event_names = [
        [
            mod.claim(f"{ns}_{t}" if owners[t] > 1 else t, e.span)
            for t, e in zip(ts, p.events, strict=True)
        ]
        for p, ts, ns in zip(manifest.providers, texts, provider_names, strict=True)
    ]
    for pi, (p, ns) in enumerate(zip(manifest.providers, provider_names, strict=True)):
        ns_scope = Scope(f"name in {ns}", Kind.MEMBER, NAMESPACE_NAMES | BUILTINS, file=file)
        enums, maps, d = _provider_enums(manifest, p, ns_scope)
        diags.extend(d)
        diags.extend(ns_scope.diagnostics)
        pairs, bits = enable_pairs(p)
        first_flag = len(ctx.flags)
        flags = [f"_on_{first_flag + i}" for i in range(len(pairs))]
        ctx.flags.extend(flags)
        runtime = f"_p{pi}"
        pc = ProviderCtx(
            ns=ns,
            runtime=runtime,
            name=pystr(p.name),
            guid=_guid(p.guid),
            register_guid=_guid(p.control_guid or p.guid),
            control_guid=_guid(p.control_guid) if p.control_guid else None,
            group_guid=_guid(p.traits.group_guid) if p.traits and p.traits.group_guid else None,
            traits=pybytes(_traits(p, diags)),
            enums=enums,
            maps=maps,
            flags=flags,
            pairs=[(lv, _hex(kw)) for lv, kw in pairs],
            on_enable=f"_on_enable_{pi}",
            events=[],
        )
        for ev, ident, bit in zip(p.events, event_names[pi], bits, strict=True):
            if ev.not_logged:
                continue
            spec: str | None = None
            params: list[ParamCtx] = []
            values: list[str] = []
            inline: list[str] | None = []
            if ev.template is not None and ev.template.items:
                key = id(ev.template)
                if key not in plans:
                    name = f"_T{len(ctx.specs)}"
                    where = f"template {ev.template.tid!r}"
                    plan = _plan(ev.template, where, structs, aliases, diags)
                    ctx.specs.append(SpecCtx(name, plan.spec))
                    plans[key] = (name, plan)
                spec, plan = plans[key]
                params = plan.params
                values = plan.values
                inline = plan.inline
            d7 = descriptor(p, ev)
            opcode = d7[4]
            pc.events.append(
                EventCtx(
                    ident=ident,
                    write=mod.claim(f"write_{ident}"),
                    is_enabled=mod.claim(f"is_enabled_{ident}"),
                    start=mod.claim(f"start_{ident}") if opcode == START_OPCODE else None,
                    stop=mod.claim(f"stop_{ident}") if opcode == STOP_OPCODE else None,
                    descriptor=(*d7[:6], _hex(d7[6])),
                    packed=f"_d{sum(len(x.events) for x in ctx.providers) + len(pc.events)}",
                    flag=flags[bit],
                    runtime=runtime,
                    params=params,
                    spec=spec,
                    values=values,
                    inline=inline,
                    doc=f'"""Write this event: id {ev.value}, version {ev.version}."""',
                )
            )
        ctx.providers.append(pc)
    ctx.structs = [
        (var, f"_pointers({pystr('<' + fmt)})" if "P" in fmt else pystr("<" + fmt))
        for fmt, var in structs.items()
    ]
    for text, name in aliases.items():
        # black's shape: on one line when it fits, else the right-hand side in parentheses.
        one_line = len(f"{name}: TypeAlias = {text}") <= LINE_LENGTH
        ctx.aliases.append((name, text, one_line))
    diags.extend(mod.diagnostics)
    return ctx, diags


def module_name(base: str) -> str:
    """The Python module name for an output base name (``wpf-etw`` -> ``wpf_etw``)."""
    return identifier(base, Kind.PARAM)
