"""Whether a second person enacted a review lesson: the provenance check that reads no harm words.

Every word layer (risky content, subjects, topics, languages, the judge) reads the lesson's text, and
an attacker who has read our docs writes past them (the docs-aware held-out sets: about 60 % of
probes get past every word layer). This check does not read for harm. A review lesson merges with
no person only when the code change after its comment is evidence that someone other than the
commenter read the comment and acted on it:

- **someone else wrote the change**: every commit after the comment is linked to a host account,
  and none is the commenter's. A reviewer who pushes to the author's branch enacted their own
  comment, so one stolen account could both say and "follow" it;
- **the change uses the rule's code**: at least one of the rule's code terms (the identifiers in its
  inline code and fenced blocks, and its code-shaped words such as `snake_case`, `CamelCase`,
  `dotted.names`, `calls()`, `--flags`, `$ENV_VARS` or one `'quoted'` token; not file paths or file
  names, which say where, not what) appears as a whole word in the lines added after the comment, or,
  for a term the rule forbids ("stop calling `legacy_round`", "rather than keeping `find_command`"),
  in the lines removed after it: "stop doing X" is enacted by deleting X. A change to the same file
  for another reason is no evidence that anyone agreed with the comment; a rule that names no code
  cannot be checked against a change, so it goes to a person too. Terms are only ever identifiers,
  matched as words.

A poisoned comment that an honest author ignores never merges unread, however it is worded; one the
author enacts in code has been read by a second person, the same bar a code change meets. What this
cannot catch is an author who enacts harm in code, which a code reviewer reads before it merges, or
a pusher who writes the author's email into a commit: hosts link a commit to an account by the email
it carries, not by who pushed it. A team that sets `scoring.autoMerge.enactment: signed` closes that
too where the host verifies signatures (GitHub): every commit after the comment must carry one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import islice

from homeostat.core.hosts import FollowUp
from homeostat.core.safety.risky import clauses_around, warns_against

_INLINE_CODE = re.compile(r"`([^`\n]{1,200})`")
_FENCE = ("```", "~~~")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Words outside code that only code spells: snake_case, an inner capital (camelCase, CamelCase), a
# dotted name (a file name such as pyproject.toml is left out later), a call, a long command-line flag
# (--no-deps), an environment variable reference ($HOME, ${HOME}, %HOME%), or one token in quotes
# ('git', "utf-8": a literal value, a command or a file name).
_CODE_SHAPED = re.compile(
    r"\b(?:[A-Za-z0-9]+_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Za-z_]\w*(?=\(\)))"
    r"|(?<![\w-])--[A-Za-z][\w-]{0,100}"
    r"|\$\{?[A-Za-z_]\w*|%[A-Za-z_]\w*%"
    r"|(?<!\w)[\"'\u2018\u201c][^\s\"'`\u2018\u2019\u201c\u201d]{1,100}[\"'\u2019\u201d](?!\w)"
)
MIN_TERM = 3  # shorter identifiers (`i`, `os`, `db`) match any change
# Identifiers nearly every change in these languages adds, so finding one proves nothing.
COMMON_TERMS = frozenset(
    """
    and args assert async await bool break byte bytes case catch char class const continue def default
    del dict elif else enum except export extends false final finally float for from func function get
    global import int interface kwargs lambda len let list new nil none not null object pass print
    private protected public raise return self set static str string struct super switch this throw
    true try type undefined use var void while with yield
    """.split()
)


class CodeTerms(tuple[str, ...]):
    """A rule's code terms in the order written, and `forbidden`: those it names only to warn against
    them, which a change enacts by removing them (`forbidden_terms`). A tuple, so a caller that only
    wants the terms reads it as one."""

    forbidden: tuple[str, ...]

    def __new__(cls, terms: Iterable[str], forbidden: Iterable[str] = ()) -> CodeTerms:
        made = super().__new__(cls, terms)
        made.forbidden = tuple(forbidden)
        return made


def code_terms(*texts: str) -> CodeTerms:
    """The distinct identifiers a rule's text names as code, in the order written (case kept), with
    the ones it forbids."""
    found: list[str] = []
    for text in texts:
        prose, code = _prose_and_code(text)
        found += _identifiers_of(code)
        found += _identifiers_of(_CODE_SHAPED.findall(prose))
    seen: dict[str, str] = {}
    for term in found:
        if len(term) >= MIN_TERM and term.lower() not in COMMON_TERMS:
            seen.setdefault(term.lower(), term)
    terms = tuple(seen.values())
    return CodeTerms(terms, forbidden_terms(terms, texts))


def _prose_and_code(text: str) -> tuple[str, list[str]]:
    """The text outside code, and the code in order: fenced blocks (``` or ~~~, an unclosed one runs
    to the end) and inline spans. One pass over the lines, so a text of fence markers stays linear."""
    prose: list[str] = []
    code: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith(_FENCE):
            fenced = not fenced
        elif fenced:
            code.append(line)
        else:
            code += _INLINE_CODE.findall(line)
            prose.append(_INLINE_CODE.sub(" ", line))
    return "\n".join(prose), code


# A file's place, not code a change uses: a word with a slash (src/billing/refunds.py, docs/) or a
# file name with a usual extension (pyproject.toml). Its parts turn up in unrelated lines (`api`,
# `src`, `logging`), so they would let any change to the file "enact" a rule that names it.
_PATH = re.compile(
    r"[\w.~*-]*/[\w./~*-]*"
    r"|[\w-]+(?:\.[\w-]+)*\.(?:py|pyi|js|mjs|cjs|ts|tsx|jsx|go|rs|java|kt|rb|php|cs|c|h|cc|cpp|hpp|swift"
    r"|md|rst|txt|toml|yaml|yml|json|cfg|ini|lock|sh|html|css|scss|sql|xml|gradle)"
)


def _identifiers_of(words: Iterable[str]) -> list[str]:
    """The identifiers in code text, leaving out its file paths and file names."""
    return [
        part
        for chunk in words
        for word in chunk.split()
        if not _PATH.fullmatch(word.strip("'\"`,;:()[]{}"))
        for part in _IDENTIFIER.findall(word)
    ]


