"""etwmc: an instrumentation-manifest compiler for Event Tracing for Windows."""

__version__ = "0.1.0"
