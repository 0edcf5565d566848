"""Reading the version a KB's CI files pin, and turning agents.schedules into Bitbucket's cron."""

from __future__ import annotations

import pytest

from homeostat.core.schedule.host_schedules import (
    CronError,
    PipelineSchedule,
    ScheduleOutcome,
    plan_schedules,
    quartz_cron,
)
from homeostat.core.setup.pins import find_pins, pinned_version

SHA = "3d3c42e5aac5ba805825da76410c181273ba90b1"


@pytest.mark.parametrize(
    ("line", "ref", "version", "floating"),
    [
        (
            "      - uses: homeostat/homeostat/actions/daily@v0.2.0",
            "homeostat/homeostat/actions/daily@v0.2.0",
            "0.2.0",
            False,
        ),
        ("      - uses: homeostat/daily@v0.2.0", "homeostat/daily@v0.2.0", "0.2.0", False),
        ("      - uses: homeostat/homeostat@v0.3.0rc1", "homeostat/homeostat@v0.3.0rc1", "0.3.0rc1", False),
        ("      - uses: homeostat/daily@v0.2", "homeostat/daily@v0.2", "", True),
        ("      - uses: 'homeostat/daily@main'", "homeostat/daily@main", "", True),
        (f"      - uses: homeostat/daily@{SHA} # v0.2.0", f"homeostat/daily@{SHA}", "0.2.0", False),
        (f"      - uses: homeostat/daily@{SHA}", f"homeostat/daily@{SHA}", "", False),
        ("image: ghcr.io/homeostat/homeostat:0.2.0", "ghcr.io/homeostat/homeostat:0.2.0", "0.2.0", False),
        (
            "- pipe: docker://ghcr.io/homeostat/homeostat:latest",
            "ghcr.io/homeostat/homeostat:latest",
            "",
            True,
        ),
        ("image: ghcr.io/homeostat/homeostat", "ghcr.io/homeostat/homeostat", "", True),
        (
            "image: ghcr.io/homeostat/homeostat:0.2.0@sha256:" + "a" * 64,
            "ghcr.io/homeostat/homeostat:0.2.0@sha256:" + "a" * 64,
            "0.2.0",
            False,
        ),
        ("        run: pip install homeostat==0.2.0", "homeostat==0.2.0", "0.2.0", False),
    ],
)
def test_each_kind_of_pin(line: str, ref: str, version: str, floating: bool) -> None:
    (pin,) = find_pins({".github/workflows/x.yml": f"jobs:\n{line}\n"})
    assert (pin.ref, pin.version, pin.floating, pin.line) == (ref, version, floating, 2)


def test_a_version_input_in_the_same_step_is_a_pin_and_others_are_not() -> None:
    text = f"""\
steps:
  - uses: homeostat/homeostat/actions/daily@v0.2.0
    with:
      kb-path: .
      version: 0.1.0
  - uses: actions/setup-node@{SHA}
    with:
      version: 20
# - uses: homeostat/daily@v0.0.1
"""
    pins = find_pins({"bitbucket-pipelines.yml": "", ".github/workflows/a.yaml": text, "README.md": text})
    assert [(p.file, p.line, p.ref, p.version) for p in pins] == [
        (".github/workflows/a.yaml", 2, "homeostat/homeostat/actions/daily@v0.2.0", "0.2.0"),
        (".github/workflows/a.yaml", 5, "version: 0.1.0", "0.1.0"),
    ]
    assert pinned_version({".github/workflows/a.yaml": text}) is None  # 0.2.0 and 0.1.0: not one version


def test_pinned_version_is_the_one_exact_version_or_none() -> None:
    sha = {".github/workflows/a.yml": f"    - uses: homeostat/daily@{SHA} # v0.2.0\n"}
    assert pinned_version(sha) == "0.2.0"
    moving = {
        "bitbucket-pipelines.yml": "image: ghcr.io/homeostat/homeostat:0.2.0\n  - pipe: docker://ghcr.io/homeostat/homeostat\n"
    }
    assert pinned_version(moving) == "0.2.0"  # the moving pin names no version; doctor reports it
    assert pinned_version({"README.md": "uses: homeostat/daily@v0.1.0\n"}) is None


@pytest.mark.parametrize(
    ("cron", "quartz"),
    [
        ("0 6 * * *", "0 0 6 * * ? *"),
        ("0 7 * * 1", "0 0 7 ? * MON *"),
        ("30 4 * * 1-5", "0 30 4 ? * MON-FRI *"),
        ("0 8 * * 0,6", "0 0 8 ? * SUN,SAT *"),
        ("0 8 * * 7", "0 0 8 ? * SUN *"),
        ("0 8 * * mon", "0 0 8 ? * MON *"),
        ("*/15 * * * *", "0 */15 * * * ? *"),
        ("0 3 1 * *", "0 0 3 1 * ? *"),
    ],
)
def test_cron_becomes_bitbucket_quartz_with_weekday_names(cron: str, quartz: str) -> None:
    assert quartz_cron(cron) == quartz


@pytest.mark.parametrize(
    ("cron", "message"),
    [
        ("0 6 * *", "is not a five-field cron"),
        ("0 6 1 * 1", "names both a day of the month and a day of the week"),
        ("0 6 * * */2", "a step in the day of week"),
        ("0 6 * * 8", "day of week 8 is not 0-7"),
        ("0 6 * * funday", "is not a number 0-7 or a name"),
    ],
)
def test_cron_bitbucket_cannot_take_is_refused_with_why(cron: str, message: str) -> None:
    with pytest.raises(CronError, match=message):
        quartz_cron(cron)


def test_schedule_plans_create_keep_and_replace() -> None:
    daily = PipelineSchedule("homeostat-daily", "main", "0 0 6 * * ? *")
    weekly = PipelineSchedule("homeostat-digest", "main", "0 0 8 ? * MON *")
    existing = [
        PipelineSchedule("homeostat-daily", "main", "0  0 6 * * ? *", uuid="{a}"),
        PipelineSchedule("homeostat-digest", "main", "0 0 9 ? * MON *", uuid="{b}"),
        PipelineSchedule("homeostat-digest", "develop", "0 0 8 ? * MON *", uuid="{c}"),
    ]
    plans = plan_schedules([daily, weekly], existing, force=False)
    assert [p.outcome for p in plans] == [ScheduleOutcome.SAME, ScheduleOutcome.KEEP]
    assert [e.uuid for e in plans[1].existing] == ["{b}"]
    forced = plan_schedules([daily, weekly], existing, force=True)
    assert [p.outcome for p in forced] == [ScheduleOutcome.SAME, ScheduleOutcome.REPLACE]
    assert plan_schedules([daily], [], force=False)[0].outcome is ScheduleOutcome.CREATE
