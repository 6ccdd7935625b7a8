"""The predefined ``win:`` items and the input/output type tables.

This is the one place these facts live: levels, opcodes, tasks, keywords and channels
that every provider may use without declaring them, and the in/out type codes with
their allowed pairings and defaults.  Everything else imports from here.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

from .records import record

EVENTS_NS: Final = "http://schemas.microsoft.com/win/2004/08/events"
WIN_NS: Final = "http://manifests.microsoft.com/win/2004/08/windows/events"
XS_NS: Final = "http://www.w3.org/2001/XMLSchema"
TRACE_NS: Final = "http://schemas.microsoft.com/win/2004/08/events/trace"
ASM_NS: Final = "urn:schemas-microsoft-com:asm.v3"
EVENT_INSTANCE_NS: Final = "http://schemas.microsoft.com/win/2004/08/events/event"

# User-defined ranges (inclusive).
USER_LEVELS: Final = range(16, 256)
USER_OPCODES: Final = range(10, 240)
USER_CHANNELS: Final = range(16, 256)
USER_KEYWORD_BITS: Final = range(0, 48)
MAX_CHANNELS_PER_PROVIDER: Final = 8
MAX_TEMPLATE_PROPERTIES: Final = 99
MAX_AUTO_ID_PROVIDERS: Final = 16


@record(kw_only=False)
class WinItem:
    """A predefined level, opcode, task or keyword.  ``value`` is the mask for keywords."""

    local: str  # name without prefix, e.g. "Informational"
    value: int
    symbol: str  # winmeta.h symbol
    text: str | None  # display text in winmeta's string table (None: no message)

    @property
    def name(self) -> str:
        return f"win:{self.local}"


def _items(rows: list[tuple[str, int, str, str | None]]) -> MappingProxyType[str, WinItem]:
    return MappingProxyType({r[0]: WinItem(*r) for r in rows})


LEVELS: Final = _items(
    [
        ("LogAlways", 0, "WINEVENT_LEVEL_LOG_ALWAYS", "Log Always"),
        ("Critical", 1, "WINEVENT_LEVEL_CRITICAL", "Critical"),
        ("Error", 2, "WINEVENT_LEVEL_ERROR", "Error"),
        ("Warning", 3, "WINEVENT_LEVEL_WARNING", "Warning"),
        ("Informational", 4, "WINEVENT_LEVEL_INFO", "Information"),
        ("Verbose", 5, "WINEVENT_LEVEL_VERBOSE", "Verbose"),
    ]
    + [(f"ReservedLevel{v}", v, f"WINEVENT_LEVEL_RESERVED_{v}", None) for v in range(6, 16)]
)

OPCODES: Final = _items(
    [
        ("Info", 0, "WINEVENT_OPCODE_INFO", "Info"),
        ("Start", 1, "WINEVENT_OPCODE_START", "Start"),
        ("Stop", 2, "WINEVENT_OPCODE_STOP", "Stop"),
        ("DC_Start", 3, "WINEVENT_OPCODE_DC_START", "DCStart"),
        ("DC_Stop", 4, "WINEVENT_OPCODE_DC_STOP", "DCStop"),
        ("Extension", 5, "WINEVENT_OPCODE_EXTENSION", "Extension"),
        ("Reply", 6, "WINEVENT_OPCODE_REPLY", "Reply"),
        ("Resume", 7, "WINEVENT_OPCODE_RESUME", "Resume"),
        ("Suspend", 8, "WINEVENT_OPCODE_SUSPEND", "Suspend"),
        ("Send", 9, "WINEVENT_OPCODE_SEND", "Send"),
        ("Receive", 240, "WINEVENT_OPCODE_RECEIVE", "Receive"),
    ]
    + [(f"ReservedOpcode{v}", v, f"WINEVENT_OPCODE_RESERVED_{v}", None) for v in range(241, 256)]
)

TASKS: Final = _items([("None", 0, "WINEVENT_TASK_NONE", "None")])

KEYWORDS: Final = _items(
    [
        ("AnyKeyword", 0x0, "WINEVT_KEYWORD_ANY", None),
        ("ResponseTime", 1 << 48, "WINEVENT_KEYWORD_RESPONSE_TIME", "Response Time"),
        ("WDIContext", 1 << 49, "WINEVENT_KEYWORD_WDI_CONTEXT", "WDI Context"),
        ("WDIDiag", 1 << 50, "WINEVENT_KEYWORD_WDI_DIAG", "WDI Diagnostic"),
        ("SQM", 1 << 51, "WINEVENT_KEYWORD_SQM", "SQM"),
        ("AuditFailure", 1 << 52, "WINEVENT_KEYWORD_AUDIT_FAILURE", "Audit Failure"),
        ("AuditSuccess", 1 << 53, "WINEVENT_KEYWORD_AUDIT_SUCCESS", "Audit Success"),
        ("CorrelationHint", 1 << 54, "WINEVENT_KEYWORD_CORRELATION_HINT", "Correlation Hint"),
        ("EventlogClassic", 1 << 55, "WINEVENT_KEYWORD_EVENTLOG_CLASSIC", "Classic"),
    ]
    + [
        (f"ReservedKeyword{b}", 1 << b, f"WINEVENT_KEYWORD_RESERVED_{b}", None)
        for b in range(56, 64)
    ]
)


@record(kw_only=False)
class WinChannel:
    name: str
    value: int
    type: str
    symbol: str
    isolation: str


CHANNELS: Final = MappingProxyType(
    {
        c.name: c
        for c in (
            WinChannel("TraceClassic", 0, "Debug", "WINEVENT_CHANNEL_CLASSIC_TRACE", "Application"),
            WinChannel("System", 8, "Admin", "WINEVENT_CHANNEL_GLOBAL_SYSTEM", "System"),
            WinChannel(
                "Application", 9, "Admin", "WINEVENT_CHANNEL_GLOBAL_APPLICATION", "Application"
            ),
            WinChannel("Security", 10, "Admin", "WINEVENT_CHANNEL_GLOBAL_SECURITY", "Custom"),
            WinChannel("TraceLogging", 11, "Debug", "WINEVENT_CHANNEL_TRACELOGGING", "Application"),
            WinChannel(
                "ProviderMetadata", 12, "Debug", "WINEVENT_CHANNEL_PROVIDERMETADATA", "Application"
            ),
        )
    }
)
# Global channels whose events get classic Event Log message ids (tag 0 instead of 0xB).
GLOBAL_EVENTLOG_CHANNELS: Final = frozenset({"System", "Application", "Security"})
# Channel value mc uses for channel-less events of a controlGuid provider.
PROVIDER_METADATA_CHANNEL: Final = 12

CHANNEL_TYPES: Final = ("Admin", "Operational", "Analytic", "Debug")


# --------------------------------------------------------------------------- types


@record(kw_only=False)
class OutType:
    code: int
    qname: str  # "xs:string", "win:HexInt32", ...


@record(kw_only=False)
class InType:
    code: int
    qname: str  # "win:UnicodeString", ...
    size: int | None  # fixed byte size; None for variable-size types (and Pointer)
    outs: tuple[str, ...]  # allowed outType qnames, default first
    mangle: str  # mc's template-helper code letter

    @property
    def local(self) -> str:
        return self.qname.split(":", 1)[1]

    @property
    def default_out(self) -> str:
        return self.outs[0]

    @property
    def is_string(self) -> bool:
        return self.code in (1, 2)

    @property
    def is_counted(self) -> bool:
        return self.code in (22, 23, 25)

    @property
    def is_integer(self) -> bool:
        return self.code in INTEGER_CODES


OUT_TYPES: Final = MappingProxyType(
    {
        o.qname: o
        for o in (
            OutType(0, "win:Null"),
            OutType(1, "xs:string"),
            OutType(2, "xs:dateTime"),
            OutType(3, "xs:byte"),
            OutType(4, "xs:unsignedByte"),
            OutType(5, "xs:short"),
            OutType(6, "xs:unsignedShort"),
            OutType(7, "xs:int"),
            OutType(8, "xs:unsignedInt"),
            OutType(9, "xs:long"),
            OutType(10, "xs:unsignedLong"),
            OutType(11, "xs:float"),
            OutType(12, "xs:double"),
            OutType(13, "xs:boolean"),
            OutType(14, "xs:GUID"),
            OutType(15, "xs:hexBinary"),
            OutType(16, "win:HexInt8"),
            OutType(17, "win:HexInt16"),
            OutType(18, "win:HexInt32"),
            OutType(19, "win:HexInt64"),
            OutType(20, "win:PID"),
            OutType(21, "win:TID"),
            OutType(22, "win:Port"),
            OutType(23, "win:IPv4"),
            OutType(24, "win:IPv6"),
            OutType(25, "win:SocketAddress"),
            OutType(26, "win:CIMDateTime"),
            OutType(27, "win:ETWTIME"),
            OutType(28, "win:Xml"),
            OutType(29, "win:ErrorCode"),
            OutType(30, "win:Win32Error"),
            OutType(31, "win:NTSTATUS"),
            OutType(32, "win:HResult"),
            OutType(33, "win:DateTimeCultureInsensitive"),
            OutType(34, "win:Json"),
            OutType(35, "win:Utf8"),
            OutType(36, "win:Pkcs7WithTypeInfo"),
            OutType(37, "win:CodePointer"),
            OutType(38, "win:DateTimeUtc"),
        )
    }
)
OUT_TYPES_BY_CODE: Final = MappingProxyType({o.code: o for o in OUT_TYPES.values()})

_STR_OUTS = ("xs:string", "win:Xml", "win:Json")
_ANSI_OUTS = ("xs:string", "win:Xml", "win:Json", "win:Utf8")
_BIN_OUTS = ("xs:hexBinary", "win:IPv6", "win:SocketAddress", "win:Pkcs7WithTypeInfo")
_TIME_OUTS = ("xs:dateTime", "win:DateTimeCultureInsensitive", "win:DateTimeUtc")

IN_TYPES: Final = MappingProxyType(
    {
        t.qname: t
        for t in (
            InType(1, "win:UnicodeString", None, _STR_OUTS, "z"),
            InType(2, "win:AnsiString", None, _ANSI_OUTS, "s"),
            InType(3, "win:Int8", 1, ("xs:byte", "xs:string"), "c"),
            InType(
                4,
                "win:UInt8",
                1,
                ("xs:unsignedByte", "win:HexInt8", "xs:string", "xs:boolean"),
                "u",
            ),
            InType(5, "win:Int16", 2, ("xs:short",), "l"),
            InType(
                6,
                "win:UInt16",
                2,
                ("xs:unsignedShort", "win:Port", "win:HexInt16", "xs:string"),
                "h",
            ),
            InType(7, "win:Int32", 4, ("xs:int", "win:HResult"), "d"),
            InType(
                8,
                "win:UInt32",
                4,
                (
                    "xs:unsignedInt",
                    "win:PID",
                    "win:TID",
                    "win:IPv4",
                    "win:ETWTIME",
                    "win:ErrorCode",
                    "win:Win32Error",
                    "win:NTSTATUS",
                    "win:HexInt32",
                    "win:CodePointer",
                ),
                "q",
            ),
            InType(9, "win:Int64", 8, ("xs:long",), "i"),
            InType(
                10,
                "win:UInt64",
                8,
                ("xs:unsignedLong", "win:ETWTIME", "win:HexInt64", "win:CodePointer"),
                "x",
            ),
            InType(11, "win:Float", 4, ("xs:float",), "f"),
            InType(12, "win:Double", 8, ("xs:double",), "g"),
            InType(13, "win:Boolean", 4, ("xs:boolean",), "t"),
            InType(14, "win:Binary", None, _BIN_OUTS, "b"),
            InType(15, "win:GUID", 16, ("xs:GUID",), "j"),
            InType(
                16,
                "win:Pointer",
                None,
                ("win:HexInt64", "win:CodePointer", "xs:long", "xs:unsignedLong"),
                "p",
            ),
            InType(17, "win:FILETIME", 8, _TIME_OUTS, "m"),
            InType(18, "win:SYSTEMTIME", 16, _TIME_OUTS, "y"),
            InType(19, "win:SID", None, ("xs:string",), "k"),
            InType(
                20,
                "win:HexInt32",
                4,
                (
                    "win:HexInt32",
                    "win:ErrorCode",
                    "win:Win32Error",
                    "win:NTSTATUS",
                    "win:CodePointer",
                ),
                "d",
            ),
            InType(21, "win:HexInt64", 8, ("win:HexInt64", "win:CodePointer"), "i"),
            InType(22, "win:CountedUnicodeString", None, _STR_OUTS, "w"),
            InType(23, "win:CountedAnsiString", None, _ANSI_OUTS, "a"),
            InType(25, "win:CountedBinary", None, _BIN_OUTS, "e"),
        )
    }
)
IN_TYPES_BY_CODE: Final = MappingProxyType({t.code: t for t in IN_TYPES.values()})

# Older spellings accepted by mc and found in real manifests.
IN_TYPE_ALIASES: Final = MappingProxyType(
    {
        "win:CountedString": "win:CountedUnicodeString",
        "win:HexInt8": "win:UInt8",
        "win:HexInt16": "win:UInt16",
    }
)

# inType code -> struct format of the fixed-size scalars; Boolean is a 4-byte BOOL and
# "P" a pointer, as wide as the writing process's pointers (the session records that).
SCALAR_FORMATS: Final = MappingProxyType(
    {3: "b", 4: "B", 5: "h", 6: "H", 7: "i", 8: "I", 9: "q", 10: "Q"}
    | {11: "f", 12: "d", 13: "i", 16: "P", 20: "I", 21: "Q"}
)
INTEGER_CODES: Final = frozenset({3, 4, 5, 6, 7, 8, 9, 10, 20, 21})
# inTypes a count/length reference may name (it must hold a small unsigned count).
COUNT_LENGTH_CODES: Final = frozenset({4, 6, 8, 3, 5, 7, 9, 10, 20, 21})
# inTypes that may carry a value or bit map.
MAPPABLE_CODES: Final = frozenset({4, 6, 8, 20})


def in_type(qname: str) -> InType | None:
    qname = IN_TYPE_ALIASES.get(qname, qname)
    return IN_TYPES.get(qname)


def out_type(qname: str) -> OutType | None:
    return OUT_TYPES.get(qname)


def keyword_bit(mask: int) -> int | None:
    """The bit index of a single-bit mask, or None when the mask is not exactly one bit."""
    if mask <= 0 or mask & (mask - 1):
        return None
    return mask.bit_length() - 1
