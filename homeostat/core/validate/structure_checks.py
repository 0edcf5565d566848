"""Checks on rules, topic files and documents as a whole: provenance, documents, conflicts, health."""

from __future__ import annotations

import datetime as dt
import re
from array import array
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Collection, Mapping, Sequence
from itertools import chain, compress, repeat
from operator import gt

from homeostat.core.config import CORE_AREA, Config
from homeostat.core.cost.token_counts import TokenCounts
from homeostat.core.findings import Finding, error, warning
from homeostat.core.format.markdown import check_fences, split_frontmatter
from homeostat.core.hosts import (
    HostKind,
    RepoRef,
    UrlError,
    parse_comment_url,
    parse_pull_url,
    parse_repo_url,
)
from homeostat.core.kb import KB, KNOWLEDGE
from homeostat.core.records import Record
from homeostat.core.render.rule import rule_view
from homeostat.core.schema import SECTION_WORD_LIMIT, DocSection, Document, Provenance, Rule
from homeostat.core.scoring import conflict_counts, score_rule
from homeostat.core.served import field_problems
from homeostat.core.similarity import SAME_LESSON_THRESHOLD, ContentWordNumbers, distinct_facts
from homeostat.core.text import count_words

CATCH_ALL_TOPICS = frozenset({"general", "misc", "miscellaneous", "other", "others"})
DOC_SOURCES = frozenset({"bootstrap", "curator", "manual", "deep-dive", "import"})
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# A word in more rules than this is too common to pair rules by: every pair of its rules would be
# counted, so a bound that grew with the KB (2% of its rules) made the check grow with its square.
# 200 is 2% of 10,000 rules, so KBs up to that size see the same pairs as before the bound.
RARE_WORD_RULES = 200


def repo_of(area: str) -> str:
    return area.split("/", 1)[0] if "/" in area else ""


# --- schema extras -------------------------------------------------------------------------------


def check_rule_fields(kb: KB, today: dt.date) -> list[Finding]:
    found: list[Finding] = []
    for rule in kb.rules:
        meta = rule.meta
        if meta.created > today:
            found.append(
                error(
                    "schema",
                    rule.file,
                    rule.line,
                    f"created {meta.created} is in the future (rule {meta.id})",
                )
            )
        if meta.last_confirmed > today:
            found.append(
                error(
                    "schema",
                    rule.file,
                    rule.line,
                    f"lastConfirmed {meta.last_confirmed} is in the future (rule {meta.id})",
                )
            )
        if not meta.adopted and meta.kind != "decision":
            found.append(
                error(
                    "schema",
                    rule.file,
                    rule.line,
                    f"adopted: false marks a rejected decision; set kind: decision (rule {meta.id})",
                )
            )
        for problem in field_problems(meta):  # a surface would show `served.not_shown` in its place
            found.append(
                error(
                    "schema", rule.file, rule.line, f"{problem} (rule {meta.id}); only a valid one is shown"
                )
            )
        if meta.source.type == "pr-feedback" and meta.source.changed_code is None:
            found.append(
                warning(
                    "schema",
                    rule.file,
                    rule.line,
                    f"source.changedCode is not set (rule {meta.id}); say whether code changed after the review",
                )
            )
    return found


def computed_cache(kb: KB, tokens: Sequence[int]) -> dict[str, tuple[int, int]]:
    """(score, tokens) per rule id as validate --fix would write them, given each rule's count
    (`count_rule_views`, in `kb.rules`' order)."""
    counts = conflict_counts(kb.rules)
    out: dict[str, tuple[int, int]] = {}
    for rule, n in zip(kb.rules, tokens, strict=True):
        out.setdefault(rule.id, (score_rule(rule.meta, kb.config, counts.get(rule.id, 0)).total, n))
    return out


def count_rule_views(kb: KB, counter: TokenCounts | None = None) -> list[int]:
    """Each rule's tokens, as an agent is served it, in `kb.rules`' order: each `rule_view` counted
    one by one with `TokenCounts.count` (an unchanged rule is looked up, never counted again)."""
    count = (counter or TokenCounts()).count
    return [count(rule_view(rule)) for rule in kb.rules]


