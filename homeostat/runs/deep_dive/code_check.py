"""Check rules against the code (`agents.deepDive.checkCode`): the deep dive's opt-in step that
looks up the paths and identifiers rules name in the code repos, through the host's API alone.

File names come from one tree listing per code repo (GitHub's git trees API, Bitbucket's src
listing); an identifier is looked up by a count-only code search (GitHub's search count,
Bitbucket's workspace code search count), at most `agents.deepDive.codeSearches` a run, in an
order that enters a fixed ring of the rules at another point each week (`rotation`), each name once.
A search that finds nothing counts as gone only once a search for a file the tree holds (`canary`)
has shown that the host indexes the repo at all. No file is opened and nothing reaches a model. A rule whose
every name is gone is retired in this week's PR with the evidence; a section naming only vanished
paths is listed for a person. A listing or search that failed (a rate limit past the run's wait, a
search the host does not offer) leaves the rules it touched as they are, with a note; after one
failed search the run sends no more.

The step runs only with a host token (in CI): `--dry-run` reads no code repo.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from homeostat.core.daily.retract import listed_citations
from homeostat.core.deep_dive.code_names import (
    CodeFindings,
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
    rotation,
    screened,
    tree_presence,
    verdict,
)
from homeostat.core.deep_dive.duplicates import in_force
from homeostat.core.hosts import RepoRef
from homeostat.errors import HomeostatError
from homeostat.runs.curate import curated_repos, repo_name
from homeostat.runs.deep_dive.find import Loaded
from homeostat.runs.deep_dive.run_state import DeepDiveContext, Found

CAP_SETTING = "agents.deepDive.codeSearches"
RETIRED_NOTE = "retired: the code it names is gone (see the code check)"


@runtime_checkable
class CodeReader(Protocol):
    """What the step needs from a host adapter: file names and a count, never a file's content."""

    def code_tree(self, repo: RepoRef) -> CodeTree: ...

    def search_code(self, repo: RepoRef, term: str) -> CodeHits: ...

    def finds_file(self, repo: RepoRef, path: str) -> bool: ...


class _Lookups:
    """Every look-up of the run, each (name, repo) once, with the search cap and the first failure."""

    def __init__(
        self,
        reader: CodeReader,
        trees: dict[str, CodeTree | str],
        cap: int,
        exclude: Sequence[str],
        tick: Callable[[], None] = lambda: None,
    ) -> None:
        self.reader = reader
        self.tick = tick  # renews the run's claim when due: searches at 10 a minute take a while
        self.exclude = exclude
        self.trees = trees  # full name -> tree, or why it could not be listed
        self.cap = cap
        self.searches = 0
        self.failed = ""  # the first failed search: no more are sent
        self.counts: dict[tuple[str, str], Looked] = {}
        self.indexed: dict[str, str] = {}  # full name -> "" when its search is trusted, else why not

    def look(self, name: Name, repo: RepoRef) -> Looked:
        tree = self.trees[repo.full_name]
        if isinstance(tree, str):
            return Looked(name, repo.full_name, Presence.UNKNOWN, tree)
        if name.kind is not NameKind.IDENTIFIER:
            return tree_presence(name, tree)
        key = (name.text, repo.full_name)
        if key not in self.counts:
            self.counts[key] = self._search(name, repo, tree)
        return self.counts[key]

    def _search(self, name: Name, repo: RepoRef, tree: CodeTree) -> Looked:
        if self.failed:
            return Looked(
                name, tree.at, Presence.UNKNOWN, f"not searched after a failed search ({self.failed})"
            )
        if self.searches >= self.cap:
            why = f"not searched: the run's {self.cap} code searches were used ({CAP_SETTING})"
            return Looked(name, tree.at, Presence.UNKNOWN, why)
        self.searches += 1
        self.tick()  # outside the try: ClaimLost (another run took over) stops the run
        try:
            hits = self.reader.search_code(repo, name.text)
        except HomeostatError as exc:
            self.failed = str(exc)[:300]
            return Looked(name, tree.at, Presence.UNKNOWN, f"the search failed: {self.failed}")
        if hits.in_code(self.exclude):
            return Looked(name, tree.at, Presence.PRESENT)
        untrusted = self._untrusted(repo, tree)
        if untrusted:
            return Looked(name, tree.at, Presence.UNKNOWN, untrusted)
        return Looked(name, tree.at, Presence.GONE)

    def _untrusted(self, repo: RepoRef, tree: CodeTree) -> str:
        """Before a search's nothing counts as gone, one search (once per repo, within the cap) for a
        file the tree holds: a host that does not index the repo finds nothing for every name."""
        if repo.full_name in self.indexed:
            return self.indexed[repo.full_name]
        canary = tree.canary()
        why = ""
        if canary is None:
            why = f"{repo.full_name} has no code file to check its search index by"
        elif self.searches >= self.cap:
            return f"not confirmed: the run's {self.cap} code searches were used ({CAP_SETTING})"
        else:
            self.searches += 1
            self.tick()
            try:
                if not self.reader.finds_file(repo, canary):
                    why = f"the host's code search finds nothing in {repo.full_name}, not even {canary} (not indexed?)"
            except HomeostatError as exc:
                self.failed = str(exc)[:300]
                return f"the search failed: {self.failed}"
        self.indexed[repo.full_name] = why
        return why


