"""Every runtime through `asker_for`, over the real SDK and a local API stub, or the fake `claude` CLI.

The contract tests run once per runtime (api, bedrock, vertex, claude-code) through a small harness,
so the four cannot drift apart; runtime-specific wire details follow.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from emulators.anthropic_stub import AnthropicStub, FakeClaude
from pydantic import BaseModel, ConfigDict

from homeostat.adapters.hosts.http_retry import RetryPolicy
from homeostat.adapters.models.askers import asker_for
from homeostat.core.asker import Asker, ModelCallError, RunStats, SpendingCapError
from homeostat.core.config import AgentsConfig
from homeostat.core.events import MemorySink, ModelCall
from homeostat.errors import ConfigError

RUNTIMES = ["api", "bedrock", "vertex", "claude-code"]


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ok: bool
    reason: str


GOOD = {"ok": True, "reason": "matches the thread"}
WRONG = {"ok": "perhaps"}  # not a boolean, and no reason


@dataclass
class Harness:
    """One runtime and its double: script answers, build an Asker, read back what was sent."""

    runtime: str
    env: dict[str, str]
    stub: AnthropicStub
    claude: FakeClaude
    sleeps: list[float] = field(default_factory=list)
    stats: RunStats = field(default_factory=RunStats)
    sink: MemorySink = field(default_factory=MemorySink)

    def asker(self, agent: str = "curator", **agents: Any) -> Asker:
        config = AgentsConfig.model_validate({"runtime": self.runtime, **agents})
        retry = RetryPolicy(sleep=self.sleeps.append)
        return asker_for(agent, config, self.stats, sink=self.sink, env=self.env, retry=retry)

    @property
    def cli(self) -> bool:
        return self.runtime == "claude-code"

    def answer(self, value: Any) -> Harness:
        self.claude.answer(value) if self.cli else self.stub.answer(value)
        return self

    def refusal(self) -> Harness:
        self.claude.refusal() if self.cli else self.stub.refusal()
        return self

    def error(self, status: int) -> Harness:
        self.claude.api_error(status) if self.cli else self.stub.error(status)
        return self

    def slow(self, seconds: float, value: Any) -> Harness:
        self.claude.slow(seconds, value) if self.cli else self.stub.slow(seconds, value)
        return self

    def users(self) -> list[str]:
        """The user prompt of every request that reached the model."""
        if self.cli:
            return [call["stdin"] for call in self.claude.calls]
        return self.stub.user_prompts()

    def outcomes(self) -> list[str]:
        return [ModelCall.from_event(event).outcome for event in self.sink.events]


@pytest.fixture(params=RUNTIMES)
def harness(
    request: pytest.FixtureRequest, anthropic_stub: AnthropicStub, fake_claude: FakeClaude
) -> Harness:
    runtime: str = request.param
    url = anthropic_stub.url
    env = {
        "api": {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": url},
        "bedrock": {
            "AWS_BEARER_TOKEN_BEDROCK": "test-token",
            "AWS_REGION": "us-east-1",
            "ANTHROPIC_BEDROCK_BASE_URL": url,
        },
        "vertex": {
            "GOOGLE_OAUTH_ACCESS_TOKEN": "test-token",
            "CLOUD_ML_REGION": "us-east5",
            "ANTHROPIC_VERTEX_PROJECT_ID": "kb-project",
            "ANTHROPIC_VERTEX_BASE_URL": url,
        },
        "claude-code": fake_claude.env(),
    }[runtime]
    return Harness(runtime, env, anthropic_stub, fake_claude)


# --- the contract, once per runtime -----------------------------------------------------------------


def test_a_valid_answer_is_parsed(harness: Harness) -> None:
    harness.answer(GOOD)
    assert harness.asker().ask("Judge the rule.", "Thread: use the pool.", Verdict) == Verdict(**GOOD)
    assert harness.users() == ["Thread: use the pool."]
    assert harness.outcomes() == ["ok"]
    assert harness.stats.total.calls == 1 and harness.stats.cost_usd > 0


def test_a_refusal_is_no_answer(harness: Harness) -> None:
    harness.refusal()
    assert harness.asker().ask("Judge the rule.", "Thread.", Verdict) is None
    assert len(harness.users()) == 1
    assert harness.outcomes() == ["refusal"]


def test_a_malformed_answer_is_retried_once_with_the_error_then_none(harness: Harness) -> None:
    harness.answer(WRONG).answer(WRONG).answer(GOOD)
    assert harness.asker().ask("Judge the rule.", "Thread.", Verdict) is None
    first, retry = harness.users()
    assert first == "Thread."
    assert retry.startswith("Thread.\n\n---\nYour previous answer could not be used")
    assert "ok: Input should be a valid boolean" in retry and "reason: Field required" in retry
    assert harness.outcomes() == ["invalid", "invalid"]


def test_a_malformed_answer_then_a_good_one_is_used(harness: Harness) -> None:
    harness.answer(WRONG).answer(GOOD)
    assert harness.asker().ask("Judge the rule.", "Thread.", Verdict) == Verdict(**GOOD)
    assert harness.outcomes() == ["invalid", "ok"]
    assert harness.stats.total.calls == 2


def test_overload_and_rate_limits_are_retried_with_backoff(harness: Harness) -> None:
    harness.error(529).error(429).answer(GOOD)
    assert harness.asker().ask("Judge the rule.", "Thread.", Verdict) == Verdict(**GOOD)
    assert len(harness.users()) == 3
    assert harness.sleeps == [1.0, 2.0]
    assert harness.outcomes() == ["ok"]


@pytest.mark.parametrize(("status", "word"), [(529, "overloaded"), (429, "rate limited")])
def test_a_lasting_overload_or_rate_limit_is_surfaced(harness: Harness, status: int, word: str) -> None:
    for _ in range(4):
        harness.error(status)
    with pytest.raises(ModelCallError) as caught:
        harness.asker().ask("Judge the rule.", "Thread.", Verdict)
    assert (
        str(caught.value) == f"the {harness.runtime} runtime is {word} ({status}) after 4 tries; rerun later"
    )
    assert caught.value.status == status
    assert len(harness.users()) == 4
    assert harness.sleeps == [1.0, 2.0, 4.0]
    assert harness.outcomes() == ["error"]


def test_a_slow_answer_past_the_timeout_is_an_error(harness: Harness) -> None:
    harness.slow(5, GOOD)
    with pytest.raises(ModelCallError) as caught:
        harness.asker(timeoutSeconds=1).ask("Judge the rule.", "Thread.", Verdict)
    assert str(caught.value) == (
        f"the {harness.runtime} runtime got no answer within agents.timeoutSeconds (1 s); "
        "raise agents.timeoutSeconds or lower agents.effort"
    )
    assert harness.outcomes() == ["error"]


def test_the_cap_stops_the_next_call_and_never_one_in_flight(harness: Harness) -> None:
    harness.answer(GOOD).answer(GOOD)
    asker = harness.asker(maxCostUsd=0.001)
    assert asker.ask("Judge the rule.", "Thread one.", Verdict) == Verdict(
        **GOOD
    )  # crosses the cap, answered
    with pytest.raises(
        SpendingCapError,
        match=r"^spending cap reached: this run has spent \$0\.0\d{3} of the \$0\.0010 allowed by agents.maxCostUsd",
    ):
        asker.ask("Judge the rule.", "Thread two.", Verdict)
    assert harness.users() == ["Thread one."]
    assert harness.outcomes() == ["ok"]


def test_the_cap_stops_the_corrective_retry_too(harness: Harness) -> None:
    harness.answer(WRONG).answer(GOOD)
    with pytest.raises(SpendingCapError):
        harness.asker(maxCostUsd=0.001).ask("Judge the rule.", "Thread.", Verdict)
    assert harness.users() == ["Thread."]


def test_no_planted_secret_reaches_the_model(harness: Harness, planted_secrets: list[str]) -> None:
    harness.answer(WRONG).answer(GOOD)  # the corrective retry is a second chance to leak
    thread = "Reviewer: never commit keys like " + ", ".join(planted_secrets)
    assert harness.asker().ask(f"System note {planted_secrets[0]}", thread, Verdict) == Verdict(**GOOD)
    sent = harness.users()
    assert len(sent) == 2 and all("[REDACTED:github-pat]" in prompt for prompt in sent)
    # The stub and fake fixtures also check every recorded request body at teardown.


def test_model_call_events_hold_sizes_only(harness: Harness) -> None:
    harness.answer({"ok": True, "reason": "ANSWER-MARKER"})
    harness.asker().ask("SYSTEM-MARKER", "USER-MARKER", Verdict)
    [event] = harness.sink.events
    assert "MARKER" not in json.dumps(event.as_dict())
    call = ModelCall.from_event(event)
    assert (call.runtime, call.agent, call.model) == (harness.runtime, "curator", "claude-opus-5-5")
    assert call.input_tokens > 0 and call.output_tokens > 0 and call.cost_usd > 0


def test_an_unknown_model_fails_before_any_call(harness: Harness) -> None:
    with pytest.raises(ConfigError, match=r"agents.model: unknown model 'claude-opus-9'"):
        harness.asker(model="claude-opus-9")
    assert harness.users() == []


# --- credentials and extras: named before any call ----------------------------------------------------


def ask_with(runtime: str, env: dict[str, str], **agents: Any) -> None:
    config = AgentsConfig.model_validate({"runtime": runtime, **agents})
    asker_for("curator", config, RunStats(), sink=MemorySink(), env=env)


def test_the_api_runtime_names_its_key() -> None:
    with pytest.raises(ConfigError) as caught:
        ask_with("api", {})
    assert str(caught.value) == (
        "the api runtime needs ANTHROPIC_API_KEY (or set agents.runtime to bedrock, vertex or claude-code)"
    )


def test_the_bedrock_runtime_names_its_region() -> None:
    with pytest.raises(ConfigError) as caught:
        ask_with("bedrock", {"AWS_BEARER_TOKEN_BEDROCK": "t"})
    assert str(caught.value) == (
        "the bedrock runtime needs an AWS region: set agents.region in homeostat.yaml or AWS_REGION"
    )


_WITHOUT = """
import sys