def check_cache(kb: KB, cache: dict[str, tuple[int, int]]) -> list[Finding]:
    found: list[Finding] = []
    for rule in kb.rules:
        score, tokens = cache[rule.id]
        stale = []
        if rule.meta.score != score:
            stale.append(
                f"score {rule.meta.score if rule.meta.score is not None else 'missing'} (computed {score})"
            )
        if rule.meta.tokens != tokens:
            stale.append(
                f"tokens {rule.meta.tokens if rule.meta.tokens is not None else 'missing'} (computed {tokens})"
            )
        if stale:
            found.append(
                warning(
                    "cache",
                    rule.file,
                    rule.line,
                    f"cached {' and '.join(stale)} for rule {rule.id}; run homeostat validate --fix",
                )
            )
    return found


# --- provenance ----------------------------------------------------------------------------------


def _code_repo_keys(config: Config) -> frozenset[tuple[str, str, str]]:
    keys = set()
    for url in [repo.url for repo in config.repos] + list(config.sources.repos):
        try:
            keys.add(_repo_key(parse_repo_url(url)))
        except UrlError:
            continue
    return frozenset(keys)


def _repo_key(repo: RepoRef) -> tuple[str, str, str]:
    """A repo as provenance compares repos: host kind, and owner and name in lower case."""
    return (repo.host.value, repo.owner.lower(), repo.name.lower())


# A GitHub PR or review-comment link of plain characters only: urlsplit reads it as scheme https,
# host github.com, path /<owner>/<name>/pull/<n> and fragment (discussion_)r<id>, nothing stripped or
# unquoted, so its repo is the one parse_comment_url and parse_pull_url give, read without them (two
# urlsplits per rule were most of this check's time).
_PLAIN_GITHUB_REVIEW = re.compile(
    r"https://github\.com/([\w.\-]+)/([\w.\-]+)/pull/[0-9]+(?:#(?:discussion_)?r[0-9]+)?", re.A
)


def _plain_github_repo(url: str) -> tuple[str, str, str] | None:
    """(host, owner, name) of a plain GitHub PR or review-comment URL; None for any other URL."""
    plain = _PLAIN_GITHUB_REVIEW.fullmatch(url)
    return (HostKind.GITHUB.value, plain[1].lower(), plain[2].lower()) if plain else None


def _review_repo(url: str) -> tuple[str, str, str] | None:
    """The repo a review-comment URL, or else a PR URL, points into; None when it is neither."""
    plain = _plain_github_repo(url)
    return plain if plain is not None else _parsed_review_repo(url)


def _parsed_review_repo(url: str) -> tuple[str, str, str] | None:
    """`_review_repo` read by the URL parsers alone, for any URL the plain-GitHub shortcut passes by."""
    try:
        return _repo_key(parse_comment_url(url).repo)
    except UrlError:
        pass
    try:
        return _repo_key(parse_pull_url(url)[0])
    except UrlError:
        return None


def _pull_repo(url: str) -> tuple[str, str, str] | None:
    """The repo of the PR URL before `url`'s fragment; None when it is not one."""
    plain = _plain_github_repo(url)
    return plain if plain is not None else _parsed_pull_repo(url)


def _parsed_pull_repo(url: str) -> tuple[str, str, str] | None:
    """`_pull_repo` read by the URL parser alone, for any URL the plain-GitHub shortcut passes by."""
    try:
        return _repo_key(parse_pull_url(url.split("#", 1)[0])[0])
    except UrlError:
        return None


def _in_code_repos(url: str, config: Config, keys: frozenset[tuple[str, str, str]] | None = None) -> bool:
    repo = _pull_repo(url)
    return repo is not None and repo in (keys if keys is not None else _code_repo_keys(config))


