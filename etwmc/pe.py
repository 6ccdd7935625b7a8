"""A resource-only PE32+ DLL, written in pure Python.

The manifest's ``resourceFileName`` / ``messageFileName`` name a DLL whose resources
hold the WEVT_TEMPLATE blob and one MESSAGETABLE per culture; ``wevtutil im`` and every
decoder load it as a data file.  The usual route is ``rc.exe`` then ``link /dll
/noentry``; this module writes the same kind of image directly, so a Python project
needs no Windows toolchain.

The image has one section, ``.rsrc``, no code, no imports, no relocations (nothing in
it holds an address) and entry point 0.  It is deterministic: the time stamps are 0
and the PE checksum is computed.  Resource directories follow the PE rules: three
levels (type, name, language), named entries before numbered ones, names sorted
case-insensitively and stored in upper case (as rc.exe stores them, and as
``FindResource`` looks them up), ids ascending.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PureWindowsPath
from typing import TYPE_CHECKING, Final, TypeAlias

from .wevt import binary_outputs
from .wevt.cultures import langid
from .wevt.rc import message_table_file, template_file

if TYPE_CHECKING:
    from .model import Manifest

RT_MESSAGETABLE: Final = 11
WEVT_TEMPLATE: Final = "WEVT_TEMPLATE"
LANG_EN_US: Final = 0x0409

# A resource type or name: a number (ordinal) or a string.
ResId: TypeAlias = int | str
ResourceKey: TypeAlias = tuple[ResId, ResId, int]  # (type, name, language)

_FILE_ALIGN: Final = 0x200
_SECTION_ALIGN: Final = 0x1000
_RSRC_RVA: Final = _SECTION_ALIGN
_IMAGE_BASE: Final = 0x1_8000_0000  # link.exe's default for 64-bit DLLs
_PE_OFFSET: Final = 0x40  # the PE header follows the DOS header directly
_DATA_ALIGN: Final = 8

_MACHINE_AMD64: Final = 0x8664
# EXECUTABLE_IMAGE | LARGE_ADDRESS_AWARE | DLL
_FILE_CHARACTERISTICS: Final = 0x0002 | 0x0020 | 0x2000
# HIGH_ENTROPY_VA | DYNAMIC_BASE | NX_COMPAT | NO_SEH
_DLL_CHARACTERISTICS: Final = 0x0020 | 0x0040 | 0x0100 | 0x0400
_SUBSYSTEM_WINDOWS_GUI: Final = 2
# INITIALIZED_DATA | MEM_READ
_RSRC_CHARACTERISTICS: Final = 0x0000_0040 | 0x4000_0000
_DIRECTORY_RESOURCE: Final = 2
_NUM_DIRECTORIES: Final = 16
_OPTIONAL_HEADER_SIZE: Final = 112 + 8 * _NUM_DIRECTORIES
_CHECKSUM_OFFSET: Final = _PE_OFFSET + 4 + 20 + 64

_HIGH_BIT: Final = 0x8000_0000


class ResourceError(ValueError):
    """A resource key that cannot be stored (bad id, name or language)."""


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def _check_id(rid: ResId, what: str) -> ResId:
    if isinstance(rid, str):
        if not rid or len(rid) > 0xFFFF:
            raise ResourceError(f"resource {what} name must be 1 to 65535 characters")
        if rid.startswith("#") and rid[1:].isdigit():
            # rc.exe reads "#11" as the number 11; keep the two spellings one resource.
            return _check_id(int(rid[1:]), what)
        return rid.upper()
    if isinstance(rid, bool) or not 0 <= rid <= 0xFFFF:
        raise ResourceError(f"resource {what} id {rid!r} is not a 16-bit number")
    return rid


def _entry_order(rid: ResId) -> tuple[int, str, int]:
    # Named entries first (sorted by upper-case name), then ids ascending.
    return (0, rid, 0) if isinstance(rid, str) else (1, "", rid)


@dataclass(slots=True)
class _Dir:
    """A resource directory being laid out: child keys in PE order, and its offset."""

    children: dict[ResId, _Dir | bytes] = field(default_factory=dict)
    offset: int = 0


def _tree(resources: Mapping[ResourceKey, bytes]) -> _Dir:
    root = _Dir()
    for (rtype, rname, lang), data in resources.items():
        t = _check_id(rtype, "type")
        n = _check_id(rname, "name")
        if isinstance(lang, bool) or not 0 <= lang <= 0xFFFF:
            raise ResourceError(f"resource language {lang!r} is not a 16-bit LANGID")
        type_dir = root.children.setdefault(t, _Dir())
        assert isinstance(type_dir, _Dir)
        name_dir = type_dir.children.setdefault(n, _Dir())
        assert isinstance(name_dir, _Dir)
        if lang in name_dir.children:
            raise ResourceError(f"resource {t}/{n} language {lang:#06x} given twice")
        name_dir.children[lang] = bytes(data)
    return root


def _sorted_children(d: _Dir) -> list[tuple[ResId, _Dir | bytes]]:
    return sorted(d.children.items(), key=lambda kv: _entry_order(kv[0]))


def build_rsrc(resources: Mapping[ResourceKey, bytes], rva: int = _RSRC_RVA) -> bytes:
    """The contents of a ``.rsrc`` section placed at ``rva``.

    Layout (what cvtres does too): every directory table breadth-first, then the
    name strings, then the data entries, then the data, each item 8-byte aligned.
    """
    root = _tree(resources)

    # Pass 1: place directories breadth-first.
    dirs: list[_Dir] = []
    queue = [root]
    pos = 0
    while queue:
        d = queue.pop(0)
        d.offset = pos
        dirs.append(d)
        pos += 16 + 8 * len(d.children)
        queue.extend(c for _, c in _sorted_children(d) if isinstance(c, _Dir))

    # Pass 2: strings (each distinct name once), data entries, data.
    string_at: dict[str, int] = {}
    for d in dirs:
        for key, _ in _sorted_children(d):
            if isinstance(key, str) and key not in string_at:
                string_at[key] = pos
                pos += 2 + 2 * len(key)
    pos = _align(pos, _DATA_ALIGN)
    leaves = [(d, key, c) for d in dirs for key, c in _sorted_children(d) if isinstance(c, bytes)]
    entry_at = {}
    for i, (d, key, _) in enumerate(leaves):
        entry_at[(id(d), key)] = pos + 16 * i
    pos += 16 * len(leaves)
    data_at = []
    for _, _, blob in leaves:
        pos = _align(pos, _DATA_ALIGN)
        data_at.append(pos)
        pos += len(blob)

    out = bytearray(_align(pos, _DATA_ALIGN))
    for d in dirs:
        children = _sorted_children(d)
        named = sum(1 for k, _ in children if isinstance(k, str))
        struct.pack_into("<IIHHHH", out, d.offset, 0, 0, 0, 0, named, len(children) - named)
        for i, (key, child) in enumerate(children):
            name_field = _HIGH_BIT | string_at[key] if isinstance(key, str) else key
            if isinstance(child, _Dir):
                target = _HIGH_BIT | child.offset
            else:
                target = entry_at[(id(d), key)]
            struct.pack_into("<II", out, d.offset + 16 + 8 * i, name_field, target)
    for name, at in string_at.items():
        encoded = name.encode("utf-16-le")
        struct.pack_into("<H", out, at, len(name))
        out[at + 2 : at + 2 + len(encoded)] = encoded
    for (d, key, blob), at in zip(leaves, data_at, strict=True):
        struct.pack_into("<IIII", out, entry_at[(id(d), key)], rva + at, len(blob), 0, 0)
        out[at : at + len(blob)] = blob
    return bytes(out)


def pe_checksum(image: bytes | bytearray, checksum_offset: int = _CHECKSUM_OFFSET) -> int:
    """The PE optional-header checksum (what ``CheckSumMappedFile`` computes)."""
    data = bytes(image)
    if len(data) % 2:
        data += b"\0"
    total: int = sum(word for (word,) in struct.iter_unpack("<H", data))
    # The checksum field itself counts as zero.
    lo: int
    hi: int
    lo, hi = struct.unpack_from("<HH", data, checksum_offset)
    total -= lo + hi
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return (total + len(image)) & 0xFFFF_FFFF


def build_resource_dll(resources: Mapping[ResourceKey, bytes]) -> bytes:
    """A resource-only PE32+ (x64) DLL holding ``resources``.

    Keys are ``(type, name, language)``: type and name are numbers or strings (strings
    are stored upper-case; ``"#11"`` means 11), language a LANGID such as 0x0409.
    Raises :class:`ResourceError` for a key that cannot be stored.
    """
    rsrc = build_rsrc(resources, _RSRC_RVA)
    headers_size = _align(_PE_OFFSET + 4 + 20 + _OPTIONAL_HEADER_SIZE + 40, _FILE_ALIGN)
    raw_size = _align(len(rsrc), _FILE_ALIGN)
    image_size = _RSRC_RVA + _align(max(len(rsrc), 1), _SECTION_ALIGN)

    dos = bytearray(_PE_OFFSET)
    dos[0:2] = b"MZ"
    struct.pack_into("<H", dos, 0x02, 0x90)  # bytes on the last page, as linkers write
    struct.pack_into("<H", dos, 0x04, 3)  # pages
    struct.pack_into("<H", dos, 0x08, 4)  # header paragraphs
    struct.pack_into("<H", dos, 0x0C, 0xFFFF)  # max extra paragraphs
    struct.pack_into("<H", dos, 0x10, 0xB8)  # initial SP
    struct.pack_into("<H", dos, 0x18, 0x40)  # relocation table offset
    struct.pack_into("<I", dos, 0x3C, _PE_OFFSET)

    coff = struct.pack(
        "<4sHHIIIHH",
        b"PE\0\0",
        _MACHINE_AMD64,
        1,  # sections
        0,  # time stamp: 0 keeps builds reproducible
        0,
        0,
        _OPTIONAL_HEADER_SIZE,
        _FILE_CHARACTERISTICS,
    )
    optional = struct.pack(
        "<HBBIIIIIQIIHHHHHHIIIIHHQQQQII",
        0x20B,  # PE32+
        14,  # linker version
        0,
        0,  # size of code
        raw_size,  # size of initialized data
        0,
        0,  # entry point: none
        0,  # base of code
        _IMAGE_BASE,
        _SECTION_ALIGN,
        _FILE_ALIGN,
        6,  # operating system version 6.0 (Vista, where the event log API begins)
        0,
        0,  # image version
        0,
        6,  # subsystem version
        0,
        0,  # Win32VersionValue
        image_size,
        headers_size,
        0,  # checksum, filled in below
        _SUBSYSTEM_WINDOWS_GUI,
        _DLL_CHARACTERISTICS,
        0x100000,  # stack reserve
        0x1000,  # stack commit
        0x100000,  # heap reserve
        0x1000,  # heap commit
        0,  # loader flags
        _NUM_DIRECTORIES,
    )
    directories = bytearray(8 * _NUM_DIRECTORIES)
    struct.pack_into("<II", directories, 8 * _DIRECTORY_RESOURCE, _RSRC_RVA, len(rsrc))
    section = struct.pack(
        "<8sIIIIIIHHI",
        b".rsrc",
        len(rsrc),
        _RSRC_RVA,
        raw_size,
        headers_size,
        0,
        0,
        0,
        0,
        _RSRC_CHARACTERISTICS,
    )
    image = bytearray(dos + coff + optional + directories + section)
    image += bytes(headers_size - len(image))
    image += rsrc + bytes(raw_size - len(rsrc))
    struct.pack_into("<I", image, _CHECKSUM_OFFSET, pe_checksum(image))
    return bytes(image)


# --------------------------------------------------------------------------- reading

_MAX_ENTRIES: Final = 65536  # real resource DLLs hold a handful


def read_resources(image: bytes) -> dict[ResourceKey, bytes]:
    """The resources of a PE image (PE32 or PE32+), keyed like :func:`build_resource_dll`.

    Enough of a reader to take the WEVT_TEMPLATE and message tables back out of a
    provider DLL.  Raises :class:`ResourceError` when the image is not a PE file or its
    resource section is malformed.
    """
    data = memoryview(image)

    def u16(at: int) -> int:
        if at < 0 or at + 2 > len(data):
            raise ResourceError(f"the PE image ends before offset {at:#x}")
        return int.from_bytes(data[at : at + 2], "little")

    def u32(at: int) -> int:
        if at < 0 or at + 4 > len(data):
            raise ResourceError(f"the PE image ends before offset {at:#x}")
        return int.from_bytes(data[at : at + 4], "little")

    if bytes(data[:2]) != b"MZ":
        raise ResourceError("not a PE image (no MZ header)")
    pe = u32(0x3C)
    if bytes(data[pe : pe + 4]) != b"PE\0\0":
        raise ResourceError("not a PE image (no PE signature)")
    sections, opt_size = u16(pe + 6), u16(pe + 20)
    opt = pe + 24
    magic = u16(opt)
    if magic not in (0x10B, 0x20B):
        raise ResourceError(f"unknown optional-header magic {magic:#x}")
    dirs = opt + (96 if magic == 0x10B else 112)
    if u32(dirs - 4) <= _DIRECTORY_RESOURCE:
        return {}
    rsrc_rva, rsrc_size = (
        u32(dirs + 8 * _DIRECTORY_RESOURCE),
        u32(dirs + 8 * _DIRECTORY_RESOURCE + 4),
    )
    if rsrc_rva == 0 or rsrc_size == 0:
        return {}
    table = opt + opt_size
    spans = []
    for i in range(sections):
        at = table + 40 * i
        vsize, vaddr, raw_size, raw_ptr = u32(at + 8), u32(at + 12), u32(at + 16), u32(at + 20)
        spans.append((vaddr, max(vsize, raw_size), raw_ptr, raw_size))

    def offset(rva: int, size: int) -> int:
        for vaddr, vlen, raw_ptr, raw_size in spans:
            if vaddr <= rva and rva + size <= vaddr + min(vlen, raw_size):
                return raw_ptr + (rva - vaddr)
        raise ResourceError(f"RVA {rva:#x} (+{size}) lies outside the file's sections")

    base = offset(rsrc_rva, 16)

    def name(field: int) -> ResId:
        if not field & _HIGH_BIT:
            return field & 0xFFFF
        at = base + (field & ~_HIGH_BIT)
        n = u16(at)
        return bytes(data[at + 2 : at + 2 + 2 * n]).decode("utf-16-le", "replace")

    budget = [_MAX_ENTRIES]  # entries over all directories: a crafted tree stays cheap

    def entries(at: int) -> list[tuple[ResId, int]]:
        count = u16(at + 12) + u16(at + 14)
        budget[0] -= count
        if budget[0] < 0:
            raise ResourceError(f"the resource directories hold more than {_MAX_ENTRIES} entries")
        return [(name(u32(at + 16 + 8 * i)), u32(at + 20 + 8 * i)) for i in range(count)]

    def subdir(target: int) -> int:
        if not target & _HIGH_BIT:
            raise ResourceError("a resource directory entry is a leaf where a folder belongs")
        return base + (target & ~_HIGH_BIT)

    out: dict[ResourceKey, bytes] = {}
    for rtype, t in entries(base):
        for rname, n in entries(subdir(t)):
            for lang, leaf in entries(subdir(n)):
                if leaf & _HIGH_BIT or not isinstance(lang, int):
                    raise ResourceError("a resource language entry is not a data leaf")
                rva, size = u32(base + leaf), u32(base + leaf + 4)
                start = offset(rva, size)
                out[(rtype, rname, lang)] = bytes(data[start : start + size])
    return out


# --------------------------------------------------------------------------- events


def event_resources(
    wevt: bytes | None,
    message_tables: Iterable[tuple[int, bytes]],
) -> dict[ResourceKey, bytes]:
    """The resources an event-provider DLL holds, keyed as :func:`build_resource_dll` wants.

    ``message_tables`` are ``(langid, table)`` pairs in the manifest's culture order;
    each becomes MESSAGETABLE 1 in its language.  The WEVT_TEMPLATE (resource 1) is
    language neutral in content but, like the ``.rc`` mc writes, is filed under the
    last culture's language (en-US when there are no message tables).
    """
    out: dict[ResourceKey, bytes] = {}
    last = LANG_EN_US
    for language, table in message_tables:
        out[(RT_MESSAGETABLE, 1, language)] = table
        last = language
    if wevt is not None:
        out[(WEVT_TEMPLATE, 1, last)] = wevt
    return out


def resource_dll(
    manifest: Manifest,
    *,
    version: int | None = None,
    outputs: Mapping[str, bytes] | None = None,
    base: str = "x",
) -> bytes:
    """The resource DLL for a manifest: its WEVT_TEMPLATE and one MESSAGETABLE per
    ``<resources>`` culture, the very bytes ``etwmc compile`` writes as files.

    ``outputs`` are binary outputs already made for ``base``
    (:func:`etwmc.wevt.binary_outputs`); without them they are made here, with the
    WEVT_TEMPLATE ``version`` given (default: the writer's).  Raises
    :class:`~etwmc.wevt.cultures.UnknownCulture` for a culture without a LANGID
    (``etwmc.wevt.output_diagnostics`` reports it beforehand).
    """
    if outputs is None:
        outputs = (
            binary_outputs(manifest, base)
            if version is None
            else binary_outputs(manifest, base, version=version)
        )
    files = outputs
    tables = [
        (langid(res.culture), files[message_table_file(base, n)])
        for n, res in enumerate(manifest.resources, 1)
    ]
    return build_resource_dll(event_resources(files[template_file(base)], tables))


_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*\.(dll|DLL|exe|EXE|sys|SYS)\Z")


def dll_name(manifest: Manifest, default: str) -> str:
    """The file name the manifest gives its resource DLL: the last component of the
    providers' ``resourceFileName`` when they all name the same plain ``*.dll``
    (``.exe``, ``.sys``) file, else ``default``."""
    names = {PureWindowsPath(p.resource_file).name for p in manifest.providers if p.resource_file}
    name = names.pop() if len(names) == 1 else ""
    return name if _PLAIN_NAME.match(name) else default
