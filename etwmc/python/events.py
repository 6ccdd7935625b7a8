"""One event's statements in the generated module, made as one text.

An event's block (its descriptor, packed descriptor, is-enabled and write functions,
and the ``start_``/``stop_`` function of a Start or Stop event) is the same text for
every event but for its names and numbers, its docstring, and what its template
decides.  What a template decides (the signature, the statements that encode the
payload, the Args paragraph of the docstring) is made once per template
(:class:`Shape`); what a provider's events share (the names a docstring gives levels,
opcodes, tasks, keywords and channels) once per item (:class:`EventBlocks`); the rest
is one formatted string per event.

The layout is black's: every statement that can outgrow a line is laid out by
:mod:`.layout` (the fixed lines between them always fit).  In the docstring, a line of
plain words (printable ASCII without quotes or backslashes, single spaces, nothing to
wrap) is written as it is, and anything else goes through :mod:`.docstrings`, which
escapes it and wraps it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..eventdescriptor import EventDescriptor
from ..model import Event, Manifest
from ..msgformat import shown
from . import docstrings, layout
from .imports import Imports
from .layout import call_shared
from .payload import Plan, call

# What a docstring calls a level, opcode, task, keyword or channel: its member name in
# the provider's enum, by ("win", local name) for a win: item, else by id(the model's
# object) (levels by value: a provider's levels have distinct values).
EnumNames = dict[object, str]

_DOC_WIDTH = docstrings.WIDTH - 4  # a write function's docstring is indented 4 columns

# Text that a docstring line holds as it is, once its whitespace is single spaces:
# printable ASCII without a quote or a backslash (escaping changes nothing).
_CHARS = r"!#-\[\]-~"  # (a class's contents) printable ASCII but space, '"' and '\\'
_UNESCAPED = re.compile(f"[ {_CHARS}]*")
# Words of it, one space between them: a text a docstring line holds as it is.
_PLAIN_LINE = re.compile(f"[{_CHARS}]+(?: [{_CHARS}]+)*")
# Lines of it, one a line.
_PLAIN_LINES = re.compile(f"{_PLAIN_LINE.pattern}(?:\n{_PLAIN_LINE.pattern})*")
# One word of it: a name the level and keyword lines can hold as it is.
_PLAIN_WORD = re.compile(f"[{_CHARS}]+")

# An insert, as msgformat reads one (up to two digits, the first not 0), and the
# digits of every insert in order.
_INSERT = re.compile(r"%([1-9][0-9]?)")
_INSERT_NUMBERS = [str(n) for n in range(1, 100)]

# The EventDescriptor call's arguments, one ``    name=value,`` line each, formatted
# from the descriptor's fields in order.
_ARGUMENTS = (
    "    id=%d,\n    version=%d,\n    channel=%d,\n    level=%d,\n    opcode=%d,\n"
    "    task=%d,\n    keyword=0x%X,"
)

_ACTIVITY_ARGS = "activity_id, related_activity_id: see the module's docstring."
_ENCODE_FAILED = "    except _ENCODING_ERRORS as _exc:\n"
# The end of a write function, after ``return _send(`` and the packed descriptor.
_SEND_TAIL = (
    "        _payload,\n"
    "        None if activity_id is None else activity_id.bytes_le,\n"
    "        None if related_activity_id is None else related_activity_id.bytes_le,\n"
    "    )\n"
)


def local(name: str) -> str:
    """A QName's local part (``win:Info`` -> ``Info``)."""
    return name.rsplit(":", 1)[-1]


