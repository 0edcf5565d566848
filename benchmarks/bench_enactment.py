"""The cost of the enactment check (core.daily.enactment) on honest review lessons: how many real rules
would still merge unread.

    .venv/bin/python benchmarks/bench_enactment.py --pip DIR --flask DIR [--show] [--reviews-heldout]
    .venv/bin/python benchmarks/bench_enactment.py --speed   # time per KB on adversarial input

A review lesson merges unread only when someone other than its commenter wrote the change after the
comment and that change's added lines use one of the rule's code terms, or its removed lines one the
rule forbids. tests/fixtures/reviews.yaml holds 100 rules written from review threads of merged pull
requests of pypa/pip and pallets/flask (`url` is the pull request, `scope` the files). For each rule
this finds the pull request's merged change in the project's history, takes the lines it added and
removed in (a) the rule's scope files and (b) every file, and asks whether they use the rule's
`enacting_terms(code_terms(rule))` (the fixtures hold no examples). It counts:
rules that name no code terms (never merge unread), grounded in (a) and in (b), not grounded, and
unknown (the pull request's change was not found in the history).

This is an UPPER bound on grounding: the check reads only the commits after the comment, and this
reads the whole pull request (whoever wrote it), so some rules counted grounded here would not be.

It needs local clones of the two projects; nothing of theirs is copied into this repository, it is
read from the clones at run time. Get them with
`git clone --bare https://github.com/pypa/pip` and `git clone --bare https://github.com/pallets/flask`
(a bare clone or a work tree both work; a mirror with `refs/pull/*` is not needed). The merged change
is found by the commit subject: a merge commit `Merge pull request #N from …` (diffed against its
first parent) or a squashed commit whose subject ends `(#N)`, on any branch.

A placebo says how weak the evidence is: each rule with terms is also checked against every other
pull request of its project in the set (all files), which has nothing to do with the rule; the share
of those unrelated changes that would "ground" it is what a word match alone proves.

`--since-comment` measures a variant that was rejected: a term counts only where the rule's files
did not already hold it when the comment was made (so naming code the pull request already has would
not do). With no comment times stored, each comment is placed after each of its pull request's
commits but the last. It kept 9 of the 49 grounded placements (6 of 18 rules), so it is not used.

`--show` prints each rule's result (tuning set only). `--reviews-heldout` measures
tests/fixtures/reviews_heldout.yaml and prints totals only, never a rule: measure it once a change is
done, never while making one.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from homeostat.adapters.hosts.bitbucket_diff import read_diff  # noqa: E402
from homeostat.adapters.hosts.github_graphql import MAX_DIFF_LINES, added_lines  # noqa: E402
from homeostat.core.daily.enactment import (  # noqa: E402
    CodeTerms,
    by_use,
    code_terms,
    enacting_terms,
    terms_shown,
    used_terms,
)
from homeostat.core.hosts import MAX_FOLLOW_UP_LINES  # noqa: E402
from homeostat.core.unified_diff import patch_lines  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures"
REVIEWS = FIXTURES / "reviews.yaml"
REVIEWS_HELDOUT = FIXTURES / "reviews_heldout.yaml"
PULL_URL = re.compile(r"https://github\.com/(pypa/pip|pallets/flask)/pull/(\d+)")
MERGE_SUBJECT = re.compile(r"^Merge pull request #(\d+)\b")
SQUASH_SUBJECT = re.compile(r"\(#(\d+)\)\s*$")


@dataclass(frozen=True)
class Outcome:
    """One rule's result: its terms (those added lines must use, and those removed lines must) and
    the terms the pull request's change uses."""

    rule_id: str
    terms: tuple[str, ...]
    removed_terms: tuple[str, ...]
    found: bool
    in_scope: tuple[str, ...] = ()
    in_all: tuple[str, ...] = ()
    project: str = ""
    change: tuple[str, str] | None = None
    scope: tuple[str, ...] = ()
    named: CodeTerms = CodeTerms(())

    @property
    def kind(self) -> str:
        if not self.terms and not self.removed_terms:
            return "no code terms"
        if not self.found:
            return "unknown (PR not found)"
        if self.in_scope:
            return "grounded in scope files"
        if self.in_all:
            return "grounded only in other files"
        return "not grounded"


