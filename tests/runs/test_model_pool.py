"""The run's model pool, its gates and the spending ledger: several calls at once, the same outcome as
one at a time. (End to end over the stub: tests/runs/daily/test_daily_scale.py.)"""

from __future__ import annotations

import random
import threading

import pytest

from homeostat.core.cost.spending import Ledger, SpendingCap, SpendingCapError, working_on
from homeostat.core.daily.judge import JUDGE_CONFIRMATIONS, JudgeBudget, Verdict
from homeostat.core.state.checkpoints import AnswerMemory, RetryThread, retry_list, still_needed
from homeostat.runs.model_pool import ModelPool, in_worker


def test_answers_come_back_in_the_order_asked_whatever_order_they_finish_in() -> None:
    pool = ModelPool(4)
    gates = [threading.Event() for _ in range(4)]
    together = threading.Barrier(4)

    def job(n: int) -> int:
        together.wait(5)  # all four run at once
        assert gates[n].wait(5)
        if n > 0:
            gates[n - 1].set()  # each job lets the one before it finish: they end last to first
        return n * 10

    futures = [pool.submit(lambda n=n: job(n)) for n in range(4)]  # type: ignore[misc]
    gates[3].set()
    assert [pool.outcome(f).get() for f in futures] == [0, 10, 20, 30]
    assert pool.max_running == 4
    pool.close()


def test_a_pool_of_one_asks_in_the_callers_thread_one_call_at_a_time() -> None:
    pool = ModelPool(1)
    seen: list[bool] = []
    outcomes = pool.run_each([lambda: seen.append(in_worker()) or 1, lambda: seen.append(in_worker()) or 2])
    assert [o.get() for o in outcomes] == [1, 2]
    assert seen == [False, False] and pool.max_running == 0


def test_an_error_is_handed_back_at_its_place_and_raised_by_the_reader() -> None:
    pool = ModelPool(3)

    def boom() -> int:
        raise SpendingCapError(1.0, 1.0, "--max-cost")

    first, second, third = pool.run_each([lambda: 1, boom, lambda: 3])
    assert first.get() == 1 and third.get() == 3
    with pytest.raises(SpendingCapError):
        second.get()
    pool.close()


def test_a_batch_asked_inside_a_worker_runs_there_and_never_waits_for_the_pool() -> None:
    pool = ModelPool(2)
    inner = pool.run_each([lambda: [o.get() for o in pool.run_each([lambda: 1, lambda: 2])]] * 4)
    assert [o.get() for o in inner] == [[1, 2]] * 4
    pool.close()


def test_the_waiting_thread_ticks_while_it_waits_and_workers_never_do() -> None:
    ticks: list[bool] = []
    pool = ModelPool(2, tick=lambda: ticks.append(in_worker()), tick_seconds=0.0)
    release = threading.Event()
    future = pool.submit(release.wait)
    threading.Timer(0.2, release.set).start()
    assert pool.outcome(future).get() is True
    assert ticks and not any(ticks)
    pool.close()


# --- gates: the calls made are the calls one at a time would make ------------------------------------


def sequential_judged(calls: list[int], cap: int) -> list[int]:
    """Which drafts one at a time would judge: each while the calls used so far are under the cap."""
    used, judged = 0, []
    for index, cost in enumerate(calls):
        if used < cap:
            judged.append(index)
            used += cost
    return judged


@pytest.mark.parametrize("seed", range(12))
def test_the_judge_budget_judges_exactly_the_drafts_one_at_a_time_would(seed: int) -> None:
    rng = random.Random(seed)
    calls = [rng.choice((1, 1, 1 + JUDGE_CONFIRMATIONS)) for _ in range(30)]
    cap = rng.randint(0, 45)
    pool = ModelPool(rng.randint(2, 8))

    def judge(index: int) -> Verdict:
        threading.Event().wait(rng.random() / 500)  # finish in a shuffled order
        return Verdict("pass" if calls[index] == 1 else "fail", calls=calls[index])

    outcomes = pool.run_gated(list(range(30)), judge, JudgeBudget(cap))
    assert [i for i, o in enumerate(outcomes) if o is not None] == sequential_judged(calls, cap)
    pool.close()


def test_the_merge_gate_asks_exactly_the_pairs_one_at_a_time_would() -> None:
    from core.deep_dive.test_deep_dive_core import kb_with

    from homeostat.core.deep_dive.duplicates import MergeGate, Pair, SameRuleAnswer

    kb = kb_with(**{i: (f"Rule {i} for the gate test", f"Do {i} in components.") for i in "abcde"})
    rules = {r.id: r for r in kb.rules}
    pairs = [
        Pair(rules[k], rules[d]) for k, d in (("a", "b"), ("b", "c"), ("a", "c"), ("d", "e"), ("c", "d"))
    ]
    same = {("a", "b"): True, ("b", "c"): True, ("a", "c"): True, ("d", "e"): False, ("c", "d"): True}
    asked: list[tuple[str, str]] = []

    def ask(pair: Pair) -> SameRuleAnswer:
        asked.append((pair.keep.id, pair.drop.id))
        return SameRuleAnswer(reason="r", same=same[(pair.keep.id, pair.drop.id)])

    outcomes = ModelPool(4).run_gated(pairs, ask, MergeGate())
    # one at a time: a+b merges (b gone), b+c skipped, a+c merges (c gone), d+e asked, c+d skipped
    assert sorted(asked) == [("a", "b"), ("a", "c"), ("d", "e")]
    assert [o is not None for o in outcomes] == [True, False, True, True, False]


