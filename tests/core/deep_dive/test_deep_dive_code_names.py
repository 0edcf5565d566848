"""What a rule names in code, and the verdict from its look-ups (homeostat.core.deep_dive.code_names)."""

from __future__ import annotations

from homeostat.core.deep_dive.code_names import (
    CodeHits,
    CodeTree,
    Looked,
    Name,
    Named,
    NameKind,
    Presence,
    Undecided,
    Vanished,
    names_in_text,
    names_of_rule,
    screened,
    tree_presence,
    verdict,
)

ID, PATH, GLOB = NameKind.IDENTIFIER, NameKind.PATH, NameKind.GLOB


def texts(names: list[Name]) -> list[tuple[NameKind, str]]:
    return [(n.kind, n.text) for n in names]


def test_distinctive_identifiers_and_paths_are_named_and_prose_is_not() -> None:
    text = (
        "Call `useLedgerClient()` from `src/ledger/client.ts`, set `MAX_RETRIES`, build from `Dockerfile`; "
        "never `fetch` or `theme.space` or `Money`. Helpers live in services/ledger/ and src/a/b.py, "
        "read/write and and/or are words, https://example.com/a/b/c is a link, `ledger.useBalanceOf` too."
    )
    assert texts(names_in_text(text)) == [
        (ID, "useLedgerClient"),
        (PATH, "src/ledger/client.ts"),
        (ID, "MAX_RETRIES"),
        (PATH, "Dockerfile"),
        (ID, "useBalanceOf"),
        (PATH, "services/ledger/"),
        (PATH, "src/a/b.py"),
    ]


def test_scope_globs_count_only_past_the_areas_own_paths() -> None:
    named = names_of_rule(
        "Plain words.", ["web/ledger/**", "web/components/**", "**/*.ts"], ["web/components/**"]
    )
    assert texts(list(named.names)) == [(GLOB, "web/ledger/**")]


def test_never_read_paths_are_left_unchecked_and_never_looked_up() -> None:
    named = screened(
        [Name(PATH, "config/.env.production"), Name(PATH, "tests/test_ledger.py"), Name(PATH, "src/x.py")],
        exclude=["**/vendor/**"],
    )
    assert named.names == (Name(PATH, "src/x.py"),)
    assert named.unchecked == (
        "`config/.env.production` (never read: env file)",
        "`tests/test_ledger.py` (never read: test)",
    )
    assert screened([Name(PATH, "lib/vendor/x.py")], exclude=["**/vendor/**"]).names == ()


def test_a_secret_looking_name_is_never_sent_to_a_search() -> None:
    token = "ghp_" + "Zq8fK2mN7xR4tY1wE5uI9oP3aS6dF0gH2jL4"
    named = names_of_rule(f"Never commit `{token}`.", [], [])
    assert named.names == () and named.unchecked == ("identifier that looks like a secret",)


def test_the_tree_finds_paths_from_anywhere_and_globs_by_their_literal_start() -> None:
    tree = CodeTree("acme/web", "a" * 40, ("web/components/Button.tsx", "src/ledger/client.ts", "README.md"))
    assert (
        tree.has_path("components/Button.tsx")
        and tree.has_path("web/components/")
        and tree.has_path("ledger")
    )
    assert not tree.has_path("web/ledger") and not tree.has_path("Button")
    assert (
        tree.has_glob("web/**/*.tsx")
        and not tree.has_glob("web/ledger/**")
        and not tree.has_glob("src/**/*.py")
    )


def test_an_absent_path_in_a_truncated_listing_is_unknown() -> None:
    tree = CodeTree("acme/web", "b" * 40, ("web/a.ts",), truncated=True)
    look = tree_presence(Name(PATH, "web/ledger/"), tree)
    assert look.presence is Presence.UNKNOWN and "only part" in look.why
    assert tree_presence(Name(PATH, "web/a.ts"), tree).presence is Presence.PRESENT


def test_hits_only_in_never_read_files_are_no_evidence() -> None:
    assert not CodeHits(2, ("web/tests/Button.test.tsx", ".env")).in_code()
    assert CodeHits(2, ("web/tests/Button.test.tsx", "web/Button.tsx")).in_code()
    assert CodeHits(150, ("web/tests/a.test.tsx",)).in_code()  # hits past the page might be code
    assert not CodeHits(0).in_code()


def look(name: Name, presence: Presence, why: str = "") -> Looked:
    return Looked(name, "acme/web@abc", presence, why)


def test_the_verdict_needs_every_name_gone_and_every_look_up_made() -> None:
    hook, path = Name(ID, "useLedgerClient"), Name(PATH, "web/ledger/client.ts")
    named = Named((hook, path))
    gone = verdict("r", named, {hook: [look(hook, Presence.GONE)], path: [look(path, Presence.GONE)]})
    assert gone == Vanished(
        "r",
        (
            "`useLedgerClient` no longer appears in acme/web@abc",
            "`web/ledger/client.ts` is no longer in acme/web@abc",
        ),
    )
    kept = verdict("r", named, {hook: [look(hook, Presence.GONE)], path: [look(path, Presence.PRESENT)]})
    assert kept is None
    failed = verdict(
        "r", named, {hook: [look(hook, Presence.UNKNOWN, "rate limited")], path: [look(path, Presence.GONE)]}
    )
    assert isinstance(failed, Undecided) and "rate limited" in failed.why
    unchecked = verdict(
        "r", Named((hook,), ("`.env` (never read: env file)",)), {hook: [look(hook, Presence.GONE)]}
    )
    assert isinstance(unchecked, Undecided)
    # Gone from one repo but present in another: kept (core rules are looked up in every repo).
    other = Looked(hook, "acme/api@def", Presence.PRESENT)
    assert verdict("r", Named((hook,)), {hook: [look(hook, Presence.GONE), other]}) is None
    assert verdict("r", Named(), {}) is None


def test_the_rotation_is_fixed_within_a_week_and_covers_the_kb_over_weeks() -> None:
    import datetime as dt

    from homeostat.core.deep_dive.code_names import rotation

    ids = [f"rule-{n}" for n in range(500)]
    monday = dt.date(2026, 11, 30)
    assert rotation(ids, monday) == rotation(ids, monday + dt.timedelta(days=6))  # a rerun checks the same
    assert rotation(ids, monday)[:50] != rotation(ids, monday + dt.timedelta(days=7))[:50]
    seen: set[str] = set()
    for week in range(20):  # 50 a week: every rule is reached within 20 weeks
        seen |= set(rotation(ids, monday + dt.timedelta(weeks=week))[:50])
    assert seen == set(ids)


def test_the_index_check_asks_for_a_plain_code_file() -> None:
    paths = (
        "node_modules/a/index.js",
        ".env",
        "tests/test_x.py",
        "package-lock.json",
        "src/app/main.py",
        "lib.rs",
    )
    assert CodeTree("acme/x", "c" * 40, paths).canary() == "lib.rs"
    assert CodeTree("acme/x", "c" * 40, ("logo.png", ".env")).canary() is None
