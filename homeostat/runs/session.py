"""The read session: a KB, its corpus loaded from the cache, and who is asking; what it serves.

`context`, the session hooks, the other read commands (`search`, `read`, `docs`, `explain`,
`report`), the dashboard and the MCP server all open one with `open_session`. It must stay cheap: a
session hook loads it on every message, so it reads the cached corpus, never imports the model or
host clients, and loads the tokenizer only when the corpus has to be rebuilt.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence

from homeostat.adapters.cache.corpus_cache import (
    Identity,
    Loaded,
    WorkingChange,
    add_to_session,
    checkout_identity,
    know_at_start,
    load_corpus,
    load_session,
    require_kb,
    touch_session,
)
from homeostat.adapters.state.event_recorder import Scalar, log_events
from homeostat.cli_options import kb_dir
from homeostat.console import note, note_unreadable
from homeostat.core.records import Record
from homeostat.core.render.view import (
    Block,
    LineCounter,
    View,
    build_view,
    join,
    render_new_rules,
    render_prompt,
)
from homeostat.core.selection.audience import Audience, audience_for, find_member, visibility
from homeostat.core.selection.corpus import Corpus
from homeostat.core.selection.entries import Entry
from homeostat.core.selection.rank import select_entries
from homeostat.core.selection.session_repo import session_repo
from homeostat.core.selection.terms import task_words
from homeostat.core.text import sha256
from homeostat.core.type_hints import TYPE_CHECKING
from homeostat.errors import ConfigError

if TYPE_CHECKING:
    from pathlib import Path

    from homeostat.adapters.plain_files import StrPath
    from homeostat.core.selection.search import PromptMatch

MEMBER_VARIABLE = "HOMEOSTAT_MEMBER"
SESSION_VARIABLE = "HOMEOSTAT_SESSION"
NEW_RULES_PER_PROMPT = 3


class Session(Record):
    """A KB, the corpus loaded from its cache, and who is asking (repo from the checkout, member from git)."""

    kb: str  # the KB's folder (as a string: a session hook never imports pathlib)
    loaded: Loaded
    identity: Identity
    audience: Audience

    @property
    def root(self) -> Path:
        from pathlib import Path

        return Path(self.kb)

    @property
    def corpus(self) -> Corpus:
        return self.loaded.corpus

    def counter(self) -> LineCounter:
        return LineCounter(self.corpus.line_tokens, _count_tokens)


def _count_tokens(text: str) -> int:
    from homeostat.core.cost.tiktoken_count import count_tokens

    return count_tokens(text)


IDENTITY_CACHE = ".homeostat/identity.json"
# The repo part `context` and the hooks loaded last, held until the process ends: a session hook
# exits without teardown once its answer is out (`cli.main_entry`), and freeing the part's thousands
# of records one by one as the command returns would cost it ~3 ms at 10,000 rules.
_HELD: list[Loaded] = []


def open_session(
    kb: str | None,
    checkout: StrPath = ".",
    repo: str | None = None,
    *,
    say_scope: bool = True,
    kept: Loaded | None = None,
    own_part: bool = False,
) -> Session:
    """Load the corpus and find the audience: `repo` (a name from homeostat.yaml) only from a person
    at a terminal; the MCP server never passes one, so its scope comes from the checkout. A checkout
    that matches no repo is said on stderr (`say_scope`), or it would look like an empty KB. `kept`:
    the corpus a long-lived caller already holds, reused while the KB's key is unchanged. `own_part`:
    load only the part of the corpus the session's repo sees (`repo_part`), for `context` and the
    hooks, whose cost then follows the session's repo and `core`, not the whole KB."""
    root = kb_dir(kb)
    require_kb(root)  # before the identity cache is written there
    identity = checkout_identity(checkout, os.path.join(root, IDENTITY_CACHE))

    def repo_of(repos: list[tuple[str, str]]) -> str | None:
        return repo or session_repo(repos, identity.origin, identity.folder)

    loaded = load_corpus(root, kept, repo_of if own_part else None, answer_first=own_part)
    if own_part:
        _HELD[:] = [loaded]
    corpus = loaded.corpus
    note_unreadable(corpus.unreadable)
    names = [r.name for r in corpus.repos]
    if repo is not None and corpus.multi_repo and repo not in names:
        raise ConfigError(f"--repo {repo!r} is not a repo in homeostat.yaml (repos: {', '.join(names)})")
    name = repo_of([(r.name, r.url) for r in corpus.repos])
    member = find_member(
        corpus, handle=os.environ.get(MEMBER_VARIABLE), email=identity.email, name=identity.name
    )
    session = Session(root, loaded, identity, audience_for(corpus, name, member))
    unmatched = no_repo_note(session)
    if say_scope and unmatched:
        note(f"{unmatched}; pass --repo NAME")
    return session


