"""The ``win:`` levels, opcodes, tasks, keywords and channels of winmeta as model nodes
(``builtin=True``), made once per process and shared: they are frozen, and an event
that references one holds the same object as every other."""

from __future__ import annotations

from .. import winmeta as wm
from ..model import Channel, Keyword, Level, Opcode, Task


class _Builtins:
    def __init__(self) -> None:
        self.levels = {
            k: Level(name=v.name, qname=(wm.WIN_NS, k), value=v.value, builtin=True, message=None)
            for k, v in wm.LEVELS.items()
        }
        self.opcodes = {
            k: Opcode(name=v.name, qname=(wm.WIN_NS, k), value=v.value, builtin=True)
            for k, v in wm.OPCODES.items()
        }
        self.tasks = {
            k: Task(name=v.name, qname=(wm.WIN_NS, k), value=v.value, builtin=True)
            for k, v in wm.TASKS.items()
        }
        self.keywords = {
            k: Keyword(name=v.name, qname=(wm.WIN_NS, k), mask=v.value, builtin=True)
            for k, v in wm.KEYWORDS.items()
        }
        self.channels = {
            k: Channel(
                name=v.name,
                chid=v.name,
                type=v.type,
                value=v.value,
                builtin=True,
                isolation=v.isolation,
            )
            for k, v in wm.CHANNELS.items()
        }


BUILTINS = _Builtins()