def used_terms(terms: Iterable[str], added: Iterable[str]) -> tuple[str, ...]:
    """The terms that occur as whole words (any case) in the added lines: one linear pass over them."""
    wanted = {term.lower(): term for term in terms}
    if not wanted:
        return ()
    hits: dict[str, str] = {}
    for line in added:
        for word in _IDENTIFIER.findall(line):
            key = word.lower()
            if key in wanted:
                hits.setdefault(key, wanted[key])
    return tuple(term for key, term in wanted.items() if key in hits)


# A negation that keeps code rather than forbidding it: "never remove `verify_ssl`", "don't drop the
# `tenant_id` filter" ask for the code they name.
_KEEPS = re.compile(
    r"\b(?:never|not|no|don'?t|dont|mustn'?t|shouldn'?t|stop)\s+(?:\w+\s+){0,2}?"
    r"(?:remov|delet|drop|strip|disabl|skip|comment\s+out|get\s+rid\s+of|los[ei])\w*",
    re.IGNORECASE,
)
# An order to take code out ("remove `find_command`", "drop the `six` shim", "replace `md5` with
# `sha256`"): what follows a `with`, `by`, `to` or `for` after the verb is what stays, as the risky
# families read it.
_REMOVES = re.compile(
    r"\b(?:remov(?:e|es|ed|ing)|delet(?:e|es|ed|ing)|drop(?:s|ped|ping)?|get\s+rid\s+of|"
    r"replac(?:e|es|ed|ing)|deprecat(?:e|es|ed|ing))\b",
    re.IGNORECASE,
)
# Where the forbidden thing must not happen ("never call `os.chdir` in `load_dotenv`") is no ban on it.
_PLACE = re.compile(
    r"\b(?:in|inside|within|from|during|under)\s+(?:the\s+|a\s+|an\s+)?[`'\"]?$", re.IGNORECASE
)
_STAYS = re.compile(r"\b(?:with|by|to|into|for)\b", re.IGNORECASE)
_OUTDATED_AFTER = re.compile(
    r"^[^.!?]{0,60}?\b(?:is|are|was|were)\s+(?:deprecated|obsolete|unused|dead\s+code|"
    r"no\s+longer\s+(?:used|needed|supported))\b",
    re.IGNORECASE,
)


