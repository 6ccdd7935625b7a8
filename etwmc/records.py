"""Frozen, slotted record classes that are cheap to define.

``@dataclass(frozen=True, slots=True)`` compiles six or more methods from source text
each time a module is imported (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__``, ``__delattr__``), about a millisecond per class: for the model's
classes alone, a tenth of a whole ``etwmc lint`` run.  :func:`record` compiles one
``__init__`` per shape (number of fields, keyword-only or not) and gives each class a
copy with its own parameter names, which sets each field through its slot's
descriptor (construction speed matters: lowering builds thousands of nodes).  The
other methods are shared functions that read the class's field names.

A record behaves as the frozen, slotted dataclass with the same fields would: fields
in annotation order (class variables are not fields), class-level values as defaults,
keyword-only ``__init__`` unless ``kw_only=False``, equality and hashing on the tuple of
fields between instances of the same class, the dataclass ``repr``, assignment raising
:class:`dataclasses.FrozenInstanceError`, ``order=True`` for ``<``/``<=``/``>``/``>=``,
and pickling and copying through ``__getstate__``/``__setstate__``.  A method written
in the class body (``__eq__``, say) is kept; ``__post_init__`` runs after ``__init__``
as a dataclass's does.  :func:`replace` is :func:`dataclasses.replace` for records.
Records take no base class other than ``object`` or :class:`typing.Generic`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from operator import attrgetter
from types import CodeType, FunctionType
from typing import Any, Generic, TypeVar, dataclass_transform, overload

from . import record_shapes

__all__ = ["record", "record_fields", "replace"]

_T = TypeVar("_T")

_FIELDS = "__record_fields__"
_KEY = "__record_key__"


def record_fields(cls: type) -> tuple[str, ...]:
    """The field names of a record class, in order."""
    fields: tuple[str, ...] = getattr(cls, _FIELDS)
    return fields


def _eq(self: Any, other: Any) -> object:
    if other.__class__ is self.__class__:
        key: Callable[[object], tuple[object, ...]] = self.__record_key__
        return key(self) == key(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__record_key__(self))


def _repr(self: Any) -> str:
    parts = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_fields__)
    return f"{self.__class__.__qualname__}({parts})"


def _setattr(self: object, name: str, value: object) -> None:
    # dataclasses is imported for its exception only when it is raised: importing it
    # (with inspect) costs about a tenth of an ``etwmc lint`` run.
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _delattr(self: object, name: str) -> None:
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot delete field {name!r}")


def replace(obj: _T, /, **changes: object) -> _T:
    """A copy of the record ``obj`` with ``changes`` to some of its fields, as
    :func:`dataclasses.replace` makes of a dataclass."""
    names: tuple[str, ...] = record_fields(type(obj))
    unknown = changes.keys() - set(names)
    if unknown:
        raise TypeError(f"{type(obj).__qualname__} has no field {sorted(unknown)[0]!r}")
    values = {name: changes[name] if name in changes else getattr(obj, name) for name in names}
    return type(obj)(**values)


def _getstate(self: Any) -> list[object]:
    return [getattr(self, name) for name in self.__record_fields__]


def _setstate(self: Any, state: list[object]) -> None:
    for name, value in zip(self.__record_fields__, state, strict=True):
        object.__setattr__(self, name, value)


def _compare(
    op: Callable[[Any, Any], bool],
) -> Callable[[Any, Any], object]:
    def method(self: Any, other: Any) -> object:
        if other.__class__ is self.__class__:
            key: Callable[[object], tuple[object, ...]] = self.__record_key__
            return op(key(self), key(other))
        return NotImplemented

    return method


def _lt(a: Any, b: Any) -> bool:
    return bool(a < b)


def _le(a: Any, b: Any) -> bool:
    return bool(a <= b)


def _gt(a: Any, b: Any) -> bool:
    return bool(a > b)


def _ge(a: Any, b: Any) -> bool:
    return bool(a >= b)


_SHARED: dict[str, object] = {
    "__eq__": _eq,
    "__hash__": _hash,
    "__repr__": _repr,
    "__setattr__": _setattr,
    "__delattr__": _delattr,
    "__getstate__": _getstate,
    "__setstate__": _setstate,
}
_ORDER: dict[str, object] = {
    "__lt__": _compare(_lt),
    "__le__": _compare(_le),
    "__gt__": _compare(_gt),
    "__ge__": _compare(_ge),
}


def _key(names: tuple[str, ...]) -> Callable[[object], tuple[object, ...]]:
    if len(names) == 1:
        get = attrgetter(names[0])
        return lambda obj: (get(obj),)
    if not names:
        return lambda obj: ()
    getter: Callable[[object], tuple[object, ...]] = attrgetter(*names)
    return getter


SHAPES_MAX = 32  # field counts whose __init__ code etwmc/record_shapes.py holds


def shape_source(count: int, kw_only: bool) -> str:
    """The source of the ``__init__`` of a record with ``count`` fields: parameter
    ``_i`` goes to field ``i`` through the setter ``_si`` of its slot."""
    names = [f"_{i}" for i in range(count)]
    params = ", ".join(["self", *(["*"] if kw_only and names else []), *names])
    body = "; ".join(f"_s{i}(self, _{i})" for i in range(count)) or "pass"
    return f"def {shape_name(count, kw_only)}({params}): {body}\n"


def shape_name(count: int, kw_only: bool) -> str:
    return f"_{'k' if kw_only else 'p'}{count}"


def shapes_module() -> str:
    """The text of etwmc/record_shapes.py (the tests check that it is this)."""
    head = (
        '"""The ``__init__`` code of records of up to 32 fields, one function per shape,\n'
        "loaded from bytecode instead of compiled at every start (etwmc.records uses\n"
        'their code objects; generated by etwmc.records.shapes_module())."""\n\n'
        "# ruff: noqa\n# mypy: ignore-errors\n# fmt: off\n"
    )
    defs = "".join(shape_source(n, kw) for n in range(SHAPES_MAX + 1) for kw in (False, True))
    return head + "\n" + defs


