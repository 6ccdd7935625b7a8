"""Seeds and mutators for the fuzz campaign (bench/fuzz.py).

Every input is a function of (kind, index, seed): a worker and the parent make the same
bytes, so a failing input can be saved by whichever of them is still alive.

Kinds and their seeds:

- ``manifest``: the corpus (../shared/corpus), tests/manifests and examples; mutated
  as XML (attribute values replaced by hostile ones, attributes renamed, elements
  duplicated, dropped, moved or emptied, unknown attributes added) or as bytes
  (flips, cuts, splices, another encoding).
- ``blob``: mc's WEVT_TEMPLATE blobs and Microsoft-built ones (../shared/golden).
- ``msgtable``: mc's message tables (../shared/golden).
- ``events``: event files written by the in-process backend from generated provider
  modules; mutated as bytes, or record by record (payload bytes, ids, versions,
  provider GUIDs, pointer sizes) so that the payload decoder is reached.
"""

from __future__ import annotations

import copy
import datetime
import importlib.util
import inspect
import random
import types
import typing
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from lxml import etree

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
GOLDEN = SHARED / "golden"

KINDS = ("manifest", "blob", "msgtable", "events")


@dataclass(frozen=True)
class Seeds:
    manifests: list[tuple[Path, bytes]]
    blobs: list[tuple[Path, bytes, Path | None]]  # blob, its bytes, a message table for it
    tables: list[tuple[Path, bytes, Path]]  # table, its bytes, a blob it belongs to
    events: list[tuple[Path, bytes, Path, Path, Path]]  # file, bytes, manifest, blob, table


def manifest_seeds() -> list[tuple[Path, bytes]]:
    paths: list[Path] = []
    corpus = SHARED / "corpus"
    if corpus.is_dir():
        paths += sorted(p for p in corpus.iterdir() if p.suffix in (".man", ".xml", ".manifest"))
    paths += sorted((ROOT / "tests" / "manifests").rglob("*.man"))
    paths += sorted((ROOT / "examples").glob("*.man"))
    return [(p, p.read_bytes()) for p in paths]


def blob_seeds() -> tuple[list[tuple[Path, bytes, Path | None]], list[tuple[Path, bytes, Path]]]:
    etk = GOLDEN / "event-trace-kit"
    blobs: list[tuple[Path, bytes, Path | None]] = []
    tables: list[tuple[Path, bytes, Path]] = []
    for p in sorted(etk.glob("*.wevt.*.bin")):
        stem = p.name.split(".wevt.")[0]
        msg = etk / f"{stem}.msg.bin"
        blobs.append((p, p.read_bytes(), msg if msg.is_file() and ".v5." in p.name else None))
        if msg.is_file() and ".v5." in p.name:
            tables.append((msg, msg.read_bytes(), p))
    wpf = GOLDEN / "dotnet-wpf"
    if (wpf / "wpf-etwTEMP.BIN").is_file():
        blobs.append((wpf / "wpf-etwTEMP.BIN", (wpf / "wpf-etwTEMP.BIN").read_bytes(), None))
        tables.append(
            (wpf / "MSG00001.bin", (wpf / "MSG00001.bin").read_bytes(), wpf / "wpf-etwTEMP.BIN")
        )
    for name in ("services.wevt", "mpengine_etw.wevt", "libfwevt_manifest.1"):
        p = GOLDEN / "samples" / name
        if p.is_file():
            blobs.append((p, p.read_bytes(), None))
    return blobs, tables


# --------------------------------------------------------------------------- byte mutations

# Values that have broken readers: counts and offsets at their extremes, and UTF-16
# code units that are controls, lone surrogates, non-characters or XML syntax.
_WORDS = [0, 1, 2, 3, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000,
          0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF, 40, 64, 100]  # fmt: skip
_UNITS = [0x0000, 0x0001, 0x0009, 0x000A, 0x001F, 0x007F, 0xD800, 0xDBFF, 0xDC00, 0xDFFF,
          0xFFFE, 0xFFFF, 0x003A, 0x0020, 0x003C, 0x0026, 0x0022, 0x0025, 0x00E9, 0xAD69,
          0x2028, 0xFEFF]  # fmt: skip


def mutate_bytes(
    rnd: random.Random, data: bytes, others: Sequence[bytes] = (), *, gentle: bool = False
) -> bytes:
    """One to four byte-level edits; ``gentle``: one or two edits that keep every offset
    (flips and overwrites), so that more of a structured file is still read."""
    out = bytearray(data)
    for _ in range(rnd.randint(1, 2 if gentle else 4)):
        if not out:
            out += rnd.randbytes(rnd.randint(1, 16))
            continue
        op = rnd.randrange(4 if gentle else 9)
        pos = rnd.randrange(len(out))
        if op == 0:
            out[pos] ^= 1 << rnd.randrange(8)
        elif op == 1:
            out[pos] = rnd.randrange(256)
        elif op == 2:
            at = pos & ~3
            out[at : at + 4] = rnd.choice(_WORDS).to_bytes(4, "little")
        elif op == 3:
            at = pos & ~1
            out[at : at + 2] = rnd.choice(_UNITS).to_bytes(2, "little")
        elif op == 4:
            del out[pos:]
        elif op == 5:
            del out[pos : pos + rnd.randint(1, 64)]
        elif op == 6:
            out[pos:pos] = rnd.randbytes(rnd.randint(1, 32))
        elif op == 7:
            start = rnd.randrange(len(out))
            chunk = out[start : start + rnd.randint(1, 256)]
            out[pos:pos] = chunk * rnd.randint(1, 4)
        elif others:
            other = rnd.choice(others)
            if other:
                cut = rnd.randrange(len(other))
                out[pos:] = other[cut:]
    return bytes(out)


