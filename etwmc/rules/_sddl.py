"""A structural check of SDDL security-descriptor strings (channel ``access``).

Windows validates these with ``ConvertStringSecurityDescriptorToSecurityDescriptor``;
off Windows we check the grammar instead:

* the string is a sequence of components ``O:<sid>``, ``G:<sid>``, ``D:<acl>``,
  ``S:<acl>``, each at most once;
* an ACL is optional flags (``P``, ``AI``, ``AR``, ``NO_ACCESS_CONTROL``) followed by
  ACEs ``(type;flags;rights;object-guid;inherit-guid;sid)``; conditional and resource
  ACEs (``XA``, ``XD``, ``XU``, ``ZA``, ``RA``) carry a seventh field;
* a SID is a two-letter alias (``BA``, ``SY``, ...) or ``S-1-<authority>-<sub>...``;
* rights are a number (``0x7``, ``7``) or concatenated two-letter rights (``GRGW``).

The check is deliberately a little lenient (any two-letter upper-case alias is a SID)
so that it never rejects a descriptor Windows accepts.
"""

from __future__ import annotations

import re

# Patterns as text: the re module compiles each on first use (most manifests have no
# channel access descriptor, and their runs skip the compiling).
_SID = r"(?:[A-Z]{2}|S-1-(?:\d+|0x[0-9A-Fa-f]+)(?:-\d+)+)\Z"
_GUID = r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\Z"
_NUMBER = r"(?:0[xX][0-9A-Fa-f]+|\d+)\Z"
_ACE_TYPES = frozenset("A D OA OD AU AL OU OL ML XA XD XU ZA RA SP TL FL SCOPED_POLICY_ID".split())
_SEVEN_FIELD_TYPES = frozenset("XA XD XU ZA RA".split())
_ACE_FLAGS = frozenset("CI OI NP IO ID SA FA TP CR".split())
_RIGHTS = frozenset(
    "GA GR GW GX RC SD WD WO RP WP CC DC LC SW LO DT CR FA FR FW FX KA KR KW KX NR NW NX".split()
)
_ACL_FLAGS = ("NO_ACCESS_CONTROL", "AI", "AR", "P")


def sddl_problem(text: str) -> str | None:
    """Why ``text`` is not a well-formed SDDL string, or None when it is."""
    s = "".join(text.split())  # whitespace between tokens is insignificant
    if not s:
        return "it is empty"
    seen: set[str] = set()
    pos = 0
    while pos < len(s):
        head = s[pos : pos + 2]
        if head not in ("O:", "G:", "D:", "S:"):
            return f"expected O:, G:, D: or S: at '{s[pos : pos + 12]}'"
        if head in seen:
            return f"the component {head} appears twice"
        seen.add(head)
        pos += 2
        if head in ("O:", "G:"):
            end = _component_end(s, pos)
            if not re.match(_SID, s[pos:end]):
                return f"'{s[pos:end]}' after {head} is not a SID"
            pos = end
            continue
        problem, pos = _acl(s, pos)
        if problem:
            return problem
    return None


def _component_end(s: str, pos: int) -> int:
    for i in range(pos, len(s) - 1):
        if s[i + 1] == ":" and s[i] in "OGDS":
            return i
    return len(s)


def _acl(s: str, pos: int) -> tuple[str | None, int]:
    progress = True
    while progress:
        progress = False
        for flag in _ACL_FLAGS:
            if s.startswith(flag, pos) and not s.startswith(flag + ":", pos):
                pos += len(flag)
                progress = True
    while pos < len(s) and s[pos] == "(":
        end = _matching_paren(s, pos)
        if end < 0:
            return f"the ACE at '{s[pos : pos + 16]}' has no closing ')'", pos
        problem = _ace(s[pos + 1 : end])
        if problem:
            return f"ACE ({s[pos + 1 : end]}): {problem}", pos
        pos = end + 1
    if pos < len(s) and s[pos : pos + 2] not in ("O:", "G:", "D:", "S:"):
        return f"unexpected text '{s[pos : pos + 12]}' in an ACL", pos
    return None, pos


def _matching_paren(s: str, start: int) -> int:
    depth = 0
    quoted = False
    for i in range(start, len(s)):
        c = s[i]
        if c == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _split_top(body: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    quoted = False
    current: list[str] = []
    for c in body:
        if c == '"':
            quoted = not quoted
        elif not quoted and c == "(":
            depth += 1
        elif not quoted and c == ")":
            depth -= 1
        if c == ";" and depth == 0 and not quoted and len(parts) < 6:
            parts.append("".join(current))
            current = []
        else:
            current.append(c)
    parts.append("".join(current))
    return parts


def _ace(body: str) -> str | None:
    fields = _split_top(body)
    if len(fields) < 6:
        return f"an ACE has 6 fields separated by ';', this one has {len(fields)}"
    kind, flags, rights, obj, inherit, sid = fields[:6]
    if kind not in _ACE_TYPES:
        return f"'{kind}' is not an ACE type"
    if len(fields) == 7 and kind not in _SEVEN_FIELD_TYPES:
        return f"an ACE of type {kind} has 6 fields, this one has 7"
    if len(flags) % 2 or any(flags[i : i + 2] not in _ACE_FLAGS for i in range(0, len(flags), 2)):
        return f"'{flags}' are not ACE flags"
    if not rights:
        return "the access rights are empty"
    if not re.match(_NUMBER, rights) and (
        len(rights) % 2 or any(rights[i : i + 2] not in _RIGHTS for i in range(0, len(rights), 2))
    ):
        return f"'{rights}' are not access rights"
    for g in (obj, inherit):
        if g and not re.match(_GUID, g):
            return f"'{g}' is not a GUID"
    if not re.match(_SID, sid):
        return f"'{sid}' is not a SID"
    return None
