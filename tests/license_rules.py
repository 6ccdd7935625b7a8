"""Which licence metadata is GPL-family (GPL or AGPL, any version) rather than the LGPL,
as a distribution declares it: its License-Expression (SPDX), its free-text License, and
its ``License ::`` classifiers."""

from __future__ import annotations

import re
from collections.abc import Sequence

# SPDX identifiers: GPL-2.0-only, GPL-3.0-or-later, AGPL-3.0, GPL-2.0+ ... (not LGPL-*)
_SPDX = re.compile(r"(?<![\w.-])A?GPL-\d", re.IGNORECASE)
# Free text: "GNU General Public License", "GNU Affero General Public License", "GPLv3",
# "AGPL" -- but not "GNU Lesser/Library General Public License" or "LGPL".
_TEXT = re.compile(
    r"\bGNU\s+(?:Affero\s+)?General\s+Public\s+License\b|(?<![\w-])A?GPL(?:v?\d[\w.+-]*)?\b",
    re.IGNORECASE,
)


def copyleft(expression: str | None, text: str | None, classifiers: Sequence[str]) -> bool:
    """True when any of the three names a GPL-family licence other than the LGPL."""
    if expression and _SPDX.search(expression):
        return True
    # A free-text License field may hold the whole licence: the first lines name it.
    head = "\n".join((text or "").splitlines()[:3])
    if head and _TEXT.search(head):
        return True
    for c in classifiers:
        name = c.split("::")[-1].strip()
        if "Lesser" in name or "LGPL" in name or "Library" in name:
            continue
        if "GPL" in name or "General Public License" in name:
            return True
    return False
