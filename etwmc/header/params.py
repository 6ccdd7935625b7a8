"""Templates -> the ``McTemplate*`` helper functions and the arguments of the write macros.

Each top-level template item becomes one or two arguments of the ``EventWrite...``
macro and one or two ``EVENT_DATA_DESCRIPTOR``s, the way mc's headers pass them
(``Notes on the ETW event code`` at the top of every header says the same to users):

==========================  ==================================  ========================
item                        macro arguments                     descriptors
==========================  ==================================  ========================
integer, float, Boolean     the value (an array: a pointer)     1
Pointer                     the pointer (array: pointer to)     1
GUID, FILETIME, SYSTEMTIME  a pointer to one or ``count``       1
SID                         a pointer; an array: ``_Len_`` +    1
                            the packed bytes
UnicodeString, AnsiString   a pointer (NULL logs "NULL"); an    1
                            array without ``length``: ``_Len_``
                            (characters) + the packed strings
Binary                      a pointer to ``length`` x count     1
Counted*                    ``_Len_`` + a pointer               2 (the 16-bit size, then
                                                                the data); an array: 1
struct                      ``_Len_`` (bytes of one element) +  1
                            a pointer to the packed elements
==========================  ==================================  ========================

A ``count`` of 0 or 1 is a single value.  A ``count`` or ``length`` naming another
field uses that field's argument (``_ArgN``, N its position among the top-level items).

The helper's name is ``McTemplateU0`` (``K0`` with ``-km``) followed by one code per
item: the inType's letter (:attr:`etwmc.winmeta.InType.mangle`, ``n`` for a struct),
upper-cased for an array, then the fixed count or ``R<index>`` of the count field;
strings and binary data also encode their length (see :func:`mangle`).  Templates with
the same code share one helper.
"""

from __future__ import annotations

from ..model import Field, Struct, Template
from ..record import Record
from ..winmeta import InTypeCode
from .names import sanitize

# inType code -> C type of one value, for the types passed by value (or by pointer
# to an array of them).
_SCALARS: dict[int, str] = {
    InTypeCode.INT8: "signed char",
    InTypeCode.UINT8: "unsigned char",
    InTypeCode.INT16: "signed short",
    InTypeCode.UINT16: "unsigned short",
    InTypeCode.INT32: "signed int",
    InTypeCode.UINT32: "unsigned int",
    InTypeCode.INT64: "signed __int64",
    InTypeCode.UINT64: "unsigned __int64",
    InTypeCode.FLOAT: "float",
    InTypeCode.DOUBLE: "double",
    InTypeCode.BOOLEAN: "signed int",  # a Boolean is a 4-byte BOOL
    InTypeCode.HEX_INT32: "signed int",
    InTypeCode.HEX_INT64: "signed __int64",
}
_RECORDS: dict[int, str] = {
    InTypeCode.GUID: "GUID",
    InTypeCode.FILETIME: "FILETIME",
    InTypeCode.SYSTEMTIME: "SYSTEMTIME",
}
_UNICODE, _ANSI, _BINARY = InTypeCode.UNICODE_STRING, InTypeCode.ANSI_STRING, InTypeCode.BINARY
_POINTER, _SID = InTypeCode.POINTER, InTypeCode.SID
_COUNTED_UNICODE = InTypeCode.COUNTED_UNICODE_STRING
_COUNTED_ANSI = InTypeCode.COUNTED_ANSI_STRING
_STRINGISH = frozenset({_UNICODE, _ANSI, _BINARY})

MAX_DESCRIPTORS = 128  # EventWriteTransfer refuses more (MAX_EVENT_DATA_DESCRIPTORS)


class Param(Record):
    """One template item as the helper takes it."""

    names: tuple[str, ...]  # macro argument names: ("X_Len_", "X") or ("X",)
    decls: tuple[str, ...]  # the helper's parameter declarations
    fills: tuple[tuple[str, str], ...]  # (data pointer, size) per descriptor, in order
    packed: bool  # the caller packs several values into one buffer
    code: str  # the item's part of the helper's name


class Helper(Record):
    """A ``McTemplate*`` function: what the write macros call."""

    name: str
    tid: str | None
    params: tuple[Param, ...]

    @property
    def arg_names(self) -> tuple[str, ...]:
        return tuple(n for p in self.params for n in p.names)

    @property
    def descriptor_count(self) -> int:
        return sum(len(p.fills) for p in self.params)

    @property
    def packed(self) -> bool:
        return any(p.packed for p in self.params)