def check_provenance(kb: KB, config: Config) -> list[Finding]:
    """A pr-feedback lesson must come from a review in one of the KB's own code repos."""
    found: list[Finding] = []
    keys = _code_repo_keys(config)
    for rule in kb.rules:
        source = rule.meta.source
        urls = [(f"alsoFrom[{index}]", url) for index, url in enumerate(rule.meta.also_from)]
        if source.type == "pr-feedback":
            if not source.url:
                found.append(
                    error(
                        "provenance",
                        rule.file,
                        rule.line,
                        f"pr-feedback rule {rule.id} has no source.url; name the review comment it came from",
                    )
                )
            else:
                urls.insert(0, ("source.url", source.url))
        for key, url in urls:
            repo = _review_repo(url)
            if repo is None:
                found.append(
                    error(
                        "provenance",
                        rule.file,
                        rule.line,
                        f"{key} {url!r} is not a review-comment or PR URL (rule {rule.id})",
                    )
                )
                continue
            if repo not in keys:
                found.append(
                    error(
                        "provenance",
                        rule.file,
                        rule.line,
                        f"{url} is outside the KB's code repos (rule {rule.id}); only reviews in repos listed in homeostat.yaml count",
                    )
                )
    names = _DocumentNames(kb)
    for document in kb.documents:
        for section in document.sections:
            p = section.provenance
            if p is None or p.source != "curator" or not p.url or names.of(p.url):
                continue
            if not _in_code_repos(p.url, config, keys):
                found.append(
                    error(
                        "provenance",
                        document.file,
                        section.line,
                        f"section {{#{section.id}}} cites {p.url}, outside the KB's code repos",
                    )
                )
    return found


# --- documents -----------------------------------------------------------------------------------


class _DocumentNames:
    """Which KB document a URL names: its path ends with the document's file (with or without `.md`),
    or it is the document's id; the first such document. Looked up by the URL's own suffixes, since
    scanning every document for every cited URL grew with documents times sections."""

    def __init__(self, kb: KB) -> None:
        self.documents = kb.documents
        self.by_path: dict[str, int] = {}
        self.by_id: dict[str, int] = {}
        for n, document in enumerate(kb.documents):
            self.by_path.setdefault(document.file, n)
            self.by_path.setdefault(document.file.removesuffix(".md"), n)
            self.by_id.setdefault(document.doc_id, n)
        # a document's file starts with knowledge/, so only a suffix starting there can be one
        self.scan = not all(d.file.startswith(KNOWLEDGE) for d in kb.documents)

    def of(self, url: str) -> Document | None:
        target = url.split("#", 1)[0].rstrip("/")
        if self.scan:
            return next((d for d in self.documents if self._names(target, d)), None)
        found = [self.by_id[target]] if target in self.by_id else []
        at = target.find(KNOWLEDGE)
        while at != -1:
            n = self.by_path.get(target[at:])
            if n is not None:
                found.append(n)
            at = target.find(KNOWLEDGE, at + 1)
        return self.documents[min(found)] if found else None

    @staticmethod
    def _names(target: str, document: Document) -> bool:
        file = document.file
        return target.endswith(file) or target.endswith(file.removesuffix(".md")) or target == document.doc_id


def check_documents(kb: KB) -> list[Finding]:
    found: list[Finding] = []
    for document in kb.documents:
        text = kb.files[document.file]
        front = split_frontmatter(text)
        body = front.body if front else text
        offset = (front.body_line - 1) if front else 0
        fences = check_fences(body)
        if fences.unclosed_line is not None:
            found.append(
                error(
                    "document",
                    document.file,
                    offset + fences.unclosed_line,
                    "code fence opened here is never closed",
                )
            )
        if fences.wrapped:
            found.append(
                error(
                    "document",
                    document.file,
                    offset + 1,
                    "the whole document is wrapped in a code fence; remove the ``` wrapper",
                )
            )
        ids = Counter(s.id for s in document.sections)
        headings = Counter(s.heading.strip().lower() for s in document.sections)
        for section in document.sections:
            if ids[section.id] > 1:
                found.append(
                    error(
                        "document",
                        document.file,
                        section.line,
                        f"section id {{#{section.id}}} is used twice; ids must be unique",
                    )
                )
            if headings[section.heading.strip().lower()] > 1:
                found.append(
                    error(
                        "document",
                        document.file,
                        section.line,
                        f"heading {section.heading!r} appears twice; merge or rename the sections",
                    )
                )
            found += _section_findings(document, section, text)
    return found


