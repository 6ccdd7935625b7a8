"""References beyond the ones lowering resolves (ETW420-ETW479).

* ``data/@map`` names a valueMap or bitMap of the same provider.  A warning, not an
  error: the field still decodes (as a plain number), only the names are lost; and
  manifests written for other decoders put maps where mc does not look for them
  (outside ``<maps>``, which the schema stage points out).
* A map applies to a UInt8, UInt16, UInt32 or HexInt32 field only
  (:data:`etwmc.winmeta.MAPPABLE_CODES`): the manifest schema's documentation allows
  maps on those four alone, and TDH looks maps up for them alone, so a map anywhere
  else is a mistake that would otherwise pass silently (an error).
* An event that uses a *provider-level* opcode together with a task that has opcodes
  of its own must not use a value one of the task's opcodes has: the pair (task,
  opcode value) names the task's opcode in the metadata, so a decoder would show the
  wrong opcode.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import winmeta as wm
from ..codes import E_MAP_TYPE, E_OPCODE_SHADOWED, W_UNKNOWN_MAP
from ..diagnostics import Diagnostic, diag
from ..model import Manifest
from ._util import event_label, fields_of


def data_maps(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        names = sorted(mp.name for mp in p.maps)
        for t in p.templates:
            for f in fields_of(t):
                if f.map is None:
                    continue
                if p.map_named(f.map) is None:
                    shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
                    yield diag(
                        W_UNKNOWN_MAP,
                        f.span,
                        f"<data name=\"{f.name}\"> of template '{t.tid}' references map "
                        f"'{f.map}', which provider \"{p.name}\" does not define; the field will "
                        "show as a number",
                        hint=(
                            f"this provider defines: {shown}"
                            if names
                            else "define it in the provider's <maps> section"
                        ),
                        attr="map",
                    )
                if f.in_type is not None and f.in_type.code not in wm.MAPPABLE_CODES:
                    yield diag(
                        E_MAP_TYPE,
                        f.span,
                        f'<data name="{f.name}"> has inType {f.in_type.qname} and map '
                        f"'{f.map}'; maps apply to win:UInt8, win:UInt16, win:UInt32 and "
                        "win:HexInt32 fields only",
                        hint="change the inType to one of those, or remove the map",
                        attr="map",
                    )


def global_opcode_collisions(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        for e in p.events:
            if e.task is None or e.opcode is None or e.opcode.task is not None:
                continue
            local = next((o for o in e.task.opcodes if o.value == e.opcode.value), None)
            if local is None:
                continue
            yield diag(
                E_OPCODE_SHADOWED,
                e.span,
                f"{event_label(e)} uses opcode '{e.opcode.name}' (value {e.opcode.value}) with "
                f"task '{e.task.name}', whose own opcode '{local.name}' has the same value; "
                f"decoders will show it as '{local.name}'",
                hint=f"use opcode '{local.name}', or give one of the opcodes another value",
                attr="opcode",
            )