def no_repo_note(session: Session) -> str:
    """What to say when the checkout matches no repo of a multi-repo KB (so only `core` is served)."""
    corpus, identity = session.corpus, session.identity
    if not corpus.multi_repo or session.audience.repo is not None:
        return ""
    where = f"origin {identity.origin}" if identity.origin else f"folder {identity.folder!r}, no origin"
    names = ", ".join(r.name for r in corpus.repos)
    return f"the checkout ({where}) matches no repo in homeostat.yaml (repos: {names}), so only core is shown"


def relative_paths(paths: Sequence[str], identity: Identity, base: StrPath) -> list[str]:
    """Touched paths relative to the checkout's top folder (absolute or base-relative paths are fine)."""
    out: list[str] = []
    top = identity.top
    inside = top.rstrip("/") + "/"
    for raw in paths:
        for piece in raw.split(","):
            text = piece.strip()
            if not text:
                continue
            if "\0" in text:  # no file's path holds one, and the OS refuses to look it up
                from homeostat.errors import HomeostatError

                raise HomeostatError(f"files: {text!r} holds a NUL character, which no path can")
            resolved = os.path.realpath(text if os.path.isabs(text) else os.path.join(base, text))
            if resolved == top:
                out.append(".")
            elif resolved.startswith(inside):
                out.append(resolved[len(inside) :])
            else:
                out.append(text.replace("\\", "/").removeprefix("./"))
    return list(dict.fromkeys(out))


def session_view(
    session: Session,
    files: Sequence[str],
    base: StrPath,
    session_id: str,
    budget_tokens: int | None = None,
    task: Sequence[str] = (),
) -> View:
    """The session-start view for the touched files (what `context` prints and the SessionStart hook
    sends), ranked by the task words too; with a session id, what it served is remembered for
    once-per-session matching."""
    touched = relative_paths(files, session.identity, base)
    budget = session.corpus.budget
    if budget_tokens is not None:
        budget = budget._replace(token_budget=budget_tokens)
    view = build_view(session.corpus, touched, session.audience, session.counter(), budget=budget, task=task)
    if session_id:
        know_at_start(session.kb, session_id, known_stamp(session), lambda: _visible(session))
        given = view.served_ids + tuple(s.key for s in view.sections)
        add_to_session(session.kb, session_id, {"files": touched, "given": given})
    return view


def known_stamp(session: Session) -> str:
    """What a session's known ids were added under (the corpus key and the audience): while the
    session's corpus and audience are those, every rule it may see is among them."""
    audience = session.audience
    stamp = f"{session.loaded.key} {audience.repo} {audience.member} {','.join(sorted(audience.teams))}"
    return sha256(stamp.encode()).hexdigest()[:24]


def _visible(session: Session) -> list[str]:
    """Every rule the session's audience may see: what it knew at its start."""
    corpus = session.corpus
    sees = {a: session.audience.sees(a, corpus) for a in {e.area for e in corpus.entries}}
    return [e.id for e in corpus.entries if sees[e.area]]