def _section_findings(document: Document, section: DocSection, text: str) -> list[Finding]:
    line, section_id, body = section.line, section.id, section.body
    if section.provenance is None:
        return [
            error(
                "document",
                document.file,
                line,
                f"section {{#{section_id}}} must start with <!-- homeostat: source=… updated=… -->",
            )
        ]
    found = _provenance_findings(document, section, section.provenance)
    comment = text[section.start : section.end].split("\n", 2)[1:2]  # the line after the heading
    if comment and comment[0].lstrip().startswith("<!--"):
        if comment[0].count("updated=") > 1:
            found.append(
                warning(
                    "document",
                    document.file,
                    line + 1,
                    f"section {{#{section_id}}}: updated= is repeated in its provenance",
                )
            )
    if "<!-- homeostat:" in body:
        found.append(
            warning(
                "document",
                document.file,
                line,
                f"section {{#{section_id}}} has a second provenance comment (repeated dates); keep one",
            )
        )
    words = count_words(body)
    if words > SECTION_WORD_LIMIT:
        found.append(
            warning(
                "document",
                document.file,
                line,
                f"section {{#{section_id}}} has {words} words (limit {SECTION_WORD_LIMIT}); split it",
            )
        )
    return found


def _provenance_findings(document: Document, section: DocSection, p: Provenance) -> list[Finding]:
    """The provenance comment's values: a known source, a YYYY-MM-DD date and a 0-100 confidence, each
    reported on the comment's line (the one after the heading)."""
    line, section_id = section.line + 1, section.id
    found: list[Finding] = []
    if p.source not in DOC_SOURCES:
        found.append(
            error(
                "document",
                document.file,
                line,
                f"section {{#{section_id}}}: source {p.source!r} is not one of {', '.join(sorted(DOC_SOURCES))}",
            )
        )
    if p.updated and not _DATE.match(p.updated):
        found.append(
            error(
                "document",
                document.file,
                line,
                f"section {{#{section_id}}}: updated={p.updated!r} is not a YYYY-MM-DD date",
            )
        )
    if p.confidence and (not p.confidence.isdigit() or int(p.confidence) > 100):
        found.append(
            error(
                "document",
                document.file,
                line,
                f"section {{#{section_id}}}: confidence={p.confidence!r} is not 0–100",
            )
        )
    return found


def check_citation_loops(kb: KB) -> list[Finding]:
    """Documents citing KB documents as evidence, in a loop (a document citing itself included)."""
    edges: dict[str, set[str]] = defaultdict(set)
    where: dict[tuple[str, str], tuple[str, int]] = {}
    names = _DocumentNames(kb)
    for document in kb.documents:
        for section in document.sections:
            if section.provenance is None or not section.provenance.url:
                continue
            cited = names.of(section.provenance.url)
            if cited is not None:
                edges[document.doc_id].add(cited.doc_id)
                where.setdefault((document.doc_id, cited.doc_id), (document.file, section.line))
    found: list[Finding] = []
    reported: set[tuple[str, str]] = set()
    for start in list(edges):
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in edges.get(node, ()):
                if nxt == start:
                    edge = (node, nxt)
                    if edge not in reported:
                        reported.add(edge)
                        file, line = where[edge]
                        loop = " → ".join([*path, start])
                        found.append(
                            error(
                                "document",
                                file,
                                line,
                                f"documents cite each other as evidence in a loop ({loop}); cite the review or code instead",
                            )
                        )
                elif nxt not in path and len(path) < 50:
                    stack.append((nxt, [*path, nxt]))
    return found