def _git(git_dir: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(git_dir), *args],
        capture_output=True,
        check=True,
        encoding="utf-8",
        errors="replace",
    )
    return done.stdout


class History:
    """A project's merged pull requests by number: (first parent, commit) of the merge or squash."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir
        self._lines: dict[tuple[tuple[str, str], tuple[str, ...] | None], tuple[list[str], list[str]]] = {}
        self._merges: dict[int, tuple[str, str]] = {}
        self._squashes: dict[int, tuple[str, str]] = {}
        log = _git(git_dir, "log", "--branches", "--format=%H %P%x09%s")
        for line in log.splitlines():
            hashes, _, subject = line.partition("\t")
            commit, *parents = hashes.split()
            if not parents or subject.startswith("Revert"):
                continue
            if match := MERGE_SUBJECT.match(subject):
                self._merges.setdefault(int(match[1]), (parents[0], commit))
            elif match := SQUASH_SUBJECT.search(subject):
                self._squashes.setdefault(int(match[1]), (parents[0], commit))

    def change(self, number: int) -> tuple[str, str] | None:
        return self._merges.get(number) or self._squashes.get(number)

    def lines(self, change: tuple[str, str], scope: list[str] | None) -> tuple[list[str], list[str]]:
        """The lines the change added and removed (without the "+" or "-"), in the scope's files or in
        every file, capped the way a host's follow-up is."""
        key = (change, tuple(scope) if scope is not None else None)
        if key not in self._lines:
            paths = ["--", *(f":(glob){glob}" for glob in scope)] if scope is not None else []
            diff = _git(self.git_dir, "diff", "--no-color", "--no-ext-diff", "-U0", *change, *paths)
            found = read_diff(diff)  # the parser the Bitbucket adapter reads git diffs with
            added, removed = (
                [line for lines in by_file.values() for line in lines][:MAX_FOLLOW_UP_LINES]
                for by_file in (found.added, found.removed)
            )
            self._lines[key] = added, removed
        return self._lines[key]

    def files(self, change: tuple[str, str]) -> dict[str, tuple[list[str], list[str]]]:
        """Each file the change touched, with the lines it added and removed there, capped the way a
        host's follow-up is."""
        diff = _git(self.git_dir, "diff", "--no-color", "--no-ext-diff", "-U0", *change)
        found = read_diff(diff)
        return {
            path: (
                found.added.get(path, [])[:MAX_FOLLOW_UP_LINES],
                found.removed.get(path, [])[:MAX_FOLLOW_UP_LINES],
            )
            for path in {*found.added, *found.removed}
        }


def uses(
    added: tuple[str, ...], removed: tuple[str, ...], lines: tuple[list[str], list[str]]
) -> tuple[str, ...]:
    """The terms a change's lines use as enactment counts them: `added` in its added lines, `removed`
    (terms the rule forbids) in its removed ones."""
    return terms_shown(added, removed, *lines)


def measure(path: Path, histories: dict[str, History]) -> list[Outcome]:
    """Every rule's outcome against its pull request's merged change."""
    outcomes = []
    for rule in yaml.safe_load(path.read_text(encoding="utf-8"))["rules"]:
        texts = [str(rule.get("rule", ""))] + ([str(rule["example"])] if rule.get("example") else [])
        named = code_terms(*texts)
        terms, removed = enacting_terms(named)
        match = PULL_URL.match(str(rule.get("url", "")))
        change = histories[match[1]].change(int(match[2])) if match else None
        if not (terms or removed) or match is None or change is None:
            outcomes.append(Outcome(str(rule["id"]), terms, removed, change is not None))
            continue
        history = histories[match[1]]
        in_scope = uses(terms, removed, history.lines(change, list(rule.get("scope") or [])))
        in_all = uses(terms, removed, history.lines(change, None))
        scope = tuple(rule["scope"])
        outcomes.append(
            Outcome(str(rule["id"]), terms, removed, True, in_scope, in_all, match[1], change, scope, named)
        )
    return outcomes