class _Extent(Record):
    """A field's count or length: a constant, or the index of the field that holds it."""

    fixed: int | None  # a constant above 1 (count) or above 0 (length)
    ref: int | None  # the index of the field holding it

    @property
    def given(self) -> bool:
        return self.fixed is not None or self.ref is not None

    def expr(self) -> str:
        return f"_Arg{self.ref}" if self.ref is not None else str(self.fixed)


def _extent(value: int | str | None, index: dict[str, int], minimum: int) -> _Extent:
    if isinstance(value, int):
        return _Extent(value if value >= minimum else None, None)
    if isinstance(value, str) and value in index:
        return _Extent(None, index[value])
    return _Extent(None, None)


def mangle(letter: str, count: _Extent, length: _Extent | None) -> str:
    """The code of one item.  ``length`` is None for types whose length mc ignores."""
    if length is None:
        if count.fixed is not None:
            return letter.upper() + str(count.fixed)
        if count.ref is not None:
            return f"{letter.upper()}R{count.ref}"
        return letter
    t = letter.upper() if count.given else letter
    if count.fixed is not None and length.fixed is not None:
        return t + str(count.fixed * length.fixed)
    if count.ref is not None and length.ref is not None:
        return f"{t}r{length.ref}R{count.ref}"
    if count.fixed is not None and length.ref is not None:
        return f"{t}{count.fixed}r{length.ref}"
    if length.fixed is not None and count.ref is not None:
        return f"{t}{length.fixed}r{count.ref}"
    if count.given:
        return t + "R"
    if length.fixed is not None:
        return t + str(length.fixed)
    if length.ref is not None:
        return f"{t}r{length.ref}"
    return t


def _param(item: Field | Struct, k: int, index: dict[str, int]) -> Param:
    arg = f"_Arg{k}"
    size_arg = f"_Arg{k}_Len_"
    name = sanitize(item.name) or arg
    one = (name,)
    two = (f"{name}_Len_", name)
    count = _extent(item.count, index, 2)
    n = count.expr()
    if isinstance(item, Struct):
        size = f"{n} * {size_arg}" if count.given else size_arg
        return Param(
            two,
            (f"_In_ ULONG {size_arg}", f"_In_ const void* {arg}"),
            ((arg, f"(ULONG)({size})"),),
            False,
            mangle("n", count, None),
        )
    t = item.in_type
    code = t.code if t is not None else InTypeCode.NULL
    letter = t.mangle if t is not None else "b"
    if code in _SCALARS or code == _POINTER:
        ctype = _SCALARS.get(code, "void*")
        if count.given:
            ptr = f"const {ctype} const*" if code == _POINTER else f"const {ctype}*"
            return Param(
                one,
                (f"_In_reads_({n}) {ptr} {arg}",),
                ((arg, f"(ULONG)(sizeof(const {ctype}) * {n})"),),
                False,
                mangle(letter, count, None),
            )
        sal = "_In_opt_" if code == _POINTER else "_In_"
        return Param(
            one,
            (f"{sal} const {ctype} {arg}",),
            ((f"&{arg}", f"(ULONG)sizeof(const {ctype})"),),
            False,
            mangle(letter, count, None),
        )
    if code in _RECORDS:
        rtype = _RECORDS[code]
        sal = f"_In_reads_({n})" if count.given else "_In_"
        size = f"(ULONG)(sizeof({rtype}) * {n})" if count.given else f"(ULONG)sizeof({rtype})"
        return Param(
            one,
            (f"{sal} const {rtype}* {arg}",),
            ((arg, size),),
            False,
            mangle(letter, count, None),
        )
    if code == _SID:
        if count.given:
            return Param(
                two,
                (f"_In_ ULONG {size_arg}", f"_In_reads_({size_arg}) const unsigned char* {arg}"),
                ((arg, size_arg),),
                True,
                mangle(letter, count, None),
            )
        return Param(
            one,
            (f"_In_ const SID* {arg}",),
            (
                (
                    f"({arg} != NULL) ? (const void*){arg} : (const void*){_NULL_SID}",
                    f"({arg} != NULL) ? (ULONG)MCGEN_GETLENGTHSID({arg}) : 8",
                ),
            ),
            False,
            mangle(letter, count, None),
        )
    if code in _STRINGISH:
        return _string(item, code, letter, k, count, _extent(item.length, index, 1))
    # Counted strings and counted binary data: the size travels as its own descriptor.
    unit = {_COUNTED_UNICODE: "sizeof(WCHAR) * ", _COUNTED_ANSI: ""}.get(code, "")
    ctype = {_COUNTED_UNICODE: "WCHAR", _COUNTED_ANSI: "char"}.get(code, "unsigned char")
    decls = (f"_In_ ULONG {size_arg}", f"_In_reads_({size_arg}) const {ctype}* {arg}")
    if count.given:
        return Param(
            two, decls, ((arg, f"(ULONG)({unit}{size_arg})"),), True, mangle(letter, count, None)
        )
    return Param(
        two,
        decls,
        (
            ("&EventData[{next}].Size", "(ULONG)sizeof(USHORT)"),
            (arg, f"(USHORT)({unit}{size_arg})"),
        ),
        True,
        mangle(letter, count, None),
    )