MAX_MENTIONS = 1000  # mentions of its terms whose clauses a rule's texts have read


def forbidden_terms(terms: Sequence[str], texts: Iterable[str]) -> tuple[str, ...]:
    """The terms every mention of which in the texts is warned against, the way the risky phrase
    rules read a warning (`core.safety.risky.warns_against`: "never", "don't", "avoid", "stop", "no
    longer", "instead of", "rather than" before it, "is forbidden" after it), or ordered out ("remove",
    "drop", "replace … with", "is deprecated"); not one a negation keeps ("never remove `x`"). A term
    the rule also names without a warning is not forbidden: "use `x`; never call `x` twice" asks for
    `x`. Each mention's clause is read within a few hundred characters, and only the first
    `MAX_MENTIONS` mentions are read (a term first named after them is not forbidden, as before
    removed lines were read), so a long rule costs no more than a short one."""
    wanted = {term.lower() for term in terms}
    warned: dict[str, bool] = {}
    budget = MAX_MENTIONS
    for text in texts:
        named = (m for m in _IDENTIFIER.finditer(text) if m.group(0).lower() in wanted)
        mentions = list(islice(named, budget))
        budget -= len(mentions)
        clauses = clauses_around(text, [m.span() for m in mentions])
        for mention, (before, after) in zip(mentions, clauses, strict=True):
            key = mention.group(0).lower()
            warned[key] = warned.get(key, True) and _forbids(before, after)
    return tuple(term for term in terms if warned.get(term.lower()))


# A message or other text the rule quotes speaks for itself, not for the rule: the "Cannot" in `say
# "Cannot find command 'git'"` forbids nothing, nor does the `no` of a `--no-debug` code span.
_QUOTED = re.compile(r'"[^"\n]*"|\u201c[^\u201d\n]*\u201d|`[^`\n]*`')
_QUOTE_OPENS = re.compile(r'["\u201c][^"\u201c\u201d]*$')


def _forbids(before: str, after: str) -> bool:
    """Whether a mention's clause (`before` it, `after` it) warns against it or orders it out."""
    before = _QUOTED.sub(" ", before)
    if opened := _QUOTE_OPENS.search(before):  # the mention is inside a quotation: read what leads to it
        before = before[: opened.start()]
    if _KEEPS.search(before) or _PLACE.search(before):
        return False
    removals = [m.end() for m in _REMOVES.finditer(before)]
    ordered_out = bool(removals) and not _STAYS.search(before, removals[-1])
    return ordered_out or warns_against(before, after) or _OUTDATED_AFTER.match(after) is not None


# A term only code spells: an inner underscore (snake_case) or an inner capital (camelCase, CamelCase).
_SPECIFIC = re.compile(r"[A-Za-z0-9]_+[A-Za-z0-9]|[a-z0-9][A-Z]")


def evidence_terms(terms: tuple[str, ...]) -> tuple[str, ...]:
    """The terms a change must use to count as enacting the rule: its specific ones where it has any
    (a change to the same file for another reason uses a plain word such as `timeout` or `refund` one
    time in five on real pull requests, a `snake_case` or `CamelCase` name far less often), else all."""
    specific = tuple(term for term in terms if _SPECIFIC.search(term))
    return specific or terms