# --------------------------------------------------------------------------- XML mutations

_HOSTILE_VALUES = [
    "", " ", "0", "-1", "1", "15", "16", "255", "256", "65535", "65536", "4294967295",
    "4294967296", "18446744073709551616", "0x", "0x0", "0xFFFFFFFFFFFFFFFF",
    "0x8000000000000000", "0x0000000100000000", "1e9", "+5", "08", "1.5",
    "win:Error", "win:Informationl", "win:NoSuch", "win:UInt8", "win:UnicodeString",
    "win:Binary", "xs:string", "win:HexInt64", "ns9:Undeclared", ":x", "a:b:c",
    "$(string.nope)", "$(string.)", "$(string.a b (c))", "%1", "%99", "%1!s", "%0", "%n%t%r",
    "{00000000-0000-0000-0000-000000000000}", "{ZZZZZZZZ-0000-0000-0000-000000000000}",
    "class", "None", "__import__('os').system('x')", '"', "'", "\\", "a b", "\t\n",
    "\u00e9\u4e2d\U0001d11e", "\u200b", "\ufeff", "A" * 300, "B" * 70000, "T_Missing",
    "Microsoft-Windows-Foo/Operational", "Application", "System", "true", "false", "2",
]  # fmt: skip
_ATTRS = ["name", "value", "symbol", "message", "level", "task", "opcode", "keywords",
          "channel", "template", "tid", "inType", "outType", "count", "length", "map",
          "mask", "chid", "type", "guid", "version", "id", "culture", "eventGUID",
          "resourceFileName", "messageFileName", "controlGuid", "notLogged", "enabled"]  # fmt: skip


def _elements(root: etree._Element) -> list[etree._Element]:
    return [e for e in root.iter() if isinstance(e.tag, str)]


def _plausible(rnd: random.Random, value: str, pool: Sequence[str]) -> str:
    """A value a manifest might well hold: another one of the same attribute, or a
    number next to this one."""
    try:
        n = int(value, 0)
    except ValueError:
        return rnd.choice(pool) if pool else value
    if rnd.random() < 0.5 and pool:
        return rnd.choice(pool)
    m = rnd.choice([n + 1, n - 1, n * 2, 0, n ^ 1, n << 8])
    return hex(m) if value.lower().startswith("0x") and m >= 0 else str(m)


_OPS = ["plausible", "hostile", "duplicate", "remove", "copy", "rename", "add", "text"]
_OP_WEIGHTS = [40, 20, 10, 10, 8, 4, 4, 4]


def mutate_xml(rnd: random.Random, tree: etree._Element) -> etree._Element:
    """One to three structural edits of a copy of ``tree``; most keep the manifest
    plausible, so that the later stages (rules, code generation, binary writers) run."""
    root = copy.deepcopy(tree)
    for _ in range(rnd.choices([1, 2, 3], [60, 25, 15])[0]):
        elems = _elements(root)
        e = rnd.choice(elems)
        op = rnd.choices(_OPS, _OP_WEIGHTS)[0]
        parent = e.getparent()
        if op in ("plausible", "hostile", "rename") and not e.attrib:
            op = "add"
        if op == "plausible":
            key = rnd.choice(sorted(e.attrib))
            pool = sorted({x.get(key) or "" for x in elems if x.get(key) is not None})
            e.set(key, _plausible(rnd, e.get(key) or "", pool))
        elif op == "hostile":
            e.set(rnd.choice(sorted(e.attrib)), rnd.choice(_HOSTILE_VALUES))
        elif op == "rename":
            key = rnd.choice(sorted(e.attrib))
            value = e.attrib.pop(key)
            e.set(rnd.choice(_ATTRS), value)
        elif op == "duplicate" and parent is not None:
            e.addnext(copy.deepcopy(e))
        elif op == "remove" and parent is not None:
            parent.remove(e)
        elif op == "copy" and parent is not None:
            target = rnd.choice(elems)
            if target is not e and e not in target.iterancestors():
                target.append(copy.deepcopy(e))
        elif op == "text":
            e.text = rnd.choice(["", " ", "text", "%1", "\r\n\t"])
        else:
            e.set(rnd.choice(_ATTRS), rnd.choice(_HOSTILE_VALUES))
    return root


def serialize(rnd: random.Random, root: etree._Element) -> bytes:
    data: bytes = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    r = rnd.random()
    if r < 0.05:
        return data.decode("utf-8").encode("utf-16")
    if r < 0.1:
        return data.replace(b"\n", b"\r\n")
    return data


