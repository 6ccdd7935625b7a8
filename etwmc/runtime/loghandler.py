"""EtwLoggingHandler: Python log records as ETW events of a provider etwmc ships.

The provider is ``Etwmc-Python-Logging`` ({1987AA45-D6D4-5AF5-2269-70092C621CD3}, the
EventSource-style hash of its name).  Its manifest, the module compiled from it and its
binaries (WEVT_TEMPLATE, message table, .rc, resource-only DLL) are in
:mod:`etwmc.runtime.providers`, so ``etwmc decode`` and Windows tools can decode the
events.  One event per ETW level, all with the same fields:

=====  ===========  ================  ==================================================
id     symbol       ETW level         Python levels
=====  ===========  ================  ==================================================
1      LogCritical  1 Critical        CRITICAL (50) and above
2      LogError     2 Error           ERROR (40) to 49
3      LogWarning   3 Warning         WARNING (30) to 39
4      LogInfo      4 Informational   INFO (20) to 29
5      LogDebug     5 Verbose         below 20
=====  ===========  ================  ==================================================

Fields: ``Logger`` (the logger's name), ``Level`` (the record's own level number),
``Message`` (``record.getMessage()``: ETW stamps time, process and thread itself, so no
formatter is applied) and ``Exception`` (the formatted exception and stack, or empty).
Each event carries the current activity id (:mod:`etwmc.runtime.activity`).

An event holds at most 64 KiB, so each string has a budget in UTF-16 code units, the
unit the event stores (a character outside the Basic Multilingual Plane takes two):
256 for the logger name, 16,000 for the message and 12,000 for the exception text, 56 KB
in all.  A longer string is cut to its budget (the message and logger name keep their
start, the exception text its end, never half a surrogate pair) and says so in the
event: ``[... N more characters cut to fit the event]`` ends the text, or ``[... N
earlier characters cut to fit the event]`` begins it.  A NUL character, which would end
a string early for decoders, and a lone surrogate, which UTF-16 cannot hold, become
U+FFFD.

A record is never dropped silently: a write the backend refuses (no room in a session,
an event larger than a session's buffers) is counted in the handler's ``events_lost``,
with the status in ``last_status``.

All handlers share the process's one registration of the provider: the first registers
it with its backend (chosen like generated modules: an argument, ``ETWMC_BACKEND``, the
platform) and the last one closed unregisters it.  A record is dropped after one test
when no session enables the provider.
"""

from __future__ import annotations

import codecs
import logging
import re
import threading
import traceback
import uuid
import weakref
from collections.abc import Callable
from typing import Final

from .backends import Backend, get_backend
from .providers import python_logging as _events
from .state import EnableState

__all__ = ["PROVIDER_GUID", "PROVIDER_NAME", "EtwLoggingHandler"]

PROVIDER_NAME: Final = _events.PYTHON_LOGGING.NAME
PROVIDER_GUID: Final = _events.PYTHON_LOGGING.GUID
# The generated module's runtime carries its events' payload layouts, which payload
# filters on the handler's events need.
_runtime: Final = _events.PYTHON_LOGGING.runtime

# Budgets in UTF-16 code units: 2 * (256 + 16000 + 12000 + 3 NULs) + 4 bytes < 64 KiB.
MAX_LOGGER: Final = 256
MAX_MESSAGE: Final = 16_000
MAX_EXCEPTION: Final = 12_000

_Writer = Callable[[str, int, str, str], int]
_WRITERS: Final[tuple[tuple[int, _Writer], ...]] = (
    (logging.CRITICAL, _events.write_LogCritical),
    (logging.ERROR, _events.write_LogError),
    (logging.WARNING, _events.write_LogWarning),
    (logging.INFO, _events.write_LogInfo),
)
_DEBUG: Final[_Writer] = _events.write_LogDebug

_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_utf16: Final = codecs.utf_16_le_encode

# Whether any session enables the provider, kept by the enable callback so that the
# disabled path of handle() is one global test, like a disabled generated event's.
_enabled = False
_module_hook = _runtime.on_enable


def _on_enable(state: EnableState) -> None:
    global _enabled
    if _module_hook is not None:
        _module_hook(state)  # the generated module's per-level flags
    _enabled = bool(state.is_enabled)


_runtime.on_enable = _on_enable
_lock = threading.Lock()
_open: weakref.WeakSet[EtwLoggingHandler] = weakref.WeakSet()


def _writer(levelno: int) -> _Writer:
    for threshold, write in _WRITERS:
        if levelno >= threshold:
            return write
    return _DEBUG


