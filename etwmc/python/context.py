"""Model -> template context for the generated Python provider module.

Every decision lives here and in the modules it calls; the template only loops.  The
steps, in order:

1. **Names** (:mod:`etwmc.naming`): one module scope (provider namespace classes, event
   descriptor constants and their ``write_``/``is_enabled_``/``start_``/``stop_``
   functions), one scope per namespace class, one per enum, one per event's parameters.
2. **Descriptors and enable flags** (:mod:`.descriptors`): the values mc puts in each
   EVENT_DESCRIPTOR, and one flag per distinct (level, keyword) pair of a provider's
   events, in event order, exactly like mc's enable bits.
3. **Payload plans** (:mod:`.payload`): each template becomes a tuple of field specs for
   the module's generic encoder, the event functions' parameters, and for simple
   templates an inlined encoder.
4. **Event blocks** (:mod:`.events`): each event's statements, as one text made from
   what its template's events share and its own names and numbers.
5. **Literals**: every manifest text goes through :func:`.literals.pystr`; numbers are
   formatted from ints; GUIDs from :class:`uuid.UUID`.  Nothing else is emitted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..descriptors import (
    START_OPCODE,
    STOP_OPCODE,
    checked_traits,
    descriptor,
    enable_pairs,
)
from ..diagnostics import Diagnostic
from ..model import Event, Manifest, Provider
from ..naming import Kind, Scope, identifier
from ..record import Record, slot_setters
from ..winmeta import LEVELS, OPCODES
from . import layout
from .events import EnumNames, EventBlocks, Shape, local
from .imports import Imports
from .literals import pybytes, pystr
from .payload import plan_template, template_problems
from .reserved import MODULE_SCOPE, NAMESPACE_SCOPE

# --------------------------------------------------------------------------- context
# What the template reads.  Statements that can outgrow a line are laid out here
# (:mod:`.layout`), so the template only prints them.


class EnumCtx(Record):
    """An enumeration class of the generated module: its head and member lines."""

    name: str
    head: str  # the class statement
    members: list[str]  # one assignment per member


class EventCtx(Record):
    """One event of the generated module: its names, its enable flag, and its
    statements (:meth:`.events.EventBlocks.block`)."""

    ident: str
    functions: tuple[str, str, str | None, str | None]  # write, is_enabled, start, stop
    flag: str
    text: str  # the event's statements (each line ends with a newline)

    def __init__(
        self,
        ident: str,
        functions: tuple[str, str, str | None, str | None],
        flag: str,
        text: str,
    ) -> None:
        # Written out (etwmc.record): one per event of a manifest.
        s = _EVENT_SLOTS
        s[0](self, ident)
        s[1](self, functions)
        s[2](self, flag)
        s[3](self, text)

    @property
    def write(self) -> str:
        return self.functions[0]

    @property
    def is_enabled(self) -> str:
        return self.functions[1]

    @property
    def start(self) -> str | None:
        """The start_ function of a Start event (None for others)."""
        return self.functions[2]

    @property
    def stop(self) -> str | None:
        """The stop_ function of a Stop event (None for others)."""
        return self.functions[3]


_EVENT_SLOTS = slot_setters(EventCtx)


class ProviderCtx(Record):
    """One provider's part of the generated module: its namespace class, enumerations,
    enable flags and events."""

    ns: str
    runtime: str
    name: str  # literal
    name_assign: str  # the NAME assignment in the namespace class
    guid: str  # GUID text
    register_guid: str  # the text of the GUID ETW registration uses
    control_guid: str | None  # GUID text
    group_guid: str | None  # GUID text
    traits: str  # bytes literal
    enums: list[EnumCtx]  # Level, Keyword, Opcode, Task, Channel, then the maps
    flags: list[str]
    pairs_name: str
    pairs: list[tuple[int, str]]
    on_enable: str
    events: list[EventCtx]
    layouts: list[str]  # `(event id, version): field specs` for payload filters


class SpecCtx(Record):
    """A payload layout of the generated module: the field specs of one template."""

    name: str
    lines: list[str]  # the `_Field(...),` statements, struct members nested


class ModuleCtx(Record):
    """The whole generated module, as the template prints it."""

    generated_by: str  # "etwmc 1.2.3", or "etwmc" when the version is left out
    source_assign: str
    imports: str  # the import block, TYPE_CHECKING and its block
    aliases: list[str]  # TypeAlias assignments (quoted values)
    flags: list[str]
    structs: list[str]  # struct.Struct assignments
    specs: list[SpecCtx]
    providers: list[ProviderCtx]


# --------------------------------------------------------------------------- rules


def _hex(v: int) -> str:
    return f"0x{v:X}"


# --------------------------------------------------------------------------- enums


def _enum(
    name: str, base: str, items: list[tuple[str, int]], hexa: bool, file: str, render: bool
) -> tuple[EnumCtx | None, list[str], list[Diagnostic]]:
    """An enum class and its member names (claimed in order, rendered or not)."""
    scope = Scope(f"member of {name}", Kind.MEMBER, file=file)
    names = [scope.claim(text) for text, _ in items]
    if not render:
        return None, names, scope.diagnostics
    members = [
        layout.assign("        ", member, _hex(v) if hexa else str(v))
        for member, (_, v) in zip(names, items, strict=True)
    ]
    return EnumCtx(name, layout.class_head("    ", name, base), members), names, scope.diagnostics


def _provider_enums(
    manifest: Manifest, p: Provider, ns_scope: Scope, render: bool
) -> tuple[list[EnumCtx], EnumNames, dict[str, str], list[Diagnostic]]:
    """The provider's enums, the member names of its items, and each map's class name
    by map name."""
    file = manifest.path
    diags: list[Diagnostic] = []
    enums: list[EnumCtx] = []
    found: EnumNames = {}

    def add(
        name: str,
        base: str,
        items: list[tuple[str, int]],
        keys: Sequence[object],
        hexa: bool = False,
    ) -> None:
        e, names, d = _enum(name, base, items, hexa, file, render)
        if e is not None:
            enums.append(e)
        found.update(zip(keys, names, strict=True))
        diags.extend(d)

    win_levels = [w for w in LEVELS.values() if w.text]
    add(
        "Level",
        "enum.IntEnum",
        [(w.local, w.value) for w in win_levels] + [(local(lv.name), lv.value) for lv in p.levels],
        [("level", w.value) for w in win_levels] + [("level", lv.value) for lv in p.levels],
    )
    add(
        "Keyword",
        "enum.IntFlag",
        [(local(k.name), k.mask) for k in p.keywords],
        [id(k) for k in p.keywords],
        True,
    )
    win_ops = [w for w in OPCODES.values() if w.text]
    ops = p.all_opcodes()
    add(
        "Opcode",
        "enum.IntEnum",
        [(w.local, w.value) for w in win_ops] + [(local(o.name), o.value) for o in ops],
        [("win", w.local) for w in win_ops] + [id(o) for o in ops],
    )
    add(
        "Task",
        "enum.IntEnum",
        [(local(t.name), t.value) for t in p.tasks],
        [id(t) for t in p.tasks],
    )
    add(
        "Channel",
        "enum.IntEnum",
        [(c.chid or c.name, c.value) for c in p.channels],
        [id(c) for c in p.channels],
    )

    maps: dict[str, str] = {}
    for m in p.maps:
        items = []
        for item in m.items:
            text = item.symbol or manifest.text(item.message) or f"V{item.value}"
            items.append((text, item.value))
        base = "enum.IntFlag" if m.kind == "bit" else "enum.IntEnum"
        cls = ns_scope.claim(m.name, m.span)
        maps[m.name] = cls
        add(cls, base, items, [None] * len(items), m.kind == "bit")
    found.pop(None, None)
    return enums, found, maps, diags


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
    manifest: Manifest, *, version: str | None, source: str
) -> tuple[ModuleCtx, list[Diagnostic]]:
    """The template context for ``manifest``'s module, and the naming diagnostics."""
    ctx, diags = _build(manifest, version, source, render=True)
    assert ctx is not None
    return ctx, diags


