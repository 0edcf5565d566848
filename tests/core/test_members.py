"""One rule finds a member, for the session's corpus and for homeostat.yaml's team alike."""

from __future__ import annotations

import pytest

from homeostat.core.config import Member
from homeostat.core.members import member_for
from homeostat.core.selection.entries import MemberInfo

TEAM = (("ana", "Ana Lima", "ana@acme.example"), ("cy", "Cy Moreau", ""), ("Dee", "Dee", "DEE@acme.example"))
CASES = [
    ("ana", "cy@x", None, "ana"),  # HOMEOSTAT_MEMBER wins over git
    (" ANA ", None, None, "ana"),
    ("ghost", "ana@acme.example", "Ana Lima", None),  # an unknown handle is not silently someone else
    (None, "Ana@Acme.Example", None, "ana"),
    (None, "dee@acme.example", "cy", "Dee"),  # the email before the name
    (None, "nobody@acme.example", "Cy Moreau", "cy"),  # an email nobody has falls back to the name
    (None, None, "dee", "Dee"),  # a git name that is a handle
    (None, "", "  ", None),
    (None, None, None, None),
]


@pytest.mark.parametrize(("handle", "email", "name", "expected"), CASES)
def test_a_corpus_and_a_config_find_the_same_member(
    handle: str | None, email: str | None, name: str | None, expected: str | None
) -> None:
    corpus_members = tuple(MemberInfo(h, n, e, ()) for h, n, e in TEAM)
    config_members = tuple(Member(handle=h, name=n, email=e) for h, n, e in TEAM)
    in_corpus = member_for(corpus_members, handle=handle, email=email, name=name)
    in_config = member_for(config_members, handle=handle, email=email, name=name)
    assert (in_corpus.handle if in_corpus else None) == expected
    assert (in_config.handle if in_config else None) == expected