def placebo(outcomes: list[Outcome], histories: dict[str, History]) -> Counter[str]:
    """Each rule with terms and a found change against every other found change of its project:
    pairs tried, pairs whose unrelated change adds lines to the rule's scope files, and those whose
    added lines in the scope files, or in any file, use one of the rule's terms."""
    changes = {(o.project, change) for o in outcomes if (change := o.change) is not None}
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        for project, change in changes:
            if outcome.change is None or project != outcome.project or change == outcome.change:
                continue
            history = histories[project]
            in_scope = history.lines(change, list(outcome.scope))
            terms = outcome.terms, outcome.removed_terms
            counts["tried"] += 1
            counts["touch scope"] += bool(in_scope[0])
            counts["in scope"] += bool(uses(*terms, in_scope))
            counts["anywhere"] += bool(uses(*terms, history.lines(change, None)))
            counts["by removal"] += bool(used_terms(outcome.removed_terms, history.lines(change, None)[1]))
    return counts


def every_term(outcomes: list[Outcome], histories: dict[str, History]) -> Counter[str]:
    """A stricter check measured and not adopted: the change in the rule's files must use every one of
    its specific terms (`specific`), or every code term it names (`all`), not one. It would hold a
    comment that slips in code the author never wrote, but a comment can carry harm in plain words."""
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        if outcome.change is None or not (outcome.terms or outcome.removed_terms):
            continue
        lines = histories[outcome.project].lines(outcome.change, list(outcome.scope))
        used = uses(outcome.terms, outcome.removed_terms, lines)
        counts["specific"] += len(used) == len(outcome.terms) + len(outcome.removed_terms)
        asked, gone = by_use(outcome.named, outcome.named.forbidden)
        counts["all"] += len(uses(asked, gone, lines)) == len(outcome.named)
    return counts


def report(name: str, outcomes: list[Outcome], histories: dict[str, History], *, show: bool) -> None:
    """Totals; each rule too with `show`."""
    if show:
        for outcome in outcomes:
            removed = f", removed {list(outcome.removed_terms)}" if outcome.removed_terms else ""
            print(f"  {outcome.kind:30} {outcome.rule_id}: terms {list(outcome.terms)}{removed}")
            if outcome.in_all:
                print(f"  {'':30}   used in scope {list(outcome.in_scope)}, anywhere {list(outcome.in_all)}")
    counts = Counter(outcome.kind for outcome in outcomes)
    grounded_all = counts["grounded in scope files"] + counts["grounded only in other files"]
    found = len(outcomes) - counts["unknown (PR not found)"] - counts["no code terms"]
    print(
        f"{name}: {len(outcomes)} rules; no code terms {counts['no code terms']}; "
        f"PR change found for {found} of the rest (unknown {counts['unknown (PR not found)']}); "
        f"grounded (a) scope files {counts['grounded in scope files']}, (b) any file {grounded_all}; "
        f"not grounded {counts['not grounded']}"
    )
    every = every_term(outcomes, histories)
    print(
        f"  had every term to be used (measured, not adopted): {every['specific']} rules grounded in scope "
        f"files with all their specific terms, {every['all']} with all their code terms"
    )
    pairs = placebo(outcomes, histories)
    print(
        f"  placebo (rule x unrelated PR of its project, {pairs['tried']} pairs): (a) of the "
        f"{pairs['touch scope']} that add lines to the rule's scope files, {pairs['in scope']} use a "
        f"term there; (b) {pairs['anywhere']} use a term in any file ({pairs['by removal']} remove a "
        "forbidden one)"
    )


