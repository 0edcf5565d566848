"""What the MCP server holds between calls and what it writes, so the server itself is only its tools
and their protocol (`homeostat.mcp_server`) and reaches the corpus cache, git, the KB's watch, the
event log and the pending lessons through here, as the dashboard reaches them through runs/.

`McpSession` keeps, while the KB's key is unchanged, the session of the last call (the corpus, who
is asking), the parsed KB, its health and the open event log: re-reading the corpus cost 100-300 ms
a call at 20,000 rules. It imports nothing heavy at module level: the server's start-up (the
handshake and the tool list) must not pay for the corpus, selection or pydantic.
"""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from homeostat.adapters.state.event_recorder import log_event
from homeostat.core.records import Record
from homeostat.core.text import plural
from homeostat.errors import HomeostatError

if TYPE_CHECKING:
    from homeostat.adapters.cache.corpus_cache import Loaded
    from homeostat.adapters.git.branch_task import BranchReader
    from homeostat.adapters.kb_watch import KbWatch
    from homeostat.adapters.state.event_log import SqliteEventLog
    from homeostat.core.config import Config
    from homeostat.core.kb import KB
    from homeostat.runs.explain import Conflicts
    from homeostat.runs.measure.report import Held
    from homeostat.runs.session import Session


class Start(Record):
    """What the server needs before its tool list: the KB's folder, whether `learn` and `flag` are
    offered and how many writes a session gets, and the corpus when it had to be loaded to know."""

    root: Path
    writes: bool
    write_limit: int
    loaded: Loaded | None


def start(kb: str | None, checkout: Path) -> Start:
    """`security.mcpWrites` and `mcpWriteLimit` from homeostat.yaml alone (loading the corpus here cost
    start-up 200-390 ms at 20,000 rules); a config that does not parse is loaded as a session all the
    same, so the server refuses to start with the KB's own message."""
    from homeostat.adapters.state.hook_state import kb_settings
    from homeostat.cli_options import kb_dir

    root = Path(kb_dir(kb))
    settings = kb_settings(root)
    if settings is not None:
        return Start(root, bool(settings["mcpWrites"]), int(settings["mcpWriteLimit"]), None)
    from homeostat.runs.session import open_session

    first = open_session(kb, checkout)
    return Start(first.root, first.corpus.mcp_writes, first.corpus.mcp_write_limit, first.loaded)


