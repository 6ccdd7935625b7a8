"""The predefined ``win:`` items and the input/output type tables.

This is the one place these facts live: levels, opcodes, tasks, keywords and channels
that every provider may use without declaring them, and the in/out type codes with
their allowed pairings and defaults.  Everything else imports from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from types import MappingProxyType
from typing import Final

from .record import Record

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


class WinItem(Record):
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

# The predefined items by kind, as the model's declarations name their kinds.
PREDEFINED: Final = MappingProxyType(
    {"level": LEVELS, "task": TASKS, "opcode": OPCODES, "keyword": KEYWORDS}
)


def predefined(kind: str, name: str) -> WinItem | None:
    """The predefined item a ``win:`` name stands for (``kind``: "level", "task",
    "opcode" or "keyword"); None for any other name."""
    return PREDEFINED[kind].get(name[4:]) if name.startswith("win:") else None


class WinChannel(Record):
    """A predefined channel (``win:`` prefix): Application, System, Security, ..."""

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


class InTypeCode(IntEnum):
    """TDH's inType codes (``TDH_INTYPE_*``), as metadata and payload layouts store them;
    each name is its ``win:`` type's, in capitals (``win:CountedAnsiString``:
    :attr:`COUNTED_ANSI_STRING`).  Hot loops compare with module-level aliases: reading
    a member from the class costs more than a comparison."""

    NULL = 0  # no type: a struct's property entry
    UNICODE_STRING = 1
    ANSI_STRING = 2
    INT8 = 3
    UINT8 = 4
    INT16 = 5
    UINT16 = 6
    INT32 = 7
    UINT32 = 8
    INT64 = 9
    UINT64 = 10
    FLOAT = 11
    DOUBLE = 12
    BOOLEAN = 13
    BINARY = 14
    GUID = 15
    POINTER = 16
    FILETIME = 17
    SYSTEMTIME = 18
    SID = 19
    HEX_INT32 = 20
    HEX_INT64 = 21
    COUNTED_UNICODE_STRING = 22
    COUNTED_ANSI_STRING = 23
    COUNTED_BINARY = 25


_I = InTypeCode


class OutType(Record):
    """An outType: how a field's value is shown."""

    code: int
    qname: str  # "xs:string", "win:HexInt32", ...


class InType(Record):
    """An inType: how a field's value is stored in the payload."""

    code: InTypeCode
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
        return self.code in (_I.UNICODE_STRING, _I.ANSI_STRING)

    @property
    def is_counted(self) -> bool:
        return self.code in (_I.COUNTED_UNICODE_STRING, _I.COUNTED_ANSI_STRING, _I.COUNTED_BINARY)

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
            InType(_I.UNICODE_STRING, "win:UnicodeString", None, _STR_OUTS, "z"),
            InType(_I.ANSI_STRING, "win:AnsiString", None, _ANSI_OUTS, "s"),
            InType(_I.INT8, "win:Int8", 1, ("xs:byte", "xs:string"), "c"),
            InType(
                _I.UINT8,
                "win:UInt8",
                1,
                ("xs:unsignedByte", "win:HexInt8", "xs:string", "xs:boolean"),
                "u",
            ),
            InType(_I.INT16, "win:Int16", 2, ("xs:short",), "l"),
            InType(
                _I.UINT16,
                "win:UInt16",
                2,
                ("xs:unsignedShort", "win:Port", "win:HexInt16", "xs:string"),
                "h",
            ),
            InType(_I.INT32, "win:Int32", 4, ("xs:int", "win:HResult"), "d"),
            InType(
                _I.UINT32,
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
            InType(_I.INT64, "win:Int64", 8, ("xs:long",), "i"),
            InType(
                _I.UINT64,
                "win:UInt64",
                8,
                ("xs:unsignedLong", "win:ETWTIME", "win:HexInt64", "win:CodePointer"),
                "x",
            ),
            InType(_I.FLOAT, "win:Float", 4, ("xs:float",), "f"),
            InType(_I.DOUBLE, "win:Double", 8, ("xs:double",), "g"),
            InType(_I.BOOLEAN, "win:Boolean", 4, ("xs:boolean",), "t"),
            InType(_I.BINARY, "win:Binary", None, _BIN_OUTS, "b"),
            InType(_I.GUID, "win:GUID", 16, ("xs:GUID",), "j"),
            InType(
                _I.POINTER,
                "win:Pointer",
                None,
                ("win:HexInt64", "win:CodePointer", "xs:long", "xs:unsignedLong"),
                "p",
            ),
            InType(_I.FILETIME, "win:FILETIME", 8, _TIME_OUTS, "m"),
            InType(_I.SYSTEMTIME, "win:SYSTEMTIME", 16, _TIME_OUTS, "y"),
            InType(_I.SID, "win:SID", None, ("xs:string",), "k"),
            InType(
                _I.HEX_INT32,
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
            InType(_I.HEX_INT64, "win:HexInt64", 8, ("win:HexInt64", "win:CodePointer"), "i"),
            InType(_I.COUNTED_UNICODE_STRING, "win:CountedUnicodeString", None, _STR_OUTS, "w"),
            InType(_I.COUNTED_ANSI_STRING, "win:CountedAnsiString", None, _ANSI_OUTS, "a"),
            InType(_I.COUNTED_BINARY, "win:CountedBinary", None, _BIN_OUTS, "e"),
        )
    }
)
IN_TYPES_BY_CODE: Final[Mapping[int, InType]] = MappingProxyType(
    {t.code: t for t in IN_TYPES.values()}
)

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
_SCALAR_FORMATS: dict[int, str] = {
    _I.INT8: "b", _I.UINT8: "B", _I.INT16: "h", _I.UINT16: "H", _I.INT32: "i", _I.UINT32: "I",
    _I.INT64: "q", _I.UINT64: "Q", _I.FLOAT: "f", _I.DOUBLE: "d", _I.BOOLEAN: "i",
    _I.POINTER: "P", _I.HEX_INT32: "I", _I.HEX_INT64: "Q",
}  # fmt: skip
SCALAR_FORMATS: Final[Mapping[int, str]] = MappingProxyType(_SCALAR_FORMATS)
INTEGER_CODES: Final[frozenset[int]] = frozenset(
    {_I.INT8, _I.UINT8, _I.INT16, _I.UINT16, _I.INT32, _I.UINT32, _I.INT64, _I.UINT64}
    | {_I.HEX_INT32, _I.HEX_INT64}
)
# inTypes a count/length reference may name (it must hold a small unsigned count).
COUNT_LENGTH_CODES: Final = INTEGER_CODES
# inTypes that may carry a value or bit map.
MAPPABLE_CODES: Final[frozenset[int]] = frozenset({_I.UINT8, _I.UINT16, _I.UINT32, _I.HEX_INT32})


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
