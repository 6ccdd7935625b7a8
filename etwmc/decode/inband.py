"""The in-band manifests of EventSource providers, collected from a trace's manifest
events and compiled, within bounds: a trace holding more than :data:`MAX_INBAND`
manifests, or more than :data:`MAX_INBAND_BYTES` of their text, is hostile, and what is
past the bounds is not read (a warning says so)."""

from __future__ import annotations

from ..codes import W_INBAND_MANIFEST
from ..diagnostics import Diagnostic, Span, diag
from ..model import Manifest
from .etl import Record
from .eventsource import Envelope, EnvelopeError, ManifestCollector
from .metadata import read_inband_manifest

MAX_INBAND = 256  # in-band manifests compiled; a trace holding more is hostile
MAX_INBAND_BYTES = 4 << 20  # their text compiled, all together (then only the model is kept)


class InbandManifests:
    """Joins each provider's manifest chunks and compiles the whole manifests; problems
    become ETW854 warnings in ``diagnostics``."""

    def __init__(self, label: str, diagnostics: list[Diagnostic]) -> None:
        self.label = label
        self.diagnostics = diagnostics
        self._collector = ManifestCollector()
        self._count = 0  # manifests read (a problem counts)
        self._bytes = 0  # their text compiled

    def _warn(self, message: str) -> None:
        self.diagnostics.append(diag(W_INBAND_MANIFEST, Span(self.label), message))

    def add(self, rec: Record, env: Envelope, provider: str | None) -> Manifest | None:
        """Add a manifest event's chunk (``provider``: its provider's GUID text); the
        compiled manifest when this chunk completes a new one."""
        if self._count >= MAX_INBAND:
            if self._count == MAX_INBAND:
                self._count += 1
                self._warn(
                    f"after {MAX_INBAND} in-band manifests, later manifest events are not read"
                )
            return None
        label = self._label(provider)
        try:
            xml = self._collector.add(rec.provider, (rec.pid, rec.tid), env)
        except EnvelopeError as e:
            self._count += 1
            self._warn(f"{label}: {e}")
            return None
        if xml is None:
            return None
        self._count += 1
        if self._bytes + len(xml) > MAX_INBAND_BYTES:
            self._warn(
                f"{label}: not compiled: with its {len(xml)} bytes, the trace's in-band "
                f"manifests would take more than {MAX_INBAND_BYTES} bytes"
            )
            return None
        self._bytes += len(xml)
        manifest, diags = read_inband_manifest(xml, label)
        del xml  # only the compiled model is kept
        if manifest is None:
            self._warn(f"{label}: {diags[0].message if diags else 'unreadable'}")
        return manifest

    def check_described(self, rec: Record, provider: str | None, added: list[bytes]) -> None:
        """Warn when a compiled manifest does not describe the provider that wrote it."""
        if rec.provider not in added:
            self._warn(f"{self._label(provider)} describes other providers only")

    def _label(self, provider: str | None) -> str:
        return f"{self.label}: in-band manifest of provider {provider}"