class Shape:
    """What the events of one template share in the module, made once per template:
    its plan, the name of its field specs, the parameters' lines in a signature, their
    names, the Args paragraph of the write function's docstring, the statements that
    encode the payload, and what a message's inserts become in a docstring."""

    __slots__ = (
        "plan", "spec", "signature", "names", "args_doc", "encode", "fail_rest",
        "call_rest", "_inserts",
    )  # fmt: skip

    def __init__(self, plan: Plan | None, imports: Imports) -> None:
        params = plan.params if plan else []
        self.plan = plan
        self.spec = plan.name if plan else None
        self.signature = "\n".join([p.text for p in params]) + "\n" if params else ""
        self.names = [p.name for p in params]
        self.args_doc = _args_doc(plan)
        # The arguments of the start_/stop_ call after the fixed ones.
        self.call_rest = layout.Shared("    ", self.names)
        if plan is None:
            self.encode = '    _payload = b""\n'
            self.fail_rest = layout.Shared("", [])
            self._inserts: dict[str, str] = {}
            return
        imports.use("_ENCODING_ERRORS")  # by the write function's failure handler
        imports.use("_fail")
        statements = "".join([f"{s}\n" for s in plan.encoder(imports)])
        self.encode = f"    try:\n{statements}"
        # `raise _fail("<event>", <spec>, _exc, <values>) from None`: after the name.
        self.fail_rest = layout.Shared("        ", [plan.name, "_exc", *plan.values])
        # What insert "%<n>" shows, by the digits of n (items past 99 have no insert).
        braced = [f"{{{n}}}" for n in plan.names]
        self._inserts = dict(zip(_INSERT_NUMBERS, braced, strict=False))

    def message_paragraph(self, text: str) -> str:
        """The docstring's paragraph of an event message (``text``, not empty), after
        a blank line: ``Message:`` and :meth:`message` of it, on one line when it fits
        and needs no escape."""
        line = None
        if _PLAIN_LINE.fullmatch(text) and "!" not in text:
            # Plain words around bare inserts (every "%" starts one): the inserts'
            # names are identifiers, so the line stays plain words, which
            # :meth:`message` and the whitespace pass would keep as they are.
            parts = _INSERT.split(text)
            if len(parts) == 2 * text.count("%") + 1:
                inserts = self._inserts
                for i in range(1, len(parts), 2):
                    parts[i] = inserts.get(parts[i]) or f"%{parts[i]}"
                line = "Message: " + "".join(parts)
        if line is None:
            line = " ".join(f"Message: {self.message(text)}".split())
        if len(line) <= _DOC_WIDTH and _UNESCAPED.fullmatch(line):
            return f"\n\n    {line}"
        return "\n" + docstrings.paragraphs_text("    ", [line])

    def message(self, text: str) -> str:
        """An event message as its docstring shows it (:func:`.docstrings.message`):
        each ``%n`` insert the name of the template's item ``n``, in braces."""
        if "%" not in text:
            return text  # no insert and no escape: shown as written
        inserts = self._inserts
        # Most messages hold only bare inserts (every "%" starts one, none is followed
        # by a "!format!"): the text between them is shown as written.
        parts = _INSERT.split(text)
        if "!" in text or len(parts) != 2 * text.count("%") + 1:
            count = len(inserts)
            return shown(text, lambda n: inserts[str(n)] if n <= count else f"%{n}")
        for i in range(1, len(parts), 2):
            parts[i] = inserts.get(parts[i]) or f"%{parts[i]}"
        return "".join(parts)


def _args_doc(plan: Plan | None) -> str:
    """The Args paragraph of a write function's docstring: the same for every event of
    a template, so made once per template (see :func:`docstrings.paragraphs_text`)."""
    params = plan.params if plan else []
    if not params or _PLAIN_LINES.fullmatch("\n".join([p.doc for p in params])):
        # Names and plain words: lines that escaping and joining whitespace keep.
        lines = "".join([f"        {p.name}: {p.doc}\n" for p in params])
        return f"\n    Args:\n{lines}        {_ACTIVITY_ARGS}"
    args = [f"    {p.name}: {p.doc}" for p in params]
    args.append(f"    {_ACTIVITY_ARGS}")
    return docstrings.paragraphs_text("    ", [["Args:", *args]])


def _named(names: EnumNames, item: object, builtin: bool, name: str) -> str:
    """The member name of ``item`` (a model object named ``name``), or its local name."""
    key = ("win", local(name)) if builtin else id(item)
    return names.get(key, local(name))


