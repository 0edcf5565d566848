"""The MCP server (`homeostat mcp`, stdio): the KB for any MCP client, never staler than its key.

The protocol is our own small loop (`homeostat.mcp_stdio`), not the SDK's server, whose import cost every
Claude Code session 1-2 s before its first turn: the handshake and the tool list need only this module
(the schemas are worked out from the tools' signatures here, without pydantic); pydantic checks a
call's arguments, and the corpus loads, on the first call.

Every call works out the KB's identity key (as the index cache does); while it is unchanged the
server answers from the corpus, parsed KB and validation it already holds (`runs.mcp_session`, which
also writes `learn`'s and `flag`'s lessons: this module reaches no adapter itself).

Tools: `context`, `search`, `explain`, `docs`, `read`, `report`, and `learn`/`flag` only when
`security.mcpWrites` is on (at most `mcpWriteLimit` per session; they write pending lessons, which the
daily run decides). Reads are annotated `readOnlyHint`, `flag` `destructiveHint`, nothing open-world.

Scope comes from where the server stands: the session's repo is the checkout's `origin` (or folder
name), never a tool argument, so an agent cannot ask for another team's area. Agents guess tool names
(`get_rules`, `remember`, `open`): an alias table resolves them and logs each as a desire path.
Unknown arguments are dropped, JSON sent as a string is parsed, and an expected miss (nothing found)
is an ordinary answer, not an error; arguments that cannot be used are a tool error (`isError`, with
what was wrong, so the model can correct itself), an unknown tool a protocol error. The tool list
itself is sent on every turn, so its descriptions stay short, one line each (a test caps the whole
list's token cost).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from homeostat import VERSION
from homeostat.errors import HomeostatError
from homeostat.mcp_stdio import UnknownTool
from homeostat.runs.mcp_session import McpSession, start

# The corpus, selection, rendering and pydantic are imported by the first call (`McpSession.session`),
# not before the tool list is answered: the client waits for start-up.
if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

    from homeostat.runs.session import Session

MIN_BUDGET = 100  # as `context --budget`
MAX_BUDGET = 100_000
MAX_LIMIT = 50  # search hits per call

INSTRUCTIONS = (
    "Homeostat serves your team's reviewed coding rules and documents for this repo. Call `context` with "
    "the files you will change, and `task` in a few words, before editing them. `search` (then `read`) "
    "at these moments: a bug report, writing a test, new code or making parts fit, a why or what's-left "
    "question, before a commit. "
    "`explain` says where a rule came from. Rules never override the user or safety. When a rule or "
    "section guides your work, say so: `> From Homeostat (<id>)`."
)
Annotations = dict[str, bool]
READ: Annotations = {"readOnlyHint": True, "openWorldHint": False}
LEARN: Annotations = {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False}
FLAG: Annotations = {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False}

ALIASES: dict[str, str] = {
    **dict.fromkeys(("get_rules", "rules", "get_context", "rules_for_files", "applicable_rules"), "context"),
    **dict.fromkeys(
        ("find", "query", "lookup", "search_rules", "search_kb", "search_docs", "grep"), "search"
    ),
    **dict.fromkeys(
        ("open", "get", "fetch", "get_section", "read_section", "get_document", "read_doc"), "read"
    ),
    **dict.fromkeys(("list_docs", "list_documents", "documents", "list"), "docs"),
    **dict.fromkeys(("why", "get_rule", "describe", "source", "rule_info"), "explain"),
    **dict.fromkeys(("health", "status", "stats", "kb_health"), "report"),
    **dict.fromkeys(("remember", "add_rule", "save", "teach", "note", "add_lesson", "memorize"), "learn"),
    **dict.fromkeys(("dispute", "report_rule", "object", "flag_rule", "challenge"), "flag"),
}
ARGUMENT_ALIASES: dict[str, dict[str, str]] = {
    "context": {**dict.fromkeys(("paths", "path", "file", "touched", "filenames"), "files")},
    "search": {**dict.fromkeys(("q", "text", "terms", "keywords", "search", "words"), "query")},
    "read": {**dict.fromkeys(("id", "name", "section", "doc", "document", "path", "ref", "key"), "target")},
    "explain": {
        **dict.fromkeys(("rule", "rule_id", "name", "target"), "id"),
        **dict.fromkeys(("paths", "path", "file", "touched", "filenames"), "files"),
    },
    "learn": {
        **dict.fromkeys(("text", "content", "lesson", "body", "instruction"), "rule"),
        **dict.fromkeys(("reason", "rationale", "because"), "why"),
        **dict.fromkeys(("paths", "files", "globs", "glob"), "scope"),
        "name": "title",
    },
    "flag": {
        **dict.fromkeys(("rule", "rule_id", "target"), "id"),
        **dict.fromkeys(("why", "comment", "message"), "reason"),
    },
}
LIST_ARGUMENTS = {"files", "scope"}


# Claude Code's names for our tools: `mcp__<server>__<tool>` for a server the user added,
# `mcp__plugin_<plugin>_<server>__<tool>` for the plugin's (underscores collapsed, as `canonical` does).
TOOL_PREFIXES = ("mcp_plugin_homeostat_homeostat_", "mcp_homeostat_", "homeostat_")


def canonical(name: str) -> str:
    """`Homeostat.Get-Rules` → `get_rules`; Claude Code's `mcp__homeostat__search` and the plugin's
    `mcp__plugin_homeostat_homeostat__search` → `search`."""
    lowered = re.sub(r"_+", "_", name.strip().lower().replace("-", "_").replace(".", "_")).strip("_")
    for prefix in TOOL_PREFIXES:
        lowered = lowered.removeprefix(prefix)
    return lowered


def clean_arguments(
    tool: str, arguments: Mapping[str, Any], known: set[str]
) -> tuple[dict[str, Any], list[str]]:
    """Rename guessed argument names, parse JSON sent as strings, split comma lists, drop the rest."""
    aliases = ARGUMENT_ALIASES.get(tool, {})
    out: dict[str, Any] = {}
    dropped: list[str] = []
    for raw_name, value in arguments.items():
        name = aliases.get(canonical(raw_name), canonical(raw_name))
        if name not in known:
            dropped.append(raw_name)
            continue
        if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
            try:
                value = json.loads(value)
            except ValueError:
                pass
        if name in LIST_ARGUMENTS and isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        out.setdefault(name, value)
    return out, dropped


def argument_problems(tool: str, exc: ValidationError) -> str:
    """A tool's rejected arguments as one line an agent can act on (pydantic's report is for developers)."""
    problems = []
    for item in exc.errors():
        name = ".".join(str(part) for part in item["loc"]) or "arguments"
        detail = "missing" if item["type"] == "missing" else str(item["msg"]).removeprefix("Value error, ")
        problems.append(f"`{name}`: {detail}")
    return f"Invalid arguments for {tool}: {'; '.join(problems)}."


class Tool:
    """One tool: its function, the description and input schema the tool list shows, and (on the first
    call) the pydantic model its arguments are checked with."""

    def __init__(self, fn: Callable[..., str], annotations: Annotations) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.annotations = annotations
        self.description = " ".join((fn.__doc__ or "").split())  # one line: no source indentation
        self.input_schema = input_schema(fn)
        self._model: type[BaseModel] | None = None

    def listed(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": self.annotations,
        }

    def run(self, arguments: dict[str, Any]) -> str:
        """The tool's answer for arguments already cleaned; pydantic's ValidationError when they do not fit."""
        if self._model is None:
            self._model = arguments_model(self.fn)
        checked = self._model.model_validate(arguments)
        return self.fn(**{name: getattr(checked, name) for name in type(checked).model_fields})


# JSON Schema for the argument types the tools use, as pydantic writes them (a test holds them equal).
SCHEMA_TYPES: dict[str, dict[str, Any]] = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "bool": {"type": "boolean"},
    "list[str]": {"items": {"type": "string"}, "type": "array"},
}


def input_schema(fn: Callable[..., str]) -> dict[str, Any]:
    """The tool's input schema from its signature, read from the annotations' text (this module
    postpones them), so the tool list costs no pydantic import."""
    names, defaults = _parameters(fn)
    properties: dict[str, Any] = {}
    for name in names:
        hint = str(fn.__annotations__[name])
        base = hint.removesuffix(" | None")
        schema = dict(SCHEMA_TYPES[base])
        if base != hint:
            schema = {"anyOf": [schema, {"type": "null"}]}
        if name in defaults:
            schema["default"] = defaults[name]
        properties[name] = schema
    required = [name for name in names if name not in defaults]
    return {"properties": properties, **({"required": required} if required else {}), "type": "object"}


def arguments_model(fn: Callable[..., str]) -> type[BaseModel]:
    """The pydantic model a call's arguments are checked (and coerced, `"3"` → 3) with."""
    import typing

    from pydantic import create_model

    hints = typing.get_type_hints(fn)
    names, defaults = _parameters(fn)
    fields: dict[str, Any] = {name: (hints[name], defaults.get(name, ...)) for name in names}
    return create_model(f"{fn.__name__}_arguments", **fields)


