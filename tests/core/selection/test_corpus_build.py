"""The cold build's shortcuts give what the plain build gives: token counts, words and the index.

Building the corpus (what `context` does when its cache is missing) counts a rule's whole view as its
rule-only view plus what follows, splits words with C string methods instead of two regex passes,
and counts each document's terms in one pass. Each shortcut is held here to the plain way it stands
for, over random text and over a KB with the awkward cases (hidden and non-ASCII characters,
apostrophes, camelCase, trailing spaces, CRLF, examples or none).
"""

from __future__ import annotations

import datetime as dt
import marshal
import os
import re
import shutil
import threading
from collections import Counter
from pathlib import Path

import pytest
from children import children
from hypothesis import given, settings
from hypothesis import strategies as st
from kit import REPO

from homeostat.adapters.cache.corpus_cache import build
from homeostat.adapters.forked import count_worker as count_worker_module
from homeostat.adapters.forked.count_worker import WORKER_MIN_BYTES, count_worker, kb_bytes
from homeostat.adapters.kb_files import load_kb_dir, read_tree
from homeostat.core.cost.tiktoken_count import count_tokens, splits_cleanly
from homeostat.core.cost.token_counts import TokenCounts, text_digest
from homeostat.core.kb import KB
from homeostat.core.pending import PendingLesson
from homeostat.core.schema import RuleMeta
from homeostat.core.scoring import score_rule
from homeostat.core.selection.build import ToCount, _scorer, build_corpus
from homeostat.core.selection.corpus_rows import rule_row
from homeostat.core.selection.entries import Entry, SectionEntry
from homeostat.core.selection.index import _index
from homeostat.core.selection.terms import _CAMEL, _HIDDEN, search_words, strip_hidden, term
from homeostat.core.similarity import STOPWORDS
from homeostat.core.text import identifiers, words

pytestmark = pytest.mark.usefixtures("lone_thread")  # these tests expect forked children

EXAMPLE = REPO / "examples" / "kb"

# Characters the tokenizer's pattern treats differently: letters, capitals, digits, apostrophes,
# punctuation, every kind of space and line break, accents, CJK, emoji and the hidden characters.
PIECES = list("aZq9'’.,:;!?*`#-_/()[]{}") + [" ", "  ", "\t", "\n", "\r\n", "\n\n", "\u00a0", "\u3000"]
PIECES += ["é", "ß", "日本", "🙂", "\u200b", "\u202e", "\ufeff", "'s", "'LL", "don't", "HTTPServer"]
PIECES += ["refundHandler", "a1B2", "x'yZ", "<|endoftext|>", "100", "12345", "Why:", "**Title**"]
text = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
ascii_text = st.lists(st.sampled_from([p for p in PIECES if p.isascii()]), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(head=text, tail=text)
def test_a_text_ending_in_a_newline_counts_apart_from_what_follows(head: str, tail: str) -> None:
    head += "\n"
    if splits_cleanly(head, tail):
        assert count_tokens(head + tail) == count_tokens(head) + count_tokens(tail)


def test_splits_cleanly_refuses_what_it_cannot_promise() -> None:
    assert splits_cleanly("rule.\n", "Why: because")
    assert not splits_cleanly("rule.", "Why: because")  # no newline: "." and "Why" may merge
    assert not splits_cleanly("rule\n", " indented")  # the whitespace run would span both
    assert not splits_cleanly("rule\n", "\nWhy")
    assert not splits_cleanly("rule\n", "")


def test_count_joined_keeps_the_whole_texts_count_for_the_next_run() -> None:
    counts = TokenCounts()
    head, tail = (
        "**Retry refunds** (refund-retries)\nRetry with backoff.\n",
        "Why: the gateway drops calls.\n",
    )
    whole = counts.count_joined(head, counts.count(head), tail)
    assert whole == count_tokens(head + tail)
    assert counts.used[text_digest(head + tail)] == whole  # validate looks the whole view up by digest
    again = TokenCounts(counts.used)
    assert again.count_joined(head, 0, tail) == whole and again.counted == 0  # trusted, not counted
    unclean = TokenCounts()
    assert unclean.count_joined("no newline", 3, " tail") == count_tokens("no newline tail")


@settings(max_examples=600, deadline=None)
@given(value=text)
def test_search_words_are_the_words_of_the_camel_split_text(value: str) -> None:
    assert search_words(value) == words(_CAMEL.sub(" ", value))


@settings(max_examples=600, deadline=None)
@given(value=ascii_text)
def test_search_words_of_ascii_text(value: str) -> None:
    assert search_words(value) == words(_CAMEL.sub(" ", value))


@settings(max_examples=300, deadline=None)
@given(
    value=st.lists(st.sampled_from([*PIECES, "`", "`", "src/api/app.py", "./x.py"]), max_size=40).map("".join)
)
def test_identifiers_are_every_name_in_every_backticked_span(value: str) -> None:
    plain = {
        m.group(0)
        for span in re.findall(r"`([^`\n]+)`", value)
        for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_.:/-]*[A-Za-z0-9_]", span)
    }
    assert identifiers(value) == plain