class McpSession:
    """The KB as the MCP server's calls see it, never staler than its key, and the lessons it writes."""

    def __init__(self, kb: str | None, checkout: Path, begun: Start) -> None:
        self.kb = kb
        self.checkout = checkout
        self.root: Path | None = begun.root
        self.loaded: Loaded | None = begun.loaded  # the first call answers from it while the KB is unchanged
        self.write_limit = begun.write_limit
        self.writes_done = 0
        self.watch: KbWatch | None = None
        self._session: Session | None = None  # the last call's, while the watch sees no change
        self._branch: BranchReader | None = None  # the checkout's branch and commits, while HEAD stays
        self._kb: tuple[str, KB] | None = None  # the KB itself, for explain and report, by corpus key
        self._conflicts: Conflicts | None = None
        self._held: tuple[str, dt.date, Held] | None = None
        self._events: SqliteEventLog | None = None  # the event log, for report, once it exists
        self._lock = threading.Lock()  # a caller may call from more than one thread
        self._log_lock = threading.Lock()

    def session(self) -> Session:
        """Who is asking and the KB, on every call: while the KB's watch has seen nothing that touches
        its key, the session of the last call stands (the checkout's identity is still read, from its
        cache); otherwise fresh watches are set, then the key is worked out, and the corpus held from
        the last call is used while it is unchanged (the key alone costs 30-40 ms at 20,000 rules)."""
        from homeostat.adapters.cache.corpus_cache import checkout_identity
        from homeostat.adapters.kb_watch import KbWatch  # ctypes: after the tool list is answered
        from homeostat.runs.session import IDENTITY_CACHE, open_session

        with self._lock:
            held = self._session
            if held is not None and self.watch is not None and self.watch.quiet():
                identity = checkout_identity(self.checkout, held.root / IDENTITY_CACHE)
                if identity == held.identity:
                    self.loaded = held.loaded
                    return held
            self._session = None  # until the key is worked out again (it may fail: a broken KB)
            if self.watch is not None:
                self.watch.close()
            self.watch = KbWatch.start(self.root) if self.root is not None else None
            session = open_session(self.kb, self.checkout, say_scope=False, kept=self.loaded)
            self.root = session.root
            self.loaded = session.loaded
            self._session = session._replace(loaded=session.loaded._replace(reason="kept"))
            return session

    def task_of(self, session: Session, stated: str | None) -> tuple[str, ...]:
        """What the agent is doing, as words: what it said (`task`), then the checkout's branch and the
        subjects of its last commits, which a session hook ranks by too (read while HEAD moves, kept
        while it does not). A checkout with no git gives only the stated words."""
        from homeostat.adapters.git.branch_task import NOTHING, BranchReader
        from homeostat.core.selection.terms import task_words

        work = NOTHING
        if session.identity.is_git:
            if self._branch is None:
                self._branch = BranchReader()
            work = self._branch.read(session.identity.top)
        return task_words(work.branch, work.commits, stated=stated or "")

    def kb_of(self, session: Session) -> KB:
        """The loaded KB for the session's key: parsed once while the KB is unchanged."""
        from homeostat.adapters.kb_files import load_kb_dir

        key = session.loaded.key
        if self._kb is None or self._kb[0] != key:
            self._kb = (key, load_kb_dir(session.root))
        return self._kb[1]

    def conflicts_of(self, kb: KB) -> Conflicts:
        """The KB's rule words for explain, kept beside the KB they were worked out from."""
        from homeostat.runs.explain import Conflicts

        if self._conflicts is None or self._conflicts.kb is not kb:
            self._conflicts = Conflicts(kb)
        return self._conflicts

    def held(self, session: Session, today: dt.date) -> Held:
        """The KB, its validation and its health for `today`, kept while the KB's key is unchanged."""
        from homeostat.core.validate import validate_kb
        from homeostat.runs.measure.report import hold

        kb = self.kb_of(session)
        key = session.loaded.key
        if self._held is None or self._held[:2] != (key, today):
            self._held = (key, today, hold(kb, validate_kb(kb, today), today))
        return self._held[2]

    def report(self, session: Session, today: dt.date, days: int) -> str:
        """The health report, with the event log kept open (and folded on every count) once it exists."""
        from homeostat.adapters.state.event_log import SqliteEventLog, events_path, log_exists
        from homeostat.runs.measure.report import health_report

        held = self.held(session, today)
        with self._log_lock:
            path = events_path(session.root)
            if self._events is not None and self._events.path != path:
                self._events.close()
                self._events = None
            if self._events is None and log_exists(path):
                self._events = SqliteEventLog(path)
            return health_report(session.root, today, days, held, self._events)[1]

    def log(self, kind: str, data: dict[str, str | int]) -> None:
        """One event in the KB's local log (`desire-path`, `mcp-call`, `injection`, ...)."""
        log_event(self.root or Path(self.kb or "."), kind, data)

    def config(self, session: Session) -> Config:
        """homeostat.yaml as it is now, for the checks of a lesson before it is written."""
        from homeostat.adapters.plain_files import read_kb_text
        from homeostat.core.kb import CONFIG_FILE, load_config

        config, _, problems = load_config(read_kb_text(session.root / CONFIG_FILE, CONFIG_FILE))
        if config is None:
            raise HomeostatError(f"{CONFIG_FILE}:{problems[0].line}: {problems[0].message}")
        return config

    def write(self, session: Session, fields: dict[str, Any]) -> str:
        """A pending lesson (`learn`) or flag written for the daily run to decide, within the session's
        write limit; the answer says what was saved, or why not (a secret is refused, never redacted:
        a pending lesson travels to the team's branch)."""
        from pydantic import ValidationError

        from homeostat.adapters.state.pending_store import write_pending
        from homeostat.core.pending import PendingLesson, secret_fields

        if not session.corpus.mcp_writes:
            return "MCP writes are off for this KB (security.mcpWrites)."
        if self.writes_done >= self.write_limit:
            return f"This session has used its {self.write_limit} MCP writes (security.mcpWriteLimit)."
        author = session.audience.member
        try:
            lesson = PendingLesson.model_validate(
                {"author": author, "source": "agent-handoff", "created": dt.datetime.now(dt.UTC), **fields}
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            return f"Not saved: {'.'.join(str(p) for p in first['loc']) or 'lesson'}: {first['msg']}."
        found = secret_fields(lesson)
        if found:
            name, kind = found[0]
            return f"Not saved: the {name} holds what looks like a secret ({kind}); remove it."
        path = write_pending(session.root, lesson)
        self.writes_done += 1
        self.log("capture" if fields["kind"] == "new" else "flag", {"source": "mcp", "kind": fields["kind"]})
        left = self.write_limit - self.writes_done
        return (
            f"Saved as a pending {fields['kind']} lesson ({path.name}); the daily run decides it. "
            f"{plural(left, 'write')} left."
        )
