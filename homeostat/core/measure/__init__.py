"""How well the KB works: metrics, `eval` and `report` health, the weekly digest, the repeat-lesson rate, a PR's impact on agents, transcript usage and calibration."""
