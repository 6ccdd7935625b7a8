"""What mc.exe's manifest switches need beyond the generators.

* :mod:`.baseline`: ``-s DIR`` writes a baseline (one WEVT_TEMPLATE blob per provider
  and the summary ``MCGenResource.BIN``), ``-t DIR`` checks a manifest against one with
  ``etwmc diff``'s rules;
* :mod:`.winmeta_file`: ``-W FILE``, the predefined names and texts of a winmeta.xml;
* :mod:`.schema_file`: ``-w FILE``, the manifest validated against an eventman.xsd.

Each reads its file with etwmc's safe XML parser and reports problems as diagnostics.
"""