def context_diagnostics(manifest: Manifest) -> list[Diagnostic]:
    """What :func:`build_context` reports for ``manifest``, found by the same walk
    (every name claimed in the same order, every template checked) without laying out
    the module's statements: ``etwmc lint`` runs it on every manifest."""
    return _build(manifest, "", "", render=False)[1]


def _build(
    manifest: Manifest, version: str | None, source: str, *, render: bool
) -> tuple[ModuleCtx | None, list[Diagnostic]]:
    diags: list[Diagnostic] = []
    file = manifest.path
    mod = Scope("name", Kind.GLOBAL, MODULE_SCOPE, file=file)
    imp = Imports()
    structs: dict[str, str] = {}
    aliases: dict[tuple[str, ...], str] = {}  # struct member types -> alias name
    shapes: dict[int, Shape] = {}  # id(template) -> what its events share
    no_payload = Shape(None, imp)
    checked: set[int] = set()  # id(template), when not rendering
    specs: list[SpecCtx] = []
    all_flags: list[str] = []
    providers: list[ProviderCtx] = []
    packed_count = 0

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
        ns_scope = Scope(f"name in {ns}", Kind.MEMBER, NAMESPACE_SCOPE, file=file)
        enums, enum_names, map_classes, d = _provider_enums(manifest, p, ns_scope, render)
        diags.extend(d)
        diags.extend(ns_scope.diagnostics)
        descriptors = [descriptor(p, ev) for ev in p.events]
        traits_bytes = checked_traits(p, diags)
        if not render:
            for ev, ident, d7 in zip(p.events, event_names[pi], descriptors, strict=True):
                if ev.not_logged:
                    continue
                if ev.template is not None and ev.template.items and id(ev.template) not in checked:
                    checked.add(id(ev.template))
                    template_problems(ev.template, f"template {ev.template.tid!r}", diags)
                _claim_functions(mod, ident, d7.opcode)
            continue
        # What every provider's part of the module uses (see the template).
        for name in ("enum", "Final", "EnableState", "ProviderRuntime"):
            imp.use(name)
        imp.use("GuidConstant")
        if p.control_guid is None or not (p.traits and p.traits.group_guid):
            imp.use("uuid")  # the `Final[uuid.UUID | None] = None` of a missing GUID
        maps = {name: f"{ns}.{cls}" for name, cls in map_classes.items()}
        pairs, bits = enable_pairs(descriptors)
        if pairs:
            imp.use("compute_flags")  # by the provider's enable hook
        flags = [f"_on_{len(all_flags) + i}" for i in range(len(pairs))]
        all_flags.extend(flags)
        runtime = f"_p{pi}"
        traits = pybytes(traits_bytes)
        events: list[EventCtx] = []
        layouts: list[str] = []
        blocks = EventBlocks(manifest, enum_names, ns, runtime)
        for ev, ident, bit, d7 in zip(p.events, event_names[pi], bits, descriptors, strict=True):
            if ev.not_logged:
                continue
            shape = no_payload
            t = ev.template
            if t is not None and t.items:
                found = shapes.get(id(t))
                if found is None:
                    planned = plan_template(
                        t, f"_T{len(specs)}", f"template {t.tid!r}", structs, aliases, diags,
                        imp, maps,
                    )  # fmt: skip
                    found = shapes[id(t)] = Shape(planned, imp)
                    specs.append(SpecCtx(planned.name, planned.spec))
                shape = found
            layouts.append(f"({ev.value}, {ev.version}): {shape.spec or '()'}")
            packed = f"_d{packed_count}"
            packed_count += 1
            functions = _claim_functions(mod, ident, d7.opcode)
            if functions[2] is not None or functions[3] is not None:
                imp.use("Activity")
                imp.use("_start" if functions[2] is not None else "_stop")
            flag = flags[bit]
            text = blocks.block(ev, ident, d7, shape, packed, flag, functions)
            events.append(EventCtx(ident, functions, flag, text))
        if events:
            # What every event's statements use (see the template).
            for name in ("EventDescriptor", "pack_descriptor", "uuid", "_KeywordOnly", "_KW"):
                imp.use(name)
            imp.use("_keyword_only")
        name = pystr(p.name)
        group = p.traits.group_guid if p.traits else None
        providers.append(
            ProviderCtx(
                ns=ns,
                runtime=runtime,
                name=name,
                name_assign=layout.assign("    ", "NAME: Final", name),
                guid=str(p.guid),
                register_guid=str(p.control_guid or p.guid),
                control_guid=str(p.control_guid) if p.control_guid else None,
                group_guid=str(group) if group else None,
                traits=traits,
                enums=enums,
                flags=flags,
                pairs_name=f"_PAIRS_{pi}",
                pairs=[(lv, _hex(kw)) for lv, kw in pairs],
                on_enable=f"_on_enable_{pi}",
                events=events,
                layouts=layouts,
            )
        )
    diags.extend(mod.diagnostics)
    if not render:
        return None, diags
    # What the module's own part uses whatever the manifest holds (see the template).
    for name in ("Final", "_EventError", "ProviderRuntime", "Registration", "Backend"):
        imp.use(name)
    for name in ("Callable", "EnableState"):
        imp.use(name)
    if specs:
        imp.use("_fields")
    if structs:
        imp.use("struct")
        if any("P" in fmt for fmt in structs):
            imp.use("_pointers")
    if aliases:
        imp.use("TypeAlias")
    ctx = ModuleCtx(
        generated_by="etwmc" if version is None else f"etwmc {version}",
        source_assign=layout.assign("", "SOURCE: Final", pystr(source)),
        imports=imp.render(),
        aliases=[
            layout.assign("", f"{name}: TypeAlias", pystr(_alias_value(members)))
            for members, name in aliases.items()
        ],
        flags=all_flags,
        structs=[
            layout.struct_assign(var, pystr("<" + fmt), "P" in fmt) for fmt, var in structs.items()
        ],
        specs=specs,
        providers=providers,
    )
    return ctx, diags


