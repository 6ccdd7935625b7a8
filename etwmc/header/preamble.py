"""The fixed part of the header: the support code every provider section relies on.

It defines the names code written for mc's headers uses or overrides, with the same
meaning: the ``MCGEN_*`` configuration macros (``MCGEN_USE_KERNEL_MODE_APIS``,
``MCGEN_EVENTWRITETRANSFER``, ``MCGEN_EVENTREGISTER``, ``MCGEN_EVENT_ENABLED``,
``MCGEN_PRIVATE_ENABLE_CALLBACK_V2`` ...), the ``MCGEN_TRACE_CONTEXT`` structure (its
layout is shared with mc's headers, so both may be included in one program), and the
functions ``McGenLevelKeywordEnabled``, ``McGenEventEnabled``,
``McGenControlCallbackV2``, ``McGenEventWrite``, ``McGenEventRegister``,
``McGenEventUnregister`` and, when a provider has traits, ``McGenEventSetInformation``
and ``McGenEventRegisterContext``.  Each is guarded by the same ``#ifndef`` symbol as
in mc's headers, so a second header (from etwmc or from mc) reuses the first one's.

Where mc's text only builds with Microsoft's compiler, this one also builds with
mingw-w64's GCC (the tests compile it): functions are ``static`` in C (C99 ``inline`` would need an
out-of-line definition somewhere), constants are defined without ``extern`` in C
(``ETWMC_SELECTANY_CONST``), ``#pragma warning`` is kept for Microsoft's compiler,
and mingw-w64's kernel headers, which lack ``EtwSetInformation`` and
``EVENT_INFO_CLASS``, get the run-time lookup instead.
"""

from __future__ import annotations

_PRAGMA = """\
#pragma once
"""

_NOTES = """
//
// How the generated EventWrite macros take event data:
//
// - A struct, or an array of structs, is one block of memory the caller packs with
//   no padding; the macro takes the size of one element (the _Len_ argument) and a
//   pointer to the block.
// - An array of nul-terminated strings is packed by the caller: the strings one
//   after the other, each with its nul.  The _Len_ argument is the size of the
//   whole block in characters.
// - A SID is measured with GetLengthSid (RtlLengthSid in kernel mode); a NULL SID
//   is logged as 8 zero bytes.  An array of SIDs is one packed block (_Len_ bytes).
// - A length on win:UnicodeString, win:AnsiString or win:Binary fixes the size of
//   each value (in characters for strings); every value of an array has that size
//   and the values are packed one after the other.  A string without a length is
//   nul-terminated; a NULL pointer is logged as the string "NULL".
// - win:CountedUnicodeString, win:CountedAnsiString and win:CountedBinary take the
//   size of the value (_Len_, in WCHARs for CountedUnicodeString, bytes otherwise)
//   and a pointer.  An array of them is packed by the caller, each value preceded
//   by its 16-bit byte count; _Len_ is then the size of the whole block.  Decoders
//   understand counted types from Windows 10 version 1809 on.
//
"""

_INCLUDES = """
#include <wmistr.h>
#include <evntrace.h>
#include <evntprov.h>
"""

_INLINE = """
//
// ETW_INLINE: how the generated functions are declared.  In C++ and with
// Microsoft's compiler an inline function may be defined in many translation units;
// in C99 it may not be called out of line without one external definition, so C
// builds with other compilers get one private copy per translation unit.
//
#if !defined(ETW_INLINE)
  #if defined(__cplusplus) || defined(_MSC_VER)
    #define ETW_INLINE DECLSPEC_NOINLINE __inline
  #else
    #define ETW_INLINE static __inline
  #endif
#endif
"""

_SELECTANY = """
//
// ETWMC_SELECTANY, ETWMC_SELECTANY_CONST: the provider's constants, enable bits and
// context are defined in the header itself, once for every translation unit that
// includes it.  At file scope a C definition, and a C++ one that is not const, has
// external linkage already (adding "extern" to a definition draws a warning); a C++
// const needs "extern" to be shared.
//
#if !defined(ETWMC_SELECTANY)
  #define ETWMC_SELECTANY __declspec(selectany)
#endif
#if !defined(ETWMC_SELECTANY_CONST)
  #if defined(__cplusplus)
    #define ETWMC_SELECTANY_CONST extern "C" __declspec(selectany) const
  #else
    #define ETWMC_SELECTANY_CONST __declspec(selectany) const
  #endif
#endif

#if defined(__cplusplus)
extern "C" {
#endif
"""

