"""The api, bedrock and vertex runtimes: the anthropic SDK over the Messages API.

`api` asks for structured output (`messages.parse(output_format=Schema)`). `bedrock` and `vertex` ask
for one call of an `answer` tool whose input schema is the answer's JSON schema, because whether those
backends accept the structured-output parameter is unverified. The tool call is forced where the model
allows it; Opus 5.5, Sonnet 5.5 and the other models with thinking always on answer a forced
`tool_choice` with a 400, so for them the tool is offered with `tool_choice: auto` and an instruction,
and an answer that skips the tool counts as one that did not fit (it gets the corrective retry).

The SDK's own retries are off (`max_retries=0`): 429, 529 and other passing 5xx are retried by the
shared `http_retry` policy, which honours `retry-after`, logs every retry and bounds the total wait.
Every HTTP attempt passes the endpoint's rate gate (homeostat.adapters.models.pacing), which holds it
while the server's rate-limit headers say nothing is left; several workers share one client.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import anthropic
from anthropic import (
    Anthropic,
    AnthropicBedrock,
    AnthropicVertex,
    APIRequest,
    APIResponse,
    CallNext,
    Middleware,
    omit,
)
from anthropic.types import Message
from pydantic import BaseModel, ValidationError

from homeostat.adapters.hosts.http_retry import RetriesExhausted, RetryPolicy, Transient, transient_status
from homeostat.adapters.models.pacing import Pacing, gate_for
from homeostat.core.asker import (
    ModelCallError,
    ModelReply,
    ModelRequest,
    Usage,
    describe_validation_error,
    retries_exhausted_message,
    timeout_message,
)
from homeostat.core.config import AgentsConfig
from homeostat.core.cost.pricing import model_info
from homeostat.errors import ConfigError

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")

ANSWER_TOOL = "answer"
MAX_TOKENS = 16_000
AUTO_TOOL_INSTRUCTION = (
    f"\n\nGive your whole answer by calling the `{ANSWER_TOOL}` tool exactly once, with input that matches "
    "its schema. Do not answer in plain text."
)

_log = logging.getLogger(__name__)


# --- retries and errors ---------------------------------------------------------------------------


def transient(err: BaseException) -> Transient | None:
    """429, 529 and other passing 5xx (with the server's retry-after) may be retried; nothing else."""
    if isinstance(err, anthropic.APIStatusError):
        return transient_status(err.status_code, err.response.headers)
    return None


class Transport:
    """Runs one request under the retry policy and turns SDK failures into one-line `ModelCallError`s."""

    def __init__(self, runtime: str, credential_hint: str, retry: RetryPolicy) -> None:
        self.runtime = runtime
        self.credential_hint = credential_hint
        self.retry = retry

    def run(self, attempt: Callable[[], R], timeout_seconds: float) -> R:
        try:
            return self.retry.run(
                lambda _try: attempt(), transient, what=f"{self.runtime} model call", log=_log
            )
        except RetriesExhausted as err:
            raise self._exhausted(err) from err
        except anthropic.APITimeoutError as err:
            raise ModelCallError(
                timeout_message(self.runtime, timeout_seconds), runtime=self.runtime
            ) from err
        except anthropic.APIConnectionError as err:
            raise ModelCallError(
                f"the {self.runtime} runtime could not connect to the model endpoint ({err}); "
                "check the network and the endpoint setting",
                runtime=self.runtime,
            ) from err
        except anthropic.APIStatusError as err:
            raise self._refused(err) from err

    def _exhausted(self, err: RetriesExhausted) -> ModelCallError:
        status = err.last.status_code if isinstance(err.last, anthropic.APIStatusError) else None
        text = retries_exhausted_message(self.runtime, status, err.transient.reason, err.attempts, err.asked)
        return ModelCallError(text, runtime=self.runtime, status=status)

    def _refused(self, err: anthropic.APIStatusError) -> ModelCallError:
        status = err.status_code
        detail = _api_message(err)
        if status in (401, 403):
            text = (
                f"the {self.runtime} runtime's credential was refused ({status} {detail}); "
                f"check {self.credential_hint}"
            )
        elif status == 404:
            text = (
                f"the {self.runtime} runtime found no such model or endpoint (404 {detail}); "
                "check agents.model"
            )
        else:
            text = f"the {self.runtime} runtime rejected the request ({status} {detail})"
        return ModelCallError(text, runtime=self.runtime, status=status)


def _api_message(err: anthropic.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])[:300]
        if isinstance(body.get("message"), str):
            return str(body["message"])[:300]
    return str(err.message)[:300]


# --- usage ----------------------------------------------------------------------------------------