@settings(max_examples=300, deadline=None)
@given(value=text)
def test_stripping_hidden_characters_skips_ascii_text(value: str) -> None:
    assert strip_hidden(value) == _HIDDEN.sub("", value)
    assert not any(_HIDDEN.match(chr(c)) for c in range(128))  # so ASCII text has none to strip


def _plain_index(
    entries: list[Entry], sections: list[SectionEntry]
) -> tuple[dict[str, list[int]], tuple[int, ...], dict[str, str]]:
    """The index the way it was first written: a list of words, a Counter of their terms."""
    flat: dict[str, list[int]] = {}
    lengths: list[int] = []
    texts = [f"{e.title}\n{e.view}" for e in entries] + [
        f"{s.doc_title} {s.heading}\n{s.view}" for s in sections
    ]
    vocabulary: set[str] = set()
    for doc, value in enumerate(texts):
        found = [w for w in words(_CAMEL.sub(" ", value)) if w not in STOPWORDS]
        vocabulary.update(found)
        lengths.append(len(found))
        for key, tf in Counter([term(w) for w in found]).items():
            flat.setdefault(key, []).extend((doc, tf))
    return flat, tuple(lengths), {w: term(w) for w in sorted(vocabulary)}


AWKWARD = {
    "knowledge/core/awkward-text.md": (
        "---\nid: awkward-text\ntitle: Don't log the refundHandler's HTTPServer errors twice\narea: core\n"
        'scope: ["**"]\nstatus: accepted\nsource:\n  type: manual\n  author: ana\ncreated: 2026-01-01\n'
        "lastConfirmed: 2026-01-01\n---\n## Rule\nUse `log_once()` in `src/api/app.py`\u200b \u202e"
        "(the team's rule, 日本語 too) \n\n## Why\n  Duplicate\r\nlines cost 3× the tokens.\t\n\n"
        "## Example\n```py\nlog_once(err)  # <|endoftext|>\n```\n"
    ),
    "knowledge/core/plain-ascii.md": (
        "---\nid: plain-ascii\ntitle: Retry idempotent calls\narea: core\nscope: ['**/*.py']\n"
        "status: accepted\nsource:\n  type: manual\n  author: ana\ncreated: 2026-01-01\n"
        "lastConfirmed: 2026-01-01\n---\n## Rule\nRetry with `with_backoff()`.\n\n## Why\nThe gateway drops calls.\n"
    ),
}


def test_the_built_corpus_counts_and_indexes_as_the_plain_way(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".homeostat"))
    for rel, content in AWKWARD.items():
        (root / rel).write_text(content, encoding="utf-8")
    corpus = build(root)
    assert {"awkward-text", "plain-ascii"} <= {e.id for e in corpus.entries}
    assert any(not e.view.isascii() for e in corpus.entries)
    for entry in corpus.entries:
        assert entry.view.startswith(entry.short)
        assert entry.tokens == count_tokens(entry.view), entry.id
        assert entry.short_tokens == count_tokens(entry.short), entry.id
    assert corpus.sections
    for section in corpus.sections:
        assert section.tokens == count_tokens(section.view), section.key
    postings, lengths, stems = _plain_index(list(corpus.entries), list(corpus.sections))
    assert dict(corpus.postings) == postings
    assert list(corpus.postings) == list(postings)  # the same order, so the cached bytes are the same
    assert corpus.lengths == lengths
    assert dict(corpus.stems) == stems
    built = _index(corpus.entries, corpus.sections)
    assert list(built[0].items()) == list(postings.items())


