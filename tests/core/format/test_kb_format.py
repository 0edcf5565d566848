"""Loading and writing the KB: every command reads the same files the same way, byte-stable."""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

import pytest
from gitfixtures import commit, make_origin_and_clone
from kbfactory import EXAMPLE, example_files
from kit import REPO

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.kb_files import load_kb_dir, load_kb_ref, read_tree
from homeostat.core.format.parse import is_topic_file, parse_topic_file
from homeostat.core.format.write import (
    render_rule,
    render_rule_file,
    render_topic_file,
    render_topic_section,
    upsert_topic_section,
)
from homeostat.core.kb import load_kb
from homeostat.core.schema import RuleMeta, Source
from homeostat.core.text import count_words, is_valid_id, slugify
from homeostat.errors import KBReadError


def _round_trip(files: dict[str, str]) -> dict[str, str]:
    """Write every rule and topic file back from what was loaded."""
    kb = load_kb(files)
    out = dict(files)
    for rule in kb.rules:
        if not rule.in_topic_file:
            out[rule.file] = render_rule(rule)
    for topic in kb.topic_files:
        sections = [(r.id, render_rule(r)) for r in kb.rules if r.file == topic.file]
        out[topic.file] = render_topic_file(topic.area, topic.topic, sections)
    return out


def test_example_kb_loads_rules_topics_and_documents() -> None:
    kb = load_kb(example_files())
    assert kb.problems == ()
    assert sorted(r.virtual_path for r in kb.rules) == [
        "billing/api/billing-api-error-status-table.md",
        "billing/api/billing-api-integer-minor-units.md",
        "billing/db/migrations-expand-then-contract.md",
        "core/log-with-fields.md",
        "storefront/ui/no-router-rewrite.md",
        "storefront/ui/use-theme-spacing.md",
    ]
    money = kb.rule("billing-api-integer-minor-units")
    assert money is not None and money.in_topic_file and money.meta.topic == "money"
    assert money.example == '`Money(1999, "EUR")` rather than `19.99`.'
    assert money.meta.also_from == ("https://github.com/example/billing/pull/63#discussion_r9100000123",)
    doc = kb.document("billing/api/overview")
    assert doc is not None and [s.id for s in doc.sections] == ["request-path", "errors"]
    assert doc.sections[1].provenance is not None and doc.sections[1].provenance.confidence == "80"


def test_unchanged_example_writes_back_byte_identical() -> None:
    files = example_files()
    assert _round_trip(files) == files


def test_shared_format_contract_writes_back_byte_identical(shared_kb: Path) -> None:
    files = example_files(shared_kb)
    kb = load_kb(files)
    assert kb.problems == ()
    assert len(kb.rules) == 6 and len(kb.documents) == 1
    assert _round_trip(files) == files


def test_loading_from_a_git_ref_matches_the_working_tree(tmp_path: Path) -> None:
    origin, clone = make_origin_and_clone(tmp_path, {})
    commit(clone, {rel: text for rel, text in example_files().items()}, "kb", push=True)
    from_ref = load_kb_ref(Git(origin), "main")
    from_tree = load_kb_dir(EXAMPLE)
    assert [r.virtual_path for r in from_ref.rules] == [r.virtual_path for r in from_tree.rules]
    assert from_ref.files["homeostat.yaml"] == from_tree.files["homeostat.yaml"]


def test_topic_upsert_replaces_one_section_and_keeps_every_other_byte() -> None:
    files = example_files()
    path = "knowledge/billing/api/money.md"
    kb = load_kb(files)
    topic = next(t for t in kb.topic_files if t.file == path)
    rule = kb.rule("billing-api-integer-minor-units")
    assert rule is not None
    changed = render_topic_section(rule.meta, rule.rule, "Rounding made a refund short.", rule.example)
    text = upsert_topic_section(files[path], topic, rule.id, changed)
    assert "Rounding made a refund short." in text
    assert (
        text.replace(
            "Rounding made a refund short.", "Float rounding made a refund one cent short in October."
        )
        == files[path]
    )