def usage_of(raw: Any) -> Usage:
    """Token counts from an SDK `Usage` or the raw `usage` object of a response body."""
    fields: dict[str, Any] = raw if isinstance(raw, dict) else vars(raw) if raw is not None else {}

    def count(name: str) -> int:
        return int(fields.get(name) or 0)

    return Usage(
        input_tokens=count("input_tokens"),
        output_tokens=count("output_tokens"),
        cache_creation_tokens=count("cache_creation_input_tokens"),
        cache_read_tokens=count("cache_read_input_tokens"),
    )


class UsageMeter(Middleware):
    """Keeps the last answer body's usage and stop reason, which `messages.parse` loses when it raises.

    `parse` validates inside the SDK, so an answer that does not fit (or a refusal whose text is not
    JSON) raises before we see the message; its tokens were still billed and must still be counted.
    """

    def __init__(self) -> None:
        self._local = threading.local()

    def reset(self) -> None:
        self._local.body = None

    @property
    def body(self) -> dict[str, Any]:
        body = getattr(self._local, "body", None)
        return body if isinstance(body, dict) else {}

    def handle(self, request: APIRequest, call_next: CallNext) -> APIResponse[Any]:
        response = call_next(request)
        if 200 <= response.status_code < 300:
            try:
                self._local.body = response.json()
            except ValueError:
                self._local.body = None
        return response


# --- runtimes -------------------------------------------------------------------------------------


class ApiRuntime:
    """Claude API: structured output through `messages.parse`, refusals by `stop_reason`."""

    name = "api"

    def __init__(self, client: Anthropic, *, retry: RetryPolicy) -> None:
        self._meter = UsageMeter()
        self._client = client.with_middleware(Pacing(gate_for(f"api {client.base_url}")), self._meter)
        self._transport = Transport(self.name, "ANTHROPIC_API_KEY", retry)

    def send(self, request: ModelRequest[T]) -> ModelReply[T]:
        self._meter.reset()

        def attempt() -> Any:
            return self._client.messages.parse(
                model=request.model,
                max_tokens=MAX_TOKENS,
                system=request.system,
                messages=[{"role": "user", "content": request.user}],
                output_format=request.schema,
                output_config={"effort": request.effort} if request.effort else {},
                timeout=request.timeout_seconds,
            )

        try:
            message = self._transport.run(attempt, request.timeout_seconds)
        except ValidationError as err:
            body = self._meter.body
            usage = usage_of(body.get("usage"))
            if body.get("stop_reason") == "refusal":
                return ModelReply("refusal", usage)
            return ModelReply("invalid", usage, problem=describe_validation_error(err))
        usage = usage_of(message.usage)
        if message.stop_reason == "refusal":
            return ModelReply("refusal", usage)
        value = message.parsed_output
        if not isinstance(value, request.schema):
            return ModelReply("invalid", usage, problem="the answer held no JSON text")
        return ModelReply("ok", usage, value=value)


class ToolCallRuntime:
    """Bedrock and Vertex: the answer arrives as the input of one `answer` tool call."""

    def __init__(
        self,
        name: str,
        client: AnthropicBedrock | AnthropicVertex,
        *,
        credential_hint: str,
        retry: RetryPolicy,
        model_id: Callable[[str], str] = lambda model: model,
    ) -> None:
        self.name = name
        self._client = client.with_middleware(Pacing(gate_for(f"{name} {client.base_url}")))
        self._model_id = model_id
        self._transport = Transport(name, credential_hint, retry)

    def send(self, request: ModelRequest[T]) -> ModelReply[T]:
        info = model_info(request.model)
        forced = info is not None and info.forced_tool_choice
        tool: Any = {
            "name": ANSWER_TOOL,
            "description": "Give your answer. Call this exactly once.",
            "input_schema": request.schema.model_json_schema(),
        }

        def attempt() -> Message:
            return self._client.messages.create(
                model=self._model_id(request.model),
                max_tokens=MAX_TOKENS,
                system=request.system if forced else request.system + AUTO_TOOL_INSTRUCTION,
                messages=[{"role": "user", "content": request.user}],
                tools=[tool],
                tool_choice={"type": "tool", "name": ANSWER_TOOL} if forced else {"type": "auto"},
                output_config={"effort": request.effort} if request.effort else omit,
                timeout=request.timeout_seconds,
            )

        message: Message = self._transport.run(attempt, request.timeout_seconds)
        return tool_reply(message, request.schema)


def tool_reply(message: Message, schema: type[T]) -> ModelReply[T]:
    usage = usage_of(message.usage)
    if message.stop_reason == "refusal":
        return ModelReply("refusal", usage)
    call = next((b for b in message.content if b.type == "tool_use" and b.name == ANSWER_TOOL), None)
    if call is None:
        return ModelReply("invalid", usage, problem=f"the answer did not call the {ANSWER_TOOL} tool")
    try:
        return ModelReply("ok", usage, value=schema.model_validate(call.input))
    except ValidationError as err:
        return ModelReply("invalid", usage, problem=describe_validation_error(err))


