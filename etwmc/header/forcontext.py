"""The ``_ForContext`` code current mc writes behind ``MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION``.

With it a program registers one provider several times, each registration in a context
of its own (``McGenContext_<N>``: the registration, the filters its sessions set and
its own enable bits), and writes events through a context:

* per provider: the context type, ``EventRegister<N>_ForContext(pContext)``,
  ``EventRegisterByGuid<N>_ForContext(Guid, pContext)``,
  ``EventUnregister<N>_ForContext(pContext)``, ``<N>Handle_ForContext(pContext)``;
* per event: ``EventEnabled<Event>_ForContext(pContext)``,
  ``<prefix><Event>_ForContext(pContext, ...)`` and
  ``<prefix><Event>_ForContextAssumeEnabled(pContext, ...)``, whose other arguments
  are those of ``<prefix><Event>(...)``.

The names and parameters are mc's (microsoft/mimalloc's ``etw.h`` is one header that
has them); the support functions behind them are etwmc's, like the rest of its header.
A pointer of another context type is a compile error, as with mc: the macros pass it
through ``McGenCheckContextType_<N>``.
"""

from __future__ import annotations

GUARD = "MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION"


def context_type(ident: str) -> str:
    return f"McGenContext_{ident}"


def check_function(ident: str) -> str:
    return f"McGenCheckContextType_{ident}"


def provider_lines(
    *,
    ident: str,
    guid: str,
    pairs: int,
    traits: str,
    has_traits: bool,
    register_part: str,
) -> tuple[list[str], list[tuple[str, str]]]:
    """The provider's ForContext section, and the (name, replacement) it defines.

    ``ident``: the provider name made an identifier (``N``); ``guid``: the GUID symbol
    it registers with; ``pairs``: its enable-bit count; ``traits``: its traits macro.
    """
    ctype = context_type(ident)
    register = f"McGenRegisterForContext_{ident}"
    check = check_function(ident)
    words = max(1, (pairs + 31) // 32)
    keywords = f"{ident}Keywords" if pairs else "NULL"
    levels = f"{ident}Levels" if pairs else "NULL"
    if has_traits:
        call = [
            "    return McGenEventRegisterContext(",
            "        ProviderId, McGenControlCallbackV2, &pContext->Context, &pContext->Context);",
        ]
    else:
        call = [
            "    return McGenEventRegister(",
            "        ProviderId, McGenControlCallbackV2, &pContext->Context,",
            "        &pContext->Context.RegistrationHandle);",
        ]
    macros = [
        (f"EventRegister{register_part}_ForContext", f"(pContext) {register}(&{guid}, (pContext))"),
        (
            f"EventRegisterByGuid{register_part}_ForContext",
            f"(Guid, pContext) {register}(&(Guid), (pContext))",
        ),
        (
            f"EventUnregister{register_part}_ForContext",
            "(pContext) McGenEventUnregister(&(pContext)->Context.RegistrationHandle)",
        ),
        (f"{ident}Handle_ForContext", "(pContext) ((pContext)->Context.RegistrationHandle)"),
    ]
    lines = [
        f"#ifdef {GUARD}",
        "//",
        "// Registrations of this provider in contexts of your own: each context holds its",
        "// registration, the filters its sessions set and its own enable bits.",
        "//",
        f"typedef struct tag{ctype} {{",
        "    MCGEN_TRACE_CONTEXT Context;",
        f"    ULONG EnableBits[{words}];",
        f"}} {ctype};",
        "",
        "ETW_INLINE",
        "ULONG",
        "__stdcall",
        f"{register}(",
        "    _In_ LPCGUID ProviderId,",
        f"    _Out_ {ctype}* pContext",
        "    )",
        "{",
        "    RtlZeroMemory(pContext, sizeof(*pContext));",
        f"    pContext->Context.Logger = (ULONG_PTR){traits};",
        f"    pContext->Context.EnableBitsCount = {pairs};",
        "    pContext->Context.EnableBitMask = pContext->EnableBits;",
        f"    pContext->Context.EnableKeyWords = {keywords};",
        f"    pContext->Context.EnableLevel = {levels};",
        *call,
        "}",
        "",
        "// The macros take a context of this provider only.",
        "FORCEINLINE",
        f"{ctype}*",
        f"{check}(_In_ {ctype}* pContext)",
        "{",
        "    return pContext;",
        "}",
        "",
        *[f"#define {name}{text}" for name, text in macros],
        f"#endif // {GUARD}",
        "",
    ]
    return lines, [(ctype, ""), (f"tag{ctype}", ""), (register, ""), (check, ""), *macros]


def event_lines(
    *,
    ident: str,
    base: str,
    write: str,
    bit: int,
    args: tuple[str, ...],
    helper: str,
    descriptor: str,
) -> tuple[list[str], list[tuple[str, str]]]:
    """An event's ForContext macros, and the (name, replacement) they define.

    ``base``: the event's name in macro names; ``write``: its write macro's name;
    ``args``: the write macro's other parameters; ``helper``: the McTemplate function.
    """
    check = check_function(ident)
    params = ", ".join(("pContext", *args))
    tail = "".join(f", {a}" for a in args)
    enabled = f"EventEnabled{base}_ForContext"
    enabled_text = f"(pContext) MCGEN_EVENT_BIT_SET({check}(pContext)->EnableBits, {bit})"
    call = f"{helper}(&{check}(pContext)->Context, &{descriptor}{tail})"
    lines = [
        f"#ifdef {GUARD}",
        f"#define {enabled}{enabled_text}",
        f"#define {write}_ForContext({params}) \\",
        f"        MCGEN_EVENT_ENABLED_FORCONTEXT(pContext, {base}) \\",
        f"        ? {call} : 0",
        f"#define {write}_ForContextAssumeEnabled({params}) \\",
        f"        {call}",
        f"#endif // {GUARD}",
        "",
    ]
    defined = [
        (enabled, enabled_text),
        (f"{write}_ForContext", f"({params}) {call}"),
        (f"{write}_ForContextAssumeEnabled", f"({params}) {call}"),
    ]
    return lines, defined
