"""The cold build's parse split gives what one process gives, and the cached corpus's bytes depend on
its values alone.

A large KB's last rule files are parsed in a forked child (adapters/forked/parse_worker.py), which sends
what the corpus takes from each rule (core/selection/corpus_rows.py); the corpus is written in a form where
every equal value is one object (`search_index._canonical`). Held here: the same corpus, the same
cached bytes and the same token counts kept, with no child, with the counting child alone and with
both, over a KB whose later files hold what is awkward to merge (a topic file with an unreadable
section, a broken rule file, a broken document among the child's files, contradictions across the
split, pending lessons, one of them already landed).
"""

from __future__ import annotations

import datetime as dt
import marshal
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from kit import REPO

from homeostat.adapters.cache import corpus_cache as search_index
from homeostat.adapters.cache.corpus_cache import PENDING_DIR, _dumped, build
from homeostat.adapters.cache.token_memo import TOKENS_FILE
from homeostat.adapters.forked import answer as child_answer
from homeostat.adapters.forked import count_worker as count_worker_module
from homeostat.adapters.forked import parse_worker, write_behind
from homeostat.adapters.kb_files import load_kb_dir, read_tree
from homeostat.core.cost.token_counts import TokenCounts
from homeostat.core.kb import load_kb
from homeostat.core.pending import PendingLesson
from homeostat.core.selection import build as corpus_build
from homeostat.core.selection import corpus_rows, parts
from homeostat.core.selection.build import ToCount, build_corpus
from homeostat.core.selection.corpus import Corpus
from homeostat.core.selection.corpus_rows import merged_rows, rows_data, rule_row
from homeostat.core.selection.parts import repo_part

pytestmark = pytest.mark.usefixtures("lone_thread")  # these tests expect forked children

EXAMPLE = REPO / "examples" / "kb"
META = "status: accepted\nsource:\n  type: manual\n  author: ana\ncreated: 2026-01-01\nlastConfirmed: 2026-01-01\n"


def _rule(rule_id: str, area: str, extra: str = "") -> str:
    return (
        f"---\nid: {rule_id}\ntitle: Rule {rule_id}\narea: {area}\nscope: ['src/{rule_id}/**']\n{META}{extra}"
        f"---\n## Rule\nCall `{rule_id}()` in `src/{rule_id}/app.py`.\n\n## Why\nIt was slow.\n"
    )


def _section(rule_id: str, status: str = "accepted") -> str:
    return (
        f"## Topic rule {rule_id} {{#{rule_id}}}\n<!-- homeostat\nscope: ['src/{rule_id}/**']\n"
        + META.replace("status: accepted", f"status: {status}")
        + f"-->\n### Rule\nUse `{rule_id}`.\n\n### Why\nBecause of `{rule_id}.py`.\n"
    )


def _awkward_kb(root: Path) -> Path:
    """The example KB and more, the awkward cases among the last files by path (the child's)."""
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".homeostat"))
    ui = root / "knowledge/storefront/ui"
    for n in range(12):
        extra = "contradicts: [billing-api-error-status-table]\n" if n == 7 else ""
        (ui / f"rule-{n:02}.md").write_text(_rule(f"ui-rule-{n:02}", "storefront/ui", extra), "utf-8")
    (ui / "rule-05.md").write_text("---\nid: rule-05\ntitle: [unclosed\n---\n## Rule\nx\n", "utf-8")
    topic = "---\narea: storefront/ui\ntopic: zz\n---\n" + "".join(
        _section(f"zz-{n}", "bogus" if n == 2 else "accepted") for n in range(5)
    )
    (ui / "zz-topic.md").write_text(topic, "utf-8")
    (ui / "docs").mkdir()
    (ui / "docs/broken.md").write_text("no frontmatter here\n", "utf-8")
    (root / "knowledge/core/early.md").write_text(
        _rule("early", "core", "contradicts: [ui-rule-03]\n"), "utf-8"
    )
    early_topic = "---\narea: core\ntopic: aa\n---\n" + "".join(
        _section(f"aa-{n}", "bogus" if n == 1 else "accepted") for n in range(3)
    )
    (root / "knowledge/core/aa-topic.md").write_text(early_topic, "utf-8")  # read here, one part unreadable
    pending = root / PENDING_DIR
    pending.mkdir(parents=True)
    made = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    landed = PendingLesson(
        author="ana", created=made, title="Rule ui-rule-09", rule="Call `ui-rule-09()` in `src/ui-rule-09/app.py`.",
        why="It was slow.", area="storefront/ui",
    )  # fmt: skip
    new = PendingLesson(
        author="ana", created=made, title="Use the users cache", rule="Read users through `UserCache`.",
        why="The database is slow.", area="core",
    )  # fmt: skip
    for n, lesson in enumerate((landed, new)):
        (pending / f"{n}.json").write_text(lesson.to_json(), "utf-8")
    return root