_CONFIG = """
//
// MCGEN_DISABLE_PROVIDER_CODE_GENERATION: define it to keep only the constants
// (GUIDs, descriptors, values) and none of the functions and macros.
//
#ifndef MCGEN_DISABLE_PROVIDER_CODE_GENERATION

//
// MCGEN_USE_KERNEL_MODE_APIS: 1 calls EtwRegister, EtwWriteTransfer...; 0 calls
// EventRegister, EventWriteTransfer...  By default 1 when wdm.h has been included
// (it defines _ETW_KM_).  Each API can also be replaced on its own, below.
//
#ifndef MCGEN_USE_KERNEL_MODE_APIS
  #ifdef _ETW_KM_
    #define MCGEN_USE_KERNEL_MODE_APIS 1
  #else
    #define MCGEN_USE_KERNEL_MODE_APIS 0
  #endif
#endif

//
// win:FILETIME and win:SYSTEMTIME values are the user-mode structures, which
// kernel-mode headers do not declare: declare them as minwinbase.h does (with its
// guards, so either declaration may come first).
//
#if MCGEN_USE_KERNEL_MODE_APIS
#ifndef _FILETIME_
#define _FILETIME_
typedef struct _FILETIME {
    ULONG dwLowDateTime;
    ULONG dwHighDateTime;
} FILETIME, *PFILETIME, *LPFILETIME;
#endif
#ifndef _SYSTEMTIME_
#define _SYSTEMTIME_
typedef struct _SYSTEMTIME {
    USHORT wYear;
    USHORT wMonth;
    USHORT wDayOfWeek;
    USHORT wDay;
    USHORT wHour;
    USHORT wMinute;
    USHORT wSecond;
    USHORT wMilliseconds;
} SYSTEMTIME, *PSYSTEMTIME, *LPSYSTEMTIME;
#endif
#endif // MCGEN_USE_KERNEL_MODE_APIS

//
// MCGEN_HAVE_EVENTSETINFORMATION: how McGenEventSetInformation reaches
// EventSetInformation (EtwSetInformation in kernel mode): 0 never (it fails with
// "not supported"), 1 by calling MCGEN_EVENTSETINFORMATION, 2 by looking the
// function up when it runs (for systems older than the one the code targets).
//
#ifndef MCGEN_HAVE_EVENTSETINFORMATION
  #if defined(MCGEN_EVENTSETINFORMATION)
    #define MCGEN_HAVE_EVENTSETINFORMATION 1
  #elif MCGEN_USE_KERNEL_MODE_APIS
    #if NTDDI_VERSION >= 0x06040000 && !defined(__MINGW32__)
      #define MCGEN_HAVE_EVENTSETINFORMATION 1
    #else
      #define MCGEN_HAVE_EVENTSETINFORMATION 2
    #endif
  #elif WINVER >= 0x0602 && defined(EVENT_FILTER_TYPE_SCHEMATIZED)
    #define MCGEN_HAVE_EVENTSETINFORMATION 1
  #else
    #define MCGEN_HAVE_EVENTSETINFORMATION 2
  #endif
#endif

//
// The ETW functions the generated code calls; define one to call your own.
//
#ifndef MCGEN_EVENTWRITETRANSFER
  #if MCGEN_USE_KERNEL_MODE_APIS
    #define MCGEN_EVENTWRITETRANSFER EtwWriteTransfer
  #else
    #define MCGEN_EVENTWRITETRANSFER EventWriteTransfer
  #endif
#endif
#ifndef MCGEN_EVENTREGISTER
  #if MCGEN_USE_KERNEL_MODE_APIS
    #define MCGEN_EVENTREGISTER EtwRegister
  #else
    #define MCGEN_EVENTREGISTER EventRegister
  #endif
#endif
#ifndef MCGEN_EVENTSETINFORMATION
  #if MCGEN_USE_KERNEL_MODE_APIS
    #define MCGEN_EVENTSETINFORMATION EtwSetInformation
  #else
    #define MCGEN_EVENTSETINFORMATION EventSetInformation
  #endif
#endif
#ifndef MCGEN_EVENTUNREGISTER
  #if MCGEN_USE_KERNEL_MODE_APIS
    #define MCGEN_EVENTUNREGISTER EtwUnregister
  #else
    #define MCGEN_EVENTUNREGISTER EventUnregister
  #endif
#endif
// The type of the enable callback MCGEN_EVENTREGISTER takes.
#ifndef MCGEN_PENABLECALLBACK
  #if MCGEN_USE_KERNEL_MODE_APIS
    #define MCGEN_PENABLECALLBACK PETWENABLECALLBACK
  #else
    #define MCGEN_PENABLECALLBACK PENABLECALLBACK
  #endif
#endif
#ifndef MCGEN_GETLENGTHSID
  #if MCGEN_USE_KERNEL_MODE_APIS
    #define MCGEN_GETLENGTHSID(p) RtlLengthSid((PSID)(p))
  #else
    #define MCGEN_GETLENGTHSID(p) GetLengthSid((PSID)(p))
  #endif
#endif

//
// MCGEN_EVENT_ENABLED(EventName): the test EventWrite[EventName] makes before it
// builds the payload; by default EventEnabled[EventName]().
//
#ifndef MCGEN_EVENT_ENABLED
#define MCGEN_EVENT_ENABLED(EventName) EventEnabled##EventName()
#endif

//
// MCGEN_EVENT_ENABLED_FORCONTEXT(pContext, EventName): the same test for the
// [Prefix][EventName]_ForContext macros (MCGEN_ENABLE_FORCONTEXT_CODE_GENERATION).
//
#ifndef MCGEN_EVENT_ENABLED_FORCONTEXT
#define MCGEN_EVENT_ENABLED_FORCONTEXT(pContext, EventName) \\
    EventEnabled##EventName##_ForContext(pContext)
#endif

//
// MCGEN_EVENT_BIT_SET(EnableBits, Bit): whether bit number Bit of an array of
// ULONG is set.
//
#ifndef MCGEN_EVENT_BIT_SET
#define MCGEN_EVENT_BIT_SET(EnableBits, BitPosition) \\
    ((((EnableBits)[(BitPosition) >> 5]) & (1u << ((BitPosition) & 31))) != 0)
#endif

//
// MCGEN_ENABLE_CHECK(Context, Descriptor): whether an event would pass the level
// and keyword filters the provider's sessions set, without the enable bits.
//
#ifndef MCGEN_ENABLE_CHECK
#define MCGEN_ENABLE_CHECK(Context, Descriptor) \\
    ((Context).IsEnabled && McGenEventEnabled(&(Context), &(Descriptor)))
#endif

#if !defined(MCGEN_TRACE_CONTEXT_DEF)
#define MCGEN_TRACE_CONTEXT_DEF
// A provider's registration and the filters its sessions ask for.
typedef struct _MCGEN_TRACE_CONTEXT
{
    TRACEHANDLE            RegistrationHandle;
    TRACEHANDLE            Logger;          // the provider traits, or 0
    ULONGLONG              MatchAnyKeyword;
    ULONGLONG              MatchAllKeyword;
    ULONG                  Flags;
    ULONG                  IsEnabled;
    UCHAR                  Level;
    UCHAR                  Reserve;
    USHORT                 EnableBitsCount; // one bit per (level, keyword) pair
    PULONG                 EnableBitMask;
    const ULONGLONG*       EnableKeyWords;
    const UCHAR*           EnableLevel;
} MCGEN_TRACE_CONTEXT, *PMCGEN_TRACE_CONTEXT;
#endif // MCGEN_TRACE_CONTEXT_DEF

#if !defined(MCGEN_LEVEL_KEYWORD_ENABLED_DEF)
#define MCGEN_LEVEL_KEYWORD_ENABLED_DEF
//
// Whether an event of this level and keyword passes the filters recorded in the
// context.  Level 0 on either side passes every level; keyword 0 passes every
// keyword filter.
//
FORCEINLINE
BOOLEAN
McGenLevelKeywordEnabled(
    _In_ PMCGEN_TRACE_CONTEXT EnableInfo,
    _In_ UCHAR Level,
    _In_ ULONGLONG Keyword
    )
{
    BOOLEAN LevelOk = (BOOLEAN)(Level == 0 || EnableInfo->Level == 0 || Level <= EnableInfo->Level);
    BOOLEAN KeywordOk = (BOOLEAN)(Keyword == 0 ||
        ((Keyword & EnableInfo->MatchAnyKeyword) != 0 &&
         (Keyword & EnableInfo->MatchAllKeyword) == EnableInfo->MatchAllKeyword));
    return (BOOLEAN)(LevelOk && KeywordOk);
}
#endif // MCGEN_LEVEL_KEYWORD_ENABLED_DEF

#if !defined(MCGEN_EVENT_ENABLED_DEF)
#define MCGEN_EVENT_ENABLED_DEF
// McGenLevelKeywordEnabled for an event descriptor.
FORCEINLINE
BOOLEAN
McGenEventEnabled(
    _In_ PMCGEN_TRACE_CONTEXT EnableInfo,
    _In_ PCEVENT_DESCRIPTOR EventDescriptor
    )
{
    return McGenLevelKeywordEnabled(EnableInfo, EventDescriptor->Level, EventDescriptor->Keyword);
}
#endif // MCGEN_EVENT_ENABLED_DEF

#if !defined(MCGEN_CONTROL_CALLBACK)
#define MCGEN_CONTROL_CALLBACK
//
// The enable callback every provider registers: ETW calls it when sessions enable
// or disable the provider, with their combined level and keywords.  It records them
// and recomputes each enable bit.  Define MCGEN_PRIVATE_ENABLE_CALLBACK_V2 as a
// function with the same parameters to be called afterwards.
//
ETW_INLINE
VOID
__stdcall
McGenControlCallbackV2(
    _In_ LPCGUID SourceId,
    _In_ ULONG ControlCode,
    _In_ UCHAR Level,
    _In_ ULONGLONG MatchAnyKeyword,
    _In_ ULONGLONG MatchAllKeyword,
    _In_opt_ PEVENT_FILTER_DESCRIPTOR FilterData,
    _Inout_opt_ PVOID CallbackContext
    )
{
    PMCGEN_TRACE_CONTEXT Ctx = (PMCGEN_TRACE_CONTEXT)CallbackContext;
    ULONG Bit;

    (void)SourceId;
    (void)FilterData;
    if (Ctx == NULL) {
        return;
    }
    if (ControlCode == EVENT_CONTROL_CODE_ENABLE_PROVIDER) {
        Ctx->Level = Level;
        Ctx->MatchAnyKeyword = MatchAnyKeyword;
        Ctx->MatchAllKeyword = MatchAllKeyword;
        Ctx->IsEnabled = EVENT_CONTROL_CODE_ENABLE_PROVIDER;
        for (Bit = 0; Bit < Ctx->EnableBitsCount; Bit += 1) {
            ULONG Mask = 1u << (Bit & 31);
            if (McGenLevelKeywordEnabled(Ctx, Ctx->EnableLevel[Bit], Ctx->EnableKeyWords[Bit])) {
                Ctx->EnableBitMask[Bit >> 5] |= Mask;
            } else {
                Ctx->EnableBitMask[Bit >> 5] &= ~Mask;
            }
        }
    } else if (ControlCode == EVENT_CONTROL_CODE_DISABLE_PROVIDER) {
        Ctx->IsEnabled = EVENT_CONTROL_CODE_DISABLE_PROVIDER;
        Ctx->Level = 0;
        Ctx->MatchAnyKeyword = 0;
        Ctx->MatchAllKeyword = 0;
        for (Bit = 0; Bit < Ctx->EnableBitsCount; Bit += 32) {
            Ctx->EnableBitMask[Bit >> 5] = 0;
        }
    }
#ifdef MCGEN_PRIVATE_ENABLE_CALLBACK_V2
    MCGEN_PRIVATE_ENABLE_CALLBACK_V2(SourceId, ControlCode, Level, MatchAnyKeyword,
                                     MatchAllKeyword, FilterData, CallbackContext);
#endif
}
#endif // MCGEN_CONTROL_CALLBACK

#ifndef McGenEventWrite_def
#define McGenEventWrite_def
//
// Writes one event.  EventData[0] is reserved for the provider traits, which ride
// along with every event when the provider has any; the caller fills the rest.
//
ETW_INLINE
ULONG
__stdcall
McGenEventWrite(
    _In_ PMCGEN_TRACE_CONTEXT Context,
    _In_ PCEVENT_DESCRIPTOR Descriptor,
    _In_opt_ LPCGUID ActivityId,
    _In_range_(1, 128) ULONG EventDataCount,
    _Inout_updates_(EventDataCount) EVENT_DATA_DESCRIPTOR* EventData
    )
{
    const USHORT UNALIGNED* Traits = (const USHORT UNALIGNED*)(ULONG_PTR)Context->Logger;

    if (Traits == NULL) {
        EventData[0].Ptr = 0;
        EventData[0].Size = 0;
        EventData[0].Reserved = 0;
    } else {
        EventData[0].Ptr = (ULONG_PTR)Traits;
        EventData[0].Size = *Traits;  // the traits start with their own size
        EventData[0].Reserved = 2;    // EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA
    }
    return (ULONG)MCGEN_EVENTWRITETRANSFER(
        Context->RegistrationHandle, Descriptor, ActivityId, NULL, EventDataCount, EventData);
}
#endif // McGenEventWrite_def
"""

