"""Selection: who sees which rules, the design's tiers, rank fusion, and fitting a budget."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kit import REPO

from homeostat.adapters.cache.corpus_cache import build
from homeostat.core.selection.audience import Audience, audience_for, find_member
from homeostat.core.selection.budget import fit_rules
from homeostat.core.selection.corpus import Corpus
from homeostat.core.selection.entries import Entry
from homeostat.core.selection.globs import is_global, specificity
from homeostat.core.selection.rank import Ranked, rank_summary, select_entries
from homeostat.core.selection.session_repo import parse_origin, session_repo, split_url
from homeostat.core.selection.terms import branch_words, task_words

EXAMPLE = REPO / "examples" / "kb"

CONFIG = """\
version: 0.2.0
team:
  members:
    - {handle: ana, name: Ana Lima, role: lead, teams: [api], email: ana@acme.example}
    - {handle: cy, name: Cy Moreau, role: member, teams: [web]}
  teams: [{name: api}, {name: web}]
areas:
  - {name: api, paths: ["src/api/**"], owner: api}
  - {name: secret, paths: ["src/secret/**"], owner: api, teamOnly: true}
"""
CLONE_STATE = shutil.ignore_patterns(".homeostat")  # a clone's index, events and pending lessons


def rule_file(
    rule_id: str,
    area: str,
    scope: list[str],
    text: str,
    *,
    kind: str = "convention",
    adopted: bool = True,
    author: str = "zed",
    status: str = "accepted",
) -> str:
    lines = [
        "---",
        f"id: {rule_id}",
        f"title: Rule {rule_id}",
        f"area: {area}",
        f"scope: {scope}",
        f"status: {status}",
        f"kind: {kind}",
    ]
    if not adopted:
        lines.append("adopted: false")
    lines += [
        "source:",
        "  type: manual",
        f"  author: {author}",
        "created: 2026-01-01",
        "lastConfirmed: 2026-01-02",
    ]
    return "\n".join([*lines, "---", "## Rule", text, "", "## Why", "Because it matters here.", ""])


def write_kb(root: Path, rules: dict[str, str], config: str = CONFIG) -> Path:
    (root / "knowledge").mkdir(parents=True, exist_ok=True)
    (root / "homeostat.yaml").write_text(config, encoding="utf-8")
    for rel, text in rules.items():
        path = root / "knowledge" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


TIER_RULES = {
    "api/scoped-narrow.md": rule_file(
        "scoped-narrow", "api", ["src/api/handlers/**/*.py"], "Keep handlers thin."
    ),
    "api/scoped-wide.md": rule_file("scoped-wide", "api", ["src/api/**"], "Return typed responses."),
    "core/global-names-file.md": rule_file(
        "global-names-file", "core", ["**"], "Register routes in `src/api/handlers/users.py` only."
    ),
    "core/global-names-neighbour.md": rule_file(
        "global-names-neighbour", "core", ["**"], "Orders live in `src/api/handlers/orders.py`."
    ),
    "core/global-plain.md": rule_file(
        "global-plain", "core", ["**"], "Handlers users api src users handlers thin typed.", author="ana"
    ),
    "core/global-other.md": rule_file("global-other", "core", ["**"], "The shell is `web/app.tsx`."),
    "api/not-applicable.md": rule_file("not-applicable", "api", ["src/api/jobs/**"], "Jobs are idempotent."),
    "api/rejected.md": rule_file(
        "rejected", "api", ["src/api/**"], "Rejected: a second router.", kind="decision", adopted=False
    ),
    "secret/hidden.md": rule_file("hidden", "secret", ["src/**"], "Secret handlers rotate keys."),
}


@pytest.fixture
def tiers(tmp_path: Path) -> Corpus:
    return build(write_kb(tmp_path / "kb", TIER_RULES))


def ids(corpus: Corpus, touched: list[str], audience: Audience | None = None) -> list[str]:
    return [r.entry.id for r in select_entries(corpus, touched, audience or Audience(None)).ranked]


def test_tiers_follow_the_design_order(tiers: Corpus) -> None:
    selection = select_entries(tiers, ["src/api/handlers/users.py"], Audience(None))
    by_id = {r.entry.id: r.tier for r in selection.ranked}
    assert by_id == {
        "scoped-narrow": 1,
        "scoped-wide": 1,
        "global-names-file": 1,
        "rejected": 1,
        "global-names-neighbour": 2,
        "global-plain": 3,
        "global-other": 4,
    }
    assert [r.tier for r in selection.ranked] == sorted(r.tier for r in selection.ranked)
    assert [e.id for e in selection.rest] == ["not-applicable"]


def test_a_scoped_rule_never_loses_to_a_general_one_that_does_not_name_the_files(tiers: Corpus) -> None:
    # global-plain has the highest score and every word of the touched path, and still comes after.
    order = ids(tiers, ["src/api/handlers/users.py"])
    assert order.index("scoped-wide") < order.index("global-plain")
    assert order.index("scoped-narrow") < order.index("global-plain")
    plain = tiers.entry("global-plain")
    wide = tiers.entry("scoped-wide")
    assert plain is not None and wide is not None and plain.score > wide.score


def test_within_a_tier_the_narrowest_glob_and_named_files_rank_first(tiers: Corpus) -> None:
    ranked = select_entries(tiers, ["src/api/handlers/users.py"], Audience(None)).ranked
    first = [r for r in ranked if r.tier == 1]
    scope_rank = {r.entry.id: r.ranks[0] for r in first}
    assert scope_rank["scoped-narrow"] < scope_rank["scoped-wide"]
    named = next(r for r in first if r.entry.id == "global-names-file")
    assert named.ranks[2] == 1  # the only tier-1 rule naming the touched file
    assert first[0].entry.id == "global-names-file"  # ranked first on two of three rankings


def test_nothing_touched_serves_only_general_rules(tiers: Corpus) -> None:
    order = ids(tiers, [])
    assert "scoped-wide" not in order and "rejected" not in order
    assert order[0] == "global-plain"


def test_team_only_areas_need_a_member_of_the_owning_team(tiers: Corpus) -> None:
    touched = ["src/secret/keys.py"]
    assert "hidden" not in ids(tiers, touched)
    ana = find_member(tiers, handle=None, email="ANA@acme.example", name=None)
    cy = find_member(tiers, handle="cy", email=None, name=None)
    assert ana is not None and cy is not None
    assert "hidden" in ids(tiers, touched, audience_for(tiers, None, ana))
    assert "hidden" not in ids(tiers, touched, audience_for(tiers, None, cy))


@pytest.mark.parametrize(
    ("handle", "email", "name", "expected"),
    [
        ("ana", "cy@x", None, "ana"),  # HOMEOSTAT_MEMBER wins over git
        (None, "ana@acme.example", None, "ana"),
        (None, "nobody@acme.example", "Cy Moreau", "cy"),
        (None, None, "cy", "cy"),
        (None, "nobody@acme.example", "Nobody", None),
        ("ghost", "ana@acme.example", None, None),  # an unknown handle is not silently someone else
    ],
)
def test_find_member(
    tiers: Corpus, handle: str | None, email: str | None, name: str | None, expected: str | None
) -> None:
    member = find_member(tiers, handle=handle, email=email, name=name)
    assert (member.handle if member else None) == expected


def test_rejected_decisions_are_served_only_where_they_apply(tiers: Corpus) -> None:
    assert "rejected" in ids(tiers, ["src/api/x.py"])
    selection = select_entries(tiers, ["web/app.tsx"], Audience(None))
    assert "rejected" not in [r.entry.id for r in selection.ranked]
    assert "rejected" not in [e.id for e in selection.rest]


def test_sessions_see_their_repo_plus_core(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "kb", ignore=CLONE_STATE)
    corpus = build(tmp_path / "kb")
    web = select_entries(
        corpus, ["web/components/Button.tsx", "src/billing/api/app.py"], Audience("storefront")
    )
    areas = {r.entry.area for r in web.ranked} | {e.area for e in web.rest}
    assert areas <= {"storefront/ui", "core"}
    assert "use-theme-spacing" in [r.entry.id for r in web.ranked]
    unknown = select_entries(corpus, ["src/billing/api/app.py"], Audience(None))
    assert {r.entry.area for r in unknown.ranked} <= {"core"}


def test_pending_lessons_of_this_clone_apply_at_once(tmp_path: Path) -> None:
    import datetime as dt

    from homeostat.adapters.state.pending_store import write_pending
    from homeostat.core.pending import PendingLesson

    root = write_kb(tmp_path / "kb", TIER_RULES)
    lesson = PendingLesson(
        author="ana",
        created=dt.datetime(2026, 11, 1, tzinfo=dt.UTC),
        title="Use the users cache",
        rule="Read users through `UserCache`.",
        area="api",
        scope=("src/api/handlers/**",),
    )
    flag = PendingLesson(
        author="ana",
        created=dt.datetime(2026, 11, 1, tzinfo=dt.UTC),
        kind="flag",
        target="scoped-wide",
        reason="outdated",
    )
    write_pending(root, lesson)
    write_pending(root, flag)
    corpus = build(root)
    pending = [e for e in corpus.entries if e.pending]
    assert len(pending) == 1 and "pending review" in pending[0].view
    assert pending[0].id in ids(corpus, ["src/api/handlers/users.py"])


def entry(rule_id: str, tokens: int, short: int, kind: str = "convention") -> Ranked:
    e = Entry(
        rule_id,
        rule_id,
        "api",
        "",
        ("**",),
        kind,
        True,
        "accepted",
        0,
        (),
        "x" * tokens,
        "y" * short,
        tokens,
        short,
    )
    return Ranked(e, 1, 0.0, (0, 0), 0.0, 0.0, (None, None, None))


def test_a_rule_that_does_not_fit_never_blocks_a_smaller_one() -> None:
    fitted = fit_rules(
        [entry("big", 500, 400), entry("small", 50, 20), entry("mid", 120, 60)],
        150,
        10_000,
        lambda group: (5, 5),
    )
    placed = {p.entry.id: p.form for p in fitted.placed}
    assert placed == {"small": "full", "mid": "rule-only"}
    assert [(c.id, c.reason) for c in fitted.cut] == [("big", "over the rule token budget")]
    assert fitted.tokens == 5 + 50 + 60 <= 150


def test_the_character_cap_is_reported_as_such() -> None:
    fitted = fit_rules([entry("wide", 10, 10)], 1000, 8, lambda group: (0, 0))
    assert [(c.id, c.reason) for c in fitted.cut] == [("wide", "over the character cap")]


def test_the_corpus_round_trips_through_its_cached_form(tiers: Corpus) -> None:
    again = Corpus.from_data(tiers.to_data())
    assert again.entries == tiers.entries and again.sections == tiers.sections
    assert dict(again.postings) == dict(tiers.postings) and again.budget == tiers.budget


@pytest.mark.parametrize(
    ("glob", "is_general"),
    [("**", True), ("**/*.py", True), ("*.md", False), ("src/**", False), ("./src/api/*.py", False)],
)
def test_global_globs(glob: str, is_general: bool) -> None:
    assert is_global(glob) is is_general


def test_narrower_globs_are_more_specific() -> None:
    assert specificity("src/api/handlers/**/*.py") > specificity("src/api/**") > specificity("**/*.py")


@pytest.mark.parametrize(
    ("origin", "folder", "expected"),
    [
        ("https://github.com/example/billing.git", "x", "billing"),
        ("git@github.com:example/storefront.git", "x", "storefront"),
        ("ssh://git@github.com/example/billing", "x", "billing"),
        ("https://token@github.com/EXAMPLE/Billing/", "x", "billing"),
        ("git@github.com:someone-else/billing.git", "x", "billing"),  # a fork still names the repo
        (None, "storefront", "storefront"),
        ("https://github.com/example/unrelated.git", "unrelated", None),
        ("", "", None),
    ],
)
def test_session_repo_from_origin_or_folder(origin: str | None, folder: str, expected: str | None) -> None:
    repos = [
        ("billing", "https://github.com/example/billing"),
        ("storefront", "https://github.com/example/storefront"),
    ]
    assert session_repo(repos, origin, folder) == expected


def test_parse_origin_keeps_the_owner_path() -> None:
    slug = parse_origin("https://gitlab.example/group/sub/app.git")
    assert slug is not None and (slug.host, slug.owner, slug.name) == ("gitlab.example", "group/sub", "app")
    assert parse_origin("/srv/git/app.git") is not None and parse_origin("   ") is None


# --- the task signal ---------------------------------------------------------------------------------


def test_task_words_from_a_branch_commits_and_files() -> None:
    assert branch_words("feature/PROJ-123-apikeyFromFile") == ["apikey", "file"]
    assert branch_words("wip/fix_retry-backoff2") == ["retry", "backoff"]
    assert branch_words("main") == []
    words = task_words(
        "read-key",
        ["Merge branch 'main' into read-key", "Read the API key from a file\nKeep it out of argv"],
        ["src/config/keyLoader.py", "tests/test_key_loader.py"],
    )
    assert words == ("read", "key", "api", "file", "keep", "out", "argv", "loader")


TASK_RULES = {
    "api/retries.md": rule_file(
        "retries", "api", ["src/api/**"], "Retry outbound calls with jittered backoff."
    ),
    "api/errors.md": rule_file("errors", "api", ["src/api/**"], "Map domain errors to one status table."),
    "api/logging.md": rule_file("logging", "api", ["src/api/**"], "Log with the request id bound."),
    "core/tz.md": rule_file(
        "tz-aware", "core", ["**/*.py"], "Use timezone-aware UTC datetimes, never naive utcnow timestamps."
    ),
    "core/commits.md": rule_file(
        "commit-split", "core", ["**"], "Split timezone refactors from behaviour changes in separate commits."
    ),
}


@pytest.fixture
def tasks(tmp_path: Path) -> Corpus:
    return build(write_kb(tmp_path / "kb", TASK_RULES))


def test_the_task_is_a_fourth_ranking_inside_the_tier(tasks: Corpus) -> None:
    touched = ["src/api/client.py"]
    plain = select_entries(tasks, touched, Audience(None))
    assert plain.task == () and all(r.ranks[3] is None for r in plain.ranked)
    task = task_words("retry-backoff", ["Retry the payout call with backoff"])
    ranked = select_entries(tasks, touched, Audience(None), task).ranked
    assert ranked[0].entry.id == "retries" and ranked[0].ranks[3] == 1 and ranked[0].tier == 1
    # only rules the task names about as strongly as its best match are ranked by it
    assert all(r.ranks[3] is None for r in ranked if r.entry.id != "retries")


def test_a_language_wide_rule_the_task_is_about_is_lifted_first(tasks: Corpus) -> None:
    touched = ["src/api/client.py"]
    plain = select_entries(tasks, touched, Audience(None)).ranked
    assert next(r for r in plain if r.entry.id == "tz-aware").tier == 3
    task = task_words("tz-aware-expiry", ["Use timezone-aware datetimes for session expiry"])
    ranked = select_entries(tasks, touched, Audience(None), task).ranked
    assert ranked[0].entry.id == "tz-aware" and ranked[0].lifted and ranked[0].tier == 1
    assert "lifted by the task" in rank_summary(ranked[0])
    # a process rule for every file is lifted the same way when the commits are about it
    split = select_entries(tasks, touched, Audience(None), task_words("", ["Split refactor commits"])).ranked
    assert split[0].entry.id == "commit-split" and split[0].lifted


def test_one_rare_word_common_words_or_a_stronger_folder_rule_lift_nothing(
    tasks: Corpus, tmp_path: Path
) -> None:
    touched = ["src/api/client.py"]
    assert not any(r.lifted for r in select_entries(tasks, touched, Audience(None), ("timezone",)).ranked)
    notes = {
        f"api/note-{i}.md": rule_file(f"note-{i}", "api", ["src/api/**"], "Naive UTC notes.")
        for i in range(8)
    }
    crowded = build(write_kb(tmp_path / "crowded", {**TASK_RULES, **notes}))
    common = select_entries(crowded, touched, Audience(None), ("naive", "utc")).ranked
    assert not any(r.lifted for r in common)  # both words are in more than a tenth of the rules
    folder = task_words("", ["Retry outbound calls with jittered backoff, naive timestamps"])
    ranked = select_entries(tasks, touched, Audience(None), folder).ranked
    assert ranked[0].entry.id == "retries" and not any(r.lifted for r in ranked)


ORIGIN_PIECE = st.sampled_from(
    ["acme", "ledger.git", "a-b_c", "", "..", "%41", " o", "o\t", "[::1]", "o@", "٣", "x:1", "?q", "#f", "/"]
)
ORIGINS = st.builds(
    lambda scheme, netloc, owner, name: f"{scheme}://{netloc}/{owner}/{name}",
    st.sampled_from(["https", "ssh", "git+ssh", "HTTP", "file", "1x", "a b"]),
    st.sampled_from(
        ["github.com", "GitHub.COM", "git@github.com", "u:p@h:22", "h:", "[::1]:8", "[bad", "h]", "", "é.org"]
    ),
    ORIGIN_PIECE,
    ORIGIN_PIECE,
)


@settings(max_examples=500, deadline=None)
@given(ORIGINS)
def test_an_origin_url_is_split_as_urlsplit_splits_it(url: str) -> None:
    """`split_url` reads the plain URLs itself (a session hook does not import urllib.parse for
    its checkout's origin) and must agree with urlsplit on every URL, raising where it raises."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        expected: tuple[str, str] | type[ValueError] = ((parts.hostname or "").lower(), parts.path)
    except ValueError:
        expected = ValueError
    try:
        got: tuple[str, str] | type[ValueError] = split_url(url)
    except ValueError:
        got = ValueError
    assert got == expected
