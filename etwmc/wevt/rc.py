"""The resource script mc writes next to the binaries (``<base>.rc``).

Per ``<resources>`` culture, in manifest order, ``LANGUAGE 0x<primary>,0x<sub>`` and
``1 11 "<table file>"`` (RT_MESSAGETABLE, name 1); then ``1 WEVT_TEMPLATE
"<base>TEMP.BIN"``.  The language ids are in lower-case hex without leading zeros, as mc
writes them (``LANGUAGE 0xc,0x1`` for fr-FR in golden/mc/wellbay__nssm/messages.rc).
Lines end with ``\\n``, as in the .rc files mc writes.  Message tables are named
``<base>_MSG0000N.bin`` when mc runs with ``-z <base>`` and ``MSG0000N.bin`` without it
(``prefixed=False``).
"""

from __future__ import annotations

from ..model import Manifest
from .cultures import primary_sub


def template_file(base: str) -> str:
    return f"{base}TEMP.BIN"


def message_table_file(base: str, n: int, *, prefixed: bool = True) -> str:
    """The file name of the n-th (1-based) message table."""
    return f"{base}_MSG{n:05d}.bin" if prefixed else f"MSG{n:05d}.bin"


def message_table_statements(primary: int, sub: int, file: str) -> str:
    """The two lines that name one language's message table (for manifests and message
    text files alike)."""
    return f'LANGUAGE 0x{primary:x},0x{sub:x}\n1 11 "{file}"\n'


def build(manifest: Manifest, base: str, *, prefixed: bool = True) -> bytes:
    """The .rc text; raises :class:`~etwmc.wevt.cultures.UnknownCulture` for a culture
    without a known language id."""
    text = "".join(
        message_table_statements(
            *primary_sub(res.culture), message_table_file(base, n, prefixed=prefixed)
        )
        for n, res in enumerate(manifest.resources, 1)
    )
    return f'{text}1 WEVT_TEMPLATE "{template_file(base)}"\n'.encode()


def encode_text(text: str, encoding: str, codec: str, *, rc: bool = False) -> bytes:
    """A text output (a header, an .rc, a .dbg) as mc's ``-cp`` writes it: ``ansi`` in
    the ANSI code page ``codec`` (characters it lacks become ``?``, as Windows converts
    them), ``utf-8`` and ``utf-16`` with a byte-order mark.  mc 10 writes the .rc in
    UTF-16 when asked for UTF-8, since rc.exe reads no UTF-8 (``rc``)."""
    if encoding == "utf-16" or (rc and encoding == "utf-8"):
        return b"\xff\xfe" + text.encode("utf-16-le", "surrogatepass")
    if encoding == "utf-8":
        return b"\xef\xbb\xbf" + text.encode("utf-8", "surrogatepass")
    return text.encode(codec, "replace")