def check_code(ctx: DeepDiveContext, loaded: Loaded, found: Found) -> None:
    """The step, when `agents.deepDive.checkCode` is on; rules the run already retires or merges are
    not looked at again."""
    settings = loaded.config.agents.deep_dive
    if not settings.check_code:
        return
    result = found.code
    host = ctx.deps.host
    if ctx.dry or host is None or not isinstance(host, CodeReader):
        result.notes.append("skipped: the code check reads the code repos only in CI, with the host token")
        print(
            "code check: skipped: it runs only with the host token (in CI); a dry run reads no code repo",
            file=ctx.out,
        )
        return
    result.ran = True
    repos = curated_repos(loaded.config, ctx.deps.kb_repo)
    trees: dict[str, CodeTree | str] = {}
    for repo in repos:
        try:
            tree = host.code_tree(repo)
        except HomeostatError as exc:
            trees[repo.full_name] = f"could not list {repo.full_name}: {str(exc)[:300]}"
            result.notes.append(str(trees[repo.full_name]))
            ctx.notice(found, "host-unclear", f"code check: {trees[repo.full_name]}"[:500])
            continue
        trees[repo.full_name] = tree
        result.trees.append(tree.at)
    lookups = _Lookups(
        host, trees, settings.code_searches, loaded.config.sources.exclude_paths, ctx.renew_claim
    )
    gone = {m.drop.id for m in found.merges} | {r.id for r in found.stale}
    by_id = {r.id: r for r in in_force(loaded.kb.rules) if r.id not in gone}
    rules = [by_id[rule_id] for rule_id in rotation(by_id, ctx.today())]
    exclude = loaded.config.sources.exclude_paths
    for rule in rules:
        area = loaded.config.area(rule.area)
        named = names_of_rule(rule.text(), rule.meta.scope, area.paths if area else (), exclude)
        if not named.names:
            continue
        targets = _repos_for(loaded, repos, rule.area)
        if not targets:
            continue  # its repo is excluded (or the KB repo itself): never read
        result.checked += 1
        outcome = _decide(rule.id, named, targets, lookups)
        if isinstance(outcome, Vanished):
            result.retired.append((rule.id, outcome))
            found.listed += listed_citations(loaded.kb, rule, RETIRED_NOTE)
        elif isinstance(outcome, Undecided) and _capped_only(outcome):
            result.unsearched += 1
        elif isinstance(outcome, Undecided):
            result.undecided.append(outcome)
    _check_sections(loaded, repos, lookups, result)
    result.searches = lookups.searches
    if lookups.failed:
        ctx.notice(found, "host-unclear", f"code check: a code search failed: {lookups.failed}"[:500])
    _say(ctx, result)


def _decide(
    subject: str, named: Named, repos: Sequence[RepoRef], lookups: _Lookups
) -> Vanished | Undecided | None:
    """File names first (free), then identifiers one search at a time; the first name found keeps the
    rule and stops its look-ups."""
    ordered = sorted(named.names, key=lambda n: n.kind is NameKind.IDENTIFIER)
    looks: dict[Name, list[Looked]] = {}
    for name in ordered:
        seen = looks.setdefault(name, [])
        for repo in repos:
            look = lookups.look(name, repo)
            seen.append(look)
            if look.presence is Presence.PRESENT:
                return None
    return verdict(subject, named, looks)


def _capped_only(outcome: Undecided) -> bool:
    """Left only because the search cap was reached: the normal state of a big KB, said as a count."""
    return all(CAP_SETTING in part for part in outcome.why.split("; "))


def _repos_for(loaded: Loaded, repos: Sequence[RepoRef], area: str) -> list[RepoRef]:
    """A repo folder's area is looked up in that repo; core and a KB without folders in every repo."""
    folder = area.split("/", 1)[0] if "/" in area else ""
    mine = [repo for repo in repos if folder and repo_name(loaded.config, repo) == folder]
    return mine or ([] if folder and loaded.config.repos else list(repos))


def _check_sections(
    loaded: Loaded, repos: Sequence[RepoRef], lookups: _Lookups, result: CodeFindings
) -> None:
    """Document sections whose every named path is gone (identifiers are not searched for documents:
    a section names many, and its rules are checked already)."""
    exclude = loaded.config.sources.exclude_paths
    for document in sorted(loaded.kb.documents, key=lambda d: d.doc_id):
        targets = _repos_for(loaded, repos, document.meta.area)
        if not targets:
            continue
        for section in document.sections:
            paths = [n for n in names_in_text(section.body) if n.kind is not NameKind.IDENTIFIER]
            named = screened(paths, exclude)
            if not named.names:
                continue
            outcome = _decide(f"{document.doc_id}#{section.id}", named, targets, lookups)
            if isinstance(outcome, Vanished):
                result.sections.append(outcome)
            elif isinstance(outcome, Undecided):
                result.undecided.append(outcome)


def _say(ctx: DeepDiveContext, result: CodeFindings) -> None:
    print(
        f"code check: {result.checked} rule(s) name code; {len(result.retired)} retired with evidence, "
        f"{len(result.sections)} section(s) naming vanished paths, {len(result.undecided)} left alone "
        f"({result.searches} code search(es), {len(result.trees)} tree listing(s))",
        file=ctx.out,
    )
    if result.unsearched:
        print(
            f"code check: {result.unsearched} rule(s) wait for a later run: the search cap ({CAP_SETTING}) "
            "was reached",
            file=ctx.out,
        )
    for item in result.undecided:
        print(f"notice: code check left {item.subject} alone: {item.why}", file=ctx.out)
