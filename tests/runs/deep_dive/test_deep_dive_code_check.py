"""Rules checked against the code (`agents.deepDive.checkCode`), end to end through `homeostat
deep-dive`: the host emulators' tree listings and code search, real git, the model stub.

The code repos hold the files the example KB's rules and sections name, so only what a test plants
can vanish.
"""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from deepdiveworld import RECENT, STALE, STALE_ID, DeepDiveWorld, rule_file

from homeostat.adapters.git.plumbing import Git
from homeostat.core.kb import load_kb
from homeostat.core.validate import validate_files

EXAMPLE_CODE = {
    "billing": {
        "src/billing/api/errors.py": "STATUS_BY_ERROR = {}\n",
        "src/billing/api/app.py": "app = None\n",
        "src/billing/api/handlers/charge.py": "def charge(): ...\n",
        "src/billing/services/ledger.py": "def post(): ...\n",
    },
    "storefront": {
        "web/routes/legacy/index.tsx": "export default function Legacy() {}\n",
        "web/components/Button.tsx": "export const Button = () => useCartTotals();\n",
        "web/components/tests/Button.test.tsx": "useLedgerClient();\n",  # a test: never read
    },
}

COMPONENTS = 'scope: ["web/components/**/*.tsx"]'
GONE = rule_file(
    "ledger-client-hook",
    "Call the ledger through the useLedgerClient hook",
    "Call the ledger from components through `useLedgerClient()` in `web/ledger/client.ts`.",
).replace(COMPONENTS, 'scope: ["web/ledger/**"]')
KEPT = rule_file(
    "cart-totals-from-hook",
    "Read cart totals through the useCartTotals hook",
    "Read cart totals through `useCartTotals()` from `web/cart/totals.ts`; never sum line items.",
).replace(COMPONENTS, 'scope: ["web/cart/**"]')
LEDGER_DOC = f"""---
title: Storefront ledger
area: storefront/ui
owner: web
scope: ["web/**"]
updated: {RECENT}
---
## Ledger calls {{#ledger-calls}}
<!-- homeostat: source=manual updated={RECENT} -->
Ledger calls live in `web/ledger/` and go through its client.

## Buttons {{#buttons}}
<!-- homeostat: source=manual updated={RECENT} -->
Buttons live in `web/components/` and in `web/ledger/buttons/`.
"""


def code_world(dd: DeepDiveWorld, *, check: bool = True) -> None:
    """Code in the code repos, and `agents.deepDive.checkCode` in homeostat.yaml as docs/config.md says."""
    for name, files in EXAMPLE_CODE.items():
        dd.world.harness.push_commit(dd.world.repos[name], "main", dict(files), "code")
    config = dd.world.work / "homeostat.yaml"
    text = config.read_text()
    if check:
        text = text.replace("agents:\n", "agents:\n  deepDive:\n    checkCode: true\n", 1)
    config.write_text(text)
    dd.add(
        {
            "knowledge/storefront/ui/ledger-client-hook.md": GONE,
            "knowledge/storefront/ui/cart-totals-from-hook.md": KEPT,
            "knowledge/storefront/ui/docs/ledger.md": LEDGER_DOC,
        }
    )


