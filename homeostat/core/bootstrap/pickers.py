"""Which files each topic's document is drafted from: one picker per topic, from paths and a little text.

| Topic | Reads |
|---|---|
| architecture | the tree, the README, build files, entrypoints |
| conventions | the tree, lint and format settings, contributing guides, a few representative modules |
| cross-repo | the tree, the README, API specs, compose files, dependency manifests, client modules |
| data | schema dumps, ORM files found by a table definition in their text, the newest migrations of every migration history |
| infrastructure | Helm charts, Terraform, Kubernetes manifests, Dockerfiles, CI pipelines |

Pickers see only paths that passed the never-read list. Two need text: a table definition marks an ORM
file and `apiVersion:`/`kind:` a Kubernetes manifest, and a migration history named by hashes (Alembic)
is ordered by its `down_revision` chain. `scan_targets` says which files that takes, and the caller
reads those (locally: a scan sends nothing) before calling `pick`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

TOPICS = ("architecture", "conventions", "cross-repo", "data", "infrastructure")
MAX_FILES = 10  # per topic
MAX_SCAN = 400  # files read locally to find table definitions and manifests
NEWEST_MIGRATIONS = 3  # per migration history

_CODE = (
    ".py",
    ".rb",
    ".ts",
    ".js",
    ".mjs",
    ".java",
    ".kt",
    ".go",
    ".cs",
    ".php",
    ".ex",
    ".exs",
    ".scala",
    ".rs",
)
_YAML = (".yaml", ".yml")
_README = re.compile(r"^readme(?:\.(?:md|rst|txt|markdown))?$", re.IGNORECASE)
_BUILD = frozenset(
    {
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "requirements.txt",
        "Pipfile",
        "package.json",
        "go.mod",
        "Cargo.toml",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
        "Gemfile",
        "composer.json",
        "mix.exs",
        "Makefile",
        "justfile",
        "CMakeLists.txt",
        "pnpm-workspace.yaml",
        "turbo.json",
        "nx.json",
        "lerna.json",
    }
)
_ENTRYPOINT = re.compile(
    r"^(?:main|__main__|app|wsgi|asgi|manage|server|cli|index|program|lib)\.(?:py|go|ts|js|mjs|rs|cs|rb|java|kt)$"
    r"|^\w+Application\.(?:java|kt)$",
    re.IGNORECASE,
)
_STYLE = re.compile(
    r"^(?:\.editorconfig|contributing(?:\.md)?|styleguide(?:\.md)?|\.pre-commit-config\.yaml|\.?ruff\.toml"
    r"|tox\.ini|\.flake8|\.pylintrc|mypy\.ini|\.eslintrc(?:\..+)?|eslint\.config\..+|\.prettierrc(?:\..+)?"
    r"|prettier\.config\..+|tsconfig\.json|biome\.json|\.golangci\.ya?ml|\.rubocop\.yml|\.stylelintrc(?:\..+)?"
    r"|\.clang-format|rustfmt\.toml|clippy\.toml|setup\.cfg|pyproject\.toml)$",
    re.IGNORECASE,
)
_TYPICAL_MODULE = re.compile(
    r"^(?:errors?|exceptions?|utils?|helpers?|logging|log|config|settings|base|services?|handlers?|api|routes?)\.",
    re.IGNORECASE,
)
_API_SPEC = re.compile(
    r"^(?:openapi|swagger|asyncapi)[\w.-]*\.(?:ya?ml|json)$|\.proto$|\.graphqls?$|\.avsc$", re.IGNORECASE
)
_COMPOSE = re.compile(r"^(?:docker-)?compose(?:[\w.-]*)?\.ya?ml$", re.IGNORECASE)
_MANIFEST = frozenset(
    {"package.json", "pyproject.toml", "go.mod", "requirements.txt", "Gemfile", "pom.xml", "build.gradle"}
)
_CLIENT_DIR = frozenset({"client", "clients", "integrations", "adapters", "gateways", "sdk"})
_SCHEMA_DUMP = re.compile(
    r"^(?:schema|structure|database)\.(?:sql|rb)$|^[\w.-]*schema[\w.-]*\.sql$|\.prisma$|\.dbml$",
    re.IGNORECASE,
)
# A table definition in an ORM or a schema builder: SQLAlchemy, Django, ActiveRecord, JPA, TypeORM,
# GORM, Ecto, Knex, Sequelize, Drizzle, or plain SQL.
TABLE_DEFINITION = re.compile(
    r"__tablename__\s*=|\bTable\(\s*[\"']|\bmodels\.Model\b|\bcreate_table\b|@Entity\b|@Table\s*\("
    r"|\bCREATE\s+TABLE\b|\bgorm\.Model\b|^\s*schema\s+\"\w+\"\s+do\b|\bcreateTable\s*\(|\bsequelize\.define\s*\("
    r"|\bmapped_column\s*\(|\b(?:pg|mysql|sqlite)Table\s*\(",
    re.MULTILINE | re.IGNORECASE,
)
_K8S = (re.compile(r"^apiVersion:", re.MULTILINE), re.compile(r"^kind:", re.MULTILINE))
_MIGRATION_DIRS = frozenset({"migrations", "migrate", "flyway"})
_FLYWAY = re.compile(r"^V\d+(?:[._]\d+)*__.+\.sql$")
_NOT_MIGRATION = re.compile(
    r"^(?:__init__\.py|env\.py|script\.py\.mako|readme.*|\.gitkeep|alembic\.ini)$", re.I
)
_MIGRATION_EXT = (*_CODE, ".sql", ".xml", ".yaml", ".yml", ".json")
_REVISION = re.compile(r"^revision\s*(?::\s*\w+\s*)?=\s*[\"']([\w-]+)[\"']", re.MULTILINE)
_DOWN_REVISION = re.compile(r"^down_revision\s*(?::[^=]+)?=\s*[\"']([\w-]+)[\"']", re.MULTILINE)
_CHART_TEMPLATE_ORDER = ("deployment", "statefulset", "service", "ingress", "configmap", "cronjob", "job")
_TF_ORDER = ("main.tf", "variables.tf", "outputs.tf", "providers.tf", "versions.tf", "backend.tf")
_DOCKERFILE = re.compile(r"^(?:Dockerfile(?:\..+)?|.+\.Dockerfile|Containerfile)$")
_CI = re.compile(
    r"^(?:\.github/workflows/[^/]+\.ya?ml|\.gitlab-ci\.yml|bitbucket-pipelines\.yml|Jenkinsfile"
    r"|\.circleci/config\.yml|azure-pipelines\.yml|\.buildkite/[^/]+\.ya?ml|\.travis\.yml|cloudbuild\.ya?ml"
    r"|skaffold\.ya?ml|fly\.toml|Procfile|serverless\.ya?ml)$"
)


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _depth(path: str) -> int:
    return path.count("/")


def _shallow(paths: Iterable[str]) -> list[str]:
    return sorted(paths, key=lambda p: (_depth(p), p))


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", text) if part)


# --- the tree ------------------------------------------------------------------------------------


def tree_outline(paths: Sequence[str], depth: int = 3, limit: int = 150) -> str:
    """Folders with their file counts (to `depth`) and the top-level files: the repo's shape."""
    counts: dict[str, int] = defaultdict(int)
    top: list[str] = []
    for path in paths:
        parts = path.split("/")
        if len(parts) == 1:
            top.append(path)
        for level in range(1, min(len(parts), depth + 1)):
            counts["/".join(parts[:level])] += 1
    lines = [name for name in sorted(top)[:40]]
    for folder in sorted(counts):
        indent = "  " * folder.count("/")
        lines.append(f"{indent}{folder.rsplit('/', 1)[-1]}/ ({counts[folder]} files)")
    if len(lines) > limit:
        lines = [*lines[:limit], f"… {len(lines) - limit} more lines"]
    return "\n".join(lines)