def session_task(text: str | None, off: bool, change: WorkingChange | None) -> tuple[str, ...]:
    """The task words: `--task TEXT`, else the branch and recent commits when the touched paths came
    from git (the same two git commands), else none; `--no-task` turns it off."""
    if off:
        return ()
    if text is not None:
        return task_words(stated=text)
    if change is None:
        return ()
    return task_words(change.branch, change.commits, change.changed)


def log_view(session: Session, view: View, started: float) -> None:
    wall = round((time.perf_counter() - started) * 1000)
    common: dict[str, Scalar] = {"source": "session-start", "repo": session.audience.repo or "", "ms": wall}
    ids = ",".join(view.served_ids)
    events: list[tuple[str, Mapping[str, Scalar]]] = [
        (
            "injection",
            {
                **common,
                "rules": len(view.placed),
                "tokens": view.tokens,
                "chars": view.chars,
                "cut": len(view.cut),
                "ids": ids,
            },
        ),
    ]
    if view.sections:
        keys = ",".join(s.key for s in view.sections)
        events.append(("doc-injection", {**common, "sections": len(view.sections), "ids": keys}))
    log_events(session.kb, events)


class PromptBlock(Record):
    """What one chat message gets: the new rules, the matches and the reminder, as one block."""

    block: Block
    match: PromptMatch
    new: list[Entry]


def prompt_block(session: Session, prompt: str, session_id: str) -> PromptBlock:
    """Rules new since the session started and the message's matches, each once per session (the
    session's `given` and `known` sets), then the one-line reminder; remembered for the session."""
    from homeostat.core.selection.search import match_prompt  # only a message is matched

    state = load_session(session.kb, session_id) if session_id else {}
    corpus, audience = session.corpus, session.audience
    match = match_prompt(corpus, prompt, audience, state.get("given", ()))
    count: Callable[[str], int] = session.counter()
    new = []
    if "known" in state:
        known = set(state["known"])
        current = state.get("knownAt") == [known_stamp(session)]  # then none is new
        ranked = (
            select_entries(corpus, state.get("files", []), audience).ranked
            if not current and _any_new(session, known)
            else ()
        )
        new = [r.entry for r in ranked if r.entry.id not in known and r.tier <= 3][:NEW_RULES_PER_PROMPT]
    block = join([render_new_rules(new, count), render_prompt(match, count)])
    given = [e.id for e in match.rules] + [s.key for s in match.sections] + [e.id for e in new]
    if session_id and (given or "given" not in state or "known" not in state):
        add_to_session(session.kb, session_id, {"given": given, "known": [e.id for e in new]})
    elif session_id:  # nothing to add: the file stays as it is, only marked as in use
        touch_session(session.kb, session_id)
    return PromptBlock(block, match, new)


def _any_new(session: Session, known: set[str]) -> bool:
    """Whether a rule the session may be served is not among those it knew at its start: ranking
    for the new ones costs a message as much as a session start, and there usually are none."""
    sees = visibility(session.corpus, session.audience)
    return any(
        e.id not in known and e.status in ("accepted", "pending") and sees(e.area)
        for e in session.corpus.entries
    )


def log_prompt(session: Session, result: PromptBlock, started: float) -> None:
    match, new, block = result.match, result.new, result.block
    wall = round((time.perf_counter() - started) * 1000)
    common: dict[str, Scalar] = {"source": "prompt", "repo": session.audience.repo or "", "ms": wall}
    events: list[tuple[str, Mapping[str, Scalar]]] = []
    if match.rules or new:
        ids = ",".join([e.id for e in match.rules] + [e.id for e in new])
        events.append(
            (
                "injection",
                {**common, "rules": len(match.rules) + len(new), "tokens": block.tokens, "ids": ids},
            )
        )
    if match.sections:
        keys = ",".join(s.key for s in match.sections)
        events.append(("doc-injection", {**common, "sections": len(match.sections), "ids": keys}))
    log_events(session.kb, events)