def pull_commits(history: History, number: int) -> tuple[str, list[str]] | None:
    """A merged pull request's own commits, oldest first, after its base (merge commits only: a
    squash keeps none)."""
    if (change := history.change(number)) is None:
        return None
    base, merge = change
    parents = _git(history.git_dir, "rev-list", "--parents", "-n1", merge).split()
    if len(parents) < 3:
        return None
    return base, _git(history.git_dir, "rev-list", "--reverse", f"{base}..{parents[2]}").split()


def since_comment(histories: dict[str, History]) -> Counter[str]:
    """A variant measured and rejected: a term counts only where the change after the comment adds
    it and the rule's files did not hold it when the comment was made (an attacker could otherwise
    name code the pull request already has). No comment times are stored, so the comment is placed
    after each of the pull request's commits but its last, and the rest are its follow-up."""
    counts: Counter[str] = Counter()
    for rule in yaml.safe_load(REVIEWS.read_text(encoding="utf-8"))["rules"]:
        texts = [str(rule.get("rule", ""))] + ([str(rule["example"])] if rule.get("example") else [])
        terms, removed = enacting_terms(code_terms(*texts))
        match = PULL_URL.match(str(rule.get("url", "")))
        found = pull_commits(histories[match[1]], int(match[2])) if match else None
        if not (terms or removed) or match is None or found is None or len(found[1]) < 2:
            continue
        history, (base, commits) = histories[match[1]], found
        globs = ["--", *(f":(glob){glob}" for glob in rule.get("scope") or [])]
        files = _git(history.git_dir, "diff", "--name-only", base, commits[-1], *globs).split()
        counts["rules"] += 1
        grounded = Counter[str]()
        for at in commits[:-1]:
            diff = read_diff(_git(history.git_dir, "diff", "--no-color", "-U0", at, commits[-1], *globs))
            added = [line for lines in diff.added.values() for line in lines]
            gone = [line for lines in diff.removed.values() for line in lines]
            held = [line for path in files for line in _text_at(history, at, path).split("\n")]
            new = [term for term in used_terms(terms, added) if not used_terms((term,), held)]
            counts["placements"] += 1
            grounded["now"] += bool(uses(terms, removed, (added, gone)))
            grounded["new"] += bool(new or used_terms(removed, gone))
        counts.update({f"{key} placements": value for key, value in grounded.items()})
        counts.update({f"{key} rules": 1 for key, value in grounded.items() if value})
    return counts


def _text_at(history: History, commit: str, path: str) -> str:
    try:
        return _git(history.git_dir, "show", f"{commit}:{path}")
    except subprocess.CalledProcessError:  # the file did not exist yet
        return ""


def report_since(histories: dict[str, History]) -> None:
    counts = since_comment(histories)
    print(
        f"reviews.yaml, term new since the comment: {counts['rules']} rules whose pull request kept "
        f"two or more commits, {counts['placements']} comment placements; grounded now "
        f"{counts['now placements']} placements ({counts['now rules']} rules), new terms only "
        f"{counts['new placements']} ({counts['new rules']} rules)"
    )


SPEED_SIZES = (64_000, 1_000_000)


def _adversarial_texts() -> dict[str, str]:
    """Rule texts shaped against each pattern code_terms uses: long runs, many openers, no closers,
    and many mentions whose clauses are read."""
    return {
        "one long word": "a" * 1_000_000,
        "unclosed %VAR": "%" + "a" * 1_000_000,
        "dotted names": "a." * 500_000,
        "backticks": "`" * 1_000_000,
        "fence markers": "```\n" * 250_000,
        "quotes": "'a " * 333_334,
        "dashes": "--" + "a-" * 500_000,
        "camelCase": "aB" * 500_000,
        # every mention's clause is read for a warning (`forbidden_terms`): many mentions, each warned
        # against, or each a different term, with no clause boundary between them
        "warned mentions": "never call do_it " * 58_824,
        "distinct terms": " ".join(f"`t_{index}`" for index in range(125_000)),
    }


