#!/usr/bin/env python3
"""Lay out each action as its own repository, for `uses: homeostat/<action>@v0.2` (the release does it).

    python scripts/export_actions.py --out /tmp/actions

`actions/<name>/` becomes `<out>/<name>/`: its `action.yml`, `pipe.yml` and README at the root, the
shared script under `_shared/` (each action looks for `_shared/` beside itself first, then one level
up, where it is in this monorepo), and the license. The release workflow commits each folder to
`homeostat/<name>` and tags it with the same exact and moving tags as this repository.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = "_shared"


def export(root: Path, out: Path) -> list[Path]:
    actions = root / "actions"
    exported = []
    for folder in sorted(p for p in actions.iterdir() if p.is_dir() and p.name != SHARED):
        if not (folder / "action.yml").exists():
            continue
        target = out / folder.name
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(folder, target)
        shutil.copytree(actions / SHARED, target / SHARED)
        for extra in ("LICENSE",):
            if (root / extra).exists():
                shutil.copy(root / extra, target / extra)
        exported.append(target)
    return exported


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--out", type=Path, required=True, help="where the per-action folders go")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout (default: this one)")
    args = parser.parse_args(argv)
    for target in export(args.root, args.out):
        print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
