"""Records: values built once and then only read, declared as ``class X(Record):``.

A record class lists its fields as annotations, with defaults where it has them,
exactly as a dataclass would::

    class Span(Record, order=True):
        file: str
        line: int = 0

and gets, from those fields: a constructor (positional in declaration order, or
keyword-only with ``kw_only=True``), ``__slots__``, refusal of assignment and deletion,
equality and hashing by value (between records of the same class), ordering with
``order=True``, and a ``repr``.  :func:`replace` makes a changed copy, :func:`fields`
lists the field names.  ``__post_init__``, when a class defines one, runs after the
fields are set (it sets derived slots with ``object.__setattr__``).

Why not ``@dataclass(frozen=True, slots=True)``: a dataclass compiles its methods from
source text when its class is defined, 0.5 to 1 ms a class on CPython 3.11, and a lint
defines some sixty records; with ``dataclasses`` and ``inspect`` imported for them,
that was a fifth of ``etwmc lint``'s CPU time on a 384-event manifest.  Defining a
record costs about a thirtieth of a dataclass (etwmc/CONVENTIONS.md gives the figures,
bench/bench_records.py measures them).  No source is generated: the constructor is a
closure over the class's slot setters, and a record made very often may write its own
``__init__``.  Type checkers read these classes as dataclasses
(``typing.dataclass_transform``), so constructors are checked.
Standard library only: the runtime's world may import it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform

__all__ = ["FrozenRecordError", "Record", "field", "fields", "replace", "slot_setters"]

R = TypeVar("R", bound="Record")


class FrozenRecordError(AttributeError):
    """Assignment to, or deletion of, a field of a record."""


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<no default>"


_MISSING: Any = _Missing()


class _Field:
    """What :func:`field` returns: a field's options, read when its class is defined."""

    __slots__ = ("compare", "default", "default_factory", "init")

    def __init__(
        self, default: object, factory: Callable[[], object] | None, init: bool, compare: bool
    ) -> None:
        self.default = default
        self.default_factory = factory
        self.init = init
        self.compare = compare


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] | None = None,
    init: bool = True,
    compare: bool = True,
) -> Any:
    """A field's options.  ``default_factory`` makes a fresh default for each record (a
    list or a dict of its own); ``init=False`` makes a slot that ``__post_init__`` fills
    and that equality, hashing, ``repr`` and :func:`replace` leave out; ``compare=False``
    leaves a field out of equality, hashing and ordering only."""
    return _Field(default, default_factory, init, compare)


class _Body:
    """A record class body read: its fields, derived slots, defaults, uncompared fields.
    Defaults leave the body: a slot and a class attribute of one name cannot coexist."""

    __slots__ = ("defaults", "derived", "factories", "names", "uncompared")

    def __init__(self, namespace: dict[str, Any]) -> None:
        self.names: list[str] = []
        self.derived: list[str] = []
        self.defaults: dict[str, Any] = {}
        self.uncompared: set[str] = set()
        self.factories: dict[str, Callable[[], object]] = {}
        for name, annotation in namespace.get("__annotations__", {}).items():
            if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                continue
            value = namespace.pop(name, _MISSING)
            if isinstance(value, _Field):
                if not value.init:
                    self.derived.append(name)
                    continue
                if not value.compare:
                    self.uncompared.add(name)
                if value.default_factory is not None:
                    self.factories[name] = value.default_factory
                value = value.default
            self.names.append(name)
            if value is not _MISSING:
                self.defaults[name] = value


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class _RecordType(type):
    """Builds a record class from its annotations when the class statement runs."""

    def __new__(
        mcs,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        *,
        kw_only: bool = False,
        order: bool = False,
    ) -> _RecordType:
        body = _Body(namespace)
        inherited: tuple[str, ...] = ()
        inherited_compared: tuple[str, ...] = ()
        inherited_defaults: dict[str, Any] = {}
        inherited_factories: dict[str, Callable[[], object]] = {}
        for base in bases:
            if isinstance(base, _RecordType):
                inherited = base._record_fields
                inherited_compared = base._record_compared
                inherited_defaults = dict(base._record_defaults)
                inherited_factories = dict(base._record_factories)
        namespace["__slots__"] = (*body.names, *body.derived, *namespace.get("__slots__", ()))
        cls = super().__new__(mcs, name, bases, namespace)
        names = (*inherited, *body.names)
        compared = (*inherited_compared, *(n for n in body.names if n not in body.uncompared))
        cls._record_fields = names
        cls._record_compared = compared
        cls._record_defaults = inherited_defaults | body.defaults
        cls._record_factories = inherited_factories | body.factories
        cls._record_key = operator.attrgetter(*compared) if compared else (lambda record: ())
        if not kw_only:
            optional = cls._record_defaults.keys() | cls._record_factories.keys()
            required = [n for n in names if n not in optional]
            if required and names.index(required[-1]) >= len(required):
                raise TypeError(f"{name}: a field without a default follows one with a default")
        if order:
            for method in ("__lt__", "__le__", "__gt__", "__ge__"):
                setattr(cls, method, _comparison(method))
        if "__init__" not in namespace:  # a class may write its own
            cls.__init__ = _initializer(cls, kw_only)  # type: ignore[misc]
        return cls

    # Set on each record class by __new__.
    _record_fields: tuple[str, ...]
    _record_compared: tuple[str, ...]  # the fields equality, hashing and ordering use
    _record_defaults: dict[str, Any]
    _record_factories: dict[str, Callable[[], object]]  # fresh defaults, made per record
    _record_key: Callable[[Any], Any]