# --- factories: settings and environment to a runtime ---------------------------------------------


def api_runtime(agents: AgentsConfig, env: Mapping[str, str], retry: RetryPolicy) -> ApiRuntime:
    key = env.get("ANTHROPIC_API_KEY")
    if not key:
        raise ConfigError(
            "the api runtime needs ANTHROPIC_API_KEY "
            "(or set agents.runtime to bedrock, vertex or claude-code)"
        )
    base_url = agents.endpoint or env.get("ANTHROPIC_BASE_URL") or None
    client = Anthropic(api_key=key, base_url=base_url, max_retries=0)
    return ApiRuntime(client, retry=retry)


def bedrock_model_id(model: str) -> str:
    """Bedrock names Anthropic models `anthropic.<id>`; ids that already carry a prefix pass through."""
    return model if "." in model else f"anthropic.{model}"


def bedrock_runtime(agents: AgentsConfig, env: Mapping[str, str], retry: RetryPolicy) -> ToolCallRuntime:
    region = agents.region or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION")
    if not region:
        raise ConfigError(
            "the bedrock runtime needs an AWS region: set agents.region in homeostat.yaml or AWS_REGION"
        )
    token = env.get("AWS_BEARER_TOKEN_BEDROCK") or None
    if token is None:
        _require_aws_credentials(region)
    client = AnthropicBedrock(
        aws_region=region,
        api_key=token,
        base_url=env.get("ANTHROPIC_BEDROCK_BASE_URL") or None,
        max_retries=0,
    )
    return ToolCallRuntime(
        "bedrock",
        client,
        credential_hint="the AWS credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, "
        "or AWS_BEARER_TOKEN_BEDROCK) and their Bedrock model access",
        retry=retry,
        model_id=bedrock_model_id,
    )


def _require_aws_credentials(region: str) -> None:
    if not (_installed("boto3") and _installed("botocore")):
        raise ConfigError(
            "the bedrock runtime signs requests with your AWS credentials through boto3, which is not "
            "installed: pip install 'homeostat-kb[bedrock]' "
            "(or set AWS_BEARER_TOKEN_BEDROCK to use a Bedrock API key)"
        )
    boto3 = importlib.import_module("boto3")
    if boto3.Session(region_name=region).get_credentials() is None:
        raise ConfigError(
            "the bedrock runtime found no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
            "AWS_PROFILE, or AWS_BEARER_TOKEN_BEDROCK (or run where an AWS role is attached)"
        )


def vertex_runtime(agents: AgentsConfig, env: Mapping[str, str], retry: RetryPolicy) -> ToolCallRuntime:
    region = agents.region or env.get("CLOUD_ML_REGION")
    if not region:
        raise ConfigError(
            "the vertex runtime needs a Google Cloud region: set agents.region in homeostat.yaml "
            "or CLOUD_ML_REGION"
        )
    project = agents.project or env.get("ANTHROPIC_VERTEX_PROJECT_ID") or env.get("GOOGLE_CLOUD_PROJECT")
    if not project:
        raise ConfigError(
            "the vertex runtime needs a Google Cloud project: set agents.project in homeostat.yaml "
            "or ANTHROPIC_VERTEX_PROJECT_ID"
        )
    token = env.get("GOOGLE_OAUTH_ACCESS_TOKEN") or None
    if token is None:
        _require_google_credentials()
    client = AnthropicVertex(
        region=region,
        project_id=project,
        access_token=token,
        base_url=env.get("ANTHROPIC_VERTEX_BASE_URL") or None,
        max_retries=0,
    )
    return ToolCallRuntime(
        "vertex",
        client,
        credential_hint="the Google credentials (Application Default Credentials or "
        "GOOGLE_OAUTH_ACCESS_TOKEN) and the project's Vertex AI access to the model",
        retry=retry,
    )


def _require_google_credentials() -> None:
    if not _installed("google.auth"):
        raise ConfigError(
            "the vertex runtime uses Google Application Default Credentials through google-auth, which "
            "is not installed: pip install 'homeostat-kb[vertex]' "
            "(or set GOOGLE_OAUTH_ACCESS_TOKEN to a short-lived token)"
        )
    google_auth = importlib.import_module("google.auth")
    try:
        google_auth.default(scopes=["https://www.googleapis.com/auth/cloud-platform"])
    except importlib.import_module("google.auth.exceptions").DefaultCredentialsError as err:
        raise ConfigError(
            "the vertex runtime found no Google credentials: run `gcloud auth application-default login`, "
            "set GOOGLE_APPLICATION_CREDENTIALS, or set GOOGLE_OAUTH_ACCESS_TOKEN"
        ) from err


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False
