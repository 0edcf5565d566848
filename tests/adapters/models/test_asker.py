"""The runtime-neutral Asker: agent choice, judge rule, price table, cost, cap, redaction, retries."""

from __future__ import annotations

import dataclasses
import io
import json
from collections import deque

import pytest
from fakes import FakeAsker
from pydantic import BaseModel, ConfigDict, ValidationError

from homeostat.adapters.models.askers import asker_for
from homeostat.core.asker import (
    AgentChoice,
    ModelAsker,
    ModelCallError,
    ModelReply,
    ModelRequest,
    RunStats,
    SpendingCap,
    SpendingCapError,
    Usage,
    default_judge_model,
    describe_validation_error,
    resolve_agent,
    spending_cap,
)
from homeostat.core.config import AgentsConfig, Config
from homeostat.core.cost.pricing import call_cost, canonical_model, is_dearer, model_info
from homeostat.core.events import MODEL_CALL, MemorySink, ModelCall
from homeostat.errors import ConfigError


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ok: bool
    reason: str


def agents(**values: object) -> AgentsConfig:
    return AgentsConfig.model_validate(values)


# --- which runtime and model ----------------------------------------------------------------------


def test_every_agent_defaults_to_opus_on_the_api_at_medium_effort() -> None:
    for name in ("curator", "consolidator", "deep-dive", "retractor", "bootstrap"):
        assert resolve_agent(name, agents()) == AgentChoice(name, "api", "claude-opus-5-5", "medium")


def test_a_per_agent_setting_overrides_only_that_agent() -> None:
    config = agents(runtime="vertex", consolidator={"model": "claude-sonnet-5-5", "effort": "low"})
    assert resolve_agent("consolidator", config) == AgentChoice(
        "consolidator", "vertex", "claude-sonnet-5-5", "low"
    )
    assert resolve_agent("curator", config) == AgentChoice("curator", "vertex", "claude-opus-5-5", "medium")


@pytest.mark.parametrize("spelling", ["deep-dive", "deep_dive", "deepDive"])
def test_the_deep_dive_answers_to_every_spelling(spelling: str) -> None:
    config = agents(deepDive={"runtime": "bedrock"})
    assert resolve_agent(spelling, config).runtime == "bedrock"


def test_an_unknown_model_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_agent("retractor", agents(retractor={"model": "claude-opus-9"}))
    assert str(caught.value) == (
        "homeostat.yaml agents.retractor.model: unknown model 'claude-opus-9'; Homeostat can price only "
        "claude-haiku-4-5-20251001, claude-haiku-5-5, claude-opus-5, claude-opus-5-5, claude-sonnet-5, "
        "claude-sonnet-5-5 (Bedrock and Vertex ids of these work too)"
    )


def test_an_unknown_default_model_names_agents_model() -> None:
    with pytest.raises(ConfigError, match=r"^homeostat.yaml agents.model: unknown model 'gpt-5'"):
        resolve_agent("curator", agents(model="gpt-5"))


@pytest.mark.parametrize(
    ("drafter", "judge"),
    [
        ("claude-opus-5-5", "claude-sonnet-5-5"),
        ("claude-opus-5", "claude-sonnet-5-5"),
        ("claude-sonnet-5-5", "claude-haiku-4-5-20251001"),
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5-20251001"),
        # Haiku 4.5 costs more than Haiku 5.5, and the judge is never dearer: it judges with the drafter.
        ("claude-haiku-5-5", "claude-haiku-5-5"),
    ],
)
def test_the_default_judge_is_a_tier_down_and_never_dearer(drafter: str, judge: str) -> None:
    assert default_judge_model(drafter) == judge
    assert resolve_agent("judge", agents(model=drafter)).model == judge


def test_the_judge_uses_the_drafters_runtime_and_a_set_judge_model() -> None:
    config = agents(curator={"runtime": "bedrock", "judgeModel": "claude-haiku-4-5-20251001"})
    assert resolve_agent("judge", config) == AgentChoice(
        "judge", "bedrock", "claude-haiku-4-5-20251001", "medium"
    )


def test_a_judge_dearer_than_the_drafter_is_refused() -> None:
    config = agents(curator={"model": "claude-sonnet-5-5", "judgeModel": "claude-opus-5-5"})
    with pytest.raises(ConfigError) as caught:
        resolve_agent("judge", config)
    assert str(caught.value) == (
        "homeostat.yaml agents.curator.judgeModel: the judge claude-opus-5-5 ($4/$20 per million tokens) "
        "costs more than the drafter claude-sonnet-5-5 ($2/$10); the judge must not be dearer than the "
        "drafter: pick a cheaper model or remove agents.curator.judgeModel to use claude-haiku-4-5-20251001"
    )