_NULL_SID = '"\\0\\0\\0\\0\\0\\0\\0"'  # with its terminator: the 8 zero bytes of "no SID"


def _string(item: Field, code: int, letter: str, k: int, count: _Extent, length: _Extent) -> Param:
    arg = f"_Arg{k}"
    size_arg = f"_Arg{k}_Len_"
    name = sanitize(item.name) or arg
    code_str = mangle(letter, count, length)
    if code == _BINARY:
        total = length.expr() if length.given else "0"
        if count.given:
            total = f"{total} * {count.expr()}"
        return Param(
            (name,),
            (f"_In_reads_({total}) const unsigned char* {arg}",),
            ((arg, f"(ULONG)({total})"),),
            False,
            code_str,
        )
    wide = code == _UNICODE
    unit = "sizeof(WCHAR)" if wide else "sizeof(char)"
    if length.given:
        chars = length.expr() if not count.given else f"{count.expr()} * {length.expr()}"
        return Param(
            (name,),
            (f"_In_reads_({chars}) const {'WCHAR' if wide else 'char'}* {arg}",),
            ((arg, f"(ULONG)({unit} * {chars})"),),
            count.given,
            code_str,
        )
    ptype = "PCWSTR" if wide else "PCSTR"
    if count.given:
        return Param(
            (f"{name}_Len_", name),
            (f"_In_ ULONG {size_arg}", f"_In_reads_({size_arg}) {ptype} {arg}"),
            ((arg, f"(ULONG)({unit} * {size_arg})"),),
            True,
            code_str,
        )
    nul = 'L"NULL"' if wide else '"NULL"'
    strlen = "wcslen" if wide else "strlen"
    return Param(
        (name,),
        (f"_In_opt_ {ptype} {arg}",),
        (
            (
                f"({arg} != NULL) ? {arg} : {nul}",
                f"({arg} != NULL) ? (ULONG)(({strlen}({arg}) + 1) * {unit}) : (ULONG)sizeof({nul})",
            ),
        ),
        False,
        code_str,
    )


def helper(template: Template | None, *, kernel: bool) -> Helper:
    """The helper function an event with this template (or none) calls."""
    prefix = "McTemplateK0" if kernel else "McTemplateU0"
    if template is None:
        return Helper(prefix, None, ())
    index = {it.name: i for i, it in enumerate(template.items)}
    params = tuple(_param(it, i, index) for i, it in enumerate(template.items))
    return Helper(prefix + "".join(p.code for p in params), template.tid, params)


def helper_source(h: Helper, *, kernel: bool) -> list[str]:
    """The helper's definition, guarded so that headers included together share it."""
    count = f"{h.name}_ARGCOUNT"
    decls = ["_In_ PMCGEN_TRACE_CONTEXT Context", "_In_ PCEVENT_DESCRIPTOR Descriptor"]
    if kernel:
        decls.append("_In_opt_ LPCGUID Activity")
    decls += [d for p in h.params for d in p.decls]
    lines = [
        f"#ifndef {h.name}_def",
        f"#define {h.name}_def",
        "ETW_INLINE",
        "ULONG",
        f"{h.name}(",
    ]
    lines += [f"    {d}," for d in decls[:-1]]
    lines += [f"    {decls[-1]}", "    )", "{", f"#define {count} {h.descriptor_count}", ""]
    lines.append(f"    EVENT_DATA_DESCRIPTOR EventData[{count} + 1];")
    slot = 1
    for p in h.params:
        for ptr, size in p.fills:
            ptr = ptr.replace("{next}", str(slot + 1))
            lines.append(f"    EventDataDescCreate(&EventData[{slot}], {ptr}, {size});")
            slot += 1
    activity = "Activity" if kernel else "NULL"
    lines += [
        "",
        f"    return McGenEventWrite(Context, Descriptor, {activity}, {count} + 1, EventData);",
        "}",
        f"#endif // {h.name}_def",
    ]
    return lines