def _parameters(fn: Callable[..., str]) -> tuple[tuple[str, ...], dict[str, Any]]:
    """A tool's argument names, in order, and the defaults of those that have one."""
    code = fn.__code__
    names = code.co_varnames[: code.co_argcount]
    return names, dict(zip(reversed(names), reversed(fn.__defaults__ or ()), strict=False))


class HomeostatServer:
    """The tools over the KB, with alias resolution, argument cleaning and event logging; the
    protocol around them is `homeostat.mcp_stdio`'s."""

    name = "homeostat"
    version = VERSION
    instructions = INSTRUCTIONS

    def __init__(self, service: McpSession, *, writes: bool) -> None:
        self.tools: dict[str, Tool] = {}
        self.service = service
        self.writes = writes

    def add_tool(self, fn: Callable[..., str], annotations: Annotations) -> None:
        self.tools[fn.__name__] = Tool(fn, annotations)

    def tool_list(self) -> list[dict[str, Any]]:
        return [tool.listed() for tool in self.tools.values()]

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        """A `tools/call` result: the tool's text, or `isError` with why it could not answer. An
        unknown tool raises `UnknownTool`, naming the tools."""
        started = time.perf_counter()
        asked = name
        resolved = canonical(name)
        resolved = ALIASES.get(resolved, resolved)
        tool = self.tools.get(resolved)
        if resolved != asked:
            self.service.log("desire-path", {"asked": asked[:80], "tool": resolved if tool else ""})
        if tool is None and resolved in ("learn", "flag"):
            return _text(
                "MCP writes are off for this KB (security.mcpWrites); the user can run `homeostat learn`."
            )
        if tool is None:
            raise UnknownTool(f"Unknown tool {asked[:80]!r}; the tools are: {', '.join(self.tools)}.")
        if isinstance(arguments, str):  # the whole object sent as a JSON string
            try:
                arguments = json.loads(arguments)
            except ValueError:
                pass
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return _text(
                f"Invalid arguments for {resolved}: send an object of argument names and values, "
                f"not {type(arguments).__name__}.",
                error=True,
            )
        cleaned, dropped = clean_arguments(resolved, arguments, set(tool.input_schema["properties"]))
        try:
            text = tool.run(cleaned)
        except Exception as exc:  # noqa: BLE001 - every failure is the tool's answer, never the session's end
            return _failed(resolved, exc)
        wall = round((time.perf_counter() - started) * 1000)
        self.service.log("mcp-call", {"tool": resolved, "ms": wall, "dropped": len(dropped)})
        return _text(text)


