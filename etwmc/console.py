"""The ``etwmc`` command's entry point: the console script and ``python -m etwmc``.

A command line run keeps the cycle collector off from its first import to the end of
start-up (:func:`etwmc.cli.console` then freezes what start-up made and hands the
collector to :mod:`etwmc.gcpolicy`).  This module imports nothing of etwmc's at its
top, so that the collector is already off while the command line's modules load.
"""

import gc


def console() -> None:
    """Run the ``etwmc`` command with the arguments of this process; it ends the process
    with the command's exit status.  (Nothing but :mod:`gc` is imported before the
    collector is off: not even :mod:`typing`, for the annotation.)"""
    gc.disable()
    # Imported once the collector is off (the entry's one job, CONVENTIONS "Imports"):
    # no collection walks start-up's objects while the command line's modules load.
    from .cli import console as run

    run()