# --------------------------------------------------------------------------- event files


def _value(rnd: random.Random, tp: object, depth: int = 0) -> object:
    """A value for a generated write function's parameter of type ``tp``."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (types.UnionType, typing.Union):
        return _value(rnd, rnd.choice(args), depth)
    if origin is tuple:
        return tuple(_value(rnd, a, depth + 1) for a in args if a is not Ellipsis)
    if origin is not None and args and depth < 3:  # Sequence[X], list[X]
        return [_value(rnd, args[0], depth + 1) for _ in range(rnd.randint(0, 3))]
    if tp is bool:
        return rnd.random() < 0.5
    if tp is int:
        return rnd.choice([0, 1, 2, 7, 127, 255, 65535, 2**31 - 1, 2**32 - 1, 2**63 - 1, -1])
    if tp is float:
        return rnd.choice([0.0, -1.5, 3.25, 1e300, float("inf"), float("nan")])
    if tp is str:
        return rnd.choice(["", "a", "hello", "\u00e9\u4e2d", "x" * 100, "%1", "S-1-5-18"])
    if tp is bytes:
        return rnd.randbytes(rnd.randint(0, 16))
    if tp is uuid.UUID:
        return uuid.UUID(int=rnd.getrandbits(128))
    if tp is datetime.datetime:
        return datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    return None


def write_event_seeds(
    work: Path, manifests: Sequence[Path], rnd: random.Random
) -> list[tuple[Path, bytes, Path, Path, Path]]:
    """Compile each manifest, import its module, and write an event file with every
    event (several times, with varied arguments) through an in-process session."""
    from etwmc.compile import compile_manifest
    from etwmc.runtime import get_backend

    out = []
    backend = get_backend("inproc")
    for n, man in enumerate(manifests):
        result = compile_manifest(man, base=f"seed{n}", module=f"fuzzseed{n}")
        if not result.ok:
            continue
        folder = work / f"seed{n}"
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in result.files.items():
            (folder / name).write_bytes(data)
        spec = importlib.util.spec_from_file_location(f"fuzzseed{n}", folder / f"fuzzseed{n}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        path = folder / "events.etwmc"
        writers = [(k, v) for k, v in sorted(vars(module).items()) if k.startswith("write_")]
        guids = [
            v.GUID for v in vars(module).values() if isinstance(v, type) and hasattr(v, "GUID")
        ]
        with backend.session(f"fuzz{n}", path=str(path)) as session:
            for g in guids:
                session.enable(g, level=0)
            module.register(backend)
            for _ in range(3):
                for _, fn in writers:
                    _call(rnd, module, fn)
            module.unregister()
        _normalize(path)
        tables = sorted(folder.glob("*_MSG*.bin"))
        if tables:
            out.append((path, path.read_bytes(), man, folder / f"seed{n}TEMP.BIN", tables[0]))
    return out


def _normalize(path: Path) -> None:
    """Fixed time stamps and process and thread ids: the same seed gives the same file."""
    from etwmc.runtime.eventfile import read_events, write_events

    records = [
        replace(r, timestamp=132_000_000_000_000_000 + i, process_id=4242, thread_id=7)
        for i, r in enumerate(read_events(path))
    ]
    write_events(path, records)


def _call(rnd: random.Random, module: types.ModuleType, fn: Callable[..., object]) -> None:
    hints = typing.get_type_hints(fn, vars(module))
    params = []
    for p in inspect.signature(fn).parameters.values():
        if p.name.startswith("_"):
            break
        params.append(_value(rnd, hints.get(p.name, object)))
    try:
        fn(*params)
    except Exception:  # noqa: BLE001 - an argument out of range: the event is not written
        pass


def mutate_events(rnd: random.Random, data: bytes, guids: Sequence[uuid.UUID]) -> bytes:
    """Byte edits, or edits of the records of a well-formed file."""
    import io

    from etwmc.runtime.eventfile import EventFileError, encode_record, iter_events

    if rnd.random() < 0.35:
        return mutate_bytes(rnd, data)
    try:
        records = list(iter_events(io.BytesIO(data)))
    except (EventFileError, ValueError):
        return mutate_bytes(rnd, data)
    if not records:
        return data
    out = bytearray(data[:16])
    for rec in records:
        if rnd.random() < 0.5:
            op = rnd.randrange(6)
            if op == 0:
                rec = replace(rec, user_data=mutate_bytes(rnd, rec.user_data)[:0xFFFF])
            elif op == 1:
                rec = replace(rec, user_data=rec.user_data[: rnd.randrange(len(rec.user_data) + 1)])
            elif op == 2:
                rec = replace(rec, id=rnd.choice([0, 1, 2, 3, rec.id + 1, 0xFFFF]))
            elif op == 3:
                rec = replace(rec, version=rnd.randrange(256))
            elif op == 4 and guids:
                rec = replace(rec, provider_id=rnd.choice(guids))
            else:
                rec = replace(rec, pointer_size=4 if rec.pointer_size == 8 else 8)
        try:
            out += encode_record(rec)
        except ValueError:
            pass
    return bytes(out)