def _children(monkeypatch: pytest.MonkeyPatch, counting: bool, parsing: bool) -> None:
    monkeypatch.setattr(count_worker_module, "WORKER_MIN_BYTES", 0 if counting else 10**12)
    monkeypatch.setattr(parse_worker, "PARSE_MIN_BYTES", 0 if parsing else 10**12)
    monkeypatch.setattr(parse_worker, "CHILD_SHARE", 0.45)  # the awkward files among the child's


def _built(root: Path) -> tuple[Corpus, bytes, bytes]:
    """A cold build's corpus, its cached bytes and the token counts it kept."""
    shutil.rmtree(root / ".homeostat/index", ignore_errors=True)
    corpus = build(root)
    return corpus, _dumped(corpus), (root / TOKENS_FILE).read_bytes()


def test_the_awkward_cases_are_in_the_childs_share(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _awkward_kb(tmp_path / "kb")
    _children(monkeypatch, True, True)
    files = read_tree(root)
    share = parse_worker.child_share(files)
    assert "knowledge/storefront/ui/zz-topic.md" in share and "knowledge/storefront/ui/rule-05.md" in share
    assert "knowledge/core/early.md" not in share and not any("/docs/" in p for p in share)
    assert "knowledge/core/aa-topic.md" not in share
    assert share == sorted(share) and share[-1] == max(p for p in files if p.endswith(".md"))
    kb = load_kb(files)
    assert any(u.file.endswith("zz-topic.md") for u in kb.unreadable)  # the bogus section
    assert any(u.file.endswith("rule-05.md") for u in kb.unreadable)
    assert any(u.file.endswith("docs/broken.md") for u in kb.unreadable)


@pytest.mark.parametrize("counting", [False, True])
def test_a_build_read_in_two_processes_is_the_build_read_in_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, counting: bool
) -> None:
    """The same corpus, cached bytes and kept counts; the child's rows were the ones used."""
    root = _awkward_kb(tmp_path / "kb")
    _children(monkeypatch, False, False)
    plain, plain_bytes, plain_counts = _built(root)
    assert any(e.pending for e in plain.entries) and plain.unreadable and plain.sections
    assert "pending" not in {e.status for e in plain.entries if e.title == "Rule ui-rule-09"}  # landed
    merged: list[int] = []

    def spied(here: Any, apart: Any) -> Any:
        merged.append(len(apart))
        return merged_rows(here, apart)

    monkeypatch.setattr(corpus_rows, "merged_rows", spied)
    blocks: list[int] = []  # how many rules' index came from the child
    index = corpus_build._index

    def spied_index(entries: Any, sections: Any, block: Any = None) -> Any:
        blocks.append(0 if block is None else len(block[1][1]))
        return index(entries, sections, block)

    monkeypatch.setattr(corpus_build, "_index", spied_index)
    counted_by: list[int] = []  # the processes that counted, as this process sees them
    sent_ahead: list[int] = []
    count_texts, ahead = count_worker_module.count_texts, count_worker_module.Worker.ahead

    def counted(todo: Any, counts: TokenCounts) -> list[int]:
        counted_by.append(os.getpid())
        return count_texts(todo, counts)

    def spied_ahead(worker: Any, rules: list[tuple[str, str]]) -> None:
        sent_ahead.append(len(rules))
        ahead(worker, rules)

    monkeypatch.setattr(count_worker_module, "count_texts", counted)
    monkeypatch.setattr(count_worker_module.Worker, "ahead", spied_ahead)
    _children(monkeypatch, counting, True)
    split, split_bytes, split_counts = _built(root)
    assert merged and merged[0] > 0 if counting else not merged  # a split needs the counting child's fork
    assert not counted_by  # never counted here: the child counted every text
    share = set(parse_worker.child_share(read_tree(root)))
    read_here = [e for e in plain.entries if not e.pending and e.file not in share]
    assert any(u[0].endswith("aa-topic.md") for u in plain.unreadable)  # read here, its rules not served
    assert not any(e.file.endswith("aa-topic.md") for e in plain.entries)
    assert sent_ahead == ([len(read_here)] if counting else [])  # the rules read here went ahead
    served_apart = [e for e in plain.entries if not e.pending and e.file in share]
    assert blocks == [len(served_apart) if counting else 0] and (served_apart or not counting)
    assert split == plain
    assert split_bytes == plain_bytes
    assert split_counts == plain_counts
    for repo in ("billing", "storefront", None):
        assert _dumped(repo_part(split, repo)) == _dumped(repo_part(plain, repo))