def test_a_rule_whose_named_code_is_all_gone_is_proposed_with_evidence_and_one_still_named_is_kept(
    any_host_dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    dd = any_host_dd
    code_world(dd)
    harness = dd.world.harness
    tip = Git(harness.bare_path(dd.world.repos["storefront"])).rev_parse("refs/heads/main")
    capsys.readouterr()
    assert dd.run("--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    [pull] = dd.open_deep_dive_pulls()  # as the host's own API shows it (either host)
    files = {p: d.decode() for p, d in dd.world.bare().read_files(f"refs/heads/{pull.head_branch}").items()}
    assert validate_files(files, dt.date.today()).errors == ()
    kb = load_kb(files)
    assert kb.rule("ledger-client-hook").meta.status == "retired"  # type: ignore[union-attr]
    # One name still there (`useCartTotals`) keeps a rule whose other name (`web/cart/totals.ts`) is gone.
    assert kb.rule("cart-totals-from-hook").meta.status == "accepted"  # type: ignore[union-attr]
    for rule in load_kb(dd.world.main_files()).rules:  # the example KB's rules name code that is there
        if rule.id != "ledger-client-hook":
            assert kb.rule(rule.id).meta.status == rule.meta.status  # type: ignore[union-attr]
    assert tip is not None
    at = f"example/storefront@{tip[:12]}"
    assert f"`useLedgerClient` no longer appears in {at}" in pull.body
    assert f"`web/ledger/client.ts` is no longer in {at}" in pull.body
    assert "## Retired: the code they name is gone" in pull.body
    # The section naming only vanished paths is listed; the one naming a path still there is not.
    assert "`storefront/ui/ledger#ledger-calls`: `web/ledger/` is no longer in" in pull.body
    assert "ledger#buttons" not in pull.body
    code = data["codeCheck"]
    assert list(code) == [
        "ran", "trees", "checked", "searches", "retired", "sections", "leftAlone", "unsearched", "notes",
    ]  # fmt: skip
    assert code["retired"] == [
        {
            "id": "ledger-client-hook",
            "evidence": [
                f"`useLedgerClient` no longer appears in {at}",
                f"`web/ledger/client.ts` is no longer in {at}",
                f"`web/ledger/**` matches nothing in {at}",  # its scope glob is a name too
            ],
        }
    ]
    assert [s["section"] for s in code["sections"]] == ["storefront/ui/ledger#ledger-calls"]
    assert data["counts"]["codeRetired"] == 1 and code["leftAlone"] == []
    [report] = [r for r in dd.world.state().runs.values() if r.kind == "deep-dive"]
    assert report.decided == {"retired": 1}
    # Only count searches, each in the rule's own repo; a test file naming it does not count as code,
    # and no file was ever opened (no blob, no contents).
    repo = "example/storefront" if harness.name == "github" else "storefront"  # Bitbucket: in the workspace
    canary = f"filename:README.md repo:{repo}" if harness.name == "github" else f'"README.md" repo:{repo}'
    # Each identifier once, and once per repo a file the tree holds, before a "nothing" counts as gone.
    assert sorted(harness.emulator.searches) == sorted(
        [f'"useCartTotals" repo:{repo}', f'"useLedgerClient" repo:{repo}', canary]
    )
    paths = [path for _method, path in harness.requests.entries]
    assert not [p for p in paths if "/git/blobs/" in p or "/contents/" in p or "/raw/" in p]
    # Bitbucket's src answers a file's path with its content: only the root's listing is asked for.
    assert all(re.search(r"/src/[0-9a-f]{40}/?(?:\?|$)", p) for p in paths if "/src/" in p)


def test_a_rate_limited_search_leaves_the_rules_alone_with_a_note(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    code_world(dd)
    second = rule_file(
        "ledger-balance-helper",
        "Read balances with the ledgerBalanceOf helper",
        "Read balances through `ledgerBalanceOf()`; never add up ledger lines in a component.",
    ).replace(COMPONENTS, 'scope: ["web/ledger/**"]')
    dd.add(
        {
            "knowledge/storefront/ui/ledger-balance-helper.md": second,
            f"knowledge/storefront/ui/{STALE_ID}.md": STALE,
        }
    )
    emulator = dd.world.harness.emulator
    emulator.search_limit, emulator.search_window = 1, 3600.0  # the second search waits an hour
    capsys.readouterr()
    assert dd.run() == 0
    out = capsys.readouterr().out
    [pull] = dd.deep_dive_pulls()  # the stale rule's retirement opens it whatever the code check finds
    kb = load_kb(dd.branch_files(pull))
    # One search went through; whichever rule came second (or the index check a "nothing" needs) met
    # the limit, and no search was sent after it: no rule is retired on a look-up that did not happen.
    assert len(emulator.searches) == 1
    rules = ("ledger-client-hook", "ledger-balance-helper", "cart-totals-from-hook")
    for rule_id in rules:
        assert kb.rule(rule_id).meta.status == "accepted"  # type: ignore[union-attr]
    assert "## Left alone by the code check" in pull.body
    reasons = re.findall(rf"^- `(?:{'|'.join(rules)})`: (.*)$", pull.body, re.M)
    assert len(reasons) >= 2
    assert [r for r in reasons if "the search failed" in r and "rate limited" in r]
    assert [r for r in reasons if "not searched after a failed search" in r]
    assert "notice: code check left ledger-" in out
    [report] = dd.deep_dive_runs()
    assert any(n.kind == "host-unclear" and "code search failed" in n.message for n in report.notices)


def test_a_repo_the_hosts_search_has_not_indexed_retires_nothing(dd: DeepDiveWorld) -> None:
    code_world(dd)
    dd.add({f"knowledge/storefront/ui/{STALE_ID}.md": STALE})
    dd.world.harness.emulator.unindexed.add("example/storefront")  # its search finds nothing at all
    assert dd.run() == 0
    [pull] = dd.deep_dive_pulls()
    assert load_kb(dd.branch_files(pull)).rule("ledger-client-hook").meta.status == "accepted"  # type: ignore[union-attr]
    left = re.search(r"^- `ledger-client-hook`: (.*)$", pull.body, re.M)
    assert left is not None and "finds nothing in example/storefront, not even README.md" in left.group(1)


def test_the_check_is_off_by_default_and_a_dry_run_reads_no_code_repo(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    code_world(dd, check=False)
    assert dd.run("--dry-run") == 0
    assert dd.run() == 0
    emulator = dd.world.harness.emulator
    assert emulator.searches == []
    assert not [p for _m, p in emulator.requests.entries if "/git/trees/" in p and "storefront" in p]
    [pull] = dd.deep_dive_pulls() or [None]
    assert pull is None or "code they name is gone" not in pull.body
    on = dd.world.work / "homeostat.yaml"
    on.write_text(on.read_text().replace("agents:\n", "agents:\n  deepDive:\n    checkCode: true\n", 1))
    dd.push("check code")
    capsys.readouterr()
    assert dd.run("--dry-run") == 0
    assert "code check: skipped: it runs only with the host token (in CI)" in capsys.readouterr().out
    assert emulator.searches == []
