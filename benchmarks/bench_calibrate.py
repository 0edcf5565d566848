"""What `homeostat calibrate` finds and pays on a simulated history (tests/calibration_history.py).

    .venv/bin/python benchmarks/bench_calibrate.py [--settled 1000,10000] [--seeds 3]

For each size and seed: the weights that move, the fit (mean log loss; how often a merged review
outscores a closed one), how many past lessons the score decided would be decided differently, and
the wall time of reading the records and fitting (best of three). Prints numbers only.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from calibration_history import TRUE_WEIGHTS, history  # noqa: E402

from homeostat.core.kb import load_config  # noqa: E402
from homeostat.core.measure.calibration import calibrate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--settled", default="1000,10000", help="settled reviews per history, comma-separated"
    )
    parser.add_argument("--seeds", type=int, default=3, help="histories per size")
    args = parser.parse_args()
    config = load_config((ROOT / "examples" / "kb" / "homeostat.yaml").read_text())[0]
    assert config is not None
    print(f"truth: {TRUE_WEIGHTS}")
    for size in (int(n) for n in args.settled.split(",")):
        for seed in range(33, 33 + args.seeds):
            records = [r for rs in history(config, size, seed=seed).values() for r in rs]
            walls = []
            for _ in range(3):
                started = time.perf_counter()
                result = calibrate(records, config)
                walls.append(time.perf_counter() - started)
            moved = ", ".join(f"{k} {a}→{b}" for k, (a, b) in sorted(result.moved.items()))
            print(
                f"{size} settled (seed {seed}, {len(records)} records): fit {min(walls):.2f} s; "
                f"loss {result.loss_before:.3f}→{result.loss_after:.3f}; "
                f"ranking {result.ranking_before:.1%}→{result.ranking_after:.1%}; "
                f"decided differently {result.decided_differently}/{result.scored} {result.changed}; "
                f"agree {result.agree}; proposes {result.better}\n  moved: {moved}"
            )


if __name__ == "__main__":
    main()
