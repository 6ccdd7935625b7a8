"""The header's text: one section per provider, the helper functions, the message ids.

Per provider, in mc's order: the provider GUID (and control GUID), the traits macro,
channel values (each listed channel with a keyword bit also gets
``<channel symbol>_KEYWORD``, as current mc writes), level, opcode, task and keyword
values, the event descriptors; then, unless ``MCGEN_DISABLE_PROVIDER_CODE_GENERATION``
is defined, the map enums, the enable-bit arrays, the context, the registration macros
and per event ``EventEnabled<Event>()``, ``<prefix><Event>(...)`` and
``<prefix><Event>_AssumeEnabled(...)``, with their ``_ForContext`` twins behind
``MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION`` (:mod:`etwmc.header.forcontext`).  After
the providers come the ``McTemplate*`` helpers (sorted by name) and ``#define MSG_...``
for every string that has a message id (sorted by id).  Without logging code (mc
without ``-um`` or ``-km``) a provider's section ends with its descriptors, and there
are no helpers: the header holds definitions only.

Names (mc's, see manifest-and-mc.md 1.6): ``P`` is the provider's symbol (its name
made an identifier when it has none), ``N`` the provider name made an identifier.
Every name the header defines goes through :class:`Names`, which reports a name that
cannot be defined (ETW620) and two different definitions of one name (ETW621).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..codes import E_SYMBOL, W_DESCRIPTORS, W_DUPLICATE
from ..descriptors import descriptor, enable_pairs, provider_items, traits_blob
from ..diagnostics import Diagnostic, Span, diag
from ..model import Event, Manifest, Map, Provider
from ..msgids import MessageIds
from ..record import Record
from . import forcontext
from .names import (
    KEYWORDS,
    c_string,
    comment,
    guid_initializer,
    hex_bytes,
    hexnum,
    sanitize,
    usable_symbol,
)
from .params import MAX_DESCRIPTORS, Helper, helper, helper_source

BANNER = "//" + "+" * 77

# Names the support code defines: a manifest symbol spelled like one of them would
# take its place.
SUPPORT_NAMES = frozenset(
    """ETW_INLINE ETWMC_SELECTANY ETWMC_SELECTANY_CONST ETWMC_EVENT_INFO_CLASS MCGEN_TRACE_CONTEXT
    PMCGEN_TRACE_CONTEXT _MCGEN_TRACE_CONTEXT MCGEN_USE_KERNEL_MODE_APIS
    MCGEN_HAVE_EVENTSETINFORMATION MCGEN_EVENTWRITETRANSFER MCGEN_EVENTREGISTER
    MCGEN_EVENTSETINFORMATION MCGEN_EVENTUNREGISTER MCGEN_PENABLECALLBACK
    MCGEN_GETLENGTHSID MCGEN_EVENT_ENABLED MCGEN_EVENT_BIT_SET MCGEN_ENABLE_CHECK
    McGenLevelKeywordEnabled McGenEventEnabled McGenControlCallbackV2 McGenEventWrite
    McGenEventRegister McGenEventUnregister McGenEventSetInformation
    McGenEventRegisterContext""".split()
)


class Settings(Record):
    """What :mod:`etwmc.header` needs from its options here."""

    kernel: bool
    write_prefix: str
    strip_prefix: str | None
    logging: bool = True


class Names:
    """Every name the header defines, with what defines it, to find clashes."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.defined: dict[str, tuple[str | None, str]] = {
            n: (None, "etwmc's support code") for n in SUPPORT_NAMES
        }
        self.diagnostics: list[Diagnostic] = []
        self._reported: set[tuple[str, Span]] = set()

    def define(self, name: str, what: str, span: Span | None, text: str | None = None) -> str:
        """Record ``name`` (``text``: a macro's replacement; None for an object)."""
        where = span or Span(self.file)
        if not usable_symbol(name):
            problem = "a C or C++ keyword" if name in KEYWORDS else "not a C identifier"
            self.diagnostics.append(
                diag(
                    E_SYMBOL,
                    where,
                    f"{what} would be named '{name}' in the C header, which is {problem}",
                    hint="give it a symbol that is a plain C identifier",
                )
            )
            return name
        old = self.defined.get(name)
        if old is None:
            self.defined[name] = (text, what)
        elif (old[0] is None or text is None or old[0] != text) and self._first(what, where):
            self.diagnostics.append(
                diag(
                    W_DUPLICATE,
                    where,
                    f"{what} and {old[1]} are both named '{name}' in the C header, so it "
                    "does not compile as one translation unit",
                    hint="give one of them another symbol",
                )
            )
        return name

    def _first(self, what: str, where: Span) -> bool:
        # One warning per manifest item: the macros made from a clashing event name
        # clash too, and would only repeat it.
        key = (what.split(" of ", 1)[-1], where)
        if key in self._reported:
            return False
        self._reported.add(key)
        return True