def test_an_unknown_judge_model_is_refused_before_the_price_check() -> None:
    with pytest.raises(ConfigError, match=r"agents.curator.judgeModel: unknown model 'claude-sonnet-9'"):
        resolve_agent("judge", agents(curator={"judgeModel": "claude-sonnet-9"}))


def test_an_unknown_agent_name_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown agent 'janitor'"):
        resolve_agent("janitor", agents())


# --- the price table ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("claude-opus-5-5", "claude-opus-5-5"),
        ("anthropic.claude-opus-5-5", "claude-opus-5-5"),
        ("us.anthropic.claude-sonnet-5-5-v1:0", "claude-sonnet-5-5"),
        ("global.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5-20251001"),
        ("claude-haiku-4-5@20251001", "claude-haiku-4-5-20251001"),
        ("claude-haiku-4-5", "claude-haiku-4-5-20251001"),
    ],
)
def test_cloud_model_ids_price_as_their_model(given: str, canonical: str) -> None:
    assert canonical_model(given) == canonical
    assert model_info(given) is not None


def test_a_call_costs_tokens_times_list_price() -> None:
    cost = call_cost(
        "claude-opus-5-5",
        input_tokens=1_000_000,
        output_tokens=100_000,
        cache_creation_tokens=200_000,
        cache_read_tokens=500_000,
    )
    assert cost == pytest.approx(4.0 + 2.0 + 1.0 + 0.10)


def test_a_long_prompt_on_haiku_5_5_is_billed_at_the_higher_tier() -> None:
    short = call_cost("claude-haiku-5-5", input_tokens=100_000, output_tokens=1_000)
    long = call_cost("claude-haiku-5-5", input_tokens=100_001, output_tokens=1_000)
    assert short == pytest.approx(0.0105)
    assert long == pytest.approx((100_001 * 0.10 + 1_000 * 0.50) / 1e6 * 5)


def test_dearer_means_dearer_per_input_or_per_output_token() -> None:
    assert is_dearer("claude-opus-5-5", "claude-sonnet-5-5")
    assert not is_dearer("claude-sonnet-5-5", "claude-opus-5-5")
    assert not is_dearer("claude-sonnet-5", "claude-sonnet-5-5")  # same per-token rates
    assert is_dearer("claude-haiku-4-5-20251001", "claude-haiku-5-5")


# --- the pipeline over a scripted runtime ---------------------------------------------------------


class ScriptedRuntime:
    """A runtime that replays replies and records requests: exercises ModelAsker without a network."""

    name = "api"

    def __init__(self, *replies: ModelReply[Verdict] | Exception) -> None:
        self.replies: deque[ModelReply[Verdict] | Exception] = deque(replies)
        self.requests: list[ModelRequest[Verdict]] = []

    def send(self, request: ModelRequest[Verdict]) -> ModelReply[Verdict]:  # type: ignore[override]
        self.requests.append(request)
        reply = self.replies.popleft()
        if isinstance(reply, Exception):
            raise reply
        return reply


USAGE = Usage(input_tokens=1000, output_tokens=100)  # $0.006 on Opus 5.5
OK = ModelReply("ok", USAGE, value=Verdict(ok=True, reason="fine"))
BAD = ModelReply("invalid", USAGE, problem="reason: Field required")


def pipeline(
    runtime: ScriptedRuntime, *, cap: float = 5.0, agent: str = "curator"
) -> tuple[ModelAsker, RunStats, MemorySink]:
    stats, sink = RunStats(), MemorySink()
    choice = AgentChoice(agent, "api", "claude-opus-5-5", "medium")
    asker = ModelAsker(
        runtime, choice, stats, cap=SpendingCap(cap, "agents.maxCostUsd"), timeout_seconds=30, sink=sink
    )
    return asker, stats, sink


def test_a_valid_answer_is_returned_and_counted() -> None:
    asker, stats, sink = pipeline(ScriptedRuntime(OK))
    assert asker.ask("system", "user", Verdict) == Verdict(ok=True, reason="fine")
    assert stats.as_dict()["costUsd"] == pytest.approx(0.006)
    assert stats.estimated is True
    [event] = sink.of_kind(MODEL_CALL)
    call = ModelCall.from_event(event)
    assert (call.agent, call.runtime, call.model, call.outcome) == ("curator", "api", "claude-opus-5-5", "ok")
    assert (call.input_tokens, call.output_tokens, call.estimated) == (1000, 100, True)


