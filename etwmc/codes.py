"""Every diagnostic code etwmc reports, in one place.

A code is ``ETW`` and three digits, banded by the stage that reports it (the comments
below name the bands).  Codes are stable: an id is never reused for another meaning,
so users can select and ignore them.  A code that nothing reports any more is retired,
not removed: it keeps its constant, its summary and its page, with ``retired`` saying
why, so a configuration that names it keeps working and its id keeps its meaning.
Each code is a named constant here; a stage imports the constants it reports, and
``etwmc lint --list-codes`` lists :data:`REGISTRY` without importing any stage.
"""

from __future__ import annotations

import enum
from typing import Final

from .record import Record


class Severity(enum.IntEnum):
    NOTE = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return self.name.lower()


ERROR: Final = Severity.ERROR
WARNING: Final = Severity.WARNING
NOTE: Final = Severity.NOTE


class Code(Record):
    """A diagnostic code: its id, default severity and a one-line summary; ``retired``
    (empty for a live code) says why no stage reports it any more."""

    id: str
    severity: Severity
    summary: str
    retired: str = ""


# ETW0xx  input: reading, encoding, well-formedness, safety; the files a command is given
E_READ: Final = Code("ETW001", ERROR, "the file cannot be read")
E_EMPTY: Final = Code("ETW002", ERROR, "the file is empty")
E_TOO_LARGE: Final = Code("ETW003", ERROR, "the file is larger than etwmc accepts")
E_SYNTAX: Final = Code("ETW004", ERROR, "the file is not well-formed XML")
E_DTD: Final = Code("ETW005", ERROR, "a DOCTYPE or DTD is not allowed in a manifest")
E_ENTITY: Final = Code("ETW006", ERROR, "an entity reference is not allowed in a manifest")
E_PI: Final = Code("ETW007", ERROR, "a processing instruction is not allowed in a manifest")
E_ROOT: Final = Code("ETW008", ERROR, "the root element is not an instrumentation manifest")
E_ENCODING: Final = Code("ETW009", ERROR, "the file's text encoding is not supported")
N_COUNTERS: Final = Code("ETW010", NOTE, "performance-counter sections are ignored")
N_NO_EVENTS: Final = Code("ETW011", NOTE, "the manifest defines no events section")
E_NO_INPUT: Final = Code("ETW012", ERROR, "a path given on the command line does not exist")
N_UNUSED_SUPPRESSION: Final = Code("ETW013", NOTE, "a suppression comment suppresses nothing")
E_WALK: Final = Code("ETW014", ERROR, "an entry of a searched folder cannot be read")
W_SUPPRESSED_ERROR: Final = Code(
    "ETW015", WARNING, "a suppression covers an error, which lint and compile still report"
)
E_BLOB: Final = Code("ETW020", ERROR, "a WEVT_TEMPLATE blob cannot be read")
E_MESSAGES: Final = Code("ETW021", ERROR, "a message table cannot be read")
E_EVENTS: Final = Code("ETW022", ERROR, "an event file cannot be read")
E_DLL: Final = Code(
    "ETW023",
    ERROR,
    "a provider DLL's resources cannot be read",
    retired="each command that reads a DLL names its problems with its own code: ETW739 "
    "(etwmc diff's baseline), ETW852 (etwmc decode's metadata)",
)
E_WINMETA_FILE: Final = Code(
    "ETW024", ERROR, "a winmeta.xml given with mc -W cannot be read or used"
)
E_SCHEMA_FILE: Final = Code("ETW025", ERROR, "a schema given with mc -w cannot be read or used")
E_CUSTOM_SCHEMA: Final = Code(
    "ETW026", ERROR, "the manifest does not match the schema given with mc -w"
)