def check_topic_files(kb: KB) -> list[Finding]:
    found: list[Finding] = []
    for topic_file in kb.topic_files:
        ids = [s.id for s in topic_file.sections]
        for previous, current in zip(ids, ids[1:], strict=False):
            if current < previous:
                section = topic_file.sections[ids.index(current)]
                found.append(
                    warning(
                        "topic-file",
                        topic_file.file,
                        section.line,
                        f"sections are not sorted by id ({current} after {previous}); move it up",
                    )
                )
                break
    return found


# --- conflicts -----------------------------------------------------------------------------------


def check_conflicts(kb: KB) -> list[Finding]:
    return check_rule_ids(kb) + _near_duplicates(kb)


def check_rule_ids(kb: KB, files: Collection[str] | None = None) -> list[Finding]:
    """Rule ids used twice, and contradictions naming an id: of the rules in `files` (every file when
    None), looked up in the KB's id index, so checking one edited file costs its own rules. The whole
    KB's check uses a map of its own, let go when done, not the index the KB would keep (a tuple per
    id, held through the checks that follow and the token counting)."""
    found: list[Finding] = []
    by_id: Mapping[str, Sequence[Rule]]
    if files is None:
        rules: Sequence[Rule] = kb.rules
        by_id = _rules_by_id(rules)
    else:
        by_id = kb.rules_by_id()
        rules = [rule for path in sorted(files) for rule in kb.rules_in(path)]
    for rule in rules:
        same = by_id[rule.id]
        if len(same) > 1:
            places = ", ".join(f"{r.file}:{r.line}" for r in same)
            found.append(
                error(
                    "conflict",
                    rule.file,
                    rule.line,
                    f"duplicate rule id {rule.id!r} ({places}); ids must be unique",
                )
            )
    for rule in rules:
        for other in rule.meta.contradicts:
            if other not in by_id:
                found.append(
                    error(
                        "conflict", rule.file, rule.line, f"rule {rule.id} contradicts unknown rule {other!r}"
                    )
                )
            else:
                found.append(
                    warning(
                        "conflict",
                        rule.file,
                        rule.line,
                        f"rule {rule.id} declares a contradiction with {other}; a reviewer should settle which stands",
                    )
                )
    return found


def _rules_by_id(rules: Sequence[Rule]) -> dict[str, list[Rule]]:
    """Every id's rules, in KB order."""
    by_id: dict[str, list[Rule]] = {}
    for rule in rules:
        by_id.setdefault(rule.id, []).append(rule)
    return by_id


def _near_duplicates(kb: KB) -> list[Finding]:
    """Pairs teaching the same lesson, within one repo or against core, found through rare shared words."""
    live = [r for r in kb.rules if r.meta.status != "retired"]
    words, starts = _content_words(live)
    rare_words = _rare_words(words, len(live))
    group, width = _pair_groups(live)
    index = _rare_index(words, starts, rare_words, group, width)
    del rare_words
    return _near_pairs(live, words, starts, index, group, width)


def _content_words(live: list[Rule]) -> tuple[array[int], array[int]]:
    """Every rule's content words as numbers, one rule after another in one array (rule i's are
    words[starts[i]:starts[i + 1]]); rare words and their postings likewise: a tenth of the
    memory of sets of strings, and a third of that of an array, tuple or list per rule."""
    numbers = ContentWordNumbers()
    words, starts = array("I"), array("L", [0])
    for rule in live:
        words.extend(numbers.of(f"{rule.title}\n{rule.rule}"))
        starts.append(len(words))
    return words, starts


