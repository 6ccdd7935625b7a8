"""winmeta's tables agree with each other: the inType enum names every inType once."""

from __future__ import annotations

import re

from etwmc import winmeta as wm
from etwmc.winmeta import InTypeCode


def _member_name(local: str) -> str:
    """``CountedAnsiString`` -> ``COUNTED_ANSI_STRING`` (``UInt8`` stays ``UINT8``)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", local).upper()


def test_each_in_type_has_the_member_named_after_it() -> None:
    for qname, t in wm.IN_TYPES.items():
        assert InTypeCode[_member_name(t.local)] is t.code, qname
    assert {t.code for t in wm.IN_TYPES.values()} == set(InTypeCode) - {InTypeCode.NULL}


def test_codes_are_tdh_s() -> None:
    # TDH_INTYPE_* (tdh.h): the numbers manifests' win: types stand for.
    tdh = {
        "win:UnicodeString": 1, "win:AnsiString": 2, "win:Int8": 3, "win:UInt8": 4,
        "win:Int16": 5, "win:UInt16": 6, "win:Int32": 7, "win:UInt32": 8, "win:Int64": 9,
        "win:UInt64": 10, "win:Float": 11, "win:Double": 12, "win:Boolean": 13,
        "win:Binary": 14, "win:GUID": 15, "win:Pointer": 16, "win:FILETIME": 17,
        "win:SYSTEMTIME": 18, "win:SID": 19, "win:HexInt32": 20, "win:HexInt64": 21,
        "win:CountedUnicodeString": 22, "win:CountedAnsiString": 23, "win:CountedBinary": 25,
    }  # fmt: skip
    assert {q: int(t.code) for q, t in wm.IN_TYPES.items()} == tdh


def test_code_sets_hold_members() -> None:
    assert wm.INTEGER_CODES == {c for c in InTypeCode if "INT" in c.name and "POINTER" != c.name}
    assert set(wm.SCALAR_FORMATS) == wm.INTEGER_CODES | {
        InTypeCode.FLOAT, InTypeCode.DOUBLE, InTypeCode.BOOLEAN, InTypeCode.POINTER
    }  # fmt: skip
    assert wm.MAPPABLE_CODES < wm.INTEGER_CODES


def test_codes_read_as_numbers_in_text() -> None:
    """Generated modules and messages write codes with str() and format()."""
    assert str(InTypeCode.SID) == f"{InTypeCode.SID}" == "19"