# --- the ledger -----------------------------------------------------------------------------------------


def test_one_at_a_time_the_call_that_crosses_the_cap_finishes_and_the_next_is_refused() -> None:
    ledger, cap = Ledger(), SpendingCap(0.05, "agents.maxCostUsd")
    ticket = ledger.begin_call(cap, 0.01, agent="curator")
    ledger.end_call(ticket, 0.06, priced=True)
    with pytest.raises(SpendingCapError, match=r"spent \$0\.0600 of the \$0\.0500"):
        ledger.begin_call(cap, 0.01, agent="curator")


@pytest.mark.parametrize(("cost", "admitted"), [(0.03, False), (0.0, True)])
def test_calls_in_flight_set_their_estimates_aside_and_the_next_waits_for_what_they_cost(
    cost: float, admitted: bool
) -> None:
    ledger, cap = Ledger(), SpendingCap(0.10, "--max-cost")
    priced = ledger.begin_call(cap, 0.04, agent="curator")
    ledger.end_call(priced, 0.04, priced=True)  # the agent's first call, priced: the rest may run at once
    running = [ledger.begin_call(cap, 0.03, agent="curator") for _ in range(2)]
    assert ledger.in_flight == 2 and ledger.max_in_flight == 2
    outcome: list[object] = []

    def third() -> None:
        try:
            outcome.append(ledger.begin_call(cap, 0.01, agent="curator"))
        except SpendingCapError as exc:
            outcome.append(exc)

    waiting = threading.Thread(target=third, daemon=True)
    waiting.start()
    waiting.join(0.3)
    assert outcome == []  # $0.04 spent and $0.06 set aside: it waits for what the two really cost
    for ticket in running:
        ledger.end_call(ticket, cost, priced=True)
    waiting.join(5)
    assert isinstance(outcome[0], SpendingCapError) is not admitted


def test_work_reserves_its_follow_up_calls_which_the_cap_never_refuses() -> None:
    ledger, cap = Ledger(), SpendingCap(0.09, "--max-cost")
    with working_on("lesson-1", follow_ups=2):  # a draft: its consolidation and judge set aside too
        ticket = ledger.begin_call(cap, 0.03, _work("lesson-1", 2), agent="curator")
    assert ledger.work_reserved == pytest.approx(0.09)
    ledger.end_call(ticket, 0.03, priced=True)
    with pytest.raises(SpendingCapError):  # another lesson does not fit beside it
        ledger.begin_call(cap, 0.03, _work("lesson-2", 2), agent="curator")
    for _ in range(3):  # the first lesson's consolidation and judge calls go, even past the cap
        ledger.end_call(ledger.begin_call(cap, 0.03, _work("lesson-1"), agent="judge"), 0.03, priced=True)
    ledger.release("lesson-1")
    assert ledger.work_reserved == 0 and ledger.spent == pytest.approx(0.12)


def _work(key: str, follow_ups: int = 0):  # type: ignore[no-untyped-def]
    from homeostat.core.cost.spending import Work

    return Work(key, follow_ups)


def test_an_agents_calls_start_one_at_a_time_until_one_is_priced() -> None:
    ledger, cap = Ledger(), SpendingCap(5.0, "--max-cost")
    first = ledger.begin_call(cap, 0.01, agent="curator")
    started = threading.Event()

    def second() -> None:
        ledger.end_call(ledger.begin_call(cap, 0.01, agent="curator"), 0.01, priced=True)
        started.set()

    threading.Thread(target=second, daemon=True).start()
    assert not started.wait(0.3)  # held until the first call's cost is known
    ledger.end_call(first, 0.01, priced=True)
    assert started.wait(5)


# --- the answer memory and the retry list ---------------------------------------------------------------


def test_the_same_question_asked_again_in_a_run_is_a_different_ask() -> None:
    memory = AnswerMemory()
    keys = [memory.key("judge|m", "JudgeAnswer", "system", "thread") for _ in range(3)]
    assert len(set(keys)) == 3
    again = AnswerMemory()
    assert [again.key("judge|m", "JudgeAnswer", "system", "thread") for _ in range(3)] == keys


def test_a_finished_run_keeps_answers_for_undecided_work_only() -> None:
    import datetime as dt

    from homeostat.core.state.checkpoints import RememberedAnswer

    now = dt.datetime(2026, 12, 2, tzinfo=dt.UTC)
    answers = [
        RememberedAnswer(key=f"{n:064x}", work=work, agent="curator", answer={}, at=now - age)
        for n, (work, age) in enumerate(
            [("decided", dt.timedelta(0)), ("waiting", dt.timedelta(days=1)), ("", dt.timedelta(days=9))]
        )
    ]
    kept = still_needed(answers, frozenset({"decided"}), now, dt.timedelta(days=7))
    assert [a.work for a in kept] == ["waiting"]


def test_a_thread_failing_run_after_run_is_given_up_after_five_attempts() -> None:
    import datetime as dt

    merged = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    earlier: list[RetryThread] = []
    given_up: list[RetryThread] = []
    for _ in range(6):
        earlier, given_up = retry_list(earlier, [RetryThread(url="u", merged_at=merged)], frozenset())
    assert earlier == [] and [t.attempts for t in given_up] == [6]
    kept, _ = retry_list([RetryThread(url="u", merged_at=merged, attempts=2)], [], frozenset({"u"}))
    assert kept == []  # drafted since
