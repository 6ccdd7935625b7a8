"""Message text files (``.mc``): what mc.exe reads, and what it writes from them.

Reading with source places, a frozen model, then outputs rendered in memory:

* :func:`read` / :func:`read_file`: bytes -> :class:`~etwmc.mctext.model.MessageFile`
  and diagnostics (ETW9xx; :mod:`.source`, :mod:`.parser`, :mod:`.checks`);
* :func:`build`: the model -> :class:`McOutputs`, every file as text or bytes: the C
  header (:mod:`.header`), the .rc, one message table per language and the .dbg of
  ``-x`` (:mod:`.resources`); :mod:`.combine` joins them with a manifest's when mc
  compiles both in one run;
* :func:`encode_text`: a text output in the encoding of mc's ``-cp``;
* :func:`plan_files`: every file of one mc run for the file, named and encoded, with a
  manifest's resources joined when the run has one (:mod:`.files`).

The input is untrusted: decoding is strict, work is linear in its size, every problem
is a diagnostic with a place, and no text of it can leave a comment of the header, a
quoted name of the .rc or a line of a report (see each module).
"""

from __future__ import annotations

from ..wevt.msgtable import (
    MESSAGE_RESOURCE_ANSI,
    MESSAGE_RESOURCE_UNICODE,
    MESSAGE_RESOURCE_UTF8,
)
from . import model
from .files import ManifestPart, Planned, plan_files
from .model import MessageFile
from .options import McTextOptions
from .outputs import McOutputs, build, encode_text
from .reading import read, read_file, usable
from .source import codec_for

__all__ = [
    "MESSAGE_RESOURCE_ANSI",
    "MESSAGE_RESOURCE_UNICODE",
    "MESSAGE_RESOURCE_UTF8",
    "ManifestPart",
    "McOutputs",
    "McTextOptions",
    "MessageFile",
    "Planned",
    "build",
    "codec_for",
    "encode_text",
    "model",
    "plan_files",
    "read",
    "read_file",
    "usable",
]