# ETW1xx  schema: etwmc's XSD (structure and lexical forms)
E_UNKNOWN_ELEMENT: Final = Code("ETW100", ERROR, "an element is not allowed here")
E_ORDER: Final = Code("ETW101", ERROR, "an element is out of order")
E_TOO_MANY: Final = Code("ETW102", ERROR, "an element occurs more often than allowed")
E_MISSING_CHILD: Final = Code("ETW103", ERROR, "a required child element is missing")
E_TEXT: Final = Code("ETW104", ERROR, "text is not allowed in this element")
E_UNKNOWN_ATTR: Final = Code("ETW110", ERROR, "an attribute is not allowed on this element")
E_MISSING_ATTR: Final = Code("ETW111", ERROR, "a required attribute is missing")
E_BAD_GUID: Final = Code("ETW120", ERROR, "a GUID is not in registry form {...}")
E_BAD_HEX: Final = Code("ETW121", ERROR, "a hexadecimal value is not written 0x...")
E_BAD_NUMBER: Final = Code("ETW122", ERROR, "a number is malformed or does not fit its size")
E_BAD_SYMBOL: Final = Code("ETW123", ERROR, "a symbol is not a C identifier")
E_BAD_BOOL: Final = Code("ETW124", ERROR, "a boolean is not true, false, 1 or 0")
E_BAD_ENUM: Final = Code("ETW125", ERROR, "a value is not one of the allowed words")
E_BAD_MESSAGE_REF: Final = Code("ETW126", ERROR, "a message is not a $(string.ID) reference")
E_BAD_QNAME: Final = Code("ETW127", ERROR, "a name is not a valid XML qualified name")
E_UNDECLARED_PREFIX: Final = Code("ETW128", ERROR, "a name uses an undeclared prefix")
E_BAD_VALUE: Final = Code("ETW129", ERROR, "a value has the wrong form")
W_MAP_OUTSIDE_MAPS: Final = Code("ETW140", WARNING, "a value or bit map is not inside <maps>")
W_LITERAL_MAP_MESSAGE: Final = Code(
    "ETW141", WARNING, "a map item's message is literal text, not $(string.ID)"
)
E_TASK_GROUPED_EVENTS: Final = Code("ETW142", ERROR, "the task-grouped event form is not supported")
W_FOREIGN_NAMESPACE: Final = Code(
    "ETW143", WARNING, "a manifest element is in another namespace and is ignored"
)
E_SCHEMA: Final = Code("ETW199", ERROR, "the manifest does not match etwmc's schema")

# ETW2xx  semantics: values and ranges (ETW29x: advice)
E_VALUE: Final = Code("ETW200", ERROR, "an attribute value cannot be read")
E_KEYWORD_BITS: Final = Code("ETW201", ERROR, "a keyword mask does not have exactly one bit set")
E_KEYWORD_RESERVED: Final = Code(
    "ETW202", ERROR, "a keyword mask uses a bit reserved for Windows (48-63)"
)
E_CHANNEL_VALUE: Final = Code("ETW203", ERROR, "a user channel value is below 16")
E_CHANNEL_NAME: Final = Code("ETW205", ERROR, "a channel name is not a legal channel name")
E_CHANNEL_CHID: Final = Code("ETW206", ERROR, "a channel chid is empty or has illegal characters")
W_ADMIN_MESSAGE: Final = Code(
    "ETW207", WARNING, "an event written to an Admin channel has no message"
)
W_ADMIN_LEVEL: Final = Code(
    "ETW208",
    WARNING,
    "an event written to an Admin channel is not Critical, Error, Warning or Informational",
)
E_ACCESS: Final = Code("ETW209", ERROR, "a channel's access is not a valid SDDL string")
E_LEVEL_VALUE: Final = Code("ETW210", ERROR, "a user level value is below 16")
E_OPCODE_VALUE: Final = Code("ETW211", ERROR, "an opcode value is outside 10-239")
E_TASK_OPCODE_WIN: Final = Code(
    "ETW212", ERROR, "a task-scoped opcode is named in the win: namespace"
)
E_EVENT_VALUE: Final = Code("ETW214", ERROR, "an event id is above 65535")
W_BITMAP_VALUE: Final = Code("ETW216", WARNING, "a bitMap item's value is not a single bit")
W_TASK_ZERO: Final = Code("ETW218", WARNING, "a task has value 0, the value of win:None")
N_NO_LEVEL: Final = Code("ETW290", NOTE, "events have no level and are logged at win:LogAlways")
N_ADMIN_KEYWORDS: Final = Code("ETW291", NOTE, "events of an Admin channel have no keywords")
N_HAND_MADE_GUID: Final = Code(
    "ETW292", NOTE, "the provider GUID looks typed by hand rather than generated"
)

