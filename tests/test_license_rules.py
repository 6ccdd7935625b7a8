"""The licence rules of the install test, on the ways distributions declare licences."""

from __future__ import annotations

import pytest
from license_rules import copyleft

GPL_CLASSIFIER = "License :: OSI Approved :: GNU General Public License v3 (GPLv3)"
AGPL_CLASSIFIER = "License :: OSI Approved :: GNU Affero General Public License v3"
LGPL_CLASSIFIER = "License :: OSI Approved :: GNU Lesser General Public License v3 (LGPLv3)"


@pytest.mark.parametrize(
    ("expression", "text", "classifiers"),
    [
        ("AGPL-3.0-or-later", None, []),
        ("GPL-2.0-only", None, []),
        ("MIT OR GPL-3.0+", None, []),
        (None, "GNU Affero General Public License v3", []),
        (None, "GPLv2", []),
        (None, None, [GPL_CLASSIFIER]),
        (None, None, [AGPL_CLASSIFIER]),
    ],
)
def test_gpl_family_is_found(
    expression: str | None, text: str | None, classifiers: list[str]
) -> None:
    assert copyleft(expression, text, classifiers)


@pytest.mark.parametrize(
    ("expression", "text", "classifiers"),
    [
        ("MIT", None, []),
        ("LGPL-2.1-or-later", None, []),
        ("BSD-3-Clause", "BSD", ["License :: OSI Approved :: BSD License"]),
        (None, "GNU Lesser General Public License v3", [LGPL_CLASSIFIER]),
        (None, "LGPLv3+", []),
        (None, None, ["License :: OSI Approved :: MIT License"]),
        (None, None, []),
    ],
)
def test_permissive_and_lgpl_pass(
    expression: str | None, text: str | None, classifiers: list[str]
) -> None:
    assert not copyleft(expression, text, classifiers)
