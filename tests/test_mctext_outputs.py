"""What etwmc writes for a message text file, rule by rule (message-text-files.md)."""

from __future__ import annotations

import codecs
import struct

from etwmc import mctext
from etwmc.wevt.msgtable import read_message_table


def _model(text: str | bytes, **options: object) -> mctext.MessageFile:
    data = text.encode("cp1252") if isinstance(text, str) else text
    model, diags = mctext.read(data, "m.mc", mctext.McTextOptions(**options))  # type: ignore[arg-type]
    assert model is not None and mctext.usable(diags), diags
    return model


def _out(text: str | bytes, *, prefixed: bool = False, **options: object) -> mctext.McOutputs:
    opts = mctext.McTextOptions(**options)  # type: ignore[arg-type]
    return mctext.build(_model(text, **options), opts, base="m", prefixed=prefixed)


def _ids(text: str, **options: object) -> dict[str | None, int]:
    return {m.symbol: m.id for m in _model(text, **options).messages}


def _msg(symbol: str, *statements: str, text: str = "x") -> str:
    return "\n".join(("MessageId=", *statements, f"SymbolicName={symbol}", "Language=English",
                      text, ".")) + "\n"  # fmt: skip


# ----------------------------------------------------------------------------- ids


def test_ids_continue_per_facility() -> None:
    text = (
        "MessageId=10\nSymbolicName=A\nLanguage=English\na\n.\n"
        + _msg("B")
        + "MessageId=+5\nSymbolicName=C\nLanguage=English\nc\n.\n"
        + _msg("D", "Facility=System")
        + _msg("E", "Facility=Application")
    )
    assert _ids(text) == {"A": 10, "B": 11, "C": 16, "D": 0x00FF0001, "E": 17}


def test_severity_and_facility_carry_over_and_make_the_id() -> None:
    text = (
        "FacilityNames=(Disk=0x7:FACILITY_DISK)\n"
        + _msg("A", "Severity=Error", "Facility=Disk")
        + _msg("B")
        + _msg("C", "Severity=Informational")
    )
    assert _ids(text) == {"A": 0xC0070001, "B": 0xC0070002, "C": 0x40070003}
    assert _ids(text, customer_bit=True) == {"A": 0xE0070001, "B": 0xE0070002, "C": 0x60070003}


def test_the_id_is_fixed_when_the_facility_is_known() -> None:
    # Facility= after MessageId= still picks the facility whose previous id counts.
    text = _msg("A", "Facility=System") + _msg("B") + _msg("C", "Facility=Application")
    assert _ids(text) == {"A": 0x00FF0001, "B": 0x00FF0002, "C": 1}


def test_keywords_ignore_case_and_share_lines() -> None:
    text = (
        "languagenames=(Deutsch=0x407:MSG00407)\n"
        "messageid=3 severity=warning symbolicname=W\nlanguage=deutsch\nWarnung\n.\n"
        "MESSAGEID= SYMBOLICNAME=X\nLANGUAGE=DEUTSCH\nX\n.\n"
    )
    assert _ids(text) == {"W": 0x80000003, "X": 0x80000004}


def test_a_name_list_may_run_over_lines() -> None:
    text = "LanguageNames =\n(\nEnglish=0x0409:MSG00409\nFrench=0x40C:MSG0040C\n)\n"
    text += "MessageId=1\nLanguage=English\nOne\n.\nLanguage=French\nUn\n.\n"
    assert set(_out(text).tables) == {"MSG00409.bin", "MSG0040C.bin"}


# ----------------------------------------------------------------------------- tables


def _entry(table: bytes) -> tuple[int, int, bytes]:
    """(length, flags, bytes) of the first entry."""
    offset = struct.unpack_from("<I", table, 12)[0]
    length, flags = struct.unpack_from("<HH", table, offset)
    return length, flags, table[offset + 4 : offset + length]


def test_text_is_kept_verbatim_with_cr_lf_after_every_line() -> None:
    text = "MessageId=1\nLanguage=English\n  two  spaces\n\n%1!s! %% %0\n.\n"
    table = _out(text).tables["MSG00001.bin"]
    assert read_message_table(table) == {1: "  two  spaces\r\n\r\n%1!s! %% %0"}
    assert _entry(table)[2].decode("utf-16-le") == "  two  spaces\r\n\r\n%1!s! %% %0\r\n\0\0"