# ETW3xx  semantics: uniqueness
E_DUP_STRING: Final = Code("ETW301", ERROR, "a string id is defined twice in one culture")
E_DUP_EVENT: Final = Code("ETW302", ERROR, "two events have the same id and version")
E_DUP_EVENT_SYMBOL: Final = Code("ETW303", ERROR, "two events have the same symbol")
E_DUP_CHANNEL: Final = Code("ETW304", ERROR, "two channels share a name, chid, value or symbol")
E_DUP_LEVEL: Final = Code("ETW305", ERROR, "two levels share a name, value or symbol")
E_DUP_OPCODE: Final = Code(
    "ETW306", ERROR, "two provider-level opcodes share a name, value or symbol"
)
E_DUP_TASK_OPCODE: Final = Code("ETW307", ERROR, "two opcodes of one task share a name or value")
E_DUP_TASK: Final = Code("ETW308", ERROR, "two tasks share a name, value, symbol or eventGUID")
E_DUP_KEYWORD: Final = Code("ETW309", ERROR, "two keywords share a name, mask or symbol")
E_DUP_MAP: Final = Code("ETW310", ERROR, "two maps share a name or symbol")
E_DUP_MAP_ITEM: Final = Code("ETW311", ERROR, "two items of one map share a value or symbol")
E_DUP_PATTERN_MAP: Final = Code(
    "ETW312", ERROR, "two pattern maps (or two of their items) share a name"
)
E_DUP_TEMPLATE: Final = Code("ETW313", ERROR, "two templates share a tid or name")
E_DUP_FIELD: Final = Code("ETW314", ERROR, "two data items of one template or struct share a name")
E_DUP_FILTER: Final = Code(
    "ETW315", ERROR, "two filters share a name, value and version, or symbol"
)
E_DUP_MESSAGE: Final = Code("ETW316", ERROR, "two messageTable entries share a symbol")
E_DUP_PROVIDER: Final = Code("ETW317", ERROR, "two providers share a name, GUID or symbol")

# ETW4xx  semantics: references (ETW48x: advice)
E_UNKNOWN_LEVEL: Final = Code("ETW401", ERROR, "an event references an undefined level")
E_UNKNOWN_TASK: Final = Code("ETW402", ERROR, "an event references an undefined task")
E_UNKNOWN_OPCODE: Final = Code("ETW403", ERROR, "an event references an undefined opcode")
E_UNKNOWN_KEYWORD: Final = Code("ETW404", ERROR, "an event references an undefined keyword")
E_UNKNOWN_CHANNEL: Final = Code("ETW405", ERROR, "an event references an undefined channel")
E_UNKNOWN_TEMPLATE: Final = Code(
    "ETW406", ERROR, "an event or filter references an undefined template"
)
E_UNKNOWN_STRING: Final = Code(
    "ETW408", ERROR, "a message references a string the primary culture does not define"
)
W_MISSING_STRING: Final = Code(
    "ETW409", WARNING, "a string of the primary culture is missing from another culture"
)
E_UNKNOWN_IMPORT: Final = Code("ETW410", ERROR, "importChannel names an unknown channel")
E_BAD_STRREF: Final = Code("ETW412", ERROR, "a message attribute is not a $(string.ID) reference")
W_UNKNOWN_MAP: Final = Code(
    "ETW420", WARNING, "a data item references a map the provider does not define"
)
E_MAP_TYPE: Final = Code(
    "ETW421", ERROR, "a map is used on a data item whose inType cannot have one"
)
E_OPCODE_SHADOWED: Final = Code(
    "ETW422",
    ERROR,
    "an event's provider-level opcode has the value of one of its task's own opcodes",
)
W_UNUSED_TEMPLATE: Final = Code("ETW480", WARNING, "a template is used by no event or filter")
N_UNUSED_MAP: Final = Code("ETW481", NOTE, "a map is used by no data item")
N_UNUSED_KEYWORD: Final = Code("ETW482", NOTE, "a keyword is used by no event")
N_UNUSED_STRING: Final = Code("ETW483", NOTE, "strings of the string table are never referenced")

