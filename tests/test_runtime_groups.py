"""Provider groups and disallow lists in the in-process backend.

The rules, from etw-semantics.md ("Provider traits and groups") and Microsoft's pages on
EnableTraceEx2 (EVENT_ENABLE_PROPERTY_PROVIDER_GROUP), TraceSetDisallowList and
EventSetInformation: a provider joins the group its traits name; enabling the group
enables every member, present and future; private sessions cannot enable groups; id,
name and payload filters do not apply to groups; a disallow list keeps providers out of
one session's group enables; traits are set once per registration.
"""

from __future__ import annotations

import uuid

import pytest

from etwmc.runtime import (
    EnableState,
    EventIdFilter,
    PayloadFilter,
    ProviderRuntime,
    build_traits,
    pack_descriptor,
)
from etwmc.runtime.backends.inproc import InProcBackend, SessionLimitError

GROUP = uuid.UUID("9a7c0000-0000-4000-8000-00000000a001")
OTHER_GROUP = uuid.UUID("9a7c0000-0000-4000-8000-00000000a002")
A = uuid.UUID("9a7c0000-0000-4000-8000-0000000000aa")
B = uuid.UUID("9a7c0000-0000-4000-8000-0000000000bb")
C = uuid.UUID("9a7c0000-0000-4000-8000-0000000000cc")
ALL = 0xFFFF_FFFF_FFFF_FFFF


def member(
    backend: InProcBackend, guid: uuid.UUID, group: uuid.UUID | None = GROUP
) -> tuple[ProviderRuntime, list[EnableState]]:
    seen: list[EnableState] = []
    name = f"P-{str(guid)[-2:]}"
    provider = ProviderRuntime(guid, name, build_traits(name, group), on_enable=seen.append)
    provider.register(backend)
    return provider, seen


def ids(session: object) -> list[int]:
    return [r.id for r in session.events()]  # type: ignore[attr-defined]


def test_group_enable_reaches_present_and_later_members() -> None:
    backend = InProcBackend()
    a, seen_a = member(backend, A)
    outsider, seen_out = member(backend, C, OTHER_GROUP)
    s = backend.session("g").enable(GROUP, level=4, match_any=0x3, provider_group=True)
    assert seen_a == [EnableState(1, 4, 0x3, 0)]
    assert seen_out == []  # another group's provider is not enabled
    b, seen_b = member(backend, B)  # registers after the group enable: enabled at once
    assert seen_b == [EnableState(1, 4, 0x3, 0)]
    a.write(pack_descriptor(1, level=4, keyword=0x1), b"")
    b.write(pack_descriptor(2, level=4, keyword=0x2), b"")
    b.write(pack_descriptor(3, level=5, keyword=0x2), b"")  # too verbose for the session
    outsider.write(pack_descriptor(4, level=1), b"")
    assert ids(s) == [1, 2]
    assert {r.provider_id for r in s.events()} == {A, B}
    s.disable(GROUP, provider_group=True)
    assert seen_a[-1] == seen_b[-1] == EnableState(0, 0, 0, 0)


def test_provider_without_group_trait_is_not_a_member() -> None:
    backend = InProcBackend()
    plain, seen = member(backend, A, group=None)
    backend.session().enable(GROUP, provider_group=True)
    assert seen == []
    assert not plain.is_enabled


def test_disallow_list_added_and_removed_while_enabled() -> None:
    backend = InProcBackend()
    a, seen_a = member(backend, A)
    b, seen_b = member(backend, B)
    s = backend.session().enable(GROUP, level=5, provider_group=True)
    assert seen_a[-1].is_enabled and seen_b[-1].is_enabled
    s.set_disallow_list([B])
    assert seen_b[-1] == EnableState(0, 0, 0, 0)  # B's callback: this session left it
    assert len(seen_a) == 1  # A was not concerned
    a.write(pack_descriptor(1, level=4), b"")
    b.write(pack_descriptor(2, level=4), b"")
    assert ids(s) == [1]
    s.set_disallow_list([])
    assert seen_b[-1] == EnableState(1, 5, ALL, 0)
    b.write(pack_descriptor(3, level=4), b"")
    assert ids(s) == [1, 3]


def test_disallow_list_applies_to_later_members_and_only_to_group_enables() -> None:
    backend = InProcBackend()
    grouped = backend.session("group").set_disallow_list([B]).enable(GROUP, provider_group=True)
    direct = backend.session("direct").set_disallow_list([B]).enable(B, level=2)
    b, seen_b = member(backend, B)
    # only the direct enable reaches B: a disallow list does not undo a provider enable
    assert seen_b == [EnableState(1, 2, ALL, 0)]
    b.write(pack_descriptor(1, level=2), b"")
    assert ids(direct) == [1] and ids(grouped) == []