def test_an_answer_that_does_not_fit_is_retried_once_with_the_problem() -> None:
    runtime = ScriptedRuntime(BAD, OK)
    asker, stats, sink = pipeline(runtime)
    assert asker.ask("system", "the question", Verdict) == Verdict(ok=True, reason="fine")
    first, second = runtime.requests
    assert first.user == "the question"
    assert second.user.startswith("the question\n\n---\nYour previous answer could not be used")
    assert "reason: Field required" in second.user
    assert second.system == "system"
    assert [e.data["outcome"] for e in sink.events] == ["invalid", "ok"]
    assert stats.total.calls == 2


def test_two_answers_that_do_not_fit_are_no_answer_and_no_third_call() -> None:
    runtime = ScriptedRuntime(BAD, BAD, OK)
    asker, _, sink = pipeline(runtime)
    assert asker.ask("system", "user", Verdict) is None
    assert len(runtime.requests) == 2
    assert [e.data["outcome"] for e in sink.events] == ["invalid", "invalid"]


def test_a_refusal_is_no_answer_without_a_retry() -> None:
    runtime = ScriptedRuntime(ModelReply("refusal", USAGE), OK)
    asker, stats, _ = pipeline(runtime)
    assert asker.ask("system", "user", Verdict) is None
    assert len(runtime.requests) == 1
    assert stats.total.calls == 1


def test_an_error_is_raised_to_the_caller_and_logged() -> None:
    runtime = ScriptedRuntime(ModelCallError("the api runtime is overloaded", runtime="api", status=529))
    asker, stats, sink = pipeline(runtime)
    with pytest.raises(ModelCallError, match="overloaded"):
        asker.ask("system", "user", Verdict)
    assert [e.data["outcome"] for e in sink.events] == ["error"]
    assert stats.total.calls == 0


def test_the_cap_stops_the_next_call_not_the_one_that_crossed_it() -> None:
    runtime = ScriptedRuntime(OK, OK)
    asker, stats, _ = pipeline(runtime, cap=0.005)
    assert asker.ask("system", "user", Verdict) is not None  # started at $0, finished at $0.006
    with pytest.raises(SpendingCapError) as caught:
        asker.ask("system", "user", Verdict)
    assert len(runtime.requests) == 1
    assert str(caught.value) == (
        "spending cap reached: this run has spent $0.0060 of the $0.0050 allowed by agents.maxCostUsd, so no "
        "further model call was started (raise agents.maxCostUsd to allow more)"
    )
    assert stats.cost_usd == pytest.approx(0.006)


def test_the_cap_is_checked_before_the_corrective_retry() -> None:
    runtime = ScriptedRuntime(BAD, OK)
    asker, _, _ = pipeline(runtime, cap=0.005)
    with pytest.raises(SpendingCapError):
        asker.ask("system", "user", Verdict)
    assert len(runtime.requests) == 1


def test_the_cap_is_shared_by_every_agent_of_the_run() -> None:
    stats, sink = RunStats(), MemorySink()
    cap = SpendingCap(0.01, "--max-cost")
    make = lambda agent, runtime: ModelAsker(  # noqa: E731
        runtime,
        AgentChoice(agent, "api", "claude-opus-5-5", "medium"),
        stats,
        cap=cap,
        timeout_seconds=30,
        sink=sink,
    )
    curator, judge = make("curator", ScriptedRuntime(OK, OK)), make("judge", ScriptedRuntime(OK))
    curator.ask("s", "u", Verdict)
    curator.ask("s", "u", Verdict)
    with pytest.raises(
        SpendingCapError, match=r"allowed by --max-cost, .* \(raise --max-cost to allow more\)"
    ):
        judge.ask("s", "u", Verdict)
    assert set(stats.by_agent) == {"curator"}  # the judge never got to call
    assert stats.by_agent["curator"].calls == 2


def test_a_max_cost_override_replaces_the_configured_cap() -> None:
    assert spending_cap(agents(maxCostUsd=2.0)) == SpendingCap(2.0, "agents.maxCostUsd")
    assert spending_cap(agents(maxCostUsd=2.0), 0.5) == SpendingCap(0.5, "--max-cost")


def test_the_runtimes_own_cost_is_used_and_not_marked_estimated() -> None:
    reply = ModelReply(
        "ok", Usage(input_tokens=10, output_tokens=5, cost_usd=0.25), value=Verdict(ok=True, reason="")
    )
    asker, stats, sink = pipeline(ScriptedRuntime(reply))
    asker.ask("s", "u", Verdict)
    assert (stats.cost_usd, stats.estimated) == (0.25, False)
    assert ModelCall.from_event(sink.events[0]).estimated is False


