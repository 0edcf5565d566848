"""The package layout's numbers (issue 31), read from the source's syntax trees; nothing is imported or run.

    .venv/bin/python benchmarks/bench_layout.py [--list] [--no-duplicates]

Prints, for `homeostat/`: the import-graph violations of the layout rules (a command importing another
command, an adapter importing runs/ or commands/, core importing adapters/, runs/ or commands/,
anything but the entry point importing cli.py, mcp_server or the dashboard importing adapters/ or
commands/ (they reach both through runs/), import cycles among modules), the modules in the largest
flat folder, the functions over 60 lines outside data tables and the median and p90 function length,
and the pairs `duplicates` finds in the whole tree when that tool is on PATH. Every import counts, those inside a function or under
TYPE_CHECKING too: each is a dependency a reader follows. `--list` names each violation and long
function; the servers' imports of adapters/ and commands/ are named always. Prints numbers only.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import statistics
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "homeostat"
ENTRY_POINT = "homeostat.__main__"
LONG_FUNCTION = 60
# A function whose lines are mostly one literal (a dict or list of data) is a data table, not logic.
DATA_SHARE = 0.6


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def read_modules() -> dict[str, ast.Module]:
    trees = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        trees[module_name(path)] = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return trees


def imported(name: str, tree: ast.Module, modules: set[str]) -> set[str]:
    """The package's modules `name` imports (`from a import b` names module a.b when b is one)."""
    package = name if _is_package(name, modules) else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(_known(alias.name, modules) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.add(sub if sub in modules else _known(base, modules))
    out.discard("")
    out.discard(name)
    return out


def _is_package(name: str, modules: set[str]) -> bool:
    return any(other.startswith(name + ".") for other in modules)


def _known(name: str, modules: set[str]) -> str:
    """The longest prefix of a dotted name that is one of the package's modules ("" for none)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name


def under(name: str, folder: str) -> bool:
    return name.startswith(f"{PACKAGE}.{folder}.")


def violations(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {
        "command -> command": [],
        "adapter -> runs/commands": [],
        "core -> adapters/runs/commands": [],
        "cli.py imported (not by the entry point)": [],
        "mcp_server/dashboard -> adapters": [],
        "mcp_server/dashboard -> commands": [],
    }
    # The two servers stand on runs/ and core/: what they need of an adapter or a command is a service
    # in runs/ (`runs.mcp_session`, `runs.dashboard`).
    for source, targets in sorted(graph.items()):
        for target in sorted(targets):
            arrow = f"{source} -> {target}"
            if under(source, "commands") and under(target, "commands"):
                found["command -> command"].append(arrow)
            if under(source, "adapters") and (under(target, "runs") or under(target, "commands")):
                found["adapter -> runs/commands"].append(arrow)
            if under(source, "core") and any(under(target, up) for up in ("adapters", "runs", "commands")):
                found["core -> adapters/runs/commands"].append(arrow)
            if target == f"{PACKAGE}.cli" and source != ENTRY_POINT:
                found["cli.py imported (not by the entry point)"].append(arrow)
            top = source == f"{PACKAGE}.mcp_server" or source.startswith(f"{PACKAGE}.dashboard")
            for folder in ("adapters", "commands") if top else ():
                if under(target, folder):
                    found[f"mcp_server/dashboard -> {folder}"].append(arrow)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


def flat_folders() -> Counter[str]:
    """Modules (not packages) directly in each folder of the package."""
    counts: Counter[str] = Counter()
    for path in (ROOT / PACKAGE).rglob("*.py"):
        if path.name != "__init__.py":
            counts[str(path.parent.relative_to(ROOT))] += 1
    return counts


def functions(trees: dict[str, ast.Module]) -> list[tuple[int, str, bool]]:
    """Every function's length in lines, its place, and whether it is a data table."""
    out = []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                out.append((length, f"{name}:{node.name}", _data_table(node, length)))
    return out


def _data_table(node: ast.FunctionDef | ast.AsyncFunctionDef, length: int) -> bool:
    literal = 0
    for child in ast.walk(node):
        if isinstance(child, ast.Dict | ast.List | ast.Tuple | ast.Set) and child.end_lineno:
            literal = max(literal, child.end_lineno - child.lineno + 1)
    return literal >= DATA_SHARE * length


def duplicate_pairs() -> str:
    """The pair count `duplicates` prints for the whole tree, or why there is none."""
    tool = shutil.which("duplicates")
    if tool is None:
        return "n/a (duplicates is not on PATH)"
    done = subprocess.run(
        [tool, "--repo", str(ROOT), "--seconds", "300"], capture_output=True, text=True, check=False
    )
    first = done.stdout.splitlines()[0] if done.stdout else done.stderr.strip()
    found = re.search(r"(\d[\d,]*) pairs?", first)
    incomplete = [line for line in done.stdout.splitlines() if line.startswith("incomplete:")]
    count = found.group(1).replace(",", "") if found else first
    return count + (f" ({'; '.join(incomplete)})" if incomplete else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="name each violation and long function")
    parser.add_argument("--no-duplicates", action="store_true", help="skip the duplicates count")
    args = parser.parse_args()
    trees = read_modules()
    modules = set(trees)
    graph = {name: imported(name, tree, modules) for name, tree in trees.items()}
    found = violations(graph)
    groups = cycles(graph)
    total = sum(len(v) for v in found.values()) + len(groups)
    print(f"import-graph violations: {total}")
    for kind, arrows in found.items():
        print(f"  {kind}: {len(arrows)}")
        for arrow in arrows if args.list or kind.startswith("mcp_server/") else ():
            print(f"    {arrow}")
    sizes = ", ".join(str(len(g)) for g in groups)
    print(f"  import cycles: {len(groups)} (modules in each: {sizes or '-'})")
    for group in groups if args.list else ():
        print(f"    {' <-> '.join(group)}")
    folder, count = flat_folders().most_common(1)[0]
    print(f"largest flat folder: {folder}/ {count} modules")
    lengths = functions(trees)
    long = sorted(
        ((n, where) for n, where, table in lengths if n > LONG_FUNCTION and not table), reverse=True
    )
    tables = sum(1 for n, _, table in lengths if n > LONG_FUNCTION and table)
    print(f"functions over {LONG_FUNCTION} lines: {len(long)} (+{tables} data tables)")
    for n, where in long if args.list else ():
        print(f"    {n:4d} {where}")
    sized = sorted(n for n, _, _ in lengths)
    p90 = statistics.quantiles(sized, n=10)[-1]
    print(f"function lines: median {statistics.median(sized):g}, p90 {p90:g} ({len(sized)} functions)")
    if not args.no_duplicates:
        print(f"duplicates pairs: {duplicate_pairs()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