def enactment_reason(
    commenter: str,
    follow_up: FollowUp | None,
    terms: Sequence[str],
    *,
    need_code: bool = True,
    need_signed: bool = False,
) -> str | None:
    """Why a review lesson cannot merge unread on the strength of its follow-up change, or None
    when someone other than `commenter` wrote that change and it uses one of the rule's `terms` (one
    of its specific ones, where it has any: `evidence_terms`) in a line it added, or one the rule
    forbids in a line it removed (`enacting_terms`). With `need_code` off (a team's
    `scoring.autoMerge.enactment: author`) who wrote the change is all that is checked. With
    `need_signed` (`enactment: signed`) every commit must also carry a signature the host verified:
    a commit's author is only the email it names, which anyone who can push may write, while a
    verified signature is made with the signer's own key (or by the host for its web editor)."""
    if follow_up is None or not follow_up.authors:
        return "no commit after the comment is known, so no second person is seen enacting it"
    if "" in follow_up.authors:
        return "a commit after the comment is linked to no account, so who enacted it is unknown"
    if commenter in follow_up.authors:
        return f"self-enacted: {commenter} wrote a commit after their own comment"
    if need_signed and follow_up.verified is None:
        return "the host does not say whether the commits after the comment are signed"
    if need_signed and not follow_up.verified:
        return "a commit after the comment carries no signature the host verified"
    if not need_code:
        return None
    if not terms:
        return "the rule names no code, so the change after the comment cannot show it was enacted"
    used, removed = enacting_terms(terms)
    if terms_shown(used, removed, follow_up.added, follow_up.removed):
        return None
    if not removed:
        return f"the change after the comment uses none of the rule's code terms ({_named(used)})"
    if not used:
        return f"the change after the comment removes none of the code the rule forbids ({_named(removed)})"
    return (
        f"the change after the comment uses none of the rule's code terms ({_named(used)}) and removes"
        f" none of the code it forbids ({_named(removed)})"
    )


def enacting_terms(terms: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The terms a change's added lines must use, and those its removed lines must use, to count as
    enacting the rule: its evidence terms (`evidence_terms`), those it forbids (`CodeTerms.forbidden`)
    counted only where they are removed. Using code the rule forbids is no sign of following it, and
    removing code it asks for is none either."""
    forbidden = terms.forbidden if isinstance(terms, CodeTerms) else ()
    return by_use(evidence_terms(tuple(terms)), forbidden)


def by_use(terms: Sequence[str], forbidden: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`terms` split, in order, into those a change shows by adding them and those it shows by
    removing them (the ones in `forbidden`, any case)."""
    banned = {term.lower() for term in forbidden}
    return (
        tuple(term for term in terms if term.lower() not in banned),
        tuple(term for term in terms if term.lower() in banned),
    )


def terms_shown(
    asked: Iterable[str], gone: Iterable[str], added: Iterable[str], removed: Iterable[str]
) -> tuple[str, ...]:
    """The terms a change shows: those asked for in its `added` lines, those forbidden in its `removed`
    ones (as whole words, any case)."""
    return used_terms(asked, added) + used_terms(gone, removed)


def unshown_terms(terms: CodeTerms, follow_up: FollowUp) -> tuple[str, ...]:
    """Every code term the rule names that the change after the comment does not show: neither in a
    line it added nor, for a term the rule forbids, in one it removed. One used term is enough for the
    enactment check, so a comment that asks for a change the author makes can slip in code nobody
    wrote; the judge is shown these terms to read for that (its `not-enacted` trap)."""
    asked, gone = by_use(terms, terms.forbidden)
    shown = {term.lower() for term in terms_shown(asked, gone, follow_up.added, follow_up.removed)}
    return tuple(term for term in terms if term.lower() not in shown)


def _named(terms: tuple[str, ...]) -> str:
    return ", ".join(f"`{term}`" for term in terms[:6])