@pytest.mark.parametrize("repo", ["billing", "storefront", None])
def test_a_session_build_counts_its_part_first_and_the_rest_gives_the_whole_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo: str | None
) -> None:
    """A cold session hook's build (`_build` with the session's repo) counts only its part's texts
    before it answers: the part is the whole corpus's part, the other rules wait with no count, and
    the function left for the writer gives the whole corpus and the same token counts kept."""
    monkeypatch.setattr(write_behind, "BEHIND_MIN_RECORDS", 0)  # the writer surely behind the answer
    root = _awkward_kb(tmp_path / "kb")
    _children(monkeypatch, False, False)
    plain, _, plain_counts = _built(root)
    sent: list[ToCount] = []
    call = count_worker_module.Worker.__call__

    def spied(worker: Any, todo: ToCount) -> Any:
        sent.append(todo)
        return call(worker, todo)

    monkeypatch.setattr(count_worker_module.Worker, "__call__", spied)
    _children(monkeypatch, True, True)
    shutil.rmtree(root / ".homeostat/index")
    first, counts, whole = search_index._build(root, lambda _repos: repo)
    kept = parts.part_areas(repo)
    assert repo_part(first, repo) == repo_part(plain, repo)
    later = [e for e in first.entries if not kept(e.area)]
    assert later and all(e.tokens == e.short_tokens == 0 for e in later)
    assert all(e.tokens > 0 for e in first.entries if kept(e.area))
    assert len(sent[0].rules) == len([e for e in plain.entries if not e.pending and kept(e.area)])
    assert whole() == plain
    search_index._save_counts(root, counts)
    assert (root / TOKENS_FILE).read_bytes() == plain_counts