# --- counting in a second process (adapters/forked/count_worker.py) -----------------------------------------


def _long_rule(n: int) -> str:
    """A rule long enough that its counts are large integers (a fresh object each, never shared)."""
    example = "\n".join(
        f"retry_{i}(gateway_{i * 7919}, timeout={i * 13}.5)  # step {i}" for i in range(40 + n)
    )
    return (
        f"---\nid: long-{n}\ntitle: Long rule {n}\narea: core\nscope: ['**']\nstatus: accepted\n"
        "source:\n  type: manual\n  author: ana\ncreated: 2026-01-01\nlastConfirmed: 2026-01-01\n---\n"
        "## Rule\nCall `retry()` before the gateway's timeout.\n\n## Why\nThe gateway drops calls.\n\n"
        f"## Example\n```py\n{example}\n```\n"
    )


def _worker_kb(tmp_path: Path) -> KB:
    root = tmp_path / "kb"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".homeostat"))
    for rel, content in AWKWARD.items():
        (root / rel).write_text(content, encoding="utf-8")
    for n in range(3):
        (root / f"knowledge/core/long-{n}.md").write_text(_long_rule(n), encoding="utf-8")
    return load_kb_dir(root)


# A long lesson (its counts large integers), twice: the second is looked up, so one process
# shares the first one's count objects with it.
PENDING = 2 * [
    PendingLesson(
        author="ana",
        created=dt.datetime(2026, 11, 1, tzinfo=dt.UTC),
        title="Use the users cache",
        rule="Read users through `UserCache`.",
        why="The database is slow.",
        example="\n".join(f"users_{i} = UserCache.read(user_id={i * 7919})" for i in range(60)),
        area="core",
    )
]


def _state(counts: TokenCounts) -> tuple[object, ...]:
    return list(counts.used.items()), list(counts.known.items()), counts.counted


@pytest.mark.parametrize("warm", [False, True])
def test_counting_in_a_child_gives_the_bytes_counting_here_gives(tmp_path: Path, warm: bool) -> None:
    """The same corpus to the byte (marshal writes an object held twice once, so the integers the
    child sends must be shared as one process shares them), and the same counts kept, in the same
    order; warm, with some counts known from an earlier run and some left unused."""
    kb = _worker_kb(tmp_path)
    earlier = TokenCounts()
    build_corpus(kb, PENDING, earlier)
    known = dict(list(earlier.used.items())[::2]) | {"0" * 24: 7} if warm else {}
    here = TokenCounts(known)
    plain = build_corpus(kb, PENDING, here)
    there = TokenCounts(known)
    with count_worker(there, WORKER_MIN_BYTES) as counter:
        assert counter is not None
        beside = build_corpus(kb, PENDING, there, counter)
    assert all(e.tokens > 256 for e in plain.entries if e.pending)  # integers no cache shares
    assert any(e.pending for e in plain.entries) and plain.sections and plain.line_tokens
    assert marshal.dumps(beside.to_data()) == marshal.dumps(plain.to_data())
    assert _state(there) == _state(here)


def _rule_texts(kb: KB) -> list[tuple[str, str]]:
    """The rules' texts a build counts first (`ToCount.rules`), in its order."""
    return [(row.entry.short, row.rest) for row in (rule_row(rule) for rule in kb.rules)]