@functools.cache
def _init_code(count: int, kw_only: bool) -> CodeType:
    """The code of an ``__init__`` that sets ``count`` fields (:func:`shape_source`):
    from etwmc/record_shapes.py's bytecode, or compiled once per shape beyond it, then
    given each record's parameter names and setters (:func:`_init`)."""
    made = getattr(record_shapes, shape_name(count, kw_only), None)
    if made is not None:
        code: CodeType = made.__code__
        return code
    space: dict[str, Any] = {}
    exec(shape_source(count, kw_only), {}, space)
    code = space[shape_name(count, kw_only)].__code__
    return code


def _init(
    cls: type, names: tuple[str, ...], defaults: dict[str, object], kw_only: bool
) -> FunctionType:
    """``__init__`` for the record class ``cls``: the shape's code with the field names
    as parameter names, setting each slot through its descriptor, which passes by the
    class's (frozen) ``__setattr__`` as ``object.__setattr__`` would, for less."""
    shape = _init_code(len(names), kw_only)
    code = shape.replace(co_varnames=("self", *names), co_qualname=f"{cls.__qualname__}.__init__")
    setters = {f"_s{i}": cls.__dict__[name].__set__ for i, name in enumerate(names)}
    init = FunctionType(code, setters, "__init__")
    init.__qualname__ = code.co_qualname
    if kw_only:
        init.__kwdefaults__ = dict(defaults) or None
    else:
        init.__defaults__ = tuple(defaults.values()) or None
    return init


def _build(cls: type[_T], kw_only: bool, order: bool) -> type[_T]:
    if any(base not in (object, Generic) for base in cls.__bases__):
        raise TypeError(f"record {cls.__qualname__} may not derive from another class")
    body = dict(cls.__dict__)
    annotations: dict[str, object] = body.get("__annotations__", {})
    names: list[str] = []
    defaults: dict[str, object] = {}
    for name, hint in annotations.items():
        if isinstance(hint, str) and hint.startswith(("ClassVar", "typing.ClassVar")):
            continue
        if name in body:
            defaults[name] = body.pop(name)
        elif defaults and not kw_only:
            raise TypeError(f"field {name!r} without a default follows one with a default")
        names.append(name)
    fields = tuple(names)
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    body["__slots__"] = fields
    body[_FIELDS] = fields
    body[_KEY] = staticmethod(_key(fields))
    body["__match_args__"] = () if kw_only else fields
    for name, method in (_SHARED | _ORDER if order else _SHARED).items():
        body.setdefault(name, method)
    built: type[_T] = type(cls.__name__, cls.__bases__, body)
    built.__qualname__ = cls.__qualname__
    if "__init__" not in body:  # its slots exist now
        init: Callable[..., None] = _init(built, fields, defaults, kw_only)
        if "__post_init__" in body:
            init = _checked(init)
        type.__setattr__(built, "__init__", init)
    return built


def _checked(init: Callable[..., None]) -> Callable[..., None]:
    """``init`` followed by the class's ``__post_init__`` (checks, as a dataclass runs it)."""

    @functools.wraps(init)
    def __init__(self: Any, *args: object, **kwargs: object) -> None:
        init(self, *args, **kwargs)
        self.__post_init__()

    return __init__


@overload
def record(cls: type[_T], /) -> type[_T]: ...


@overload
def record(*, kw_only: bool = True, order: bool = False) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(kw_only_default=True, frozen_default=True)
def record(
    cls: type[_T] | None = None, /, *, kw_only: bool = True, order: bool = False
) -> type[_T] | Callable[[type[_T]], type[_T]]:
    """Make ``cls`` a frozen, slotted record (see the module docstring)."""
    if cls is None:
        return lambda c: _build(c, kw_only, order)
    return _build(cls, kw_only, order)
