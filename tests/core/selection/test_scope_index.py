"""A repo part's scope index selects exactly what looking at every rule selects.

`select_entries` over a part looks only at the rules filed under a prefix of a touched path (or
under the empty prefix, the global globs' own): for any rules, globs, paths and audience, the tiers,
the ranking and the untiered rest must be those of the plain scan over every rule.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from homeostat.core.globs import literal_start
from homeostat.core.selection.audience import Audience
from homeostat.core.selection.corpus import Corpus
from homeostat.core.selection.entries import AreaInfo, Budget, Entry, RepoInfo
from homeostat.core.selection.globs import glob_matches
from homeostat.core.selection.rank import _tiered_by_index, _tiered_by_scan, select_entries
from homeostat.core.selection.scope_index import scope_index, scopes_for

FOLDERS = ["src/api", "src/api/v2", "src/jobs", "web", "web/ui", "docs"]
GLOBS = st.sampled_from(
    [f"{f}/**" for f in FOLDERS]
    + [f"{f}/*.py" for f in FOLDERS]
    + [f"./{f}/**" for f in FOLDERS[:2]]
    + [
        "**",
        "**/*.py",
        "**/*.ts",
        "*.md",
        "README.md",
        "src/api/x.py",
        "./src/api/x.py",
        "src/api/x.py/",
        "{src,web}/**",
        "src/{api,jobs}/*.py",
        "src/[aj]*/**",
        "src/a?i/**",
        "!src/**",
        "src/api",
        "",
    ]
)
PATHS = st.sampled_from(
    [
        "src/api/x.py",
        "src/api/v2/y.py",
        "src/jobs/z.py",
        "web/ui/a.ts",
        "README.md",
        "src/api",
        "./src/api/x.py",
    ]
    + ["docs/guide.md", "src/apis/q.py", " ", "src/api/x.py/", ".", "./README.md", "web/ui/ä.ts"]
)
REFS = st.sampled_from(["src/api/x.py", "x.py", "src/api/", "web/ui", "other.py", "src/jobs/z.py", "a.ts"])
AREAS = ["core", "alpha/api", "alpha/jobs", "beta/api", "unlisted"]


@st.composite
def entries(draw: st.DrawFn) -> list[Entry]:
    out = []
    for n in range(draw(st.integers(0, 40))):
        scope = tuple(draw(st.lists(GLOBS, max_size=3)))
        out.append(
            Entry(
                id=f"rule-{draw(st.integers(0, 50))}",  # ids may repeat, as in a KB validate reports
                title=f"Rule {n}",
                area=draw(st.sampled_from(AREAS)),
                topic=draw(st.sampled_from(["", "errors", "money"])),
                scope=scope,
                kind=draw(st.sampled_from(["", "convention", "decision"])),
                adopted=draw(st.booleans()),
                status=draw(st.sampled_from(["accepted", "pending", "candidate", "retired", "disputed"])),
                score=draw(st.integers(-3, 9)),
                refs=tuple(sorted(set(draw(st.lists(REFS, max_size=3))))),
                view=f"rule {n}\n",
                short=f"rule {n}\n",
                tokens=5,
                short_tokens=3,
            )
        )
    return out


def corpus_of(rules: list[Entry], multi_repo: bool) -> Corpus:
    areas = {
        "alpha/api": AreaInfo("alpha/api", "api", False, ("src/api/**",)),
        "alpha/jobs": AreaInfo("alpha/jobs", "web", True, ("src/jobs/**",)),
        "beta/api": AreaInfo("beta/api", "api", True, ("web/**",)),
    }
    repos = (RepoInfo("alpha", "https://example.com/alpha"), RepoInfo("beta", "https://example.com/beta"))
    return Corpus(
        entries=tuple(rules),
        sections=(),
        areas=areas,
        repos=repos if multi_repo else (),
        members=(),
        budget=Budget(),
        lengths=tuple(10 for _ in rules),
    )


AUDIENCES = st.builds(
    Audience,
    st.sampled_from(["alpha", "beta", None]),
    st.sampled_from([None, "ana"]),
    st.frozensets(st.sampled_from(["api", "web"])),
)


@settings(max_examples=300, deadline=None)
@given(entries(), st.lists(PATHS, max_size=4), AUDIENCES, st.booleans(), st.sampled_from([(), ("retry",)]))
def test_the_scope_index_selects_what_the_scan_selects(
    rules: list[Entry], touched: list[str], audience: Audience, multi_repo: bool, task: tuple[str, ...]
) -> None:
    plain = corpus_of(rules, multi_repo)
    indexed = plain._replace(scopes=scope_index(plain.entries))
    paths = tuple(dict.fromkeys(p.removeprefix("./") for p in touched if p.strip()))
    assert indexed.scopes is not None
    assert _tiered_by_index(indexed, indexed.scopes, paths, audience) == _tiered_by_scan(
        plain, paths, audience
    )
    assert select_entries(indexed, touched, audience, task) == select_entries(plain, touched, audience, task)


@settings(max_examples=300, deadline=None)
@given(GLOBS, PATHS)
def test_a_glob_matches_only_paths_that_begin_with_its_literal_start(glob: str, path: str) -> None:
    """What the index files a scope under: a path the glob matches always begins with it."""
    path = path.removeprefix("./")
    if glob_matches(glob, path):
        assert path.startswith(literal_start(glob))


def test_scopes_are_filed_under_their_globs_literal_starts() -> None:
    rules = [
        Entry("a", "A", "core", "", ("src/api/**",), "", True, "accepted", 0, (), "", "", 0, 0),
        Entry("b", "B", "core", "", ("**/*.py",), "", True, "accepted", 0, (), "", "", 0, 0),
        Entry("c", "C", "core", "", ("web/ui/*.ts", "src/api/**"), "", True, "pending", 0, (), "", "", 0, 0),
        Entry("d", "D", "core", "", ("src/api/**",), "", True, "retired", 0, (), "", "", 0, 0),
        Entry("e", "E", "core", "", ("src/api/**",), "", False, "accepted", 0, (), "", "", 0, 0),
    ]
    index = scope_index(rules)
    assert index.scopes == (("src/api/**",), ("**/*.py",), ("web/ui/*.ts", "src/api/**"))
    assert index.members == ((0, 4), (1,), (2,))  # the retired rule is in no tier, so in no scope
    assert dict(index.literals) == {"src/api/": (0, 2), "": (1,), "web/ui/": (2,)}
    assert index.adopted == (0, 1, 2) and dict(index.adopted_by_area) == {"core": (0, 1, 2)}
    assert scopes_for(index, ["web/ui/a.ts"]) == [1, 2]
    assert scopes_for(index, ["src/api/x.py"]) == [0, 1, 2]
    assert scopes_for(index, []) == [1]
