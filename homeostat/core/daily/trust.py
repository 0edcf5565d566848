"""Whose words a review lesson is made of: only team members' comments vouch for a rule.

A review thread also holds text no team member wrote: the PR's title (a label for the change, not
review feedback, and editable by anyone who can push) and replies from people outside
`team.members`. A member's reply written after the first commit that followed the thread is no
lesson the change answered either. The drafter and the judge see all of these quoted as untrusted
context. A member's own words can also stop being what the code change answered: a comment edited
after that commit is read as it is now, not as it was when the code changed.

So a review lesson carries a `ThreadTrust`, and before anything merges with no person the run checks,
without a model, that its draft copies no run of `COPY_TOKENS` words found only in untrusted text and
that no member's comment was edited after the code changed. Either sends the lesson to a person, with
the evidence. A paraphrase passes this check; the judge's `unsafe-instruction` trap is the layer for it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from homeostat.core.hosts import ReviewComment, ReviewThread

# Six words (or six CJK characters) in a row: longer than the phrases any two texts on one subject
# share by chance ("in the refund handler"), shorter than an instruction worth smuggling.
COPY_TOKENS = 6
QUOTE_CHARS = 160  # how much of a copied span a reason shows

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# A CJK character is a token by itself (those scripts put no spaces between words); elsewhere a run
# of letters and digits is.
_TOKEN = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")


@dataclass(frozen=True)
class Quoted:
    """Text no rule may come from, and where it came from ("the PR title", "mallory's reply (not on
    the team)", "bo's reply (after the code changed)")."""

    source: str
    text: str


@dataclass(frozen=True)
class ThreadTrust:
    """A review thread split by who wrote it. All of it is redacted before it is built."""

    members: tuple[str, ...] = ()  # the members' comments (and the commented path): a rule's source
    others: tuple[Quoted, ...] = ()  # what no rule may come from
    edits: tuple[str, ...] = ()  # one line per member's comment edited after the code changed


def split_comments(
    thread: ReviewThread, is_member: Callable[[str], bool]
) -> tuple[list[ReviewComment], list[tuple[ReviewComment, str]]]:
    """The comments a rule may come from (members', written before the code changed), and the rest
    with why each is only quoted: a reply by someone outside the team, or a member's reply written
    after the first commit that followed the thread (the change did not answer it, and it is how a
    member's account could add words to a thread that already counts)."""
    sources: list[ReviewComment] = []
    quoted: list[tuple[ReviewComment, str]] = []
    for comment in thread.comments:
        if not is_member(comment.author):
            quoted.append((comment, "not on the team"))
        elif comment is not thread.root and thread.followed_at and comment.created_at > thread.followed_at:
            quoted.append((comment, "after the code changed"))
        else:
            sources.append(comment)
    return sources, quoted


def thread_trust(pull_title: str, thread: ReviewThread, is_member: Callable[[str], bool]) -> ThreadTrust:
    """What the daily run checks a draft from this (redacted) thread against."""
    sources, quoted = split_comments(thread, is_member)
    others = [Quoted("the PR title", pull_title)] if pull_title.strip() else []
    others += [Quoted(f"{c.author}'s reply ({why})", c.body) for c, why in quoted]
    members = (thread.path, *(c.body for c in sources))
    return ThreadTrust(members, tuple(others), edits_after_commit(thread, is_member))


def edits_after_commit(thread: ReviewThread, is_member: Callable[[str], bool]) -> tuple[str, ...]:
    """Members' comments edited after the first commit that followed the thread (or edited at all,
    when the host did not say when that commit was made): the code change answered other words."""
    found: list[str] = []
    for comment in thread.comments:
        edited = comment.edited_at
        if edited is None or not is_member(comment.author):
            continue
        if thread.followed_at is None:
            found.append(
                f"{comment.author}'s comment was edited at {_when(edited)}, and when the code changed "
                "is not known: the lesson may not be what the change answered"
            )
        elif edited > thread.followed_at:
            found.append(
                f"{comment.author}'s comment was edited at {_when(edited)}, after the code changed "
                f"({_when(thread.followed_at)}): the change answered its earlier words, which the host "
                "no longer shows"
            )
    return tuple(found)


def trust_problems(draft: str, trust: ThreadTrust | None) -> tuple[str, ...]:
    """Why a person must read a lesson drafted from this thread, one line each; () when none."""
    if trust is None:
        return ()
    problems = list(trust.edits)
    copied = copied_span(draft, trust)
    if copied is not None:
        source, span = copied
        problems.append(
            f"the draft copies words from {source}, which no rule may come from: {quote_inline(span)}"
        )
    return tuple(problems)


def copied_span(draft: str, trust: ThreadTrust, n: int = COPY_TOKENS) -> tuple[str, str] | None:
    """The first run of at least `n` tokens the draft shares with untrusted text that no member's words
    hold, as (its source, the run); None when there is none. Linear in the texts' length."""
    trusted = set(_grams(tokens("\n".join(trust.members)), n))
    owner: dict[tuple[str, ...], int] = {}
    for index, quoted in enumerate(trust.others):
        for gram in _grams(tokens(quoted.text), n):
            if gram not in trusted:
                owner.setdefault(gram, index)
    if not owner:
        return None
    words = tokens(draft)
    start = 0
    while start + n <= len(words):
        source = owner.get(tuple(words[start : start + n]))
        if source is None:
            start += 1
            continue
        end = start + n
        while end < len(words) and owner.get(tuple(words[end - n + 1 : end + 1])) == source:
            end += 1
        return trust.others[source].source, " ".join(words[start:end])
    return None


def tokens(text: str) -> list[str]:
    """Words as compared: NFKC, case-folded, letters and digits only; CJK one character each."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


def quote_inline(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text` on one line as Markdown inline code, cut to `limit` characters: a PR body shows what an
    attacker wrote without rendering its links, mentions or HTML."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def _grams(words: Sequence[str], n: int) -> Iterator[tuple[str, ...]]:
    for start in range(len(words) - n + 1):
        yield tuple(words[start : start + n])


def _when(moment: datetime) -> str:
    return (moment.astimezone(UTC) if moment.tzinfo else moment).strftime("%Y-%m-%d %H:%M UTC")