def _rare_words(words: array[int], rules: int) -> set[int]:
    """Words in a few rules only: a word in one rule pairs it with none, and a common word would pair
    too many rules to compare."""
    rules_with = Counter(words)
    common = min(max(20, rules // 50), RARE_WORD_RULES)
    return {word for word, n in rules_with.items() if 2 <= n <= common}


def _pair_groups(live: list[Rule]) -> tuple[array[int], int]:
    """Each rule's group (core is group 0, each repo one more) and the number of groups. Rules pair
    within one repo or with core, so each rare word's postings are kept per group and a rule counts
    only the groups it may pair with: the same pairs, the same shared-word counts, without counting
    the pairs across repos only to drop them."""
    repos: dict[str, int] = {}
    group = array("I")
    for rule in live:
        group.append(0 if rule.area == CORE_AREA else repos.setdefault(repo_of(rule.area), len(repos) + 1))
    return group, len(repos) + 1


class _RareIndex(Record):
    """Each rule's rare words (rule i's are rare[starts[i]:starts[i + 1]]) and the postings: word *
    width + group -> that group's rules with the word, ascending."""

    rare: array[int]
    starts: array[int]
    postings: dict[int, array[int]]


def _rare_index(
    words: array[int], starts: array[int], rare_words: set[int], group: array[int], width: int
) -> _RareIndex:
    """The rare words of each rule, and the rules with each rare word in each group."""
    postings: dict[int, array[int]] = {}
    rare, rare_starts = array("I"), array("L", [0])
    for i in range(len(starts) - 1):
        mine = [word for word in words[starts[i] : starts[i + 1]] if word in rare_words]
        rare.extend(mine)
        rare_starts.append(len(rare))
        for word in mine:
            key = word * width + group[i]
            if key in postings:
                postings[key].append(i)
            else:
                postings[key] = array("I", [i])
    return _RareIndex(rare, rare_starts, postings)


def _near_pairs(
    live: list[Rule],
    words: array[int],
    starts: array[int],
    index: _RareIndex,
    group: array[int],
    width: int,
) -> list[Finding]:
    """Each later rule sharing two rare words or more with a rule, compared as `same_lesson` does;
    a pair whose facts differ (`distinct_facts`) is not a duplicate."""
    rare, rare_starts, postings = index
    found: list[Finding] = []
    every_group = range(width)
    with_core = 0 in group  # without core rules a repo's rules look up their own group alone
    for i in range(len(live)):
        near = every_group if group[i] == 0 else (group[i], 0) if with_core else (group[i],)
        later: list[array[int]] = []
        for word in rare[rare_starts[i] : rare_starts[i + 1]]:
            for g in near:
                rules = postings.get(word * width + g)
                if rules is not None:
                    later.append(rules[bisect_right(rules, i) :])
        shared = Counter(chain.from_iterable(later))
        counted: set[int] | None = None  # rule i's word numbers, made for its first candidate
        # the rules sharing two rare words or more, picked out in C: most candidates share one
        for j in compress(shared, map(gt, shared.values(), repeat(1))):
            a, b = live[i], live[j]
            if counted is None:
                counted = set(words[starts[i] : starts[i + 1]])
            # same_lesson, with the content words already counted as numbers (each rule's distinct):
            # `overlap`'s quotient, its union counted from the intersection
            theirs = words[starts[j] : starts[j + 1]]
            both = len(counted.intersection(theirs))
            if both / (len(counted) + len(theirs) - both) < SAME_LESSON_THRESHOLD:
                continue
            if not distinct_facts(f"{a.title}\n{a.rule}", f"{b.title}\n{b.rule}"):
                found.append(
                    warning(
                        "conflict",
                        b.file,
                        b.line,
                        f"rule {b.id} looks like a near-duplicate of {a.id} ({a.file}); merge them or make the difference explicit",
                    )
                )
    return found


# --- aggregate health ----------------------------------------------------------------------------


def check_health(kb: KB, config: Config) -> list[Finding]:
    """Drift invisible per rule: most of an area's rules landing in a catch-all topic."""
    per_area: dict[str, Counter[str]] = defaultdict(Counter)
    for rule in kb.rules:
        per_area[rule.area][rule.meta.topic or ""] += 1
    found: list[Finding] = []
    for area, topics in sorted(per_area.items()):
        total = sum(topics.values())
        catch_all = sum(n for topic, n in topics.items() if topic in CATCH_ALL_TOPICS)
        if total >= 4 and catch_all * 2 > total:
            found.append(
                warning(
                    "health",
                    "homeostat.yaml",
                    1,
                    f"area {area}: {catch_all} of {total} rules sit in a catch-all topic; add specific topics to its list and move them",
                )
            )
    del config
    return found
