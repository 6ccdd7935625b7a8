"""Opening a file that must be a regular file, without ever waiting on anything else.

Opening a FIFO for reading waits for a writer, and a device may never end.  So
:func:`open_regular` looks first (a path that already names something else is never
opened), opens without blocking, and looks again on the open descriptor (a FIFO put in
the file's place in between cannot make it wait); only then is the file read as usual.
Every reader of a named file goes through it: a manifest or schema (:mod:`etwmc.parse`),
a command's input (:mod:`etwmc.inputs`), the head of a file a folder search sniffs
(:mod:`etwmc.discover`), an output compared or hashed (:mod:`etwmc.journal`).
Standard library only.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # absent on Windows, where FIFOs don't exist
_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no line-end translation

__all__ = ["NotRegularFile", "kind_of_mode", "open_regular"]


def kind_of_mode(mode: int) -> str:
    """What a file of ``mode`` that is not a regular file is, in words."""
    for test, word in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return word
    return "a special file"


class NotRegularFile(OSError):
    """The path names a FIFO, socket, device or folder: reading it could block forever
    or never end, so it is refused before any byte is read.  Its message says what the
    path is (:func:`kind_of_mode`)."""

    def __init__(self, mode: int) -> None:
        super().__init__(f"it is {kind_of_mode(mode)}, not a regular file")


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` (through symbolic links) opened for reading in binary mode; raises
    :class:`NotRegularFile` when it is not a regular file, or the ``OSError`` of the
    ``stat`` or the open."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegularFile(mode)
    fd = os.open(path, os.O_RDONLY | _BINARY | _NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(mode)
        if _NONBLOCK:
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