def _counted_where(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A file each process that counts a build's texts (`count_texts`) writes its pid to."""
    log = tmp_path / "counted-by"
    real = count_worker_module.count_texts

    def spied(todo: ToCount, counts: TokenCounts) -> list[int]:
        with log.open("a", encoding="ascii") as out:
            out.write(f"{os.getpid()}\n")
        return real(todo, counts)

    monkeypatch.setattr(count_worker_module, "count_texts", spied)
    return log


@pytest.mark.parametrize(("warm", "head"), [(False, "first"), (True, "first"), (False, "not first")])
def test_texts_sent_ahead_are_counted_in_the_child_in_the_builds_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warm: bool, head: str
) -> None:
    """The first rules' texts sent before the build gathers the rest (as a cold build sends those
    it read itself while the parse child reads the others): the same corpus to the byte and the
    same counts kept in the same order as one process gives, every text counted in the child. A
    head that is not the build's first rules lets the child go, and this process counts them all."""
    kb = _worker_kb(tmp_path)
    earlier = TokenCounts()
    build_corpus(kb, PENDING, earlier)
    known = dict(list(earlier.used.items())[1::3]) if warm else {}
    here = TokenCounts(known)
    plain = build_corpus(kb, PENDING, here)
    log = _counted_where(monkeypatch, tmp_path)
    there = TokenCounts(known)
    before = children()
    with count_worker(there, WORKER_MIN_BYTES) as counter:
        assert counter is not None
        counter.ahead(_rule_texts(kb)[:5] if head == "first" else _rule_texts(kb)[1:4])
        beside = build_corpus(kb, PENDING, there, counter)
        if head != "first":
            assert children() <= before  # the child that counted the wrong head was let go
    assert marshal.dumps(beside.to_data()) == marshal.dumps(plain.to_data())
    assert _state(there) == _state(here)
    pids = log.read_text("ascii").split()
    if head == "first":
        assert len(pids) == 2 and str(os.getpid()) not in pids  # the head, then the rest, in the child
    else:
        assert str(os.getpid()) in pids


def test_a_failing_child_leaves_the_counting_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = _worker_kb(tmp_path)
    here = TokenCounts()
    plain = build_corpus(kb, PENDING, here)
    monkeypatch.setattr(count_worker_module, "_child", lambda *_: os._exit(1))
    there = TokenCounts()
    with count_worker(there, WORKER_MIN_BYTES) as counter:
        beside = build_corpus(kb, PENDING, there, counter)
    assert marshal.dumps(beside.to_data()) == marshal.dumps(plain.to_data())
    assert _state(there) == _state(here)


def test_a_build_that_fails_lets_its_child_go(tmp_path: Path) -> None:
    before = children()
    with pytest.raises(RuntimeError), count_worker(TokenCounts(), WORKER_MIN_BYTES) as counter:
        assert counter is not None
        raise RuntimeError("the KB could not be read")
    assert children() <= before  # no child left behind (another test's may still run)


def test_no_child_for_a_small_kb_or_beside_other_threads() -> None:
    with count_worker(TokenCounts(), WORKER_MIN_BYTES - 1) as counter:
        assert counter is None
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        with count_worker(TokenCounts(), WORKER_MIN_BYTES) as counter:
            assert counter is None
    finally:
        stop.set()
        thread.join()