def _text(value: str, limit: int, keep_end: bool = False) -> str:
    """``value`` without NULs, cut to ``limit`` UTF-16 code units with a note saying so."""
    if "\0" in value:
        value = value.replace("\0", "\ufffd")
    if len(value) <= limit // 2:  # fits whatever it holds: two units per character at most
        return value
    units = _utf16(value, "surrogatepass")[0]
    if len(units) <= 2 * limit:
        return value
    # Room for the note is made for a count as long as the whole text's: the count it
    # gives, of the characters cut, has at most as many digits.
    keep = 2 * (limit - len(_note(len(value), keep_end)))
    if keep_end:
        kept = units[len(units) - keep :]
        if 0xDC <= kept[1] <= 0xDF:  # a low surrogate first: its pair was cut
            kept = kept[2:]
    else:
        kept = units[:keep]
        if 0xD8 <= kept[-1] <= 0xDB:  # a high surrogate last: its pair was cut
            kept = kept[:-2]
    text = kept.decode("utf-16-le", "surrogatepass")
    note = _note(len(value) - len(text), keep_end)
    return note + text if keep_end else text + note


def _note(dropped: int, keep_end: bool) -> str:
    if keep_end:
        return f"[... {dropped} earlier characters cut to fit the event] "
    return f" [... {dropped} more characters cut to fit the event]"


def _encodable(value: str) -> str:
    # A surrogate code point in a str is always a lone one (from a surrogateescape'd
    # file name, say), and UTF-16 cannot hold it.
    return _SURROGATE.sub("\ufffd", value)


class EtwLoggingHandler(logging.Handler):
    """A :class:`logging.Handler` writing records as ``Etwmc-Python-Logging`` events.

    ``backend`` is a backend object or name (``"windows"``, ``"inproc"``, ``"null"``);
    without it, the default backend, as for generated modules.  Raises ``ValueError``
    when the provider is already registered with another backend by an open handler.

    ``events_lost`` counts the records whose event the backend refused, ``last_status``
    holds the latest refusal's Win32 status (0 until one happens).
    """

    events_lost: int
    last_status: int

    def __init__(
        self, level: int = logging.NOTSET, *, backend: Backend | str | None = None
    ) -> None:
        super().__init__(level)
        self.events_lost = 0
        self.last_status = 0
        chosen = get_backend(backend) if backend is None or isinstance(backend, str) else backend
        with _lock:
            current = _runtime.backend
            if current is not None and current is not chosen:
                if _open:
                    raise ValueError(
                        f"the {PROVIDER_NAME} provider is registered with the {current.name} "
                        "backend by an open EtwLoggingHandler; close it first"
                    )
                _runtime.unregister()
            if _runtime.backend is None:
                _events.register(chosen)
            _open.add(self)

    @property
    def provider_guid(self) -> uuid.UUID:
        """The GUID of the provider the handler writes with."""
        return PROVIDER_GUID

    @property
    def backend(self) -> Backend | None:
        """The backend the provider is registered with (``None`` once closed)."""
        return _runtime.backend if self in _open else None

    def handle(self, record: logging.LogRecord) -> bool:
        # The disabled path: one test before anything else.
        if not _enabled:
            return False
        return bool(super().handle(record))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            write = _writer(record.levelno)
            logger = _text(record.name, MAX_LOGGER)
            message = _text(record.getMessage(), MAX_MESSAGE)
            exception = _text(self._exception_text(record), MAX_EXCEPTION, keep_end=True)
            level = min(max(record.levelno, 0), 0xFFFF_FFFF)
            try:
                status = write(logger, level, message, exception)
            except ValueError:  # an EventError: a string UTF-16 cannot hold
                status = write(
                    _encodable(logger), level, _encodable(message), _encodable(exception)
                )
            if status:
                # logging calls emit() under the handler's lock: the count is exact.
                self.events_lost += 1
                self.last_status = status
        except RecursionError:
            raise
        except Exception:
            self.handleError(record)

    @staticmethod
    def _exception_text(record: logging.LogRecord) -> str:
        parts = []
        if record.exc_info:
            # Cached on the record as logging.Formatter does, for the other handlers.
            if not record.exc_text:
                record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip()
            parts.append(record.exc_text)
        elif record.exc_text:
            parts.append(record.exc_text)
        if record.stack_info:
            parts.append(record.stack_info)
        return "\n".join(parts)

    def close(self) -> None:
        """Close the handler; the last open handler unregisters the provider."""
        with _lock:
            was_open = self in _open
            _open.discard(self)
            if was_open and not _open:
                _runtime.unregister()
        super().close()