# ETW5xx  semantics: templates, messages, providers
E_EXTENT_UNKNOWN: Final = Code("ETW501", ERROR, "a count or length names no data item of its scope")
E_EXTENT_LATER: Final = Code(
    "ETW502", ERROR, "a count or length names a data item that comes later"
)
E_EXTENT_TYPE: Final = Code(
    "ETW503", ERROR, "a count or length names a struct or a non-integer item"
)
E_BINARY_LENGTH: Final = Code("ETW504", ERROR, "a win:Binary data item has no length")
E_COUNTED_LENGTH: Final = Code("ETW505", ERROR, "a counted-type data item has a length")
W_FIXED_LENGTH: Final = Code("ETW506", WARNING, "a length on a fixed-size type is ignored")
E_TOO_MANY_PROPERTIES: Final = Code("ETW507", ERROR, "a template has more than 99 properties")
E_UNKNOWN_INTYPE: Final = Code("ETW508", ERROR, "a data item's inType is unknown")
W_OUTTYPE: Final = Code(
    "ETW509", WARNING, "a data item's outType is unknown or does not fit its inType"
)
E_NO_NAME: Final = Code("ETW510", ERROR, "a data item or struct has no name")
W_FILTER_TEMPLATE: Final = Code(
    "ETW511", WARNING, "a filter's template uses UserData, a struct, an array or a map"
)
W_BINARY_NAME: Final = Code(
    "ETW512", WARNING, "a template's <binary> has no name; etwmc names its field 'binary'"
)
E_INSERT_RANGE: Final = Code(
    "ETW520", ERROR, "an event message inserts a property its template does not have"
)
E_INSERT_FORMAT: Final = Code("ETW521", ERROR, "an event message has an unterminated %n!format!")
E_INSERT_NO_TEMPLATE: Final = Code(
    "ETW522", ERROR, "an event message has inserts but the event has no template"
)
E_PROVIDER_NAME: Final = Code("ETW530", ERROR, "a provider name is not a legal provider name")
E_CONTROL_GUID_NAME: Final = Code(
    "ETW531", ERROR, "a provider with a controlGuid does not end its name with its GUID"
)
E_EMPTY_FILE: Final = Code(
    "ETW532", ERROR, "a provider's resourceFileName or messageFileName is empty"
)
W_NO_FILE: Final = Code("ETW533", WARNING, "a provider has no resourceFileName or messageFileName")

# ETW6xx  outputs: the Python module (60x), output names (61x), the C header (62x), binaries (65x)
W_COLLISION: Final = Code("ETW600", WARNING, "two manifest names map to the same Python identifier")
E_UNRESOLVED: Final = Code("ETW601", ERROR, "a template field cannot be turned into Python code")
E_TRAITS: Final = Code("ETW602", ERROR, "a provider's traits do not fit in 255 bytes")
E_BASE: Final = Code("ETW612", ERROR, "the output base or module name is not a portable file name")
E_INTERNAL_RENDER: Final = Code(
    "ETW613", ERROR, "the generated module failed etwmc's own safety check"
)
E_SYMBOL: Final = Code(
    "ETW620", ERROR, "a name the C header would define is no usable C identifier"
)
W_DUPLICATE: Final = Code(
    "ETW621", WARNING, "the C header would define one name twice, differently"
)
W_DESCRIPTORS: Final = Code(
    "ETW622", WARNING, "an event's data needs more than 127 data descriptors"
)
W_LONG_MESSAGE: Final = Code("ETW623", WARNING, "a message is longer than mc's -m limit")
W_TOO_MANY_PROVIDERS: Final = Code(
    "ETW650", WARNING, "a provider after the 16th gets message ids mc would not assign"
)
E_DUP_MESSAGE_ID: Final = Code(
    "ETW651", ERROR, "two strings with different texts would get the same message id"
)
E_UNKNOWN_CULTURE: Final = Code(
    "ETW652", ERROR, "a <resources> culture has no known Windows language id"
)
E_STRING_TOO_LONG: Final = Code(
    "ETW653", ERROR, "a string is too long for a message table entry (64 KB)"
)
E_BINXML_TOO_LONG: Final = Code(
    "ETW654", ERROR, "a template's name or value is too long for BinXML (65,535)"
)