def _label(kind: str, name: str) -> str:
    return f"{kind} '{comment(name)}'"


class ProviderNames:
    """The C names of one provider's items."""

    def __init__(self, p: Provider) -> None:
        self.p = p
        self.sym = p.symbol or sanitize(p.name)
        self.ident = sanitize(p.name)
        self.context = f"{self.sym}_Context"
        self.traits = f"{self.sym}_Traits"
        self.handle = f"{self.sym}_Handle" if p.control_guid else f"{self.ident}Handle"
        self.register_part = f"_{self.sym}" if p.control_guid else self.ident

    def event(self, e: Event) -> str:
        if e.symbol:
            return e.symbol
        d = descriptor(self.p, e)
        rest = (d.version, d.channel, d.level, d.opcode, d.task, d.keyword)
        return f"{self.sym}_EVENT_0x{d.id:x}_" + "_".join(f"{v:x}" for v in rest)


def _section(title: str) -> list[str]:
    return ["//", f"// {title}", "//"]


_DISABLE_NOTE = [
    "//",
    "// MCGEN_DISABLE_PROVIDER_CODE_GENERATION: the functions and macros below are left out",
    "// when it is defined.",
    "//",
    "#ifndef MCGEN_DISABLE_PROVIDER_CODE_GENERATION",
]