def test_lf_and_cr_lf_sources_give_the_same_tables() -> None:
    text = _msg("A", text="one\ntwo")
    assert _out(text).tables == _out(text.replace("\n", "\r\n")).tables


def test_n_leaves_out_the_last_line_end() -> None:
    text = _msg("A", text="one\ntwo")
    _, _, data = _entry(_out(text, final_line_end=False).tables["MSG00001.bin"])
    assert data.decode("utf-16-le").rstrip("\0") == "one\r\ntwo"


def test_ansi_and_utf8_entries() -> None:
    text = _msg("A", text="caf\u00e9")
    ansi = _out(text, table_flags=mctext.MESSAGE_RESOURCE_ANSI).tables["MSG00001.bin"]
    assert _entry(ansi) == (12, 0, b"caf\xe9\r\n\0\0")
    utf8 = _out(text, table_flags=mctext.MESSAGE_RESOURCE_UTF8).tables["MSG00001.bin"]
    assert _entry(utf8) == (12, 2, b"caf\xc3\xa9\r\n\0")
    assert read_message_table(_out(text, table_flags=2).tables["MSG00001.bin"]) == {1: "caf\u00e9"}


def test_input_encodings() -> None:
    text = _msg("A", text="\u00e9t\u00e9")
    utf16 = codecs.BOM_UTF16_LE + text.encode("utf-16-le")
    assert _out(utf16).tables == _out(text).tables  # cp1252 by default
    assert _out(text.encode("utf-16-le"), unicode_input=True).tables == _out(text).tables
    assert _out(codecs.BOM_UTF8 + text.encode("utf-8")).tables == _out(text).tables
    assert _out(text.encode("cp850"), code_page="cp850").tables == _out(text).tables


def test_b_puts_the_base_name_before_the_table_names() -> None:
    out = _out(_msg("A"), prefixed=True)
    assert list(out.tables) == ["m_MSG00001.bin"]
    assert out.rc == 'LANGUAGE 0x9,0x1\n1 11 "m_MSG00001.bin"\n'


def test_only_languages_with_messages_get_a_table() -> None:
    text = "LanguageNames=(German=0x407:MSG00407)\n" + _msg("A")
    out = _out(text)
    assert list(out.tables) == ["MSG00001.bin"] and out.languages == ((0x409, "MSG00001.bin"),)


def test_rc_lists_languages_by_name_descending() -> None:
    # As mc's .rc files list them (wellbay/nssm's golden: Italian, French, English).
    text = "LanguageNames=(British=0x809:MSG00809)\nLanguageNames=(French=0x40C:MSG0040C)\n"
    text += "MessageId=1\nLanguage=English\na\n.\nLanguage=British\nb\n.\nLanguage=French\nc\n.\n"
    assert _out(text).rc == (
        'LANGUAGE 0xc,0x1\n1 11 "MSG0040C.bin"\n'
        'LANGUAGE 0x9,0x1\n1 11 "MSG00001.bin"\n'
        'LANGUAGE 0x9,0x2\n1 11 "MSG00809.bin"\n'
    )


# ----------------------------------------------------------------------------- header


def test_header_defines_and_casts() -> None:
    text = (
        _msg("PLAIN")
        + "MessageIdTypedef=WORD\nOutputBase=10\n"
        + _msg("TYPED_DECIMAL")
        + "OutputBase=16\n"
        + _msg("A_SYMBOL_LONGER_THAN_THIRTY_TWO_CHARACTERS")
    )
    header = _out(text).header
    assert "#define PLAIN                            0x00000001L\n" in header
    assert "#define TYPED_DECIMAL                    ((WORD)2L)\n" in header
    assert "#define A_SYMBOL_LONGER_THAN_THIRTY_TWO_CHARACTERS ((WORD)0x00000003L)\n" in header
    assert "((WORD)" not in header.split("TYPED_DECIMAL")[0]


def test_output_base_in_a_message_definition() -> None:
    text = "MessageId=7\nOutputBase=10\nSymbolicName=A\nLanguage=English\na\n.\n" + _msg("B")
    header = _out(text).header
    assert "#define A                                7L\n" in header
    assert "#define B                                8L\n" in header


