"""Cost of generated event functions, as ratios against baselines measured in the same
process (absolute times vary by machine; ratios much less).

1. a disabled event call vs an empty function taking the same arguments (target <= 1.5x),
   both against a plain three-parameter function and against one with the event's
   exact parameter list (three, the ``_kw`` marker, ``activity_id``,
   ``related_activity_id``: all positional-or-keyword with defaults, which CPython
   calls on its fast path; a bare ``*`` would cost ~20 ns more per call);
2. a disabled event call vs a disabled ``logging.debug`` (target: >= 3x faster);
3. an enabled (UInt32, UInt32, UnicodeString) event into a null sink vs a hand-written
   ``struct.pack`` + UTF-16 encode of the same payload (target <= 2.5x).

Run: ``python bench/bench_runtime.py`` (``--quick`` for fewer rounds).  Exit status 1
when a target is missed.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import struct
import sys
import tempfile
import timeit
import uuid
from pathlib import Path
from types import ModuleType

from etwmc.compile import compile_manifest

GUID = uuid.UUID("7d5f3a3e-8c1b-4b7e-9f41-2f6e0c9d1a55")
MANIFEST = f"""<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Etwmc-Bench" guid="{{{GUID}}}" symbol="BENCH"
              resourceFileName="b.dll" messageFileName="b.dll">
      <templates>
        <template tid="T">
          <data name="a" inType="win:UInt32"/>
          <data name="b" inType="win:UInt32"/>
          <data name="s" inType="win:UnicodeString"/>
        </template>
      </templates>
      <events>
        <event value="1" symbol="Sample" level="win:Informational" template="T"/>
      </events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
"""


class NullSink:
    """A backend that enables every provider at registration and drops every event."""

    name = "null-sink"

    def register(self, guid: uuid.UUID, callback):  # type: ignore[no-untyped-def]
        callback(1, 5, 0xFFFF_FFFF_FFFF_FFFF, 0)
        return 1

    def set_traits(self, handle: object, blob: bytes) -> int:
        return 0

    def write(self, handle, descriptor, activity, related, payload):  # type: ignore[no-untyped-def]
        return 0

    def unregister(self, handle: object) -> None:
        return None


def build() -> ModuleType:
    folder = Path(tempfile.mkdtemp(prefix="etwmc-bench-"))
    man = folder / "bench.man"
    man.write_text(MANIFEST, encoding="utf-8")
    result = compile_manifest(man, binary=False)
    if not result.ok:
        raise SystemExit(f"bench manifest does not compile: {result.diagnostics}")
    [(name, data)] = result.files.items()
    (folder / name).write_bytes(data)
    spec = importlib.util.spec_from_file_location("etwmc_bench_provider", folder / name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def best(stmt: str, env: dict[str, object], number: int, repeat: int) -> float:
    """Best time per call in ns (the minimum over rounds: the least disturbed one)."""
    timer = timeit.Timer(stmt, globals=env)
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e9


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    args = parser.parse_args()
    number, repeat = (50_000, 5) if args.quick else (200_000, 9)

    mod = build()
    log = logging.getLogger("etwmc.bench")
    log.setLevel(logging.WARNING)
    pack = struct.Struct("<II").pack

    def empty(a: int, b: int, s: str) -> None:
        pass

    def empty_same(
        a: int,
        b: int,
        s: str,
        _kw: object = None,
        activity_id: uuid.UUID | None = None,
        related_activity_id: uuid.UUID | None = None,
    ) -> None:
        pass

    def hand_written(a: int, b: int, s: str) -> bytes:
        return pack(a, b) + s.encode("utf-16-le") + b"\x00\x00"

    env: dict[str, object] = {
        "write": mod.write_Sample,
        "empty": empty,
        "empty_same": empty_same,
        "log": log,
        "hand": hand_written,
        "s": "hello world",
    }
    disabled = best("write(1, 2, s)", env, number, repeat)
    empty_ns = best("empty(1, 2, s)", env, number, repeat)
    same_ns = best("empty_same(1, 2, s)", env, number, repeat)
    logging_ns = best("log.debug('x %s %s %s', 1, 2, s)", env, number, repeat)
    mod.register(NullSink())
    assert mod.is_enabled_Sample()
    enabled = best("write(1, 2, s)", env, number, repeat)
    hand_ns = best("hand(1, 2, s)", env, number, repeat)
    mod.unregister()

    rows = [
        ("disabled event / empty function, same parameters", disabled / same_ns, "<=", 1.5),
        ("disabled event / empty function, 3 parameters", disabled / empty_ns, "<=", 1.5),
        ("disabled logging.debug / disabled event", logging_ns / disabled, ">=", 3.0),
        ("enabled event (null sink) / hand-written pack", enabled / hand_ns, "<=", 2.5),
    ]
    print(f"disabled event      {disabled:8.1f} ns")
    print(f"empty, same params  {same_ns:8.1f} ns")
    print(f"empty, 3 params     {empty_ns:8.1f} ns")
    print(f"disabled logging    {logging_ns:8.1f} ns")
    print(f"enabled event       {enabled:8.1f} ns")
    print(f"hand-written pack   {hand_ns:8.1f} ns")
    failed = 0
    for label, ratio, op, target in rows:
        ok = ratio <= target if op == "<=" else ratio >= target
        failed += not ok
        print(f"{label:52s} {ratio:5.2f}x  (target {op} {target}x)  {'ok' if ok else 'MISSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