# ETW7xx  compatibility between two versions (etwmc diff)
E_PROVIDER_REMOVED: Final = Code("ETW700", ERROR, "a provider was removed")
E_PROVIDER_GUID: Final = Code("ETW701", ERROR, "a provider's GUID changed")
E_PROVIDER_NAME_CHANGED: Final = Code("ETW702", ERROR, "a provider's name changed")
E_EVENT_REMOVED: Final = Code("ETW710", ERROR, "an event (id and version) was removed")
E_EVENT_LAYOUT: Final = Code("ETW711", ERROR, "an existing event's payload layout changed")
E_EVENT_LEVEL: Final = Code("ETW712", ERROR, "an existing event's level changed")
E_EVENT_OPCODE: Final = Code("ETW713", ERROR, "an existing event's opcode changed")
E_EVENT_TASK: Final = Code("ETW714", ERROR, "an existing event's task changed")
E_EVENT_KEYWORDS: Final = Code(
    "ETW715", ERROR, "an existing event's keywords lost a bit, or it had none and now has some"
)
E_EVENT_CHANNEL: Final = Code("ETW716", ERROR, "an existing event's channel changed")
E_KEYWORD_REMOVED: Final = Code("ETW720", ERROR, "a keyword was removed")
E_KEYWORD_MASK: Final = Code("ETW721", ERROR, "a keyword's mask changed")
E_CHANNEL_REMOVED: Final = Code("ETW722", ERROR, "a channel was removed")
E_CHANNEL_CHANGED: Final = Code("ETW723", ERROR, "a channel's value or type changed")
E_LEVEL_REMOVED: Final = Code("ETW724", ERROR, "a level was removed")
E_LEVEL_VALUE_CHANGED: Final = Code("ETW725", ERROR, "a level's value changed")
E_TASK_REMOVED: Final = Code("ETW726", ERROR, "a task was removed")
E_TASK_VALUE: Final = Code("ETW727", ERROR, "a task's value changed")
E_OPCODE_REMOVED: Final = Code("ETW728", ERROR, "an opcode was removed")
E_OPCODE_VALUE_CHANGED: Final = Code("ETW729", ERROR, "an opcode's value changed")
E_MAP_REMOVED: Final = Code("ETW730", ERROR, "a value map or bit map was removed")
E_MAP_KIND: Final = Code("ETW731", ERROR, "a map changed between value map and bit map")
E_MAP_VALUE_REMOVED: Final = Code("ETW732", ERROR, "a map value was removed")
E_BASELINE: Final = Code("ETW739", ERROR, "a compiled baseline cannot be read")
W_EVENT_FORMAT: Final = Code("ETW740", WARNING, "a field's outType or map changed")
W_RENAMED: Final = Code("ETW741", WARNING, "an item was renamed (same value, new name)")
N_PROVIDER_ADDED: Final = Code("ETW750", NOTE, "a provider was added")
N_EVENT_ADDED: Final = Code("ETW751", NOTE, "an event was added")
N_EVENT_VERSION: Final = Code("ETW752", NOTE, "a new version of an existing event was added")
N_ITEM_ADDED: Final = Code(
    "ETW753", NOTE, "a keyword, level, task, opcode, channel or map was added"
)
N_MAP_VALUE_ADDED: Final = Code("ETW754", NOTE, "a map value was added")
N_STRING_ADDED: Final = Code("ETW755", NOTE, "a string was added")
N_STRING_CHANGED: Final = Code("ETW756", NOTE, "a string's text changed")
N_EVENT_KEYWORDS_ADDED: Final = Code("ETW757", NOTE, "an existing event gained keyword bits")

# ETW8xx  reading compiled metadata back: decompiling (80x), decoding traces (85x)
W_DESCRIPTOR: Final = Code(
    "ETW800", WARNING, "a decompiled event's descriptor value has no entry that gives it back"
)
W_TEMPLATE: Final = Code(
    "ETW801",
    WARNING,
    "a decompiled template's stored id or BinXML cannot be rebuilt from a manifest",
)
N_LEGACY_IDS: Final = Code(
    "ETW802", NOTE, "a decompiled blob has mc 8.1's template ids (--legacy-template-ids)"
)
W_MESSAGE_TEXT: Final = Code(
    "ETW803",
    WARNING,
    "a decompiled message text has a bare line feed, which compiling writes as CR LF",
)
E_TRACE_DAMAGED: Final = Code("ETW851", ERROR, "the trace is truncated or damaged at a byte offset")
E_METADATA_READ: Final = Code(
    "ETW852", ERROR, "a TEMP.BIN, message table or DLL given for decoding cannot be read"
)
W_METADATA_INVALID: Final = Code(
    "ETW853",
    WARNING,
    "a manifest given for decoding has errors; events are decoded with what could be read",
)
W_INBAND_MANIFEST: Final = Code(
    "ETW854", WARNING, "an EventSource's in-band manifest cannot be used"
)
E_EVENT_MISFIT: Final = Code(
    "ETW855", ERROR, "events whose metadata exists but does not fit their payload"
)
E_OUTPUT_LIMIT: Final = Code(
    "ETW856", ERROR, "decoding wrote as much as a trace of this size may write, and stopped"
)
W_EVENT_OVERSIZED: Final = Code(
    "ETW857", WARNING, "events whose fields are larger than one event may write"
)
W_PROVIDER_UNMATCHED: Final = Code(
    "ETW858", WARNING, "a --provider given to decode matches no provider of the input"
)

