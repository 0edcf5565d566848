"""A session's repo part of the corpus selects exactly what the whole corpus selects for that session.

`context` and the hooks load only the rules and sections their repo and `core` hold (`repo_part`),
with the whole KB's statistics; over a generated KB of three repos, every session's view, prompt
match and search must be what the whole corpus gives: the same rules, in the same order, same text.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from kit import REPO

from homeostat.adapters.cache.corpus_cache import build
from homeostat.core.render.view import LineCounter, build_view
from homeostat.core.selection import parts
from homeostat.core.selection.audience import Audience
from homeostat.core.selection.corpus import Corpus
from homeostat.core.selection.parts import repo_part
from homeostat.core.selection.rank import select_entries
from homeostat.core.selection.search import match_prompt, search_entries

REPOS = {"alpha": ("src/alpha", "py"), "beta": ("web/beta", "ts"), "gamma": ("svc/gamma", "go")}
WORDS = """ledger refund retry invoice cursor token cache tenant quota webhook batch schema migration
timeout backoff idempotent audit parcel courier tariff voucher beacon sensor budget mandate coupon
gateway router bundle channel digest engine filter harvest journal kiosk lantern needle orbit pilot
quarry relay signal tunnel vault widget""".split()


def config() -> str:
    lines = [
        "version: 0.2.0",
        "team:",
        "  members:",
        "    - {handle: ana, name: Ana Lima, role: lead, teams: [api]}",
        "    - {handle: cy, name: Cy Moreau, role: member, teams: [web]}",
        "  teams: [{name: api}, {name: web}]",
        "repos:",
    ]
    for repo, (folder, _) in REPOS.items():
        lines += [
            f"  - name: {repo}",
            f"    url: https://github.com/acme/{repo}",
            "    areas:",
            f'      - {{name: api, paths: ["{folder}/api/**"], owner: api}}',
            f'      - {{name: jobs, paths: ["{folder}/jobs/**"], owner: web, teamOnly: true}}',
        ]
    return "\n".join(lines) + "\n"


def rule(rng: random.Random, n: int, area: str, folder: str, ext: str) -> str:
    sub = area.rsplit("/", 1)[-1] if area != "core" else rng.choice(["api", "jobs"])
    name = rng.choice(WORDS)
    scope = rng.choice(
        [f"{folder}/{sub}/{name}.{ext}", f"{folder}/{sub}/**", "**", f"**/*.{ext}", f"{folder}/**/*.{ext}"]
    )
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14)))
    if rng.random() < 0.3:
        text += f" See `{folder}/{sub}/{rng.choice(WORDS)}.{ext}`."
    return "\n".join(
        [
            "---",
            f"id: rule-{n}",
            f"title: {rng.choice(WORDS).title()} {rng.choice(WORDS)} {n}",
            f"area: {area}",
            f'scope: ["{scope}"]',
            f"status: {rng.choice(['accepted'] * 5 + ['candidate'])}",
            f"kind: {rng.choice(['convention', 'pitfall', 'decision'])}",
            "source:",
            "  type: manual",
            "  author: zed",
            "created: 2026-01-01",
            "lastConfirmed: 2026-01-02",
            "---",
            "## Rule",
            text.capitalize() + ".",
            "",
            "## Why",
            " ".join(rng.choice(WORDS) for _ in range(6)).capitalize() + ".",
            "",
        ]
    )


def document(rng: random.Random, area: str, folder: str, ext: str) -> str:
    sections = []
    for k in range(3):
        name = rng.choice(WORDS)
        body = " ".join(rng.choice(WORDS) for _ in range(10))
        sections.append(f"## {name.title()} {k} {{#{name}-{k}}}\n{body} in `{folder}/api/{name}.{ext}`.\n")
    front = f'---\ntitle: {area} overview\narea: {area}\nscope: ["{folder}/**"]\nupdated: 2026-11-12\n---\n'
    return front + "\n".join(sections)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    rng = random.Random(18)
    root = tmp_path_factory.mktemp("kb")
    files = {"homeostat.yaml": config()}
    n = 0
    for repo, (folder, ext) in REPOS.items():
        for area in (f"{repo}/api", f"{repo}/jobs"):
            for _ in range(40):
                n += 1
                files[f"knowledge/{area}/rule-{n}.md"] = rule(rng, n, area, folder, ext)
            files[f"knowledge/{area}/docs/overview.md"] = document(rng, area, folder, ext)
    for _ in range(30):
        n += 1
        folder, ext = rng.choice(list(REPOS.values()))
        files[f"knowledge/core/rule-{n}.md"] = rule(rng, n, "core", folder, ext)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return build(root)


def sessions() -> list[tuple[str | None, Audience, list[str], tuple[str, ...]]]:
    rng = random.Random(7)
    out: list[tuple[str | None, Audience, list[str], tuple[str, ...]]] = []
    for repo in [*REPOS, None]:
        folder, ext = REPOS[repo or "alpha"]
        for member, teams in (
            (None, frozenset[str]()),
            ("ana", frozenset({"api"})),
            ("cy", frozenset({"web"})),
        ):
            touched = [f"{folder}/{rng.choice(['api', 'jobs'])}/{rng.choice(WORDS)}.{ext}" for _ in range(3)]
            task = tuple(rng.choice(WORDS) for _ in range(3))
            out.append((repo, Audience(repo, member, teams), touched, task))
    return out


def view_of(
    corpus: Corpus, audience: Audience, touched: list[str], task: tuple[str, ...]
) -> tuple[object, ...]:
    counter = LineCounter(corpus.line_tokens, len)
    view = build_view(corpus, touched, audience, counter, task=task)
    return view.text, view.served_ids, view.to_data()


def test_the_corpus_has_three_repos_and_shared_rules(corpus: Corpus) -> None:
    assert corpus.multi_repo and {e.area.split("/")[0] for e in corpus.entries} == {*REPOS, "core"}
    assert corpus.sections


@pytest.mark.parametrize("case", range(len(sessions())))
def test_a_repo_part_selects_what_the_whole_corpus_selects(corpus: Corpus, case: int) -> None:
    repo, audience, touched, task = sessions()[case]
    part = repo_part(corpus, repo)
    assert len(part.entries) < len(corpus.entries)
    assert {e.area.split("/")[0] for e in part.entries} <= {repo, "core"}
    whole_selection = select_entries(corpus, touched, audience, task)
    part_selection = select_entries(part, touched, audience, task)
    assert part_selection == whole_selection and whole_selection.ranked
    assert view_of(part, audience, touched, task) == view_of(corpus, audience, touched, task)
    rng = random.Random(case)
    for _ in range(12):
        message = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 7)))
        assert match_prompt(part, message, audience) == match_prompt(corpus, message, audience)
        assert search_entries(part, message, audience) == search_entries(corpus, message, audience)


@pytest.mark.parametrize("repo", [*REPOS, None])
@pytest.mark.parametrize("pairwise", [False, True])
def test_a_parts_postings_are_the_whole_corpus_renumbered(
    corpus: Corpus, repo: str | None, pairwise: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same postings whether a part's runs of documents are copied as slices or taken a pair at
    a time (a part of many runs), and as a plain renumbering of the whole corpus's gives them."""
    limit = parts.MAX_RUNS
    if pairwise:
        monkeypatch.setattr(parts, "MAX_RUNS", 0)
    n = len(corpus.entries)
    docs = [i for i, e in enumerate(corpus.entries) if e.area == "core" or e.area.startswith(f"{repo}/")]
    docs += [
        n + i for i, s in enumerate(corpus.sections) if s.area == "core" or s.area.startswith(f"{repo}/")
    ]
    number = {old: new for new, old in enumerate(docs)}
    expected: dict[str, list[int]] = {}
    for term, flat in corpus.postings.items():
        pairs = [(number[d], tf) for d, tf in zip(flat[::2], flat[1::2], strict=True) if d in number]
        if pairs:
            expected[term] = [x for pair in pairs for x in pair]
    runs = parts._runs(docs)
    assert len(runs) <= limit and any(first != at for first, _, at in runs)  # runs moved
    assert dict(repo_part(corpus, repo).postings) == expected