def test_o_writes_the_hresult_layout() -> None:
    header = _out(_msg("A"), ole2=True).header
    assert "//  |S|R|C|N|r|    Facility         |               Code            |\n" in header
    assert "#define A                                _HRESULT_TYPEDEF_(0x00000001L)\n" in header
    typed = _out("MessageIdTypedef=HRESULT\n" + _msg("A"), ole2=True).header
    assert "#define A                                ((HRESULT)0x00000001L)\n" in typed


def test_severity_and_facility_symbols_in_declaration_order() -> None:
    text = (
        "SeverityNames=(Success=0x0:STATUS_SEVERITY_SUCCESS Fail=0x3:STATUS_SEVERITY_FAIL)\n"
        "FacilityNames=(Disk=0x7:FACILITY_DISK Io=0x4:FACILITY_IO)\n" + _msg("A")
    )
    header = _out(text).header
    facilities = header.split("// Define the facility codes\n//\n")[1].split("\n\n\n")[0]
    assert facilities.splitlines() == [
        "#define FACILITY_DISK                    0x7",
        "#define FACILITY_IO                      0x4",
    ]
    severities = header.split("// Define the severity codes\n//\n")[1].split("\n\n\n")[0]
    assert severities.splitlines() == [
        "#define STATUS_SEVERITY_SUCCESS          0x0",
        "#define STATUS_SEVERITY_FAIL             0x3",
    ]
    decimal = _out("FacilityNames=(Disk=0x17:FACILITY_DISK)\n" + _msg("A"), decimal=True)
    assert "#define FACILITY_DISK                    23\n" in decimal.header
    assert "#define A                                1L\n" in decimal.header


def test_comments_stand_where_they_are() -> None:
    text = ";// top\n" + _msg("A") + ";#define EXTRA 1\n" + _msg("B") + ";// end\n"
    header = _out(text).header
    assert header.startswith("// top\n//\n//  Values are 32 bit values laid out as follows:\n")
    a, b = header.index("#define A "), header.index("#define B ")
    extra = header.index("#define EXTRA 1\n")
    assert a < extra < b and header.endswith("0x00000002L\n\n// end\n")


def test_a_message_without_symbolic_name() -> None:
    header = _out("MessageId=5\nLanguage=English\nFive\n.\n").header
    assert header.endswith(
        "//\n// MessageId: 0x00000005L (No symbolic name defined)\n//\n// MessageText:\n"
        "//\n// Five\n//\n\n\n"
    )


def test_blank_text_lines_keep_the_space_after_the_slashes() -> None:
    header = _out(_msg("A", text="one\n\ntwo")).header
    assert "// one\n// \n// two\n//\n#define A" in header


def test_no_banner_without_messages() -> None:
    assert _out(";// only a comment\n").header == "// only a comment\n"


# ----------------------------------------------------------------------------- .dbg, -cp


def test_dbg_maps_ids_to_names() -> None:
    out = _out("MessageIdTypedef=HRESULT\n" + _msg("A") + "MessageId=\nLanguage=English\nx\n.\n")
    assert out.dbg.splitlines()[6:] == [
        "struct {",
        "    HRESULT MessageId;",
        "    char *SymbolicName;",
        "} mSymbolicNames[] = {",
        ' (HRESULT) A, "A",',
        " (HRESULT) 0xFFFFFFFF, NULL",
        "};",
    ]
    model = _model(_msg("A"))
    odd = mctext.build(model, mctext.McTextOptions(), base="my-msgs;", prefixed=False).dbg
    assert "} my_msgs_SymbolicNames[] = {" in odd  # the base name made an identifier


def test_encode_text_follows_cp() -> None:
    assert mctext.encode_text("caf\u00e9 \u0394", "ansi", "cp1252") == b"caf\xe9 ?"
    assert mctext.encode_text("x", "utf-8", "cp1252") == b"\xef\xbb\xbfx"
    assert mctext.encode_text("x", "utf-16", "cp1252") == b"\xff\xfex\x00"
    assert mctext.encode_text("x", "utf-8", "cp1252", rc=True) == b"\xff\xfex\x00"