def test_topic_upsert_inserts_new_sections_sorted_by_id() -> None:
    files = example_files()
    path = "knowledge/billing/api/errors.md"
    topic_file, _, _ = parse_topic_file(path, files[path], "billing/api")
    assert topic_file is not None
    meta = RuleMeta(
        id="billing-api-aaa-first",
        title="First by id",
        area="billing/api",
        scope=("src/billing/api/**",),
        status="accepted",
        source=Source(type="manual", author="bo"),
        created=dt.date(2026, 11, 1),
        last_confirmed=dt.date(2026, 11, 1),
    )
    text = upsert_topic_section(
        files[path], topic_file, meta.id, render_topic_section(meta, "Do the thing.", "Because.", None)
    )
    kb = load_kb({**files, path: text})
    assert kb.problems == ()
    assert [r.id for r in kb.rules if r.file == path] == [
        "billing-api-aaa-first",
        "billing-api-error-status-table",
    ]
    assert text.endswith(files[path].split("---\n", 2)[2])


def test_new_rule_file_renders_in_the_canonical_form() -> None:
    meta = RuleMeta(
        id="use-idempotency-keys",
        title="Send an Idempotency-Key with every POST: retries stay safe",
        area="billing/api",
        scope=("src/billing/api/**/*.py",),
        status="candidate",
        source=Source(type="manual", author="ana"),
        created=dt.date(2026, 11, 2),
        last_confirmed=dt.date(2026, 11, 2),
    )
    text = render_rule_file(meta, "Always send one.", "Retries.", None)
    assert text.startswith(
        '---\nid: use-idempotency-keys\ntitle: "Send an Idempotency-Key with every POST: retries stay safe"\n'
    )
    assert 'scope: ["src/billing/api/**/*.py"]' in text
    kb = load_kb({"homeostat.yaml": "{}\n", "knowledge/billing/api/use-idempotency-keys.md": text})
    assert kb.rules[0].meta == meta


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Use design tokens for colours", "use-design-tokens-for-colours"),
        ("Évitez les requêtes N+1", "evitez-les-requetes-n-1"),
        ("エラーは問題詳細で返す", "エラーは問題詳細で返す"),
        ("데이터베이스 마이그레이션", "데이터베이스-마이그레이션"),
        ("!!! ??? ...", None),
        ("", None),
    ],
)
def test_ids_from_titles_in_any_script_are_valid_and_never_empty(title: str, expected: str | None) -> None:
    slug = slugify(title)
    assert slug and is_valid_id(slug)
    if expected is not None:
        assert slug == expected
    else:
        assert slug.startswith("rule-")


def test_word_counts_count_cjk_characters() -> None:
    assert count_words("Use `Money` for amounts") == 4
    assert count_words("金額は整数で") == 3  # six characters of a script without spaces: three words
    assert count_words("金") == 1
    assert count_words("금액은 정수로 저장") == 3  # Korean spaces its words
    assert count_words("Use `Money` 金額") == 3


def test_missing_kb_pieces_are_read_errors(tmp_path: Path) -> None:
    with pytest.raises(KBReadError, match="does not exist"):
        read_tree(tmp_path / "nope")
    with pytest.raises(KBReadError, match="no homeostat.yaml"):
        read_tree(tmp_path)
    (tmp_path / "homeostat.yaml").write_text("{}\n")
    with pytest.raises(KBReadError, match="no knowledge/ folder"):
        read_tree(tmp_path)


def test_topic_file_detection() -> None:
    files = example_files()
    assert is_topic_file(files["knowledge/billing/api/errors.md"])
    assert not is_topic_file(files["knowledge/core/log-with-fields.md"])


@pytest.mark.parametrize(
    ("path", "ignored"),
    [
        ("examples/kb/.homeostat/events.db", True),
        ("examples/kb/.homeostat/events.jsonl", True),
        ("examples/kb/.homeostat/identity.json", True),
        ("examples/kb/.homeostat/index/corpus-0.marshal", True),
        ("examples/kb/.homeostat/sessions/s.json", True),
        ("examples/kb/.homeostat/pending/0cefda65a0981468.json", False),
    ],
)
def test_running_the_readme_on_the_example_leaves_only_its_pending_lessons_tracked(
    path: str, ignored: bool
) -> None:
    """The README's commands write the event log, the index and the git user's identity into
    examples/kb/.homeostat/: none of it may show up in `git status` of a fresh clone."""
    repo = REPO
    if not (repo / ".git").exists():
        pytest.skip("not a git clone of the project")
    done = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=repo, check=False)
    assert (done.returncode == 0) is ignored