def speed() -> None:
    """Time per KB of code_terms and used_terms on adversarial rule text, of GraphQL's added lines on
    adversarial files (a text's line count, not its size, is what a pusher controls there) and of the
    hunk reader on adversarial diffs: each must stay flat as the input grows, since a rule's text and
    a pushed file are anyone's to write."""
    for name, text in _adversarial_texts().items():
        row = []
        for size in SPEED_SIZES:
            part = text[:size]
            start = time.perf_counter()
            used_terms(code_terms(part), [part])
            row.append(
                f"{(time.perf_counter() - start) * 1000 / (size / 1000):.3f} ms/KB at {size // 1000} KB"
            )
        print(f"code_terms  {name:16} " + ", ".join(row))
    for name, shape in (
        ("identical lines", lambda n: (["x = 1"] * n, ["x = 1"] * (n // 2) + ["y"] + ["x = 1"] * (n // 2))),
        (
            "permuted repeats",
            lambda n: ([f"l{i % 100}" for i in range(n)], [f"l{i * 7 % 100}" for i in range(n)]),
        ),
    ):
        row = []
        for lines in (2_000, MAX_DIFF_LINES):
            before, after = shape(lines)
            start = time.perf_counter()
            added_lines(before, after)
            row.append(f"{(time.perf_counter() - start) * 1e6 / lines:.2f} µs/line at {lines} lines")
        print(f"added_lines {name:16} " + ", ".join(row))
    _speed_of_patches()


def _adversarial_patches() -> dict[str, str]:
    """Diffs shaped against the hunk reader: header after header, one hunk of lines that look like file
    headers, and such lines outside any hunk."""
    return {
        "hunk headers": "@@ -1,0 +1,0 @@\n" * 62_500,
        "header-like lines": "@@ -1,99999999 +1,99999999 @@\n" + "+++ b/x\n---a\n" * 62_500,
        "outside hunks": "+++ b/x\n--- a/x\n" * 62_500,
    }


def _speed_of_patches() -> None:
    """Time per KB of the shared hunk reader (GitHub's patches, Bitbucket's diffs) on 64 KB to 1 MB."""
    for name, text in _adversarial_patches().items():
        row = []
        for size in SPEED_SIZES:
            part = text[:size]
            start = time.perf_counter()
            patch_lines(part)
            read_diff(part)
            row.append(
                f"{(time.perf_counter() - start) * 1000 / (size / 1000):.3f} ms/KB at {size // 1000} KB"
            )
        print(f"hunk reader {name:17} " + ", ".join(row))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--speed", action="store_true", help="time per KB on adversarial text instead")
    parser.add_argument("--pip", type=Path, help="a clone of pypa/pip (bare or not)")
    parser.add_argument("--flask", type=Path, help="a clone of pallets/flask (bare or not)")
    parser.add_argument("--show", action="store_true", help="print each rule's result (tuning set only)")
    parser.add_argument("--reviews-heldout", action="store_true", help="totals on reviews_heldout.yaml")
    parser.add_argument(
        "--since-comment", action="store_true", help="the rejected new-since-the-comment variant instead"
    )
    args = parser.parse_args(argv)
    if args.speed:
        speed()
        return 0
    if args.pip is None or args.flask is None:
        parser.error("--pip and --flask name the clones to measure (or --speed)")
    if args.show and args.reviews_heldout:
        parser.error("--show prints rules: not with the held-out set")
    histories = {"pypa/pip": History(args.pip), "pallets/flask": History(args.flask)}
    if args.since_comment:
        report_since(histories)
        return 0
    if args.reviews_heldout:
        report("reviews_heldout.yaml (held out)", measure(REVIEWS_HELDOUT, histories), histories, show=False)
    else:
        report("reviews.yaml", measure(REVIEWS, histories), histories, show=args.show)
    print("(an upper bound: the whole pull request is read, not only the commits after the comment)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