def test_a_session_build_written_in_process_counts_everything_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the rules read here are too few for the writer to be a detached process, nothing is
    left to count after the answer (it would load the tokenizer here)."""
    monkeypatch.setattr(write_behind, "BEHIND_MIN_RECORDS", 10**9)
    root = _awkward_kb(tmp_path / "kb")
    _children(monkeypatch, False, False)
    plain, _, _ = _built(root)
    _children(monkeypatch, True, True)
    shutil.rmtree(root / ".homeostat/index")
    first, _, whole = search_index._build(root, lambda _repos: "billing")
    assert first == plain and whole() == plain


def test_a_failing_parse_child_leaves_the_reading_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _awkward_kb(tmp_path / "kb")
    _children(monkeypatch, False, False)
    plain, plain_bytes, _ = _built(root)
    _children(monkeypatch, True, True)
    waited: list[int] = []
    wait = child_answer.reaped

    def reaped(pid: int) -> int:
        waited.append(pid)
        return wait(pid)

    monkeypatch.setattr(child_answer, "reaped", reaped)  # as `received` waits
    monkeypatch.setattr(parse_worker, "reaped", reaped)  # as `close` waits
    for failing in (lambda *_: os._exit(1), lambda _files, _paths, fd: (os.write(fd, b"junk"), os._exit(0))):
        monkeypatch.setattr(parse_worker, "_child", failing)
        corpus, dumped, _ = _built(root)
        assert corpus == plain and dumped == plain_bytes
    assert len(waited) >= 2  # the two parse children (and the counting children, through `answer`)
    for pid in waited:  # each child was waited for: none is left behind
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_rows_from_elsewhere_are_checked_against_the_files_asked_for() -> None:
    row = rows_data([rule_row(load_kb_dir(EXAMPLE).rules[0])])[0]
    asked = ["knowledge/a.md"]
    indexed: Any = ({"call": [0, 1]}, [4], {"call": "call"})
    assert parse_worker._checked(([("knowledge/a.md", [row], [])], indexed), asked) is not None
    for wrong in (
        [("knowledge/b.md", [row], [])],
        [("knowledge/a.md", [row[:-1]], [])],
        [("knowledge/a.md", [row], [("f", 1, "m")])],
        [],
        {"knowledge/a.md": []},
    ):
        assert parse_worker._checked((wrong, indexed), asked) is None
    for index in (({}, [], {}), ({"call": (0, 1)}, [4], {}), [{}, [4], {}], ({}, [4])):  # one rule served
        assert parse_worker._checked(([("knowledge/a.md", [row], [])], index), asked) is None
    assert parse_worker._checked([("knowledge/a.md", [row], [])], asked) is None  # rows without an index


def test_no_split_for_a_small_kb_or_one_with_a_file_that_is_not_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _awkward_kb(tmp_path / "kb")
    files = read_tree(root)
    assert parse_worker.child_share(files) == []  # below PARSE_MIN_BYTES
    monkeypatch.setattr(parse_worker, "PARSE_MIN_BYTES", 0)
    assert parse_worker.child_share(files)
    (root / "knowledge/storefront/ui/bad.md").write_bytes(b"\xff not UTF-8")
    assert parse_worker.child_share(read_tree(root)) == []


# --- the cached bytes depend on the values alone -------------------------------------------------


def _interned(text: str) -> bool:
    """Whether `text` is the interned string of its value (marshal marks those: an interned one is
    one whichever process made it, a literal in the code or read from one)."""
    return sys.intern((text + ".")[:-1]) is text


def _fresh(value: Any) -> Any:
    """The same values, every string (but an interned one) and tuple a new object."""
    if type(value) is str:
        return value if _interned(value) else (value + ".")[:-1]
    if type(value) in (list, tuple):
        return type(value)([_fresh(v) for v in value])
    if type(value) is dict:
        return {_fresh(k): _fresh(v) for k, v in value.items()}
    return value


def _shared(value: Any, memo: dict[tuple[Any, ...], Any]) -> Any:
    """The same values, every equal string and tuple one object."""
    if type(value) is list:
        return [_shared(v, memo) for v in value]
    if type(value) is dict:
        return {_shared(k, memo): _shared(v, memo) for k, v in value.items()}
    if type(value) is tuple:
        value = tuple(_shared(v, memo) for v in value)
    if type(value) is str:
        return memo.setdefault((str, value, _interned(value)), value)
    if type(value) is tuple:
        return memo.setdefault((tuple, value), value)
    return value


def test_the_cached_bytes_do_not_depend_on_which_equal_values_are_one_object(tmp_path: Path) -> None:
    root = _awkward_kb(tmp_path / "kb")
    corpus = build_corpus(load_kb_dir(root), (), TokenCounts())
    data = corpus.to_data()
    fresh, shared = _fresh(data), _shared(data, {})
    assert marshal.dumps(fresh) != marshal.dumps(shared)  # what marshal alone would write differs
    expected = _dumped(corpus)
    for variant in (fresh, shared):
        assert _dumped(Corpus.from_data(variant)) == expected
    assert Corpus.from_data(marshal.loads(expected)).to_data() == data
