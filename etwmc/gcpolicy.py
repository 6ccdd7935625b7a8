"""The cycle collector during a command that compiles manifests.

Compiling a manifest builds its tree, its model and its outputs: hundreds of thousands
of objects alive at once for a large manifest, none of them in a reference cycle
(``tests/test_scale.py`` holds the compiler to that), so reference counting frees each
of them and the cycle collector finds nothing.  It still runs every 700 allocations
and walks the young objects, and now and then every object alive: 11-14% of the CPU
time of a 10,000-event ``etwmc compile`` and 22-27% of a 50,000-event one (bench/run.py's
synthetic manifests, measured both ways); within the noise, either way, for Shell-Core
and ClrEtwAll.

The command line turns automatic collection off for the commands that compile
manifests (``lint``, ``compile``, ``mc``: their ``Command.pauses_collector`` in
:data:`etwmc.commands.COMMANDS`) and back on when the command returns; the console
script (:func:`etwmc.cli.console`) leaves it off to the end of the process instead, since
what such a command leaves alive is the model, which a collection would walk in full
only to find nothing.  It is a policy for a process that runs one command and ends,
not for the library: a library call that switched off a collector the whole process
shares would take it from every other thread of its host, and a pause limited to one
stage of a compile pays, when collection resumes, for walks of the whole live model
(about 0.8 s at 50,000 events), which eats what the pause saved.  ``decode`` keeps the
collector: its events stream through, and its memory must stay flat however long the
trace.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_policy(pauses: bool) -> Iterator[None]:
    """Run a command with the collector as it suits the command: automatic collection
    off for one that ``pauses`` it, and as it was again afterwards (a caller that runs
    commands in its own process, as tests do, gets its collector back)."""
    pause = pauses and gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if pause:
            gc.enable()
