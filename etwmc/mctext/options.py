"""mc's switches that change what a message text file gives, in one frozen type."""

from __future__ import annotations

from ..record import Record
from ..wevt.msgtable import MESSAGE_RESOURCE_UNICODE
from .resources import TableStyle
from .source import DEFAULT_CODE_PAGE


class McTextOptions(Record):
    """mc's switches that change what a message text file gives.

    ``unicode_input``: ``-u`` (UTF-16LE without a byte-order mark).  ``code_page``:
    the ANSI code page of the build machine, for ANSI input and ``-A`` tables (a
    codec name, :func:`codec_for`).  ``customer_bit``: ``-c``.  ``decimal``: ``-d``
    (decimal severity and facility values, and message ids until an OutputBase).
    ``ole2``: ``-o``.  ``table_flags``: ``-A`` / ``-U`` / ``-U8``.
    ``final_line_end``: False with ``-n``.  ``max_length``: ``-m``.
    """

    unicode_input: bool = False
    code_page: str = DEFAULT_CODE_PAGE
    customer_bit: bool = False
    decimal: bool = False
    ole2: bool = False
    table_flags: int = MESSAGE_RESOURCE_UNICODE
    final_line_end: bool = True
    max_length: int | None = None

    @property
    def table_style(self) -> TableStyle:
        return TableStyle(self.table_flags, self.code_page, self.final_line_end)