def _comparison(method: str) -> Callable[[Any, Any], Any]:
    compare = getattr(operator, method)  # operator.__lt__ ...

    def compared(self: Record, other: Any) -> Any:
        if type(other) is not type(self):
            return NotImplemented
        key = type(self)._record_key  # the compared fields, as equality and hashing use
        return compare(key(self), key(other))

    compared.__name__ = method
    return compared


def slot_setters(cls: type[Record] | _RecordType) -> tuple[Callable[[Any, Any], None], ...]:
    """Each field's slot setter, in field order: what a record's ``__init__`` (made here,
    or written out by a class for speed) sets its fields with; a setter costs a third of
    ``object.__setattr__``, which looks the slot up by name on every call."""
    return tuple(getattr(cls, name).__set__ for name in cls._record_fields)


def _initializer(cls: _RecordType, kw_only: bool) -> Callable[..., None]:
    """``cls.__init__``: a closure over the class's fields, made once per class (no
    source is compiled); a record made with every field by position, the common case
    for small records, takes the short path."""
    name = cls.__name__
    names = cls._record_fields
    count = len(names)
    defaults = cls._record_defaults
    factories = cls._record_factories
    setters = slot_setters(cls)
    named_setters = tuple(zip(setters, names, strict=True))
    post_init: Callable[[Any], None] | None = getattr(cls, "__post_init__", None)

    # Positional records without factories: the fields not given take their defaults.
    required = sum(n not in defaults for n in names)
    tail = tuple(zip(setters, (defaults.get(n) for n in names), strict=True))
    positional = not kw_only and not factories

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if positional and not kwargs and required <= len(args) <= count:
            for setter, value in zip(setters, args, strict=False):
                setter(self, value)
            for setter, default in tail[len(args) :]:
                setter(self, default)
            if post_init is not None:
                post_init(self)
            return
        if args:
            if kw_only:
                raise TypeError(f"{name}() takes its fields as keywords only")
            if len(args) > count:
                raise TypeError(f"{name}() takes at most {count} fields")
            given = dict(zip(names, args, strict=False))
            if not given.keys().isdisjoint(kwargs):
                raise TypeError(f"{name}() got a field both by position and by name")
            kwargs.update(given)
        values = defaults | kwargs
        if factories:
            for field_name, factory in factories.items():
                if field_name not in values:
                    values[field_name] = factory()
        try:
            if len(values) != count:
                raise KeyError
            for setter, field_name in named_setters:
                setter(self, values[field_name])
        except KeyError:  # as many names as fields, but not the same names
            unknown = sorted(set(values) - set(names))
            missing = [n for n in names if n not in values]
            raise TypeError(f"{name}(): unknown fields {unknown}, missing {missing}") from None
        if post_init is not None:
            post_init(self)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


class Record(metaclass=_RecordType):
    """The base of every record type (see the module's documentation)."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenRecordError(f"cannot assign to field {name!r} of a {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise FrozenRecordError(f"cannot delete field {name!r} of a {type(self).__name__}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        key = type(self)._record_key
        return bool(key(self) == key(other))

    def __hash__(self) -> int:
        return hash(type(self)._record_key(self))

    def __reduce__(self) -> tuple[Callable[..., Record], tuple[type[Record], dict[str, Any]]]:
        # copy, deepcopy and pickle rebuild a record through its constructor, which
        # checks it again: restoring slots one by one would meet __setattr__'s refusal.
        return _rebuilt, (type(self), {n: getattr(self, n) for n in type(self)._record_fields})

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in type(self)._record_fields)
        return f"{type(self).__qualname__}({shown})"


def _rebuilt(cls: type[R], values: dict[str, Any]) -> R:
    return cls(**values)


def fields(record: Record | type[Record]) -> tuple[str, ...]:
    """The names of a record's fields, in declaration order."""
    cls = record if isinstance(record, type) else type(record)
    return cls._record_fields


def replace(record: R, /, **changes: Any) -> R:
    """A copy of ``record`` with ``changes`` (checked again by ``__post_init__``)."""
    values = {name: getattr(record, name) for name in type(record)._record_fields}
    values.update(changes)
    return type(record)(**values)
