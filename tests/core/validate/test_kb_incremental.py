"""The daily run reads the base KB once and each edit as a change to it (`KB.with_files`, the topic
file re-read section by section) and checks an edit by the sections it changed (`FileErrors`).
Both must give exactly what reading and validating the edited files whole gives."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from kbfactory import example_files

from homeostat.core.kb import KB, load_kb
from homeostat.core.validate import new_errors, validate_kb
from homeostat.core.validate.files import FileErrors
from homeostat.runs.daily.decide import draft_errors

TODAY = dt.date(2026, 12, 1)
TOPIC = "knowledge/billing/api/money.md"


def section(n: int, rule: str = "") -> str:
    return (
        f"## Rule number {n} {{#billing-api-rule-{n}}}\n"
        "<!-- homeostat\n"
        'scope: ["src/billing/**/*.py"]\n'
        "status: accepted\nkind: convention\napprovedBy: [bo]\n"
        "source:\n  type: manual\n  author: bo\n"
        "created: 2026-10-02\nlastConfirmed: 2026-11-20\n"
        "-->\n"
        f"### Rule\n{rule or f'Call check_{n}() before saving record {n}.'}\n\n"
        f"### Why\nRecord {n} was saved unchecked.\n\n"
    )


def base_files(sections: int = 30) -> dict[str, str]:
    files = example_files()
    head = "---\narea: billing/api\ntopic: money\n---\n"
    files[TOPIC] = head + "".join(section(n) for n in range(sections))
    return files


# edits a lesson or a reviewer may make to one section's text, including ones that break it
BREAKS = [
    lambda n: section(n, "Store `float` amounts; see [the notes](/etc/passwd)."),
    lambda n: section(n).replace("status: accepted", "status: bogus"),
    lambda n: section(n).replace("created: 2026-10-02", "created: 2027-10-02"),
    lambda n: section(n).replace(f"{{#billing-api-rule-{n}}}", "{#billing-api-integer-minor-units}"),
    lambda n: section(n).replace(f" {{#billing-api-rule-{n}}}", ""),
    lambda n: section(n).replace("-->\n", "contradicts: [no-such-rule]\n-->\n"),
    lambda n: section(n, "```python\nopen fence"),
    lambda n: section(n).replace("kind: convention", "kind: [unclosed"),
    lambda n: section(n, "Use the key AKIAIOSFODNN7EXAMPLE for the sandbox."),
]


def edited(text: str, rng: random.Random, sections: int) -> str:
    """Replace, add or remove a section or two."""
    for _ in range(rng.randint(1, 2)):
        n = rng.randrange(sections)
        old = section(n)
        what = rng.choice(["break", "add", "remove", "reword"])
        if old not in text:
            continue
        if what == "break":
            text = text.replace(old, rng.choice(BREAKS)(n))
        elif what == "add":
            text = text.replace(old, old + section(1000 + n))
        elif what == "remove":
            text = text.replace(old, "")
        else:
            text = text.replace(old, section(n, f"Reworded rule {n}: call check_{n}() first."))
    return text


def same_kb(got: KB, want: KB) -> None:
    assert got.files == want.files
    assert got.rules == want.rules
    assert got.documents == want.documents
    assert got.topic_files == want.topic_files
    assert got.problems == want.problems
    assert got.unreadable == want.unreadable
    assert got.rules_by_id() == want.rules_by_id()


def errors_alone(kb: KB, path: str) -> tuple[object, ...]:
    alone = load_kb({"homeostat.yaml": kb.files["homeostat.yaml"], "knowledge/": "", path: kb.files[path]})
    result = validate_kb(alone, TODAY)
    return tuple(f for f in result.errors if f.file == path and f.check != "conflict")


@pytest.mark.parametrize("seed", range(12))
def test_an_edited_kb_reads_and_checks_as_if_read_whole(seed: int) -> None:
    rng = random.Random(seed)
    files = base_files()
    base = load_kb(files)
    assert len(base.rules) > 30 and not [f for f in base.problems if f.file == TOPIC]
    base.rules_by_id()  # the index is kept up to date from here on
    checks = FileErrors(TODAY)
    kb, text = base, files[TOPIC]
    for _ in range(4):  # a run's lessons, one on top of the other
        text = edited(text, rng, 30)
        kb = kb.with_files({TOPIC: text})
        whole = load_kb({**files, TOPIC: text})
        same_kb(kb, whole)
        assert checks.of(kb, TOPIC) == errors_alone(whole, TOPIC)
        full = validate_kb(whole, TODAY)
        assert checks.in_kb(kb, [TOPIC]) == [f for f in full.errors if f.file == TOPIC]
        # a draft on this KB: what it brings in, as reading both versions of the file whole says
        drafted = edited(text, rng, 30)
        after = kb.with_files({TOPIC: drafted})
        assert draft_errors(checks, kb, after, [TOPIC]) == new_errors(kb.files, {TOPIC: drafted}, TODAY)


def test_a_rule_file_added_and_removed_keeps_the_id_index() -> None:
    files = base_files(3)
    base = load_kb(files)
    base.rules_by_id()
    path = "knowledge/billing/api/billing-api-rule-1.md"
    rule = example_files()["knowledge/core/log-with-fields.md"]
    rule = rule.replace("id: log-with-fields", "id: billing-api-rule-1").replace(
        "area: core", "area: billing/api"
    )
    added = base.with_files({path: rule})
    same_kb(added, load_kb({**files, path: rule}))
    assert len(added.rules_by_id()["billing-api-rule-1"]) == 2
    assert any("duplicate rule id" in f.message for f in FileErrors(TODAY).in_kb(added, [path]))
    removed = added.with_files({path: None})
    same_kb(removed, base)


def test_an_edited_document_is_checked_beside_the_other_documents() -> None:
    files = example_files()
    doc = "knowledge/billing/api/docs/overview.md"
    base = load_kb(files)
    kb = base.with_files({doc: files[doc] + "\n```python\nnever closed\n"})
    full = validate_kb(load_kb({**files, doc: kb.files[doc]}), TODAY)
    want = [f for f in full.errors if f.file == doc]
    assert want and FileErrors(TODAY).in_kb(kb, [doc]) == want