_TRAITS = """
//
// The type McGenEventSetInformation takes: mingw-w64's kernel headers do not
// declare EVENT_INFO_CLASS.
//
#if !defined(ETWMC_EVENT_INFO_CLASS)
  #if MCGEN_USE_KERNEL_MODE_APIS && defined(__MINGW32__)
    #define ETWMC_EVENT_INFO_CLASS ULONG
  #else
    #define ETWMC_EVENT_INFO_CLASS EVENT_INFO_CLASS
  #endif
#endif

#ifndef McGenEventSetInformation_def
#define McGenEventSetInformation_def
//
// EventSetInformation (EtwSetInformation in kernel mode) as
// MCGEN_HAVE_EVENTSETINFORMATION says to reach it.
//
_IRQL_requires_max_(PASSIVE_LEVEL)
ETW_INLINE
ULONG
__stdcall
McGenEventSetInformation(
    _In_ REGHANDLE RegHandle,
    _In_ ETWMC_EVENT_INFO_CLASS InformationClass,
    _In_opt_bytecount_(InformationLength) PVOID EventInformation,
    _In_ ULONG InformationLength
    )
{
#if MCGEN_HAVE_EVENTSETINFORMATION == 1
    return (ULONG)MCGEN_EVENTSETINFORMATION(
        RegHandle, InformationClass, EventInformation, InformationLength);
#elif MCGEN_HAVE_EVENTSETINFORMATION == 2 && MCGEN_USE_KERNEL_MODE_APIS
    typedef NTSTATUS (NTAPI* ETWMC_SET_INFORMATION)(
        REGHANDLE, ETWMC_EVENT_INFO_CLASS, PVOID, ULONG);
    UNICODE_STRING Name = {
        sizeof(L"EtwSetInformation") - sizeof(WCHAR),
        sizeof(L"EtwSetInformation"),
        (PWSTR)L"EtwSetInformation"};
    ETWMC_SET_INFORMATION SetInformation;
#if defined(_MSC_VER)
#pragma warning(push)
#pragma warning(disable: 4055) // a data pointer cast to a function pointer
#endif
    SetInformation = (ETWMC_SET_INFORMATION)(ULONG_PTR)MmGetSystemRoutineAddress(&Name);
#if defined(_MSC_VER)
#pragma warning(pop)
#endif
    if (SetInformation == NULL) {
        return (ULONG)STATUS_NOT_SUPPORTED;
    }
    return (ULONG)SetInformation(RegHandle, InformationClass, EventInformation, InformationLength);
#elif MCGEN_HAVE_EVENTSETINFORMATION == 2
    typedef ULONG (WINAPI* ETWMC_SET_INFORMATION)(
        REGHANDLE, ETWMC_EVENT_INFO_CLASS, PVOID, ULONG);
    ULONG Error = ERROR_NOT_SUPPORTED;
    HMODULE Module;
    if (GetModuleHandleExW(0, L"api-ms-win-eventing-provider-l1-1-0", &Module) ||
        GetModuleHandleExW(0, L"advapi32", &Module)) {
        ETWMC_SET_INFORMATION SetInformation = (ETWMC_SET_INFORMATION)(void (*)(void))
            GetProcAddress(Module, "EventSetInformation");
        if (SetInformation != NULL) {
            Error = SetInformation(
                RegHandle, InformationClass, EventInformation, InformationLength);
        }
        FreeLibrary(Module);
    }
    return Error;
#else
    (void)RegHandle;
    (void)InformationClass;
    (void)EventInformation;
    (void)InformationLength;
  #if MCGEN_USE_KERNEL_MODE_APIS
    return (ULONG)STATUS_NOT_SUPPORTED;
  #else
    return ERROR_NOT_SUPPORTED;
  #endif
#endif
}
#endif // McGenEventSetInformation_def

#ifndef McGenEventRegisterContext_def
#define McGenEventRegisterContext_def
//
// Registers a provider that has traits, then gives ETW the traits (the context's
// Logger points at them).  Registering a provider twice is a bug: the second call
// fails with "invalid parameter" and changes nothing.
//
_IRQL_requires_max_(PASSIVE_LEVEL)
ETW_INLINE
ULONG
__stdcall
McGenEventRegisterContext(
    _In_ LPCGUID ProviderId,
    _In_opt_ MCGEN_PENABLECALLBACK EnableCallback,
    _In_opt_ PVOID CallbackContext,
    _Inout_ MCGEN_TRACE_CONTEXT* Context
    )
{
    ULONG Error;

    if (Context->RegistrationHandle != 0) {
#if MCGEN_USE_KERNEL_MODE_APIS
        return (ULONG)STATUS_INVALID_PARAMETER;
#else
        return ERROR_INVALID_PARAMETER;
#endif
    }
    Error = (ULONG)MCGEN_EVENTREGISTER(
        ProviderId, EnableCallback, CallbackContext, &Context->RegistrationHandle);
    if (Error == 0 && Context->Logger != 0) {
        (void)McGenEventSetInformation(
            Context->RegistrationHandle,
            (ETWMC_EVENT_INFO_CLASS)2, // EventProviderSetTraits
            (PVOID)(ULONG_PTR)Context->Logger,
            *(const USHORT UNALIGNED*)(ULONG_PTR)Context->Logger);
    }
    return Error;
}
#endif // McGenEventRegisterContext_def
"""