def test_a_part_survives_its_cached_form(corpus: Corpus) -> None:
    part = repo_part(corpus, "beta")
    again = Corpus.from_data(part.to_data())
    assert again.whole == part.whole and dict(again.frequencies) == dict(part.frequencies)
    audience = Audience("beta")
    touched = ["web/beta/api/ledger.ts"]
    assert select_entries(again, touched, audience) == select_entries(corpus, touched, audience)


def test_a_part_written_with_shared_values_reads_back_equal(corpus: Corpus) -> None:
    """The cached form writes a value many records share (area, file, scope) once: what is read back
    is equal, field by field, and smaller than each record's own copy."""
    import marshal

    from homeostat.adapters.cache.corpus_cache import _dumped

    part = repo_part(corpus, "beta")
    again = Corpus.from_data(marshal.loads(_dumped(part)))
    assert again.entries == part.entries and again.sections == part.sections
    assert len(_dumped(part)) < len(marshal.dumps(part.to_data()))
    assert select_entries(again, ["web/beta/api/ledger.ts"], Audience("beta")) == select_entries(
        part, ["web/beta/api/ledger.ts"], Audience("beta")
    )


def test_a_kb_without_repos_is_its_own_part(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    (root / "knowledge/api").mkdir(parents=True)
    (root / "homeostat.yaml").write_text(
        "version: 0.2.0\nteam:\n  members: []\n  teams: []\nareas:\n  - {name: api, paths: ['src/**'], owner: api}\n",
        encoding="utf-8",
    )
    (root / "knowledge/api/rule-1.md").write_text(
        rule(random.Random(1), 1, "api", "src", "py"), encoding="utf-8"
    )
    whole = build(root)
    assert repo_part(whole, None) is whole


EXAMPLE = REPO / "examples" / "kb"


@pytest.fixture
def example(tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(EXAMPLE, tmp_path / "kb", ignore=shutil.ignore_patterns(".homeostat")))


def test_a_cached_part_and_the_known_ids_follow_every_edit(example: Path) -> None:
    from homeostat.adapters.cache.corpus_cache import INDEX_DIR, known_ids, load_corpus

    def billing(repos: list[tuple[str, str]]) -> str | None:
        assert [name for name, _ in repos] == ["billing", "storefront"]
        return "billing"

    whole = load_corpus(example).corpus
    first = load_corpus(example, repo_of=billing)
    assert first.corpus == repo_part(whole, "billing")
    assert any(".part-" in p.name for p in (example / INDEX_DIR).iterdir())
    assert known_ids(example) == {e.id for e in whole.entries} | {s.key for s in whole.sections}
    again = load_corpus(example, repo_of=billing)
    assert not again.rebuilt and again.corpus == first.corpus and again.reason == "cached"
    rule = example / "knowledge/core/log-with-fields.md"
    rule.write_text(
        rule.read_text(encoding="utf-8").replace("id: log-with-fields", "id: log-with-named-fields"),
        encoding="utf-8",
    )
    edited = load_corpus(example, repo_of=billing)
    assert edited.rebuilt and edited.key != first.key
    assert "log-with-named-fields" in {e.id for e in edited.corpus.entries}
    assert "log-with-named-fields" in known_ids(example) and "log-with-fields" not in known_ids(example)
    names = {p.name for p in (example / INDEX_DIR).iterdir() if p.name.startswith("corpus-")}
    assert names and all(n.startswith(f"corpus-{edited.key}.") for n in names)  # the old key's parts are gone
