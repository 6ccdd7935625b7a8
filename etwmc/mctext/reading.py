"""Reading a message text file: decoding, parsing and the whole-file checks."""

from __future__ import annotations

from pathlib import Path

from ..diagnostics import Diagnostic, has_errors
from .checks import check
from .model import MessageFile
from .options import McTextOptions
from .parser import ParseOptions, parse
from .source import decode


def read(
    data: bytes, path: str, options: McTextOptions | None = None
) -> tuple[MessageFile | None, list[Diagnostic]]:
    """The model of a message text file and its diagnostics (the model is None when
    the file cannot be decoded)."""
    options = options or McTextOptions()
    source, diags = decode(data, path, unicode=options.unicode_input, code_page=options.code_page)
    if source is None:
        return None, diags
    model, problems = parse(source, ParseOptions(options.customer_bit, options.decimal))
    diags += problems
    diags += check(model, options.table_style, options.max_length)
    return model, diags


def read_file(
    path: str | Path, options: McTextOptions | None = None
) -> tuple[MessageFile | None, list[Diagnostic]]:
    from ..parse import read_bytes  # the safe reader; lxml comes with it, so only here

    data, diags = read_bytes(path)
    if data is None:
        return None, diags
    return read(data, str(path), options)


def usable(diags: list[Diagnostic]) -> bool:
    """Whether outputs may be built."""
    return not has_errors(diags)
