"""Culture names (``<resources culture="en-US">``) to Windows LANGIDs.

A LANGID is ``sublanguage << 10 | primary language``; the .rc writes it as
``LANGUAGE 0x<primary>,0x<sub>``.  A neutral culture (``en``, ``de``) has sublanguage
0.  Names match case-insensitively; ``_`` is accepted for ``-``.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

_SPECIFIC: Final = {
    "ar-SA": 0x0401, "bg-BG": 0x0402, "ca-ES": 0x0403, "zh-TW": 0x0404, "cs-CZ": 0x0405,
    "da-DK": 0x0406, "de-DE": 0x0407, "el-GR": 0x0408, "en-US": 0x0409, "fi-FI": 0x040B,
    "fr-FR": 0x040C, "he-IL": 0x040D, "hu-HU": 0x040E, "is-IS": 0x040F, "it-IT": 0x0410,
    "ja-JP": 0x0411, "ko-KR": 0x0412, "nl-NL": 0x0413, "nb-NO": 0x0414, "pl-PL": 0x0415,
    "pt-BR": 0x0416, "rm-CH": 0x0417, "ro-RO": 0x0418, "ru-RU": 0x0419, "hr-HR": 0x041A,
    "sk-SK": 0x041B, "sq-AL": 0x041C, "sv-SE": 0x041D, "th-TH": 0x041E, "tr-TR": 0x041F,
    "ur-PK": 0x0420, "id-ID": 0x0421, "uk-UA": 0x0422, "be-BY": 0x0423, "sl-SI": 0x0424,
    "et-EE": 0x0425, "lv-LV": 0x0426, "lt-LT": 0x0427, "tg-Cyrl-TJ": 0x0428, "fa-IR": 0x0429,
    "vi-VN": 0x042A, "hy-AM": 0x042B, "az-Latn-AZ": 0x042C, "eu-ES": 0x042D, "mk-MK": 0x042F,
    "tn-ZA": 0x0432, "xh-ZA": 0x0434, "zu-ZA": 0x0435, "af-ZA": 0x0436, "ka-GE": 0x0437,
    "fo-FO": 0x0438, "hi-IN": 0x0439, "mt-MT": 0x043A, "se-NO": 0x043B, "ms-MY": 0x043E,
    "kk-KZ": 0x043F, "ky-KG": 0x0440, "sw-KE": 0x0441, "tk-TM": 0x0442, "uz-Latn-UZ": 0x0443,
    "tt-RU": 0x0444, "bn-IN": 0x0445, "pa-IN": 0x0446, "gu-IN": 0x0447, "or-IN": 0x0448,
    "ta-IN": 0x0449, "te-IN": 0x044A, "kn-IN": 0x044B, "ml-IN": 0x044C, "as-IN": 0x044D,
    "mr-IN": 0x044E, "sa-IN": 0x044F, "mn-MN": 0x0450, "bo-CN": 0x0451, "cy-GB": 0x0452,
    "km-KH": 0x0453, "lo-LA": 0x0454, "gl-ES": 0x0456, "kok-IN": 0x0457, "syr-SY": 0x045A,
    "si-LK": 0x045B, "iu-Cans-CA": 0x045D, "am-ET": 0x045E, "ne-NP": 0x0461, "fy-NL": 0x0462,
    "ps-AF": 0x0463, "fil-PH": 0x0464, "dv-MV": 0x0465, "ha-Latn-NG": 0x0468, "yo-NG": 0x046A,
    "quz-BO": 0x046B, "nso-ZA": 0x046C, "ba-RU": 0x046D, "lb-LU": 0x046E, "kl-GL": 0x046F,
    "ig-NG": 0x0470, "ii-CN": 0x0478, "arn-CL": 0x047A, "moh-CA": 0x047C, "br-FR": 0x047E,
    "ug-CN": 0x0480, "mi-NZ": 0x0481, "oc-FR": 0x0482, "co-FR": 0x0483, "gsw-FR": 0x0484,
    "sah-RU": 0x0485, "qut-GT": 0x0486, "rw-RW": 0x0487, "wo-SN": 0x0488, "prs-AF": 0x048C,
    "gd-GB": 0x0491, "ku-Arab-IQ": 0x0492,
    "ar-IQ": 0x0801, "ca-ES-valencia": 0x0803, "zh-CN": 0x0804, "de-CH": 0x0807,
    "en-GB": 0x0809, "es-MX": 0x080A, "fr-BE": 0x080C, "it-CH": 0x0810, "nl-BE": 0x0813,
    "nn-NO": 0x0814, "pt-PT": 0x0816, "sr-Latn-CS": 0x081A, "sv-FI": 0x081D,
    "az-Cyrl-AZ": 0x082C, "dsb-DE": 0x082E, "se-SE": 0x083B, "ga-IE": 0x083C, "ms-BN": 0x083E,
    "uz-Cyrl-UZ": 0x0843, "bn-BD": 0x0845, "pa-Arab-PK": 0x0846, "ta-LK": 0x0849,
    "mn-Mong-CN": 0x0850, "sd-Arab-PK": 0x0859, "iu-Latn-CA": 0x085D, "tzm-Latn-DZ": 0x085F,
    "ff-Latn-SN": 0x0867, "quz-EC": 0x086B,
    "ar-EG": 0x0C01, "zh-HK": 0x0C04, "de-AT": 0x0C07, "en-AU": 0x0C09, "es-ES": 0x0C0A,
    "fr-CA": 0x0C0C, "sr-Cyrl-CS": 0x0C1A, "se-FI": 0x0C3B, "quz-PE": 0x0C6B,
    "ar-LY": 0x1001, "zh-SG": 0x1004, "de-LU": 0x1007, "en-CA": 0x1009, "es-GT": 0x100A,
    "fr-CH": 0x100C, "hr-BA": 0x101A, "smj-NO": 0x103B,
    "ar-DZ": 0x1401, "zh-MO": 0x1404, "de-LI": 0x1407, "en-NZ": 0x1409, "es-CR": 0x140A,
    "fr-LU": 0x140C, "bs-Latn-BA": 0x141A, "smj-SE": 0x143B,
    "ar-MA": 0x1801, "en-IE": 0x1809, "es-PA": 0x180A, "fr-MC": 0x180C, "sr-Latn-BA": 0x181A,
    "sma-NO": 0x183B, "ar-TN": 0x1C01, "en-ZA": 0x1C09, "es-DO": 0x1C0A, "sr-Cyrl-BA": 0x1C1A,
    "sma-SE": 0x1C3B, "ar-OM": 0x2001, "en-JM": 0x2009, "es-VE": 0x200A, "bs-Cyrl-BA": 0x201A,
    "sms-FI": 0x203B, "ar-YE": 0x2401, "en-029": 0x2409, "es-CO": 0x240A, "sr-Latn-RS": 0x241A,
    "smn-FI": 0x243B, "ar-SY": 0x2801, "en-BZ": 0x2809, "es-PE": 0x280A, "sr-Cyrl-RS": 0x281A,
    "ar-JO": 0x2C01, "en-TT": 0x2C09, "es-AR": 0x2C0A, "sr-Latn-ME": 0x2C1A,
    "ar-LB": 0x3001, "en-ZW": 0x3009, "es-EC": 0x300A, "sr-Cyrl-ME": 0x301A,
    "ar-KW": 0x3401, "en-PH": 0x3409, "es-CL": 0x340A, "ar-AE": 0x3801, "es-UY": 0x380A,
    "ar-BH": 0x3C01, "es-PY": 0x3C0A, "ar-QA": 0x4001, "en-IN": 0x4009, "es-BO": 0x400A,
    "en-MY": 0x4409, "es-SV": 0x440A, "en-SG": 0x4809, "es-HN": 0x480A, "es-NI": 0x4C0A,
    "es-PR": 0x500A, "es-US": 0x540A,
}  # fmt: skip

_EXTRA: Final = {
    # Script-neutral and neutral names whose LANGID is not "primary, sub 0".
    "zh-Hans": 0x0004, "zh-Hant": 0x7C04, "zh-CHS": 0x0004, "zh-CHT": 0x7C04,
    "sr-Latn": 0x701A, "sr-Cyrl": 0x6C1A, "bs": 0x781A, "sr": 0x7C1A, "nb": 0x7C14,
    "nn": 0x7814, "no": 0x0014, "az-Latn": 0x782C, "az-Cyrl": 0x742C, "uz-Latn": 0x7C43,
    "uz-Cyrl": 0x7843, "iv": 0x007F, "": 0x007F,
}  # fmt: skip


def _build() -> MappingProxyType[str, int]:
    table: dict[str, int] = {}
    for name, langid in _SPECIFIC.items():
        table[name.lower()] = langid
        neutral = name.split("-", 1)[0].lower()
        table.setdefault(neutral, langid & 0x3FF)
    for name, langid in _EXTRA.items():
        table[name.lower()] = langid
    return MappingProxyType(table)


LANGIDS: Final = _build()


class UnknownCulture(ValueError):
    """A culture name etwmc has no LANGID for."""


def langid(culture: str) -> int:
    key = culture.strip().replace("_", "-").lower()
    try:
        return LANGIDS[key]
    except KeyError:
        raise UnknownCulture(
            f"culture '{culture}' has no known Windows language id (e.g. en-US, de-DE, ja-JP)"
        ) from None


def primary_sub(culture: str) -> tuple[int, int]:
    """(primary language, sublanguage) of a culture name."""
    lid = langid(culture)
    return lid & 0x3FF, lid >> 10