# ETW9xx  message text files (.mc): reading and syntax (90x), values and names (91x-92x),
#         uniqueness and languages (93x), outputs (94x); ETW99x stays for internal errors
E_MC_ENCODING: Final = Code("ETW900", ERROR, "a message text file's encoding cannot be read")
E_MC_CHARACTER: Final = Code(
    "ETW901", ERROR, "a message text file holds a NUL or a lone carriage return"
)
E_MC_SYNTAX: Final = Code("ETW902", ERROR, "a statement of a message text file is malformed")
E_MC_UNTERMINATED: Final = Code(
    "ETW903", ERROR, "a message text does not end with a line holding a single '.'"
)
E_MC_ORDER: Final = Code("ETW904", ERROR, "a statement of a message text file is out of place")
E_MC_NAME_LIST: Final = Code(
    "ETW905", ERROR, "a SeverityNames, FacilityNames or LanguageNames list is malformed"
)
W_MC_LINE_COMMENT: Final = Code(
    "ETW906", WARNING, "a comment after a statement is not copied into the header"
)
W_MC_DOT_LINE: Final = Code(
    "ETW907", WARNING, "a line holding '.' and white space is message text, not its end"
)
E_MC_ID_RANGE: Final = Code("ETW910", ERROR, "a message id does not fit in 16 bits")
E_MC_VALUE_RANGE: Final = Code(
    "ETW911", ERROR, "a severity, facility or language value is out of range"
)
E_MC_UNKNOWN_SEVERITY: Final = Code("ETW912", ERROR, "a Severity names no declared severity")
E_MC_UNKNOWN_FACILITY: Final = Code("ETW913", ERROR, "a Facility names no declared facility")
E_MC_UNKNOWN_LANGUAGE: Final = Code("ETW914", ERROR, "a Language names no declared language")
E_MC_OUTPUT_BASE: Final = Code("ETW915", ERROR, "an OutputBase is neither 10 nor 16")
E_MC_FILE_NAME: Final = Code("ETW916", ERROR, "a language's table file name is not a plain name")
E_MC_SYMBOL: Final = Code(
    "ETW917", ERROR, "a name the header would define has characters a C header cannot hold"
)
W_MC_NOT_IDENTIFIER: Final = Code(
    "ETW918", WARNING, "a symbolic name is not a C identifier, so its #define does not compile"
)
E_MC_TOO_LONG: Final = Code("ETW919", ERROR, "a message text is too long for a message table entry")
E_MC_CODE_PAGE: Final = Code(
    "ETW920", ERROR, "a message text cannot be written in the ANSI code page (-A)"
)
E_MC_DUP_SYMBOL: Final = Code("ETW930", ERROR, "two messages have the same symbolic name")
E_MC_DUP_ID: Final = Code("ETW931", ERROR, "two messages have the same message id")
E_MC_DUP_TEXT: Final = Code("ETW932", ERROR, "a message gives one language's text twice")
W_MC_REDECLARED: Final = Code(
    "ETW933", WARNING, "a severity, facility or language name is declared twice"
)
E_MC_DUP_FILE: Final = Code("ETW934", ERROR, "two languages write the same table file")
W_MC_DUP_LANGID: Final = Code("ETW935", WARNING, "two languages with messages share a language id")
W_MC_MISSING_TEXT: Final = Code(
    "ETW936", WARNING, "a message has no text in a language other messages have"
)
E_MC_SHARED_ID: Final = Code(
    "ETW940", ERROR, "a message text file and the manifest give one id to two texts"
)


def _registry() -> dict[str, Code]:
    found = [v for v in globals().values() if isinstance(v, Code)]
    out: dict[str, Code] = {}
    for c in sorted(found, key=lambda c: c.id):
        if not (len(c.id) == 6 and c.id.startswith("ETW") and c.id[3:].isdigit()):
            raise ValueError(f"malformed diagnostic code {c.id!r}")
        if c.id in out:
            raise ValueError(f"diagnostic code {c.id} is defined twice")
        out[c.id] = c
    return out


REGISTRY: Final[dict[str, Code]] = _registry()