_REGISTER = """
#if !defined(McGenEventRegisterUnregister)
#define McGenEventRegisterUnregister
//
// Registers the provider unless *RegHandle already holds a registration (then it
// succeeds and does nothing, as it always has; registering twice is still a bug).
//
ETW_INLINE
ULONG
__stdcall
McGenEventRegister(
    _In_ LPCGUID ProviderId,
    _In_opt_ MCGEN_PENABLECALLBACK EnableCallback,
    _In_opt_ PVOID CallbackContext,
    _Inout_ PREGHANDLE RegHandle
    )
{
    if (*RegHandle != 0) {
        return 0; // ERROR_SUCCESS
    }
    return (ULONG)MCGEN_EVENTREGISTER(ProviderId, EnableCallback, CallbackContext, RegHandle);
}

//
// Unregisters the provider and clears *RegHandle; safe to call when registration
// failed or never happened.
//
ETW_INLINE
ULONG
__stdcall
McGenEventUnregister(_Inout_ PREGHANDLE RegHandle)
{
    ULONG Error = 0; // ERROR_SUCCESS
    if (*RegHandle != 0) {
        Error = (ULONG)MCGEN_EVENTUNREGISTER(*RegHandle);
        *RegHandle = (REGHANDLE)0;
    }
    return Error;
}
#endif // McGenEventRegisterUnregister

#endif // MCGEN_DISABLE_PROVIDER_CODE_GENERATION
"""


def preamble(*, traits: bool, logging: bool = True) -> str:
    """The support code; the traits functions only when some provider has traits.
    Without ``logging`` (mc without -um or -km) only what the constants need: the
    headers that declare GUID and EVENT_DESCRIPTOR, and how they are defined."""
    if not logging:
        return _PRAGMA + _INCLUDES + _SELECTANY
    head = _PRAGMA + _NOTES + _INCLUDES + _INLINE + _SELECTANY
    return head + _CONFIG + (_TRAITS if traits else "") + _REGISTER