# --- what needs a look inside ----------------------------------------------------------------------


def scan_targets(paths: Sequence[str]) -> list[str]:
    """Files the pickers must read to choose: code (table definitions), YAML (manifests), hash-named
    migrations (their chain). Likely places first, at most `MAX_SCAN`."""
    path_set = frozenset(paths)
    code = [p for p in paths if p.endswith(_CODE) and _history_of(p) is None]
    likely = re.compile(r"model|entit|schema|table|orm|db|repositor", re.IGNORECASE)
    code.sort(key=lambda p: (likely.search(p) is None, _depth(p), p))
    yaml = _shallow(
        p for p in paths if p.endswith(_YAML) and _chart_of(p, path_set) is None and _CI.match(p) is None
    )
    chained = [
        path
        for history, files in migration_histories(paths).items()
        if not _numbered(history, files)
        for path in files
    ]
    seen: dict[str, None] = {}
    for path in [*chained, *yaml[: MAX_SCAN // 4], *code]:
        seen.setdefault(path, None)
    return list(seen)[:MAX_SCAN]


# --- migrations ------------------------------------------------------------------------------------


def _history_of(path: str) -> str | None:
    parts = path.split("/")
    name = parts[-1]
    if _NOT_MIGRATION.match(name) or not name.endswith(_MIGRATION_EXT):
        return None
    for index in range(len(parts) - 2, -1, -1):
        part = parts[index].lower()
        if part in _MIGRATION_DIRS:
            return "/".join(parts[: index + 1])
        if part == "versions" and index > 0 and parts[index - 1].lower() in ("alembic", "migrations"):
            return "/".join(parts[: index + 1])
    if _FLYWAY.match(name):
        return "/".join(parts[:-1]) or "."
    return None


def migration_histories(paths: Sequence[str]) -> dict[str, list[str]]:
    """Migration folder → its migration files (a history per folder; a nested `versions/` wins)."""
    histories: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        history = _history_of(path)
        if history is not None:
            histories[history].append(path)
    return dict(histories)


def _entry(history: str, path: str) -> str:
    """The migration a file belongs to: its name, or its folder (Prisma's `<stamp>_<name>/migration.sql`)."""
    rest = path[len(history) + 1 :] if history != "." else path
    return rest.split("/", 1)[0]


def _numbered(history: str, files: Sequence[str]) -> bool:
    """Named so that name order is age order (`0003_…`, `20240101…`, `V3__…`)."""
    return all(re.match(r"^V?\d", _entry(history, path)) for path in files)


def newest_migrations(history: str, files: Sequence[str], texts: Mapping[str, str]) -> list[str]:
    """The newest `NEWEST_MIGRATIONS` migrations of one history, newest first."""
    entries: dict[str, list[str]] = defaultdict(list)
    for path in files:
        entries[_entry(history, path)].append(path)
    names = list(entries)
    if _numbered(history, files):
        ordered = sorted(names, key=_natural, reverse=True)
    else:
        ordered = _by_chain(entries, texts) or sorted(names, key=_natural, reverse=True)
    return [path for name in ordered[:NEWEST_MIGRATIONS] for path in sorted(entries[name])]


def _by_chain(entries: Mapping[str, list[str]], texts: Mapping[str, str]) -> list[str]:
    """Alembic: follow `down_revision` back from the head; [] when the chain cannot be read."""
    revision_of: dict[str, str] = {}
    parent: dict[str, str] = {}
    for name, paths in entries.items():
        text = texts.get(paths[0], "")
        found = _REVISION.search(text)
        if found is None:
            return []
        revision_of[found.group(1)] = name
        down = _DOWN_REVISION.search(text)
        if down is not None:
            parent[found.group(1)] = down.group(1)
    heads = sorted(set(revision_of) - set(parent.values()))
    ordered: list[str] = []
    for head in heads:
        current: str | None = head
        while current is not None and current in revision_of and revision_of[current] not in ordered:
            ordered.append(revision_of[current])
            current = parent.get(current)
    return ordered


# --- the pickers ---------------------------------------------------------------------------------


def _first(paths: Iterable[str], limit: int) -> list[str]:
    return list(dict.fromkeys(paths))[:limit]


def _round_robin(groups: Sequence[Sequence[str]], limit: int) -> list[str]:
    """One from each group in turn, until `limit`: a bit of every kind before more of one."""
    queues = [list(group) for group in groups]
    picked: list[str] = []
    while len(picked) < limit and any(queues):
        for queue in queues:
            if queue and len(picked) < limit:
                picked.append(queue.pop(0))
    return picked


def _architecture(paths: Sequence[str], texts: Mapping[str, str]) -> list[str]:
    readme = _shallow(p for p in paths if _README.match(_name(p)) and _depth(p) == 0)
    design = _shallow(
        p for p in paths if _name(p).upper().startswith(("ARCHITECTURE", "DESIGN")) and _depth(p) <= 1
    )
    build = _shallow(p for p in paths if _name(p) in _BUILD and _depth(p) <= 2)
    entry = _shallow(p for p in paths if _ENTRYPOINT.match(_name(p)) and _depth(p) <= 4)
    return _first([*readme[:1], *design[:1], *build[:4], *entry[:4]], MAX_FILES)


def _conventions(paths: Sequence[str], texts: Mapping[str, str]) -> list[str]:
    style = _shallow(p for p in paths if _STYLE.match(_name(p)) and _depth(p) <= 2)
    code = [p for p in paths if p.endswith(_CODE) and not _ENTRYPOINT.match(_name(p)) and _depth(p) >= 1]
    typical = _shallow(p for p in code if _TYPICAL_MODULE.match(_name(p)))
    return _first([*style[:7], *typical[:3], *_shallow(code)[:3]], MAX_FILES)


def _cross_repo(paths: Sequence[str], texts: Mapping[str, str]) -> list[str]:
    readme = _shallow(p for p in paths if _README.match(_name(p)) and _depth(p) == 0)
    specs = _shallow(p for p in paths if _API_SPEC.search(_name(p)))
    compose = _shallow(p for p in paths if _COMPOSE.match(_name(p)))
    manifests = _shallow(p for p in paths if _name(p) in _MANIFEST and _depth(p) <= 2)
    clients = _shallow(
        p
        for p in paths
        if p.endswith(_CODE) and any(part.lower() in _CLIENT_DIR for part in p.split("/")[:-1])
    )
    return _first([*readme[:1], *specs[:3], *compose[:2], *manifests[:2], *clients[:3]], MAX_FILES)


def _data(paths: Sequence[str], texts: Mapping[str, str]) -> list[str]:
    dumps = _shallow(p for p in paths if _SCHEMA_DUMP.search(_name(p)) and _history_of(p) is None)
    orm = _shallow(
        p
        for p in paths
        if p.endswith(_CODE) and _history_of(p) is None and TABLE_DEFINITION.search(texts.get(p, ""))
    )
    histories = sorted(migration_histories(paths).items())
    migrations = _round_robin([newest_migrations(h, files, texts) for h, files in histories], 6)
    return _first([*dumps[:3], *orm[:4], *migrations], MAX_FILES)


def _chart_of(path: str, path_set: frozenset[str]) -> str | None:
    parts = path.split("/")
    for index in range(len(parts) - 1, 0, -1):
        folder = "/".join(parts[:index])
        if f"{folder}/Chart.yaml" in path_set:
            return folder
    return None


def _chart_files(paths: Sequence[str], path_set: frozenset[str]) -> list[str]:
    picked: list[str] = []
    for chart in _shallow(p for p in paths if _name(p) == "Chart.yaml"):
        folder = chart.rsplit("/", 1)[0] if "/" in chart else ""
        prefix = f"{folder}/" if folder else ""
        picked.append(chart)
        if f"{prefix}values.yaml" in path_set:
            picked.append(f"{prefix}values.yaml")
        templates = [p for p in paths if p.startswith(f"{prefix}templates/") and p.endswith(_YAML)]
        rank = {name: i for i, name in enumerate(_CHART_TEMPLATE_ORDER)}
        templates.sort(key=lambda p: (rank.get(_name(p).split(".")[0], len(rank)), p))
        picked += templates[:2]
    return picked


def _infrastructure(paths: Sequence[str], texts: Mapping[str, str]) -> list[str]:
    path_set = frozenset(paths)
    charts = _chart_files(paths, path_set)
    rank = {name: i for i, name in enumerate(_TF_ORDER)}
    terraform = sorted(
        (p for p in paths if p.endswith(".tf")), key=lambda p: (rank.get(_name(p), 99), _depth(p), p)
    )
    manifests = _shallow(
        p
        for p in paths
        if p.endswith(_YAML)
        and _chart_of(p, path_set) is None
        and all(rx.search(texts.get(p, "")) for rx in _K8S)
    )
    docker = _shallow(p for p in paths if _DOCKERFILE.match(_name(p)) or _COMPOSE.match(_name(p)))
    ci = _shallow(p for p in paths if _CI.match(p))
    return _first(_round_robin([charts, terraform, manifests, docker, ci], MAX_FILES), MAX_FILES)


_PICKERS = {
    "architecture": _architecture,
    "conventions": _conventions,
    "cross-repo": _cross_repo,
    "data": _data,
    "infrastructure": _infrastructure,
}


def pick(topic: str, paths: Sequence[str], texts: Mapping[str, str]) -> list[str]:
    """The files `topic`'s document is drafted from, most telling first (at most `MAX_FILES`).

    `paths` must already be the readable ones; `texts` holds what `scan_targets` read."""
    return _PICKERS[topic](paths, texts)


def uses_tree(topic: str) -> bool:
    """Topics whose prompt also shows the tree outline."""
    return topic in ("architecture", "conventions", "cross-repo")