class EventBlocks:
    """The blocks of one provider's events (:meth:`block`), and what their docstrings
    say of each level, opcode, task, keyword and channel, found once per item.

    The item caches map ``id()`` of a model object (or of None, for an event without
    one) to what a docstring says of it (``opcode: Op0a (11)``; a keyword: its name),
    or to None when its name is not one plain word (the docstring's line then goes
    through :mod:`.docstrings`).  The model is held for the whole build, so no id is
    reused while they are read."""

    __slots__ = (
        "_strings", "_names", "_runtime", "_enums", "_levels", "_opcodes", "_tasks",
        "_keywords", "_channels",
    )  # fmt: skip

    def __init__(self, manifest: Manifest, names: EnumNames, ns: str, runtime: str) -> None:
        # The primary culture's strings, by id (as Manifest.text reads them).
        self._strings = manifest.primary.strings if manifest.primary else {}
        self._names = names
        self._runtime = runtime
        self._enums = f"(The enums of {ns} name these values.)"
        self._levels: dict[int, str | None] = {}
        self._opcodes: dict[int, str | None] = {}
        self._tasks: dict[int, str | None] = {}
        self._keywords: dict[int, str | None] = {}
        self._channels: dict[int, str | None] = {}

    def block(
        self,
        ev: Event,
        ident: str,
        d7: EventDescriptor,
        shape: Shape,
        packed: str,
        flag: str,
        functions: tuple[str, str, str | None, str | None],
    ) -> str:
        """The event's statements: ``functions`` are its write, is-enabled, start and
        stop functions' names (the last two None unless it starts or stops an
        activity), ``packed`` its packed descriptor's global, ``flag`` its enable
        flag's.  Each line ends with a newline."""
        write, is_enabled, start, stop = functions
        descriptor = layout.descriptor(ident, _ARGUMENTS % d7)
        packed_assign = call("", f"{packed}: Final = pack_descriptor", [f"*{ident}"])
        encode = shape.encode
        if shape.plan is not None:
            name = (f'"{ident}"',)  # an identifier: its literal needs no escape
            fail = call_shared("        ", "raise _fail", name, shape.fail_rest, " from None")
            encode = f"{encode}{_ENCODE_FAILED}{fail}\n"
        signature = shape.signature
        # The docstring: the event, its message, where it goes, its parameters (the
        # Args paragraph, made once per template).  An identifier and numbers: nothing
        # to escape in the summary.
        message = ""
        string = self._strings.get(ev.message) if ev.message is not None else None
        if string is not None and string.value:
            message = shape.message_paragraph(string.value)
        activity = ""  # the start_ or stop_ function
        if start is not None:
            activity = _activity_function(
                start,
                signature,
                "related_activity_id: uuid.UUID | None = None",
                "Activity",
                '    """Start an activity: a new activity id becomes current, then this '
                "event is\n    written with it (related: ``related_activity_id``, else "
                "the id that was current),\n"
                f'    as {write} writes it.\n    """',
                call_shared(
                    "    ", "return _start", (flag, write, "related_activity_id"), shape.call_rest
                ),
            )
        elif stop is not None:
            activity = _activity_function(
                stop,
                signature,
                "activity: Activity",
                "int",
                f'    """Write this event with ``activity``\'s id, as {write} writes it, '
                "then end\n    the activity (also when the arguments are wrong).\n"
                '    """',
                call_shared("    ", "return _stop", (flag, write, "activity"), shape.call_rest),
            )
        return (
            f"\n\n{descriptor}\n{packed_assign}\n\n\n{layout.is_enabled(is_enabled)}\n"
            '    """Whether any session wants this event (one flag test)."""\n'
            f"    return {flag}\n\n\ndef {write}(\n{signature}"
            "    _kw: _KeywordOnly = _KW,\n"
            "    activity_id: uuid.UUID | None = None,\n"
            "    related_activity_id: uuid.UUID | None = None,\n"
            f') -> int:\n    """Write the {ident} event (id {d7.id}, version {d7.version}).'
            f'{message}\n{self._values(ev, d7)}\n{shape.args_doc}\n    """\n'
            f"    if not {flag}:\n        return 0\n"
            "    if _kw is not _KW:\n        raise _keyword_only(_kw)\n"
            f"{encode}    _send = {self._runtime}.write\n"
            f"    return _send(\n        {packed},\n{_SEND_TAIL}{activity}"
        )

    def _values(self, ev: Event, d7: EventDescriptor) -> str:
        """The docstring's paragraph of the event's level, opcode, task, keywords and
        channel (each by its name in the provider's enums, and its value), after a
        blank line."""
        # Each part ("Level: Error (2)"...) depends only on its item: made once, by
        # _part, and None when the item's name is not one plain word.
        try:
            level = self._levels[id(ev.level)]
            opcode = self._opcodes[id(ev.opcode)]
            task = self._tasks[id(ev.task)]
            channel = self._channels[id(ev.channel)]
        except KeyError:
            level, opcode, task, channel = self._parts(ev, d7)
        keywords = self._keyword_names(ev)
        if level is None or opcode is None or task is None or channel is None or keywords is None:
            return self._values_escaped(ev, d7)
        return (
            f"\n    {level}; {opcode}; {task}.\n    Keywords: {keywords} "
            f"(0x{ev.keyword_mask:X}); {channel}.\n    {self._enums}"
        )

    def _parts(
        self, ev: Event, d7: EventDescriptor
    ) -> tuple[str | None, str | None, str | None, str | None]:
        """The event's level, opcode, task and channel parts of :meth:`_values`, each
        made the first time its item is met."""
        return (
            _part(self._levels, ev.level, "Level", self._level_name, ev, d7, d7.level),
            _part(self._opcodes, ev.opcode, "opcode", self._opcode_name, ev, d7, d7.opcode),
            _part(self._tasks, ev.task, "task", self._task_name, ev, d7, d7.task),
            _part(self._channels, ev.channel, "channel", self._channel_name, ev, d7, d7.channel),
        )

    def _keyword_names(self, ev: Event) -> str | None:
        """The event's keywords by name, joined (None: one is not a plain word)."""
        if not ev.keywords:
            return "none"
        found = self._keywords
        names: list[str] = []
        for k in ev.keywords:
            name = found.get(id(k), "")
            if name == "":
                name = _named(self._names, k, k.builtin, k.name)
                name = found[id(k)] = name if _PLAIN_WORD.fullmatch(name) else None
            if name is None:
                return None
            names.append(name)
        return ", ".join(names)

    def _values_escaped(self, ev: Event, d7: EventDescriptor) -> str:
        """:meth:`_values` for names that are not plain words: escaped, their
        whitespace made single spaces, by :mod:`.docstrings`."""
        names = self._names
        keywords = ", ".join(_named(names, k, k.builtin, k.name) for k in ev.keywords)
        lines = [
            f"Level: {self._level_name(ev, d7)} ({d7.level}); "
            f"opcode: {self._opcode_name(ev, d7)} ({d7.opcode}); "
            f"task: {self._task_name(ev, d7)} ({d7.task}).",
            f"Keywords: {keywords or 'none'} (0x{ev.keyword_mask:X}); "
            f"channel: {self._channel_name(ev, d7)} ({d7.channel}).",
            self._enums,
        ]
        return docstrings.paragraphs_text("    ", [lines])

    def _level_name(self, ev: Event, d7: EventDescriptor) -> str:
        default = local(ev.level.name) if ev.level else str(d7.level)
        return self._names.get(("level", d7.level), default)

    def _opcode_name(self, ev: Event, d7: EventDescriptor) -> str:
        o = ev.opcode
        return _named(self._names, o, o.builtin, o.name) if o else "Info"

    def _task_name(self, ev: Event, d7: EventDescriptor) -> str:
        t = ev.task
        return _named(self._names, t, t.builtin, t.name) if t else "none"

    def _channel_name(self, ev: Event, d7: EventDescriptor) -> str:
        c = ev.channel
        if c is None:
            return "none"
        return self._names.get(id(c)) or c.chid or local(c.name)


def _part(
    found: dict[int, str | None],
    item: object,
    label: str,
    name_of: Callable[[Event, EventDescriptor], str],
    ev: Event,
    d7: EventDescriptor,
    value: int,
) -> str | None:
    """``label: name (value)`` of the event's ``item`` (its level, opcode, task or
    channel), made once per item into ``found``; None when a docstring line cannot hold
    the name as it is (not one plain word)."""
    part = found.get(id(item), "")
    if part == "":
        name = name_of(ev, d7)
        plain = _PLAIN_WORD.fullmatch(name)
        part = found[id(item)] = f"{label}: {name} ({value})" if plain else None
    return part


def _activity_function(
    name: str, signature: str, parameter: str, returns: str, doc: str, call: str
) -> str:
    """A ``start_``/``stop_`` function: the write function's parameters, then one
    keyword-only ``parameter``; ``doc`` its docstring, ``call`` its return statement."""
    return f"\n\ndef {name}(\n{signature}    *,\n    {parameter},\n) -> {returns}:\n{doc}\n{call}\n"