def _text(text: str, *, error: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if error:
        result["isError"] = True
    return result


def _failed(tool: str, exc: Exception) -> dict[str, Any]:
    """A tool that could not answer says why in its result: the KB's own message (a broken
    homeostat.yaml, named with its line), the arguments it rejected, or one line for a bug. Never a
    traceback, and never only "Error executing tool"."""
    from pydantic import ValidationError

    if isinstance(exc, HomeostatError):
        text = str(exc)
    elif isinstance(exc, ValidationError):
        text = argument_problems(tool, exc)
    else:
        what = f"{type(exc).__name__}: {exc}"
        logging.getLogger("homeostat.mcp").warning("tool %s failed: %s", tool, what)
        text = f"Homeostat could not answer {tool} ({what}); run `homeostat {tool}` to see more."
    return _text(text, error=True)


def build_server(kb: str | None, checkout: Path) -> HomeostatServer:
    """The server with its tools; `learn` and `flag` only when the KB allows MCP writes. The tool
    list needs only `security.mcpWrites` from homeostat.yaml (`runs.mcp_session.start`), so the corpus
    loads on the first call; a config that does not parse stops the server at start."""
    begun = start(kb, checkout)
    service = McpSession(kb, checkout, begun)
    server = HomeostatServer(service, writes=begun.writes)
    for fn, hints in _selection_tools(service) + _lookup_tools(service):
        server.add_tool(fn, hints)
    if begun.writes:
        learn, flag = _write_tools(service)
        server.add_tool(learn, LEARN)
        server.add_tool(flag, FLAG)
    return server


def _selection_tools(service: McpSession) -> list[tuple[Callable[..., str], Annotations]]:
    """`context` and `search`: what selection picks for files or words, each within its limits."""

    def context(files: list[str] | None = None, budget: int | None = None, task: str | None = None) -> str:
        """Team rules and document sections for the files you will change, within a token budget. Call
        before editing; pass `task`, a few words on what you are doing: it ranks the rules better
        (the checkout's branch and recent commits count too)."""
        from homeostat.core.render.view import build_view
        from homeostat.runs.session import relative_paths

        s = service.session()
        touched = relative_paths(files or [], s.identity, s.identity.top)
        limits = s.corpus.budget
        said = ""
        if budget is not None:
            used = min(max(budget, MIN_BUDGET), MAX_BUDGET)
            if used != budget:
                said = f"(budget {budget} is outside {MIN_BUDGET} to {MAX_BUDGET} tokens; used {used}.)\n"
            limits = limits._replace(token_budget=used)
        words = service.task_of(s, task)
        view = build_view(s.corpus, touched, s.audience, s.counter(), budget=limits, task=words)
        service.log(
            "injection",
            {
                "source": "mcp",
                "rules": len(view.placed),
                "tokens": view.tokens,
                "ids": ",".join(view.served_ids),
            },
        )
        cut = f"\n({len(view.cut)} left out for the budget; `search` finds them.)\n" if view.cut else ""
        return _scope(s) + said + view.text + cut

    def search(query: str = "", limit: int = 10, group: bool = False, topic: str = "") -> str:
        """Keyword search over rules and document sections (no model). At a bug report, a test, new code,
        a why or what's-left question, a commit. `topic` lists a whole topic."""
        from homeostat.core.render.view import render_hits
        from homeostat.core.selection.search import search_entries, topic_listing

        s = service.session()
        if topic:
            return _scope(s) + render_hits(topic_listing(s.corpus, topic, s.audience), topic)
        if not query.strip():
            return "Give `query` (words to look for) or `topic` (a topic to list)."
        used = max(1, min(limit, MAX_LIMIT))
        said = f"(limit {limit} is outside 1 to {MAX_LIMIT}; used {used}.)\n" if used != limit else ""
        hits = search_entries(s.corpus, query, s.audience, limit=used, group=group)
        return _scope(s) + said + render_hits(hits, query)

    return [(context, READ), (search, READ)]


def _lookup_tools(service: McpSession) -> list[tuple[Callable[..., str], Annotations]]:
    """`read`, `docs`, `explain` and `report`: one named thing, or the KB as a whole, looked up."""

    def read(target: str) -> str:
        """Read a document section (`area/doc#section`), a whole document, or a rule (its id, or
        `area/topic#id`), with its source."""
        from homeostat.core.render.read import render_found
        from homeostat.core.selection.search import lookup

        s = service.session()
        found = lookup(s.corpus, target, s.audience)
        if found.sections:
            service.log(
                "doc-read",
                {
                    "source": "mcp",
                    "sections": len(found.sections),
                    "ids": ",".join(x.key for x in found.sections),
                },
            )
        return _scope(s) + render_found(found)

    def docs() -> str:
        """List the documents and their sections; then `read` one."""
        from homeostat.core.render.view import render_docs

        s = service.session()
        return _scope(s) + render_docs(s.corpus, s.audience)

    def explain(id: str, files: list[str] | None = None, task: str | None = None) -> str:  # noqa: A002
        """Where a rule came from: source, score breakdown, owner, conflicts; with `files` (and
        `task`), where `context` ranks it for them."""
        from homeostat.runs.explain import explain as explain_rule

        s = service.session()
        kb = service.kb_of(s)
        words = service.task_of(s, task) if files else ()
        return explain_rule(kb, s, id, files or None, conflicts=service.conflicts_of(kb), task=words).text()

    def report(days: int = 7) -> str:
        """KB health: counts, stale rules, open flags, validation, recent use."""
        from homeostat.runs.measure.report import MAX_DAYS

        s = service.session()
        window = min(max(1, days), MAX_DAYS)
        said = f"(days {days} is outside 1 to {MAX_DAYS}; used {window}.)\n" if window != days else ""
        return said + service.report(s, dt.datetime.now(dt.UTC).date(), window)

    return [(read, READ), (docs, READ), (explain, READ), (report, READ)]


def _write_tools(service: McpSession) -> tuple[Callable[..., str], Callable[..., str]]:
    def learn(
        title: str,
        rule: str,
        area: str,
        why: str = "",
        topic: str = "",
        scope: list[str] | None = None,
        kind: str = "",
    ) -> str:
        """Save a lesson the user taught as a pending rule for the team to review (title ≤80 chars,
        rule ≤60 words; `topic` where the area has topics)."""
        from homeostat.core.lessons import Fields, LessonError, check_area, check_languages, check_limits

        s = service.session()
        refused = _refuse_author(s)
        if refused:
            return refused
        try:
            check_area(service.config(s), area, topic, _argument)
            check_limits(Fields(title=title, rule=rule, why=why), _argument)
            check_languages(service.config(s), tuple(scope or ()), _argument)
        except LessonError as exc:
            return f"Not saved: {exc}."
        return service.write(
            s,
            {
                "kind": "new",
                "title": title,
                "rule": rule,
                "why": why,
                "area": area,
                "topic": topic,
                "scope": tuple(scope or ()),
                "lessonKind": kind or None,
            },
        )

    def flag(id: str, reason: str) -> str:  # noqa: A002
        """Flag a rule as wrong or outdated, with the reason; a reviewer settles it."""
        s = service.session()
        entry = s.corpus.entry(id)
        if entry is None or not s.audience.sees(entry.area, s.corpus):
            return f"No rule {id!r} for this repo; `search` for it."
        return _refuse_author(s) or service.write(s, {"kind": "flag", "target": id, "reason": reason})

    return learn, flag


def _scope(session: Session) -> str:
    """A first line when the checkout matches no repo: an agent would read "nothing found" as "none"."""
    from homeostat.runs.session import no_repo_note

    unmatched = no_repo_note(session)
    if not unmatched:
        return ""
    return (
        f"({unmatched[0].upper()}{unmatched[1:]}. The server serves the repo of the checkout it starts in, "
        "matched by its origin against repos[].url.)\n"
    )


def _argument(name: str) -> str:
    return f"`{name}`"


def _refuse_author(session: Session) -> str:
    """A lesson is filed under a member; one from a stranger would only be declined the next morning."""
    if session.audience.member:
        return ""
    who = session.identity.email or session.identity.name or "not set"
    return (
        f"Not saved: this checkout's git user ({who}) is not in team.members of homeostat.yaml. Ask the user "
        "to set HOMEOSTAT_MEMBER to their member handle, or to add their git email to their entry."
    )