class HeaderWriter:
    def __init__(self, manifest: Manifest, ids: MessageIds, settings: Settings) -> None:
        self.m = manifest
        self.ids = ids
        self.s = settings
        self.names = Names(manifest.path)
        self.helpers: dict[str, Helper] = {}
        self.lines: list[str] = []

    def out(self, *lines: str) -> None:
        self.lines.extend(lines)

    # ------------------------------------------------------------------ provider

    def provider(self, p: Provider) -> None:
        n = ProviderNames(p)
        d = self.names.define
        self.out(BANNER, f'// Provider "{comment(p.name)}" event count {len(p.events)}', BANNER, "")
        self.out(f"// Provider GUID = {p.guid}")
        d(n.sym, _label("the GUID of provider", p.name), p.span)
        self.out(f"ETWMC_SELECTANY_CONST GUID {n.sym} = {guid_initializer(p.guid)};", "")
        if p.control_guid is not None:
            name = d(f"{n.sym}_ControlGuid", _label("the control GUID of", p.name), p.span)
            self.out(f"// Control GUID = {p.control_guid}")
            self.out(
                f"ETWMC_SELECTANY_CONST GUID {name} = {guid_initializer(p.control_guid)};",
                "",
            )
        if self.s.logging:
            self.traits(p, n)
        self.values(p, n)
        self.descriptors(p, n)
        if not self.s.logging:
            return
        self.out(*_DISABLE_NOTE, "")
        for m in p.maps:
            self.map_enum(m)
        self.registration(p, n)
        _, bits = enable_pairs([descriptor(p, e) for e in p.events])
        for e, bit in zip(p.events, bits, strict=True):
            if not e.not_logged:
                self.event_macros(n, e, bit)
        self.out("#endif // MCGEN_DISABLE_PROVIDER_CODE_GENERATION", "")

    def traits(self, p: Provider, n: ProviderNames) -> None:
        blob = traits_blob(p)  # the caller checked it fits (ETW602)
        lines = [f"#ifndef {n.traits}"]
        if not blob:
            text = "NULL"
            lines.append(f"#define {n.traits} NULL")
        else:
            name_end = blob.index(b"\0", 2) + 1
            parts = [
                (hex_bytes(blob[:2]), f"Total size of traits = {len(blob)}"),
                (
                    c_string(blob[2:name_end]),
                    "Provider name" if name_end > 3 else "Provider name omitted",
                ),
            ]
            rest = blob[name_end:]
            while rest:
                size = int.from_bytes(rest[:2], "little")
                if not 3 <= size <= len(rest):  # not a trait: keep the bytes as they are
                    size = len(rest)
                kind = {1: "Group guid", 2: "Decode guid"}.get(rest[2] if size > 2 else -1)
                parts.append((hex_bytes(rest[:size]), kind or "Trait"))
                rest = rest[size:]
            text = " ".join(lit for lit, _ in parts)
            lines.append(f"#define {n.traits} ( \\")
            lines += [f"    {lit} /* {what} */ \\" for lit, what in parts]
            lines.append("    )")
        self.names.define(n.traits, _label("the traits of provider", p.name), p.span, text)
        lines += [f"#endif // {n.traits}", ""]
        self.out(*lines)

    def values(self, p: Provider, n: ProviderNames) -> None:
        items = provider_items(p)
        d = self.names.define
        groups: list[tuple[str, list[tuple[str, int, str, Span]]]] = [
            (
                "Channel",
                [
                    (
                        c.symbol or f"{n.sym}_CHANNEL_{sanitize(c.chid or c.name)}",
                        c.value,
                        _label("channel", c.name),
                        c.span,
                    )
                    for c in items.channels
                ],
            ),
            (
                "Levels",
                [
                    (
                        lv.symbol or f"{n.sym}_LEVEL_{sanitize(lv.name)}",
                        lv.value,
                        _label("level", lv.name),
                        lv.span,
                    )
                    for lv in p.levels
                    if not lv.builtin
                ],
            ),
            (
                "Opcodes",
                [
                    (
                        o.symbol or f"{n.sym}_OPCODE_{sanitize(o.name)}",
                        o.value,
                        _label("opcode", o.name),
                        o.span,
                    )
                    for o in p.all_opcodes()
                    if not o.builtin
                ],
            ),
        ]
        bits = {
            (c.symbol or f"{n.sym}_CHANNEL_{sanitize(c.chid or c.name)}"): c.keyword_bit
            for c in items.channels
        }
        for title, rows in groups:
            if rows:
                self.out(*_section(title))
                for name, value, what, span in rows:
                    d(name, what, span, hexnum(value))
                    self.out(f"#define {name} {hexnum(value)}")
                    if title == "Channel" and bits.get(name):
                        keyword = f"{name}_KEYWORD"
                        d(keyword, f"the keyword bit of {what}", span, hexnum(bits[name]))
                        self.out(f"#define {keyword} {hexnum(bits[name])}")
                self.out("")
        tasks = [t for t in p.tasks if not t.builtin]
        if tasks:
            self.out(*_section("Tasks"))
            for t in tasks:
                name = t.symbol or f"{n.sym}_TASK_{sanitize(t.name)}"
                d(name, _label("task", t.name), t.span, hexnum(t.value))
                self.out(f"#define {name} {hexnum(t.value)}")
                if t.event_guid is not None and t.event_guid.int != 0:
                    gname = d(f"{sanitize(t.name)}Id", _label("the GUID of task", t.name), t.span)
                    self.out(
                        f"ETWMC_SELECTANY_CONST GUID {gname} = {guid_initializer(t.event_guid)};"
                    )
            self.out("")
        keywords = [k for k in p.keywords if not k.builtin]
        if keywords:
            self.out(*_section("Keyword"))
            for k in keywords:
                name = k.symbol or f"{n.sym}_KEYWORD_{sanitize(k.name)}"
                d(name, _label("keyword", k.name), k.span, hexnum(k.mask))
                self.out(f"#define {name} {hexnum(k.mask)}")
            self.out("")

    def descriptors(self, p: Provider, n: ProviderNames) -> None:
        self.out(*_section("Event Descriptors"))
        for e in p.events:
            if e.not_logged:
                continue
            sym = n.event(e)
            what = f"event {e.value} (version {e.version})"
            self.names.define(sym, what, e.span)
            # the fields in the order of EVENT_DESCRIPTOR's members, as its initializer
            values = ", ".join(hexnum(v) for v in descriptor(p, e))
            self.out(f"ETWMC_SELECTANY_CONST EVENT_DESCRIPTOR {sym} = {{{values}}};")
            value = hexnum(e.value)
            self.names.define(f"{sym}_value", f"the id of {what}", e.span, value)
            self.out(f"#define {sym}_value {value}")
        self.out("")

    def map_enum(self, m: Map) -> None:
        items = [i for i in m.items if i.symbol]
        if not m.symbol or not items:
            return
        d = self.names.define
        what = _label("map", m.name)
        guard = d(f"_{m.symbol}_def", what, m.span, "")
        d(f"_{m.symbol}", what, m.span)
        d(m.symbol, what, m.span)
        self.out(f"#ifndef {guard}", f"#define {guard}", f"typedef enum _{m.symbol}", "{")
        for i in items:
            name = d(f"{m.symbol}{i.symbol}", f"an item of {what}", i.span)
            v = i.value & 0xFFFFFFFF
            signed = v - (1 << 32) if v >= 1 << 31 else v
            literal = "-2147483647 - 1" if signed == -(1 << 31) else str(signed)
            self.out(f"    {name} = {literal},")
        self.out(f"}} {m.symbol};", f"#endif // {guard}", "")

    def registration(self, p: Provider, n: ProviderNames) -> None:
        d = self.names.define
        what = _label("provider", p.name)
        pairs, _ = enable_pairs([descriptor(p, e) for e in p.events])
        bits = f"{n.ident}EnableBits"
        if pairs:
            kws = ", ".join(hexnum(k) for _, k in pairs)
            lvs = ", ".join(str(lv) for lv, _ in pairs)
            words = (len(pairs) + 31) // 32
            d(bits, f"the enable bits of {what}", p.span)
            d(f"{n.ident}Keywords", f"the keywords of {what}", p.span)
            d(f"{n.ident}Levels", f"the levels of {what}", p.span)
            self.out(
                *_section("Event Enablement Bits"),
                f"ETWMC_SELECTANY DECLSPEC_CACHEALIGN ULONG {bits}[{words}] = {{0}};",
                f"ETWMC_SELECTANY_CONST ULONGLONG {n.ident}Keywords[{len(pairs)}] = {{{kws}}};",
                f"ETWMC_SELECTANY_CONST unsigned char {n.ident}Levels[{len(pairs)}] = {{{lvs}}};",
                "",
            )
            tail = f"{len(pairs)}, {bits}, {n.ident}Keywords, {n.ident}Levels"
        else:
            tail = "0, NULL, NULL, NULL"
        d(n.context, f"the context of {what}", p.span)
        self.out(
            *_section("Provider context"),
            f"ETWMC_SELECTANY MCGEN_TRACE_CONTEXT {n.context} = "
            f"{{0, (ULONG_PTR){n.traits}, 0, 0, 0, 0, 0, 0, {tail}}};",
            "",
        )
        handle_text = f"({n.context}.RegistrationHandle)"
        d(n.handle, f"the registration handle of {what}", p.span, handle_text)
        activity = f"{n.sym}_EventWriteActivity"
        flag = "1" if self.s.kernel else "0"
        d(activity, f"the activity flag of {what}", p.span, flag)
        self.out(
            *_section("Provider REGHANDLE"),
            f"#define {n.handle} {handle_text}",
            "",
            "//",
            "// 1 when the EventWrite[Name] macros take an Activity GUID first (-km), 0 when",
            "// they do not (-um).",
            "//",
            f"#define {activity} {flag}",
            "",
        )
        guid = f"{n.sym}_ControlGuid" if p.control_guid else n.sym
        if traits_blob(p):
            fn, last = "McGenEventRegisterContext", f"&{n.context}"
        else:
            fn, last = "McGenEventRegister", f"&{n.handle}"
        register = f"{fn}(&{guid}, McGenControlCallbackV2, &{n.context}, {last})"
        by_guid = f"{fn}(&(Guid), McGenControlCallbackV2, &{n.context}, {last})"
        unregister = f"McGenEventUnregister(&{n.handle})"
        for macro, params, body, note in (
            (
                f"EventRegister{n.register_part}",
                "()",
                register,
                [
                    "Registers the provider with ETW (with its control GUID, if it has one).",
                    "Call it once when the module starts (program start, DLL attach, driver",
                    "load).  An error means the provider's events will not be written; the",
                    "EventWrite and EventUnregister macros are still safe to use.",
                ],
            ),
            (
                f"EventRegisterByGuid{n.register_part}",
                "(Guid)",
                by_guid,
                ["Registers the provider with another control GUID (advanced use)."],
            ),
            (
                f"EventUnregister{n.register_part}",
                "()",
                unregister,
                [
                    "Unregisters the provider.  Call it before the module goes away (program",
                    "exit, DLL detach, driver unload): a DLL or driver unloaded while",
                    "registered crashes when ETW calls its enable callback.",
                ],
            ),
        ):
            d(macro, f"the registration macro of {what}", p.span, f"{params} {body}")
            self.out("//", *[f"// {line}" for line in note], "//")
            self.out(f"#ifndef {macro}", f"#define {macro}{params} {body}", "#endif", "")
        lines, defined = forcontext.provider_lines(
            ident=n.ident,
            guid=guid,
            pairs=len(pairs),
            traits=n.traits,
            has_traits=bool(traits_blob(p)),
            register_part=n.register_part,
        )
        for name, text in defined:
            d(name, f"the context code of {what}", p.span, text)
        self.out(*lines)

    def event_macros(self, n: ProviderNames, e: Event, bit: int) -> None:
        sym = n.event(e)
        base = sym
        strip = self.s.strip_prefix
        if strip and base.lower().startswith(strip.lower()) and len(base) > len(strip):
            base = base[len(strip) :]
        h = helper(e.template, kernel=self.s.kernel)
        self.helpers.setdefault(h.name, h)
        if h.descriptor_count + 1 > MAX_DESCRIPTORS:
            self.names.diagnostics.append(
                diag(
                    W_DESCRIPTORS,
                    e.span,
                    f"event {e.value} (version {e.version}) is written with "
                    f"{h.descriptor_count + 1} data descriptors; EventWriteTransfer takes at "
                    f"most {MAX_DESCRIPTORS}, so the generated EventWrite macro always fails",
                    hint="split the template, or pack items into a struct",
                )
            )
        enabled = f"EventEnabled{base}"
        write = f"{self.s.write_prefix}{base}"
        check_type = forcontext.check_function(n.ident)
        body_names = {sym, base, n.context, h.name, enabled, "MCGEN_EVENT_ENABLED"}
        body_names |= {"pContext", check_type, "MCGEN_EVENT_ENABLED_FORCONTEXT"}
        args = _unique_args(("Activity",) if self.s.kernel else (), h.arg_names, body_names)
        arglist = ", ".join(args)
        call = f"{h.name}(&{n.context}, &{sym}" + "".join(f", {a}" for a in args) + ")"
        check = f"MCGEN_EVENT_BIT_SET({n.ident}EnableBits, {bit})"
        what = f"event {e.value} (version {e.version})"
        d = self.names.define
        d(enabled, f"the enable check of {what}", e.span, f"() {check}")
        d(write, f"the write macro of {what}", e.span, f"({arglist}) {call}")
        d(f"{write}_AssumeEnabled", f"the write macro of {what}", e.span, f"({arglist}) {call}")
        self.out(*_section(f"Enablement check macro for {sym}"))
        self.out(f"#define {enabled}() {check}", "")
        self.out(*_section(f"Event write macros for {sym}")[:-1])
        if h.packed:
            self.out(
                f"// Event id {e.value} takes complex types the caller packs into buffers:",
                "// see the notes at the top of this header.",
            )
        self.out("//")
        self.out(f"#define {write}({arglist}) \\")
        self.out(f"        MCGEN_EVENT_ENABLED({base}) \\", f"        ? {call} : 0")
        self.out(f"#define {write}_AssumeEnabled({arglist}) \\", f"        {call}", "")
        lines, defined = forcontext.event_lines(
            ident=n.ident,
            base=base,
            write=write,
            bit=bit,
            args=args,
            helper=h.name,
            descriptor=sym,
        )
        for name, text in defined:
            d(name, f"the context macro of {what}", e.span, text)
        self.out(*lines)

    # ------------------------------------------------------------------ tail

    def helper_functions(self) -> None:
        self.out(*_DISABLE_NOTE, "", *_section("Template Functions"))
        for name in sorted(self.helpers):
            h = self.helpers[name]
            self.names.define(name, f"the template function {name}", None)
            self.out("//", f"// Template from manifest: {comment(h.tid or '(null)')}", "//")
            self.out(*helper_source(h, kernel=self.s.kernel), "")
        self.out("#endif // MCGEN_DISABLE_PROVIDER_CODE_GENERATION", "")

    def message_ids(self) -> None:
        symbols = {m.message: m.symbol for m in self.m.messages if m.message and m.symbol}
        spans = {m.message: m.span for m in self.m.messages if m.message}
        rows = sorted(self.ids.strings.items(), key=lambda kv: (kv[1], kv[0]))
        for sid, mid in rows:
            name = symbols.get(sid) or f"MSG_{sanitize(sid)}"
            value = f"0x{mid:08X}L"
            self.names.define(name, f"string '{comment(sid)}'", spans.get(sid), value)
            self.out(f"#define {name:<36} {value}")


def _unique_args(first: Iterable[str], names: Iterable[str], taken: set[str]) -> tuple[str, ...]:
    """Macro parameter names, unique and unlike any name the macro's body uses
    (a field named like the event would otherwise be substituted into the call)."""
    out: list[str] = []
    used = set(taken)
    for name in (*first, *names):
        while name in used or name in KEYWORDS:
            name += "_"
        used.add(name)
        out.append(name)
    return tuple(out)