class _Absent:
    # behaves as if these packages were not installed

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, _Absent())
from homeostat.adapters.models.askers import asker_for
from homeostat.core.asker import RunStats
from homeostat.core.config import AgentsConfig
from homeostat.core.events import MemorySink
from homeostat.errors import ConfigError
try:
    asker_for("curator", AgentsConfig.model_validate({agents!r}), RunStats(), sink=MemorySink(), env={{}})
except ConfigError as exc:
    print(exc)
"""


def error_without(blocked: set[str], agents: dict[str, str]) -> str:
    """The ConfigError a machine without these optional packages gets (run in a fresh interpreter)."""
    code = _WITHOUT.format(blocked=blocked, agents=agents)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_bedrock_runtime_names_its_extra_when_it_must_sign() -> None:
    message = error_without({"boto3", "botocore"}, {"runtime": "bedrock", "region": "eu-west-1"})
    assert message == (
        "the bedrock runtime signs requests with your AWS credentials through boto3, which is not installed: "
        "pip install 'homeostat-kb[bedrock]' (or set AWS_BEARER_TOKEN_BEDROCK to use a Bedrock API key)"
    )


def test_the_vertex_runtime_names_its_region_and_project() -> None:
    with pytest.raises(ConfigError) as caught:
        ask_with("vertex", {"GOOGLE_OAUTH_ACCESS_TOKEN": "t"})
    assert str(caught.value) == (
        "the vertex runtime needs a Google Cloud region: set agents.region in homeostat.yaml "
        "or CLOUD_ML_REGION"
    )
    with pytest.raises(ConfigError) as caught:
        ask_with("vertex", {"GOOGLE_OAUTH_ACCESS_TOKEN": "t"}, region="us-east5")
    assert str(caught.value) == (
        "the vertex runtime needs a Google Cloud project: set agents.project in homeostat.yaml "
        "or ANTHROPIC_VERTEX_PROJECT_ID"
    )


def test_the_vertex_runtime_names_its_extra_without_a_token() -> None:
    message = error_without({"google"}, {"runtime": "vertex", "region": "us-east5", "project": "kb"})
    assert message == (
        "the vertex runtime uses Google Application Default Credentials through google-auth, which is not "
        "installed: pip install 'homeostat-kb[vertex]' (or set GOOGLE_OAUTH_ACCESS_TOKEN to a short-lived token)"
    )


def test_vertex_without_google_credentials_says_what_to_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytest.importorskip("google.auth")
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.setenv("NO_GCE_CHECK", "true")  # no metadata-server probe (read when google-auth loads it)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "gcloud"))
    with pytest.raises(ConfigError) as caught:
        ask_with("vertex", {}, region="us-east5", project="kb")
    assert str(caught.value) == (
        "the vertex runtime found no Google credentials: run `gcloud auth application-default login`, "
        "set GOOGLE_APPLICATION_CREDENTIALS, or set GOOGLE_OAUTH_ACCESS_TOKEN"
    )


def test_the_claude_code_runtime_needs_the_cli(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        ask_with("claude-code", {"PATH": str(tmp_path)})
    assert str(caught.value) == (
        "the claude-code runtime needs the claude CLI on PATH: install Claude Code and log in, "
        "or set agents.runtime to api, bedrock or vertex"
    )


def test_a_refused_key_names_the_variable(anthropic_stub: AnthropicStub) -> None:
    anthropic_stub.error(401, message="invalid x-api-key")
    config = AgentsConfig(endpoint=anthropic_stub.url)
    asker = asker_for("curator", config, RunStats(), sink=MemorySink(), env={"ANTHROPIC_API_KEY": "wrong"})
    with pytest.raises(ModelCallError) as caught:
        asker.ask("s", "u", Verdict)
    assert str(caught.value) == (
        "the api runtime's credential was refused (401 invalid x-api-key); check ANTHROPIC_API_KEY"
    )
    assert len(anthropic_stub.requests) == 1  # a 401 is not retried


# --- api --------------------------------------------------------------------------------------------


@pytest.fixture
def api(anthropic_stub: AnthropicStub) -> Iterator[tuple[AnthropicStub, list[float]]]:
    yield anthropic_stub, []


def api_asker(stub: AnthropicStub, sleeps: list[float], agent: str = "curator", **agents: Any) -> Asker:
    config = AgentsConfig.model_validate({"endpoint": stub.url, **agents})
    retry = RetryPolicy(sleep=sleeps.append)
    return asker_for(
        agent, config, RunStats(), sink=MemorySink(), env={"ANTHROPIC_API_KEY": "k"}, retry=retry
    )


def test_api_asks_for_structured_output_at_the_agents_model_and_effort(
    api: tuple[AnthropicStub, list[float]],
) -> None:
    stub, sleeps = api
    stub.answer(GOOD)
    api_asker(stub, sleeps, "consolidator", consolidator={"model": "claude-sonnet-5-5", "effort": "low"}).ask(
        "System.", "User.", Verdict
    )
    [request] = stub.requests
    body = request.json
    assert (request.path, body["model"], body["system"]) == ("/v1/messages", "claude-sonnet-5-5", "System.")
    assert body["output_config"]["effort"] == "low"
    assert body["output_config"]["format"]["type"] == "json_schema"
    assert body["output_config"]["format"]["schema"]["required"] == ["ok", "reason"]
    assert "tools" not in body


def test_api_honours_retry_after(api: tuple[AnthropicStub, list[float]]) -> None:
    stub, sleeps = api
    stub.error(429, retry_after="7").answer(GOOD)
    assert api_asker(stub, sleeps).ask("s", "u", Verdict) == Verdict(**GOOD)
    assert sleeps == [7.0]


def test_api_gives_up_at_once_when_asked_to_wait_too_long(api: tuple[AnthropicStub, list[float]]) -> None:
    stub, sleeps = api
    stub.error(429, retry_after="600")
    with pytest.raises(ModelCallError) as caught:
        api_asker(stub, sleeps).ask("s", "u", Verdict)
    assert str(caught.value) == (
        "the api runtime is rate limited (429) and asked for a 600 s wait, longer than a run waits; "
        "rerun later"
    )
    assert sleeps == [] and len(stub.requests) == 1


def test_api_retries_a_500_but_not_a_400(api: tuple[AnthropicStub, list[float]]) -> None:
    stub, sleeps = api
    stub.error(500).answer(GOOD)
    assert api_asker(stub, sleeps).ask("s", "u", Verdict) == Verdict(**GOOD)
    stub.error(400, message="max_tokens: too large")
    with pytest.raises(ModelCallError) as caught:
        api_asker(stub, sleeps).ask("s", "u", Verdict)
    assert str(caught.value) == "the api runtime rejected the request (400 max_tokens: too large)"
    assert len(stub.requests) == 3


def test_api_endpoint_setting_wins_over_the_environment(anthropic_stub: AnthropicStub) -> None:
    anthropic_stub.answer(GOOD)
    config = AgentsConfig(endpoint=anthropic_stub.url)
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}  # nothing listens there
    assert (
        asker_for("curator", config, RunStats(), sink=MemorySink(), env=env).ask("s", "u", Verdict)
        is not None
    )


# --- bedrock and vertex -------------------------------------------------------------------------------


def bedrock_asker(stub: AnthropicStub, **agents: Any) -> Asker:
    config = AgentsConfig.model_validate({"runtime": "bedrock", "region": "us-west-2", **agents})
    env = {"AWS_BEARER_TOKEN_BEDROCK": "t", "ANTHROPIC_BEDROCK_BASE_URL": stub.url}
    return asker_for("curator", config, RunStats(), sink=MemorySink(), env=env)


def test_bedrock_offers_one_answer_tool_and_forces_it_where_the_model_allows(
    anthropic_stub: AnthropicStub,
) -> None:
    anthropic_stub.answer(GOOD).answer(GOOD)
    bedrock_asker(anthropic_stub, model="claude-haiku-4-5-20251001").ask("System.", "User.", Verdict)
    bedrock_asker(anthropic_stub).ask("System.", "User.", Verdict)
    forced, auto = anthropic_stub.requests
    assert forced.path == "/model/anthropic.claude-haiku-4-5-20251001/invoke"
    assert forced.json["anthropic_version"]  # in the body: Bedrock takes the model from the path
    assert "model" not in forced.json
    [tool] = forced.json["tools"]
    assert tool["name"] == "answer" and tool["input_schema"]["required"] == ["ok", "reason"]
    assert forced.json["tool_choice"] == {"type": "tool", "name": "answer"}
    assert forced.json["system"] == "System."
    assert "output_config" not in forced.json  # Haiku 4.5 takes no effort setting
    assert auto.json["output_config"] == {"effort": "medium"}
    # Opus 5.5 answers a forced tool_choice with a 400: the tool is offered with an instruction instead.
    assert auto.path == "/model/anthropic.claude-opus-5-5/invoke"
    assert auto.json["tool_choice"] == {"type": "auto"}
    assert auto.json["system"].startswith("System.\n\nGive your whole answer by calling the `answer` tool")


def test_bedrock_passes_a_full_inference_profile_id_through(anthropic_stub: AnthropicStub) -> None:
    anthropic_stub.answer(GOOD)
    bedrock_asker(anthropic_stub, model="us.anthropic.claude-sonnet-5-5-v1:0").ask("s", "u", Verdict)
    assert anthropic_stub.requests[0].path == "/model/us.anthropic.claude-sonnet-5-5-v1:0/invoke"


def test_bedrock_signs_with_sigv4_from_static_credentials(
    anthropic_stub: AnthropicStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("botocore")
    pytest.importorskip("boto3")
    for name in ("AWS_BEARER_TOKEN_BEDROCK", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIA" + "TESTTESTTESTTEST")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
    anthropic_stub.answer(GOOD)
    config = AgentsConfig(runtime="bedrock", region="us-west-2")
    env = {"ANTHROPIC_BEDROCK_BASE_URL": anthropic_stub.url}
    asker_for("curator", config, RunStats(), sink=MemorySink(), env=env).ask("s", "u", Verdict)
    assert anthropic_stub.requests[0].headers["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIA")


def test_bedrock_without_any_aws_credentials_says_what_to_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytest.importorskip("boto3")
    for name in ("AWS_BEARER_TOKEN_BEDROCK", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    with pytest.raises(ConfigError) as caught:
        ask_with("bedrock", {}, region="eu-west-1")
    assert str(caught.value) == (
        "the bedrock runtime found no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
        "AWS_PROFILE, or AWS_BEARER_TOKEN_BEDROCK (or run where an AWS role is attached)"
    )


def test_vertex_posts_raw_predict_for_the_project_and_region(anthropic_stub: AnthropicStub) -> None:
    anthropic_stub.answer(GOOD)
    config = AgentsConfig(runtime="vertex", region="europe-west1", project="team-kb")
    env = {"GOOGLE_OAUTH_ACCESS_TOKEN": "ya29.test", "ANTHROPIC_VERTEX_BASE_URL": anthropic_stub.url}
    asker_for("curator", config, RunStats(), sink=MemorySink(), env=env).ask("s", "u", Verdict)
    [request] = anthropic_stub.requests
    assert request.path == (
        "/projects/team-kb/locations/europe-west1/publishers/anthropic/models/claude-opus-5-5:rawPredict"
    )
    assert request.headers["authorization"] == "Bearer ya29.test"
    assert request.json["anthropic_version"] and "model" not in request.json


# --- claude-code ------------------------------------------------------------------------------------


def claude_asker(fake: FakeClaude, stats: RunStats | None = None, **extra_env: str) -> Asker:
    config = AgentsConfig(runtime="claude-code", effort="high")
    return asker_for("bootstrap", config, stats or RunStats(), sink=MemorySink(), env=fake.env(**extra_env))


def test_claude_code_runs_print_mode_with_every_tool_off(fake_claude: FakeClaude) -> None:
    fake_claude.answer(GOOD)
    claude_asker(fake_claude).ask("System prompt.", "User prompt.", Verdict)
    [call] = fake_claude.calls
    argv = call["argv"]
    assert argv[:4] == ["-p", "--output-format", "json", "--json-schema"]
    assert json.loads(argv[4])["required"] == ["ok", "reason"]
    assert argv[5:] == [
        "--model",
        "claude-opus-5-5",
        "--effort",
        "high",
        "--system-prompt",
        "System prompt.",
        "--tools",
        "",
        "--strict-mcp-config",
        "--no-session-persistence",
    ]
    assert call["stdin"] == "User prompt."  # on stdin, never in argv
    # It ran in an empty folder of its own (no CLAUDE.md read), removed afterwards.
    assert call["cwd_files"] == [] and Path(call["cwd"]).name.startswith("homeostat-claude-")
    assert not Path(call["cwd"]).exists()


def test_claude_code_gets_no_host_tokens_and_marks_itself_an_agent(fake_claude: FakeClaude) -> None:
    fake_claude.answer(GOOD)
    claude_asker(fake_claude, HOMEOSTAT_GITHUB_TOKEN="x", GITHUB_TOKEN="x", ANTHROPIC_API_KEY="k").ask(
        "s", "u", Verdict
    )
    names = fake_claude.calls[0]["env_names"]
    assert "HOMEOSTAT_AGENT" in names and "ANTHROPIC_API_KEY" in names
    assert "HOMEOSTAT_GITHUB_TOKEN" not in names and "GITHUB_TOKEN" not in names


def test_claude_code_reports_its_own_cost_not_an_estimate(fake_claude: FakeClaude) -> None:
    stats = RunStats()
    fake_claude.answer(GOOD, cost=0.0421)
    claude_asker(fake_claude, stats).ask("s", "u", Verdict)
    assert (stats.cost_usd, stats.estimated) == (0.0421, False)
    fake_claude.answer(GOOD, cost=None)  # an older CLI without total_cost_usd: priced from tokens
    claude_asker(fake_claude, stats).ask("s", "u", Verdict)
    assert stats.estimated is True
    assert stats.cost_usd == pytest.approx(0.0421 + (300 * 4 + 60 * 20) / 1e6)


def test_claude_code_not_logged_in_says_how_to_log_in(fake_claude: FakeClaude) -> None:
    fake_claude._push(
        {
            "type": "result",
            "subtype": "success",
            "is_error": True,
            "result": "Invalid API key · Please run /login",
        }
    )
    with pytest.raises(ModelCallError) as caught:
        claude_asker(fake_claude).ask("s", "u", Verdict)
    assert str(caught.value) == (
        "the claude-code runtime is not logged in (Invalid API key · Please run /login); run `claude` and "
        "log in, or set ANTHROPIC_API_KEY"
    )
    assert len(fake_claude.calls) == 1


def test_the_stub_would_catch_a_leaked_secret(planted_secrets: list[str]) -> None:
    """The teardown check is not vacuous: an unredacted prompt sent straight through the SDK is caught."""
    from anthropic import Anthropic

    stub = AnthropicStub().start()
    try:
        stub.answer(GOOD)
        client = Anthropic(api_key="k", base_url=stub.url, max_retries=0)
        client.messages.create(
            model="claude-opus-5-5", max_tokens=10, messages=[{"role": "user", "content": planted_secrets[1]}]
        )
    finally:
        stub.stop()
    assert stub.leaks(planted_secrets) == [planted_secrets[1]]


def test_api_sends_no_effort_to_a_model_without_it(api: tuple[AnthropicStub, list[float]]) -> None:
    stub, sleeps = api
    stub.answer(GOOD)
    api_asker(stub, sleeps, model="claude-haiku-4-5-20251001", effort="high").ask("s", "u", Verdict)
    assert set(stub.requests[0].json["output_config"]) == {"format"}


def test_claude_code_sends_no_effort_to_a_model_without_it(fake_claude: FakeClaude) -> None:
    fake_claude.answer(GOOD)
    config = AgentsConfig(runtime="claude-code", model="claude-haiku-4-5-20251001")
    asker_for("curator", config, RunStats(), sink=MemorySink(), env=fake_claude.env()).ask("s", "u", Verdict)
    assert "--effort" not in fake_claude.calls[0]["argv"]