def _alias_value(members: tuple[str, ...]) -> str:
    """A struct parameter's type, quoted (its member types may be imported for type
    checkers only): a tuple in member order, or a dict by member name."""
    tup = f"tuple[{', '.join(members)}]" if members else "tuple[()]"
    return f"{tup} | dict[str, object]"


# The prefixes of an event's function names, by its opcode: ``write_`` and
# ``is_enabled_``, then ``start_`` for a Start event or ``stop_`` for a Stop event.
_PREFIXES = {
    START_OPCODE: ("write_", "is_enabled_", "start_"),
    STOP_OPCODE: ("write_", "is_enabled_", "stop_"),
}
_PLAIN_PREFIXES = ("write_", "is_enabled_")


def _claim_functions(
    mod: Scope, ident: str, opcode: int
) -> tuple[str, str, str | None, str | None]:
    """An event's function names: ``write_``, ``is_enabled_``, and ``start_`` or ``stop_``
    for start and stop events; claimed in this order, which decides the suffixes when
    names collide."""
    # ident is an identifier the module scope gave out
    names = mod.claim_derived(_PREFIXES.get(opcode, _PLAIN_PREFIXES), ident)
    if opcode == START_OPCODE:
        return names[0], names[1], names[2], None
    if opcode == STOP_OPCODE:
        return names[0], names[1], None, names[2]
    return names[0], names[1], None, None


def module_name(base: str) -> str:
    """The Python module name for an output base name (``wpf-etw`` -> ``wpf_etw``)."""
    return identifier(base, Kind.PARAM)