def test_disallow_list_is_per_session() -> None:
    backend = InProcBackend()
    a, seen = member(backend, A)
    s1 = backend.session("s1").enable(GROUP, level=2, provider_group=True)
    s2 = backend.session("s2").enable(GROUP, level=4, provider_group=True)
    assert seen[-1].level == 4
    s2.set_disallow_list([A])
    assert seen[-1] == EnableState(1, 2, ALL, 0)  # only s1 left
    a.write(pack_descriptor(1, level=1), b"")
    assert ids(s1) == [1] and ids(s2) == []


def test_traits_set_later_join_the_group() -> None:
    backend = InProcBackend()
    s = backend.session().enable(GROUP, level=3, provider_group=True)
    seen: list[EnableState] = []
    provider = ProviderRuntime(A, "Late", on_enable=seen.append).register(backend)
    assert seen == []
    assert provider.backend is backend
    status = backend.set_traits(provider._handle, build_traits("Late", GROUP))
    assert status == 0 and seen == [EnableState(1, 3, ALL, 0)]
    provider.write(pack_descriptor(5, level=3), b"")
    assert ids(s) == [5]


def test_traits_are_set_once_per_registration() -> None:
    backend = InProcBackend()
    s = backend.session().enable(OTHER_GROUP, provider_group=True)
    provider, seen = member(backend, A, GROUP)
    handle = provider._handle
    # EventSetInformation refuses a second EventProviderSetTraits on a registration
    assert backend.set_traits(handle, build_traits("P-aa", OTHER_GROUP)) != 0
    assert seen == []  # still in GROUP, not OTHER_GROUP
    provider.write(pack_descriptor(1), b"")
    assert ids(s) == []
    # a new registration may set its traits again
    provider.unregister()
    provider.traits = build_traits("P-aa", OTHER_GROUP)
    provider.register(backend)
    assert provider.is_enabled


def test_malformed_traits_are_refused() -> None:
    backend = InProcBackend()
    provider = ProviderRuntime(A, "P").register(backend)
    assert backend.set_traits(provider._handle, b"\x09\x00abc") == 87
    assert backend.set_traits(object(), build_traits("P")) == 6


def test_private_session_cannot_enable_a_group() -> None:
    backend = InProcBackend()
    private = backend.session("p", private=True)
    with pytest.raises(ValueError, match="private"):
        private.enable(GROUP, provider_group=True)
    private.enable(A)  # a provider is fine


@pytest.mark.parametrize(
    "flt",
    [EventIdFilter([1]), PayloadFilter(1, [("x", "EQ", 1)])],
    ids=["event-id", "payload"],
)
def test_filters_do_not_apply_to_groups(flt: EventIdFilter | PayloadFilter) -> None:
    backend = InProcBackend()
    _, seen = member(backend, A)
    s = backend.session()
    with pytest.raises(ValueError, match="group"):
        s.enable(GROUP, provider_group=True, filters=[flt])
    assert seen == []  # nothing was enabled


def test_direct_enable_takes_precedence_over_the_group() -> None:
    backend = InProcBackend()
    a, seen = member(backend, A)
    s = backend.session().enable(GROUP, level=5, provider_group=True).enable(A, level=1)
    assert seen[-1] == EnableState(1, 1, ALL, 0)
    a.write(pack_descriptor(1, level=4), b"")
    assert ids(s) == []
    s.disable(A)  # the group enable applies again
    assert seen[-1] == EnableState(1, 5, ALL, 0)
    a.write(pack_descriptor(2, level=4), b"")
    assert ids(s) == [2]


def test_group_and_provider_sessions_combine() -> None:
    backend = InProcBackend()
    a, seen = member(backend, A)
    backend.session("g").enable(GROUP, level=2, match_any=0x1, provider_group=True)
    backend.session("p").enable(A, level=0, match_any=0x4)
    assert seen[-1] == EnableState(1, 0, 0x5, 0)


def test_stopping_the_group_session_disables_members() -> None:
    backend = InProcBackend()
    a, seen_a = member(backend, A)
    b, seen_b = member(backend, B)
    with backend.session().enable(GROUP, provider_group=True):
        assert a.is_enabled and b.is_enabled
    assert seen_a[-1] == seen_b[-1] == EnableState(0, 0, 0, 0)


def test_group_enable_leaves_out_a_member_already_at_eight_sessions() -> None:
    backend = InProcBackend()
    a, seen = member(backend, A)
    direct = [backend.session(f"d{i}").enable(A, level=1) for i in range(8)]
    group = backend.session("g").enable(GROUP, level=5, provider_group=True)  # no error
    assert seen[-1].level == 1  # the group session is not one of A's sessions
    a.write(pack_descriptor(1, level=1), b"")
    assert ids(group) == []
    assert all(ids(s) == [1] for s in direct)
    with pytest.raises(SessionLimitError):
        backend.session("ninth").enable(A)
    direct[0].stop()  # a place frees up: the group enable now reaches A
    assert seen[-1].level == 5
    a.write(pack_descriptor(2, level=4), b"")
    assert ids(group) == [2]
