"""Diagnostic codes of trace decoding (band ETW85x)."""

from __future__ import annotations

from typing import Final

from ..diagnostics import Code, Severity, code

E_TRACE_DAMAGED: Final[Code] = code(
    "ETW851", Severity.ERROR, "the trace is truncated or damaged at a byte offset"
)
E_METADATA_READ: Final[Code] = code(
    "ETW852", Severity.ERROR, "a TEMP.BIN, message table or DLL given for decoding cannot be read"
)
W_METADATA_INVALID: Final[Code] = code(
    "ETW853",
    Severity.WARNING,
    "a manifest given for decoding has errors; events are decoded with what could be read",
)
W_INBAND_MANIFEST: Final[Code] = code(
    "ETW854", Severity.WARNING, "an EventSource's in-band manifest cannot be used"
)
E_EVENT_MISFIT: Final[Code] = code(
    "ETW855", Severity.ERROR, "events whose metadata exists but does not fit their payload"
)