def test_reading_the_tree_gives_the_paths_pathlib_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`read_tree` walks with strings; the map is the one a Path per file gave, in the same order,
    from an absolute root and from a relative one."""
    root = tmp_path / "kb"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".homeostat"))
    (root / "knowledge/core/deep/er").mkdir(parents=True)
    (root / "knowledge/core/deep/er/odd name é.md").write_bytes(b"\xff not UTF-8")
    for where in (root, Path("kb")):
        monkeypatch.chdir(tmp_path)
        plain: dict[str, str | bytes] = {"homeostat.yaml": (root / "homeostat.yaml").read_text("utf-8")}
        for dirpath, dirnames, filenames in os.walk(where / "knowledge"):
            dirnames[:] = sorted(d for d in dirnames if d not in {".git", ".homeostat"})
            for name in filenames:
                rel = (Path(dirpath) / name).relative_to(where).as_posix()
                data = (where / rel).read_bytes()
                try:
                    plain[rel] = data.decode("utf-8")
                except UnicodeDecodeError:
                    plain[rel] = data
        plain.setdefault("knowledge/", b"")
        assert list(read_tree(where).items()) == list(plain.items())


@settings(max_examples=300, deadline=None)
@given(
    kinds=st.lists(
        st.tuples(
            st.sampled_from(["pr-feedback", "manual", "agent-handoff", "deep-dive"]),
            st.sampled_from([None, True, False]),
            st.sampled_from(["", "ana", "bo", "cy", "dee", "nobody"]),
            st.integers(0, 3),  # contradicts
            st.lists(st.booleans(), max_size=3),  # flags, resolved or not
            st.integers(0, 2),  # conflicts declared on the other side
        ),
        min_size=1,
        max_size=12,
    ),
    weight=st.sampled_from([1, 3, 200, 900]),
)
def test_scores_worked_out_once_per_combination_are_score_rules(
    kinds: list[tuple[str, bool | None, str, int, list[bool], int]], weight: int
) -> None:
    """The scorer's totals are `score_rule`'s, and it keeps only totals CPython shares anyway, so
    the cached corpus's bytes cannot tell the two apart."""
    config = load_kb_dir(EXAMPLE).require_config()
    weights = config.scoring.weights.model_copy(update={"pr_feedback": weight, "conflict": -weight})
    config = config.model_copy(update={"scoring": config.scoring.model_copy(update={"weights": weights})})
    metas = []
    for n, (kind, changed, author, contradicts, flags, _) in enumerate(kinds):
        source: dict[str, object] = {"type": kind, "author": author}
        if changed is not None:
            source["changedCode"] = changed
        meta = {
            "id": f"rule-{n}",
            "title": "A rule",
            "area": "core",
            "scope": ["**"],
            "status": "accepted",
            "source": source,
            "created": "2026-01-01",
            "lastConfirmed": "2026-01-01",
            "contradicts": [f"other-{i}" for i in range(contradicts)],
            "flags": [{"by": "ana", "at": "2026-01-02", "reason": "old", "resolved": r} for r in flags],
        }
        metas.append(RuleMeta.model_validate(meta))
    conflicts = {f"rule-{n}": c for n, (*_, c) in enumerate(kinds) if c}
    scored = _scorer(config, conflicts)
    for meta in metas + metas:
        source = meta.source
        key = (source.type, source.changed_code, source.author, len(meta.contradicts), len(meta.open_flags))
        total = scored(meta.id, key)
        assert total == score_rule(meta, config, conflicts.get(meta.id, 0)).total
        if not -5 <= total <= 256:  # a fresh object each time, as score_rule's sum is
            assert scored(meta.id, key) is not total


def test_the_kb_size_is_counted_until_it_is_enough(tmp_path: Path) -> None:
    """What decides on a second process, before the KB is read: every file under knowledge/, and
    no more of them than it takes to reach the size that decides."""
    root = tmp_path / "kb"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".homeostat"))
    total = sum(p.stat().st_size for p in (root / "knowledge").rglob("*") if p.is_file())
    assert kb_bytes(root, 10**12) == total
    assert 1 <= kb_bytes(root, 1) < total
    assert kb_bytes(tmp_path / "missing") == 0


def test_counts_are_kept_in_the_order_the_build_has_always_counted(tmp_path: Path) -> None:
    """`tokens.json` keeps the counts in the order they were looked up: each rule's rule-only form,
    then its whole form; each pending entry's whole form, then its rule-only form; each section;
    each line of the view's frame. Gathering the texts first (`ToCount`) keeps that order."""
    kb = _worker_kb(tmp_path)
    counts = TokenCounts()
    corpus = build_corpus(kb, PENDING, counts)
    texts = [text for e in corpus.entries if not e.pending for text in (e.short, e.view)]
    texts += [text for e in corpus.entries if e.pending for text in (e.view, e.short)]
    texts += [s.view for s in corpus.sections] + list(corpus.line_tokens)
    assert list(counts.used) == list(dict.fromkeys(text_digest(text) for text in texts))
