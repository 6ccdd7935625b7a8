"""Decoding: event payloads with manifest metadata, and whole ``.etl`` traces.

- :mod:`.payload` — the payload decoder (every inType, maps, arrays, structs), with
  :mod:`.plan` (how a template is read), :mod:`.values` (how values are shown),
  :mod:`.bounds` (the work one event may cost) and :mod:`.message` (messages);
- :mod:`.metadata` — manifests, TEMP.BIN blobs with message tables, provider DLLs;
- :mod:`.etl` — the trace container (file header, buffers, records), with
  :mod:`.lzxpress` and :mod:`.kernel` (the kernel's event groups);
- :mod:`.eventsource` — in-band EventSource manifests;
- :mod:`.tracelogging` — self-describing TraceLogging events;
- :mod:`.trace` — records to decoded events, and the per-provider counts;
- :mod:`.jsonline` — an event's JSON line, written from pieces;
- :mod:`.output` — JSON Lines, JSON and text, and the summary.
"""

from .bounds import MAX_ARRAY
from .message import format_message
from .payload import DecodedEvent, DecodeError, Decoder, PayloadReader
from .values import filetime_text, socket_address

__all__ = [
    "MAX_ARRAY",
    "DecodeError",
    "DecodedEvent",
    "Decoder",
    "PayloadReader",
    "filetime_text",
    "format_message",
    "socket_address",
]