def test_planted_secrets_are_redacted_before_the_runtime_sees_them(planted_secrets: list[str]) -> None:
    runtime = ScriptedRuntime(BAD, OK)
    asker, stats, _ = pipeline(runtime)
    leaky = "token: " + " and ".join(planted_secrets)
    asker.ask("system " + leaky, "user " + leaky, Verdict)
    sent = json.dumps([[r.system, r.user] for r in runtime.requests])
    assert not [secret for secret in planted_secrets if secret in sent]
    assert "[REDACTED:github-pat]" in runtime.requests[0].user
    assert stats.redactions == 2 * len(planted_secrets)  # system and user; the retry resends redacted text


def test_model_call_events_carry_no_prompt_or_answer_text() -> None:
    answer = ModelReply("ok", USAGE, value=Verdict(ok=True, reason="ANSWER-MARKER"))
    asker, _, sink = pipeline(ScriptedRuntime(answer))
    asker.ask("SYSTEM-MARKER", "USER-MARKER", Verdict)
    dumped = json.dumps([event.as_dict() for event in sink.events])
    assert "MARKER" not in dumped
    assert set(sink.events[0].data) == {f.name for f in dataclasses.fields(ModelCall)}


def test_a_validation_error_is_described_without_the_answers_values() -> None:
    with pytest.raises(ValidationError) as caught:
        Verdict.model_validate({"ok": "SECRET-ISH-VALUE", "extra": 1})
    text = describe_validation_error(caught.value)
    assert "SECRET-ISH-VALUE" not in text
    assert text == (
        "ok: Input should be a valid boolean, unable to interpret input; reason: Field required; "
        "extra: Extra inputs are not permitted"
    )


# --- --show-prompts -------------------------------------------------------------------------------


def test_show_prompts_prints_redacted_prompts_and_sends_nothing(planted_secrets: list[str]) -> None:
    out = io.StringIO()
    stats = RunStats()
    # No key, no endpoint: printing needs no credential because nothing is sent.
    asker = asker_for("judge", Config(), stats, sink=MemorySink(), show_prompts=out, env={})
    assert asker.ask("Judge the rule.", f"Thread: deploy with {planted_secrets[0]}", Verdict) is None
    printed = out.getvalue()
    assert printed == (
        "=== judge: api runtime, claude-sonnet-5-5, medium effort, answer schema Verdict ===\n"
        "--- system ---\nJudge the rule.\n"
        "--- user ---\nThread: deploy with [REDACTED:github-pat]\n"
        "=== end of prompt ===\n"
    )
    assert stats.total.calls == 0


def test_show_prompts_still_refuses_an_unknown_model() -> None:
    with pytest.raises(ConfigError, match="unknown model"):
        asker_for("curator", agents(model="nope"), RunStats(), sink=MemorySink(), show_prompts=io.StringIO())


# --- the queue-driven fake ------------------------------------------------------------------------


def test_the_fake_asker_replays_its_queue_and_records_what_it_was_asked() -> None:
    asker = FakeAsker(Verdict(ok=True, reason="a"))
    asker.enqueue({"ok": False, "reason": "b"}, None, ModelCallError("down", runtime="api"))
    assert asker.ask("s1", "u1", Verdict) == Verdict(ok=True, reason="a")
    assert asker.ask("s2", "u2", Verdict) == Verdict(ok=False, reason="b")
    assert asker.ask("s3", "u3", Verdict) is None
    with pytest.raises(ModelCallError):
        asker.ask("s4", "u4", Verdict)
    assert [(h.system, h.user, h.schema) for h in asker.history][:2] == [
        ("s1", "u1", Verdict),
        ("s2", "u2", Verdict),
    ]
    asker.assert_all_used()


def test_the_fake_asker_fails_loudly_on_an_empty_queue_or_a_wrong_type() -> None:
    class Other(BaseModel):
        x: int

    with pytest.raises(AssertionError, match="asked for a Verdict with nothing queued"):
        FakeAsker().ask("s", "u", Verdict)
    with pytest.raises(AssertionError, match="asked for a Verdict but the next queued answer is a Other"):
        FakeAsker(Other(x=1)).ask("s", "u", Verdict)
    with pytest.raises(AssertionError, match="1 queued answer"):
        FakeAsker(None).assert_all_used()


def test_a_cap_above_a_dollar_is_reported_to_the_cent() -> None:
    assert str(SpendingCapError(5.021, 5.0, "--max-cost")) == (
        "spending cap reached: this run has spent $5.02 of the $5.00 allowed by --max-cost, so no further "
        "model call was started (raise --max-cost to allow more)"
    )
