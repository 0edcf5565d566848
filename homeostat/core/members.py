"""Which team member a handle or a git identity names: one rule for the session's corpus
(homeostat.core.selection.audience) and for homeostat.yaml's team (`sync`, `learn`).

A handle (HOMEOSTAT_MEMBER) decides alone: set but unknown, it matches nobody, a mistake to report
rather than a guess. Without one, the git email, then the git name as a handle or a display name.
Case never matters. Imports nothing at run time, as a session hook reads it.
"""

from __future__ import annotations

from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TypeVar

    from homeostat.core.config import Member
    from homeostat.core.selection.entries import MemberInfo

    P = TypeVar("P", Member, MemberInfo)


def member_for(members: Sequence[P], *, handle: str | None, email: str | None, name: str | None) -> P | None:
    """The member `handle` names when it is set, else the one whose email, then handle or name, is
    the git user's."""
    lowered = (handle or "").strip().lower()
    if lowered:
        return next((m for m in members if m.handle.lower() == lowered), None)
    mail = (email or "").strip().lower()
    if mail:
        found = next((m for m in members if m.email and m.email.lower() == mail), None)
        if found is not None:
            return found
    who = (name or "").strip().lower()
    if who:
        return next((m for m in members if who in (m.handle.lower(), m.name.lower())), None)
    return None
