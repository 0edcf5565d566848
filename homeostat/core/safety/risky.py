"""Risky-content linter: a rule is a prompt to every developer's agent, so content that could poison
it is an error until a person marks it reviewed (`riskReviewedBy`, which the validator handles).

Families: piped shell, unlisted domains, credential handling, disabling security checks, injection
phrasing, destructive commands, hidden characters and instructions hidden in HTML comments.
Homeostat's own `<!-- homeostat … -->` comments are skipped. Inline and fenced code are scanned like
prose. Phrase families are negation-aware per clause: "Never pass `verify=False`" warns *against*
the risk and passes, "Pass `verify=False` to the client" does not, and neither does "Never forget to
pass `verify=False`" (a double negative orders it). A heading line ends a clause, so the first line of
a section is read as the start of one. Phrases and domains are read on the normalised text (NFKC,
invisible characters dropped, HTML character references decoded), so `ｃｕｒｌ … &#124; sh` is still
piped shell; the invisible characters themselves are reported from the original.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, partial

from homeostat.core.scanners.hidden import (
    FENCE_LINE,
    Fields,
    addresses_agent,
    blank_homeostat_comments,
    describe,
    escape_invisible,
    hidden_characters,
    hidden_payload,
    hidden_places,
    instruction_comments,
    mask_code_spans,
    shown_as_code,
    shown_whole_as_code,
)
from homeostat.core.scanners.normalise import normalise
from homeostat.core.scanners.reach import bounded_words
from homeostat.core.scanners.risky.canonical import canonical, other_readings
from homeostat.core.scanners.risky.decoded import decoded_payloads
from homeostat.core.scanners.risky.described import Reader
from homeostat.core.scanners.risky.domains import host_refs, is_allowed, kubernetes_name, path_scoped
from homeostat.core.scanners.risky.families import family_hits, named_as_a_case, named_as_a_payload
from homeostat.core.scanners.risky.quiet import (
    CLUE,
    PAYLOAD,
    Look,
    could_hold_risks,
    holds_clue_symbol,
    look,
    quiet_spans,
)
from homeostat.core.scanners.risky.risk_rules import (
    ABOUT_A_SECRET,
    CLAUSE_LEAD,
    CONFINED_AFTER,
    DISPOSABLE_CHECKOUT,
    DOUBLE_NEGATIVE,
    MODEL_TOKENS,
    NEGATION_AFTER,
    NEGATION_BEFORE,
    PARTIAL_SECRET,
    PHRASE_RULES,
    SCANNER_IGNORE,
    SECRET_STORE,
    SET_APART,
    THROWAWAY_NAME,
    WORK_TREE_ONLY,
    Pattern,
    PhraseRule,
    asks_first,
    gate_of,
    words_among,
)
from homeostat.core.scanners.risky.shell import shell_hits
from homeostat.core.scanners.risky.told import host_told_as_input
from homeostat.core.scanners.secrets.values import lower_same_length

__all__ = ["RiskHit", "clauses_around", "find_risks", "quiet_spans", "read_risks", "warns_against"]

_EXCERPT_LIMIT = 80
_CLAUSE_LOOKBACK = 300
# How far past its trigger a phrase pattern may reach: a bound on each try, so a line holding a
# trigger thousands of times is read in time proportional to it (`shell_hits` reads commands whole).
_MATCH_REACH = 240
_DECODE_DEPTH = 2
# Sentence ends, commas, blank lines, list items and table rows, and the end of a heading line or of a
# line that introduces what follows ("Steps:").
_CLAUSE_BOUNDARY = re.compile(
    r"[.!?](?=\s)|[,;]|\n[ \t]*\n|\n[ \t]*(?:[-*+][ \t]|\d+[.)][ \t]|#|>|\|)|"
    r"(?m:^[ \t]{0,3}#{1,6}(?:[ \t][^\n]*)?\n)|:[ \t]*\n"
)
_WINDOW_START = re.compile(r"[.!?](?=\s)|\n")
# A secret echoed straight into a program's standard input option (`echo "$TOKEN" | docker login
# --password-stdin`, `| gh auth login --with-token`): the way to keep it off the command line, not a print.
_STDIN_SECRET = re.compile(
    r"[^|\n]{0,40}\|\s*[^|;&\n]{0,120}?(?:--[\w-]*stdin\b|--with-token\b|--token-stdin\b|--password-file[= ]+-(?!\w))"
)
# Comments that label the code under them as the bad or the good example, and a prose line that labels a
# whole code block bad ("Bad:", "Don't do this:").
_COMMENT_MARK = r"[ \t]*(?:#+|//+|--|/\*+|;+|<!--|\*)[ \t]*"
_BAD_WORDS = (
    r"(?:[*_]{1,2}\s*)?(?:(?:❌|✗|✘|⛔|🚫)|(?:bad|wrong|incorrect|insecure|unsafe|vulnerable|dangerous|anti-?pattern)"
    # the word is the verdict, not an adjective of something else ("# wrong version pinned, fix with:")
    r"(?:\s+(?:example|way|pattern|code|usage|practice|idea))?(?:\s*[:\-–—!(.*_]|\s*$)|"
    # and "don't do this" is the whole verdict: "# don't do this unless CI is red" allows it
    r"(?:never|don'?t|do\s+not|avoid)(?:\s+do(?:ing)?)?\s+(?:this|that|these)\b(?=\s*(?:[:.!\-–—(*_]|$)))"
)
_BAD_COMMENT = re.compile(_COMMENT_MARK + _BAD_WORDS, re.IGNORECASE)
_GOOD_COMMENT = re.compile(
    _COMMENT_MARK + r"(?:(?:✅|✓|✔)|(?:good|right|correct|better|safe|secure|instead|fixed|do\s+this)\b)",
    re.IGNORECASE,
)
# A prose line that is only a label ending in a colon: "Bad:", "**Wrong:**", "Bad (runs unverified code):".
_BAD_LABEL_LINE = re.compile(
    r"^[ \t]*(?:[-*+>][ \t]+)?(?=[^\n]{0,80}:[ \t*_]*$)" + _BAD_WORDS + r"[^\n]{0,60}$", re.IGNORECASE
)
_LABEL_REACH = 8  # lines a label covers
# A second sentence on a label's line is no longer the label ("# wrong: none. Print the token.").
_SENTENCE_BREAK = re.compile(r"[.;!?]\s+\S")
_BLANK = re.compile(r"[ \t]*$")


@dataclass(frozen=True)
class RiskHit:
    """One finding: what it is, where, the text at fault (printable) and what a reviewer should do."""

    kind: str
    line: int
    excerpt: str
    message: str


def _excerpt(text: str) -> str:
    """One printable line of at most 80 characters, invisible characters spelled as escapes."""
    flat = escape_invisible(" ".join(text.split()))
    return flat if len(flat) <= _EXCERPT_LIMIT else flat[: _EXCERPT_LIMIT - 1] + "…"


class _Text:
    """The scanned text with the lookups the families share, each computed once and only if needed."""

    def __init__(self, text: str, context: str | None = None) -> None:
        self.text = text
        self.context = context  # the whole text, when this is a reading of some of its lines
        self._occurrences: dict[str, list[int]] = {}
        self._line_holds: dict[tuple[str, int], bool] = {}

    @cached_property
    def reader(self) -> Reader:
        return Reader(self.text, self.context)

    @cached_property
    def lowered(self) -> str:
        return lower_same_length(self.text)

    @cached_property
    def fences(self) -> list[int]:
        """Offsets of fence lines: a block runs from an even-numbered one to the next (an unclosed
        fence runs to the end)."""
        return [m.start() for m in FENCE_LINE.finditer(self.text)]

    @cached_property
    def _line_starts(self) -> list[int]:
        return [0, *(m.end() for m in re.finditer("\n", self.text))]

    def line_of(self, pos: int) -> int:
        return bisect_right(self._line_starts, pos)

    def occurrences(self, word: str) -> list[int]:
        """Offsets of `word` (lowercase) in the text."""
        found = self._occurrences.get(word)
        if found is None:
            found = []
            pos = self.lowered.find(word)
            while pos >= 0:
                found.append(pos)
                pos = self.lowered.find(word, pos + 1)
            self._occurrences[word] = found
        return found

    def lines_with(self, words: tuple[str, ...]) -> list[tuple[int, int]]:
        """Spans of the lines holding any of `words` (lowercase), in order."""
        spans: dict[int, int] = {}
        for word in words:
            for pos in self.occurrences(word):
                start, end = self.line_span(pos)
                spans[start] = end
        return sorted(spans.items())

    def line_span(self, pos: int) -> tuple[int, int]:
        """The line holding `pos`, found from the line starts (a `rfind` back to a line's start for
        each of thousands of triggers on one line was quadratic)."""
        line = self.line_of(pos)
        starts = self._line_starts
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return starts[line - 1], end

    def line_holds(self, pattern: re.Pattern[str], pos: int) -> bool:
        """Whether the line holding `pos` holds a match of `pattern`: searched once a line, however many
        hits on it ask (a line of thousands of commands was otherwise read again for each)."""
        start, end = self.line_span(pos)
        key = (pattern.pattern, start)
        found = self._line_holds.get(key)
        if found is None:
            found = self._line_holds[key] = pattern.search(self.text, start, end) is not None
        return found

    def command_end(self, pos: int, reach: int) -> int:
        """End of the line holding `pos`, or of the shell command it starts when a line ends in `\\` or
        `|` (`curl … \\` / `| bash` is one command across two lines), read at most `reach` past `pos` (a
        table of thousands of rows each ending in `|` is not read to its end from each row)."""
        end = self.line_span(pos)[1]
        while end < min(len(self.text), pos + reach):
            last = end - 1
            while last > pos and self.text[last] in " \t":
                last -= 1
            if self.text[last] not in "\\|":
                break
            end = self.line_span(end + 1)[1]
        return end

    def in_code_block(self, pos: int) -> bool:
        return bisect_right(self.fences, pos) % 2 == 1

    @cached_property
    def shown_whole_as_code(self) -> Callable[[int, int], bool]:
        """Whether `start:end` is shown as code, word for word (`hidden.shown_whole_as_code`, as the
        subject gate reads it)."""
        return shown_whole_as_code(self.text)

    @cached_property
    def in_code(self) -> Callable[[int], bool]:
        """Whether an offset is shown as code: in a fenced block or a code span (`hidden.shown_as_code`)."""
        return shown_as_code(self.text)

    def clause_before(self, pos: int) -> str:
        """Text from the start of the clause holding `pos` up to it; code blocks are read line by line."""
        if self.in_code_block(pos):
            return self.text[self.text.rfind("\n", 0, pos) + 1 : pos]
        window = self.text[max(0, pos - _CLAUSE_LOOKBACK) : pos]
        if pos > _CLAUSE_LOOKBACK:
            # the window may start inside a code span, which would pair its backticks wrongly and mask
            # the boundaries after it: read it from the first sentence end or line break it holds
            first = _WINDOW_START.search(window)
            if first is not None:
                window = window[first.end() :]
        # A comma inside `code, like this` is no boundary: mask closed code spans before looking.
        masked = mask_code_spans(window, open_at_end=True)  # `pos` may sit inside a span opened here
        start = 0
        for m in _CLAUSE_BOUNDARY.finditer(masked):
            start = m.end()
        return window[start:]

    def labelled_bad(self, pos: int) -> bool:
        """In a code block, the line holding `pos` is under a comment that labels it the bad example
        (`# wrong: runs unverified code`, `// Do NOT do this:`), or the block is under a prose line that
        does ("Bad:"). The label covers the lines after it up to a blank line or a label for the good
        example (`# right`); a few lines at most."""
        if self.context is not None:
            return self._whole.labelled_bad(self._in_whole(pos))
        if not self.in_code_block(pos):
            return False
        fence = self.fences[bisect_right(self.fences, pos) - 1]
        line_start, line_end = self.line_span(pos)
        label = _BAD_COMMENT.match(self.text, line_start, line_end)
        if label is not None and not _SENTENCE_BREAK.search(self.text, label.end(), line_end):
            return True  # the label's own words say what is wrong with the example ("# wrong: logs the password")
        for _ in range(_LABEL_REACH):
            if line_start <= fence:
                before = self.text[max(0, fence - _CLAUSE_LOOKBACK) : fence].rstrip("\n").rsplit("\n", 1)[-1]
                return _BAD_LABEL_LINE.match(before) is not None
            line_start, line_end = self.line_span(line_start - 1)
            if _BLANK.match(self.text, line_start, line_end) or _GOOD_COMMENT.match(
                self.text, line_start, line_end
            ):
                return False
            if _BAD_COMMENT.match(self.text, line_start, line_end):
                return True
        return False

    @cached_property
    def _whole(self) -> _Text:
        """The whole text this reading keeps some lines of (`context`), read as it stands."""
        return _Text(self.context or self.text)

    def _in_whole(self, pos: int) -> int:
        """`pos` in the whole text: a kept line is the whole text's line with the same number, as it is."""
        line = self.line_of(pos)
        return self._whole._line_starts[line - 1] + pos - self._line_starts[line - 1]

    def clause_after(self, pos: int) -> str:
        end = min(self.line_span(pos)[1], pos + _CLAUSE_LOOKBACK)
        rest = self.text[pos:end]
        cut = re.search(r"[.!?](?=\s|$)|[,;]", rest)
        return rest[: cut.start()] if cut else rest


def _negated(doc: _Text, start: int, end: int) -> bool:
    return (
        warns_against(doc.clause_before(start), doc.clause_after(end))
        or doc.labelled_bad(start)
        or _reported_in_a_condition(doc, start, end)
        or _an_example_of_what_is_refused(doc, start)
        or _in_a_relative_clause_forbidden(doc, start, end)
    )


# An act in a relative clause whose head the sentence then forbids: "Flags that bypass auth checks, like
# `skip_mfa_for_internal`, must not exist"; "scripts which disable the firewall are not allowed". Only
# up to the sentence's end or a semicolon, and never with an order to make or keep one on the line after it:
# "… must not exist in staging; add one to prod" still is one.
_RELATIVE_BEFORE = re.compile(r"\b(?:that|which|who)\s+$", re.I)
_HEAD_FORBIDDEN = re.compile(
    r"^[^.;!?\n]{0,160}?\b(?:(?:must|should|may|can)\s*(?:not|never|n['’]t)\s+(?:exist|be\s+(?:added|used|kept|merged|"
    r"enabled|allowed|created|shipped|committed))|(?:are|is)\s+(?:not\s+allowed|forbidden|prohibited|banned))\b",
    re.I,
)
_ORDERED_AFTER = re.compile(
    r"\b(?:add|enable|use|keep|create|set|allow|ship|merge|turn\s+(?:it|them|one)?\s*on|switch\s+(?:it|them|one)?\s*on)\b",
    re.I,
)


def _in_a_relative_clause_forbidden(doc: _Text, start: int, end: int) -> bool:
    line_start, line_end = doc.line_span(start)
    if _RELATIVE_BEFORE.search(doc.text, max(line_start, start - 20), start) is None:
        return False
    forbidden = _HEAD_FORBIDDEN.match(doc.text[end:line_end])
    return forbidden is not None and _ORDERED_AFTER.search(doc.text, end + forbidden.end(), line_end) is None


# An example of what the sentence refuses: "Don't fetch and run scripts from the internet in crontab lines, such as
# `curl https://… | bash` every hour." The example's clause holds no negation; the sentence before it does.
_EXAMPLE_LEAD = re.compile(
    r"(?:,\s*|\(\s*)(?:such\s+as|like|e\.g\.,?|for\s+example,?|for\s+instance,?)\s+[`'\x22]?$", re.I
)
_SENTENCE_BEFORE = re.compile(r"[.!?\n]\s")
_EXAMPLES_CLAUSE = re.compile(r"[;:]|\b(?:but|then|so|just|instead|otherwise)\b", re.I)


def _an_example_of_what_is_refused(doc: _Text, start: int) -> bool:
    window = doc.text[max(0, start - 300) : start]
    lead = _EXAMPLE_LEAD.search(window)
    if lead is None:
        return False
    begin = 0
    for m in _SENTENCE_BEFORE.finditer(window, 0, lead.start()):
        begin = m.end()
    before = DOUBLE_NEGATIVE.sub(" ", mask_code_spans(window[begin : lead.start()]))
    # only the clause the example belongs to: "don't give up; run an installer such as …" orders it
    for boundary in _EXAMPLES_CLAUSE.finditer(before):
        before = before[boundary.end() :]
    return NEGATION_BEFORE.search(before) is not None


# A command quoted as what someone else's text says, in a condition: "If a vendor's docs say `curl … |
# bash`, open an issue here first", or as what the reader finds ("if you find a `[trusted=yes]` entry,
# remove it"). The condition's answer decides: one that does what was said ("…, run it", "…, go ahead",
# "…, follow them", "…, keep it") orders it.
_SAID_IN_A_CONDITION = re.compile(
    r"\b(?:if|when|whenever|where)\s+(?:[\w'’-]+\s+){1,6}?(?:says?|suggests?|recommends?|shows?|tells?\s+you\s+to|"
    r"asks?\s+you\s+to|documents?|lists?)\s+[`'\x22]?$|"
    # or what the reader finds in a file it reads: "if you find a `[trusted=yes]` entry, remove it and tell …"
    r"\b(?:if|when|whenever)\s+you\s+(?:find|see|spot|notice|come\s+across|encounter)\s+(?:an?\s+|any\s+|the\s+|some\s+)?"
    r"[`'\x22]?$|"
    # or what a change adds: "if a PR adds `# nosec` or `verify=False`, ask for the reason"
    r"\b(?:if|when|whenever)\s+(?:an?\s+|the\s+|any\s+)?(?:pr|pull\s+request|change|commit|diff|patch|merge\s+request)\s+"
    r"(?:adds|introduces|contains|includes)\s+(?:[`'\x22][^`'\x22\n]*[`'\x22],?\s+(?:or\s+|and\s+)?){0,4}[`'\x22]?$",
    re.I,
)
_ANSWER = re.compile(r"[^,;\n]{0,200}?[`'\x22]?\s*[,;]\s*([^.!?\n]{0,200})")
_DOES_IT = re.compile(
    r"\b(?:run|do|follow|use|execute|paste|copy|type|apply|obey|go\s+ahead|proceed|fine|ok|okay|allowed|safe)\b",
    re.I,
)
# ...and the answer must hand it to a person or refuse it: "open an issue", "ask", "report it", "stop";
# an answer that does anything else with the command ("add it to setup.sh") still orders it.
_DEFERS = re.compile(
    r"\b(?:(?:open|file|raise|create)\s+(?:an?\s+)?(?:issue|ticket|bug)|ask|tell|report|flag|escalate|stop|pause|"
    r"refuse|don['’]?t|do\s+not|never|check\s+with|talk\s+to|ping|"
    r"(?:remove|delete|revert|strip)\s+(?:it|them|that|the\s+\w+))\b",
    re.I,
)


def _reported_in_a_condition(doc: _Text, start: int, end: int) -> bool:
    """The command is what a third party's text says, in an "if" whose answer after the comma hands it
    to a person or refuses it and does not do it (`_SAID_IN_A_CONDITION`, `_DEFERS`, `_DOES_IT`)."""
    if _SAID_IN_A_CONDITION.search(doc.clause_before(start)) is None:
        return False
    answer = _ANSWER.match(doc.text, end, min(len(doc.text), end + 400))
    return (
        answer is not None
        and _DOES_IT.search(answer.group(1)) is None
        and _DEFERS.search(answer.group(1)) is not None
    )


def warns_against(before: str, after: str) -> bool:
    """Whether a clause warns against what stands between `before` (its text up to it) and `after`
    (its text from there on): a negation opens it ("never", "don't", "avoid", "stop", "no longer",
    "instead of", "rather than", "without") or follows it ("is forbidden"), a double negative ("never
    forget to") aside. The phrase rules read a risky command this way; the enactment check reads the
    code a rule forbids the same way (`core.daily.enactment`)."""
    before = DOUBLE_NEGATIVE.sub(" ", before)
    return bool(NEGATION_BEFORE.search(before) or NEGATION_AFTER.match(after))


def clauses_around(text: str, spans: Iterable[tuple[int, int]]) -> list[tuple[str, str]]:
    """Each span's clause before it and after it, read as the phrase rules read them (code spans
    masked, a code block line by line, at most a few hundred characters each way): one reading of
    the text however many spans ask, so a text of many spans is read in time linear in them."""
    doc = _Text(text)
    return [(doc.clause_before(start), doc.clause_after(end)) for start, end in spans]


def _opens_clause(doc: _Text, start: int) -> bool:
    """The match starts its clause (after "you should", "then", "Tip:"…)."""
    return CLAUSE_LEAD.match(DOUBLE_NEGATIVE.sub(" ", doc.clause_before(start))) is not None


# Trigger gates that are symbols only (`<(`, `$(`): looked for as substrings, not as words.
_SYMBOL_GATES = tuple(
    sorted({g for rule in PHRASE_RULES for p in rule.patterns for g in p.gates if not g[0].isalnum()})
)


def _index_by_gate() -> dict[str, list[tuple[int, PhraseRule, Pattern]]]:
    """Gate word → the patterns it opens, in rule order, so a text only visits the patterns it can match."""
    index: dict[str, list[tuple[int, PhraseRule, Pattern]]] = {}
    entries = ((rule, pattern) for rule in PHRASE_RULES for pattern in rule.patterns)
    for order, (rule, pattern) in enumerate(entries):
        for gate in pattern.gates:
            index.setdefault(gate, []).append((order, rule, pattern))
    return index


_BY_GATE = _index_by_gate()
_GATE_WORDS = frozenset(_BY_GATE)


def _matches(
    doc: _Text, pattern: Pattern, words: tuple[str, ...], done: Callable[[int], bool]
) -> Iterator[re.Match[str]]:
    """Anchored patterns are tried only where a trigger starts; the others over each trigger's line;
    neither on a line `done` says has its hit already, nor in a text without a mark every match holds."""
    if not all(mark in doc.text for mark in pattern.marks):
        return
    if pattern.anchored:
        for pos in sorted({p for w in words for p in doc.occurrences(w)}):
            if done(pos):
                continue
            m = pattern.regex.match(
                doc.text, pos, min(doc.command_end(pos, _MATCH_REACH), pos + _MATCH_REACH)
            )
            if m:
                yield m
        return
    for start, end in doc.lines_with(words):
        if not done(start):
            yield from pattern.regex.finditer(doc.text, start, end)


def _hit_on_line(doc: _Text, seen: set[tuple[str, int]], kind: str, pos: int) -> bool:
    return (kind, doc.line_of(pos)) in seen


def _phrase_hits(doc: _Text) -> Iterator[RiskHit]:
    seen: set[tuple[str, int]] = set()  # one hit per kind and line: the rest are not tried
    lowered = doc.lowered
    present = words_among(lowered, _GATE_WORDS)
    present.update(g for g in _SYMBOL_GATES if g in lowered)  # `lowered` looked up once, not per gate
    if not present:
        return
    opened = {entry[0]: entry for gate in present for entry in _BY_GATE[gate]}
    for _, rule, pattern in (opened[k] for k in sorted(opened)):
        words = tuple(w for w in pattern.triggers if gate_of(w) in present)
        done = partial(_hit_on_line, doc, seen, rule.kind)
        for m in _matches(doc, pattern, words, done):
            s, e = m.start(), m.end()
            if (rule.kind, doc.line_of(s)) in seen:
                continue
            # A SHOUTED verb is an HTTP method or a constant ("POST the token"), not an order to expose it.
            shouted = rule.kind == "credential-handling" and m.group(0).split()[0].isupper()
            if pattern.opens_clause and (shouted or not _opens_clause(doc, s)):
                continue
            if rule.negatable and _negated(doc, s, e):
                continue
            if rule.kind == "credential-handling" and (
                SECRET_STORE.search(doc.text, s, min(doc.line_span(s)[1], s + _CLAUSE_LOOKBACK))
                or PARTIAL_SECRET.search(doc.text, s, min(doc.line_span(s)[1], s + _CLAUSE_LOOKBACK))
                or MODEL_TOKENS.search(m.group(0))
                or ABOUT_A_SECRET.search(m.group(0))
                or SET_APART.search(m.group(0))
                or _STDIN_SECRET.match(doc.text, m.end(), doc.line_span(s)[1])
                or _csrf_token_in_its_header(doc, m)
                or _token_in_auth_header(doc, m)
                or _anti_forgery_token_sent_back(doc, m)
                or _RESET_PURPOSE.search(m.group(0)) is not None
                or _POSSESSIVE_PART.match(doc.text, m.end()) is not None
                or _ATTRIBUTE_NAMED.match(doc.text, m.end()) is not None
                or _shown_once_when_made(doc, m)
            ):
                continue
            if rule.kind == "injection" and named_as_a_case(doc.text, s, e):
                continue  # an attack string named as a case the tests expect refused, not an order
            if rule.negatable and doc.reader.described(s):
                continue  # what an attacker can do, a consequence, a question, a prohibited list's item
            if rule.kind == "disable-security" and _ignored_once_rotated(doc, m):
                continue  # a leaked secret made worthless first: its old commit may be left out of the scan
            if rule.kind == "destructive-command" and (
                _thrown_away(doc, m)
                or _asks_first(doc, s, e)
                or _previewed_first(doc, m)
                or named_as_a_payload(doc.text, s)
                or _told_as_past(doc, s)
            ):
                continue  # confined to a place made to be thrown away, left to a person, or told about
            seen.add((rule.kind, doc.line_of(s)))
            yield RiskHit(rule.kind, doc.line_of(s), _excerpt(m.group(0).strip()), rule.message)


# A secret scanner's ignore entry (`.gitleaksignore`, `gitleaks:allow`, `pragma: allowlist secret`): the phrase
# rule's own pattern, so the excuse reads exactly what the rule found.
_SCANNER_IGNORE = re.compile(SCANNER_IGNORE, re.I)
# The secret rotated or revoked before, in the same sentence: "rotate it first, then add …", "after
# revoking the token, …", "once the key has been rotated, …". Rotation promised later excuses nothing.
_ROTATED_FIRST = re.compile(
    r"(?:\b(?:rotate|revoke|invalidate|deactivate|disable)\s+(?:it|them|the\s+(?:\S+\s+)?(?:key|token|secret|"
    r"credential|password)s?)\s+first\b|\b(?:after|once)\s+(?:(?:it|they|the\s+(?:\S+\s+)?(?:key|token|secret|"
    r"credential|password)s?)\s+(?:is|are|has\s+been|have\s+been|was|were)\s+)?(?:rotat|revok|invalidat|deactivat)"
    r"\w*)[^.;!?]*$",
    re.I,
)


def _ignored_once_rotated(doc: _Text, m: re.Match[str]) -> bool:
    """A secret scanner's finding put on its ignore list only after the secret was rotated or revoked
    ("when `gitleaks` flags a live key, rotate it first, then add the commit to `.gitleaksignore`"): the
    entry hides a dead value, the way the scanners' own docs say to clear a finding. Only the secret
    scanners' ignore lists, and only a rotation said before them in the sentence."""
    if not _SCANNER_IGNORE.search(m.group(0)):
        return False
    line_start = doc.line_span(m.start())[0]
    before = doc.text[max(line_start, m.start() - _CLAUSE_LOOKBACK) : m.start()]
    return _ROTATED_FIRST.search(before) is not None


# A new key shown once, as keys are handed out: "Show API keys once", "display the token once at
# creation", "reveal the secret only once to its owner". Only show, display and reveal, and only where the
# clause ends there: "show the API key once in #general" still puts it somewhere.
_SHOWN_ONCE = re.compile(
    r"[`'\x22]?\s+(?:only\s+)?once\b(?:\s+(?:at|on|upon|after|when)\s+(?:creation|generation|issue|"
    r"(?:it\s+is|they\s+are)\s+(?:created|generated|issued)))?(?:\s+to\s+(?:its|their|the)\s+(?:owner|creator|user))?"
    r"\s*(?:[.,;:!\n]|$)",
    re.I,
)


def _shown_once_when_made(doc: _Text, m: re.Match[str]) -> bool:
    return m.group(0).split()[0].lower() in {"show", "display", "reveal"} and bool(
        _SHOWN_ONCE.match(doc.text, m.end())
    )


# What is exposed is a part of the secret that gives nothing away, in the possessive: "print the token's
# claims", "log the key's fingerprint" (as `ABOUT_A_SECRET` reads "the name of the secret").
_POSSESSIVE_PART = re.compile(
    r"[`'\x22]?['’]s\s+(?:claims?|expiry|expiration|exp|scopes?|length|type|names?|ids?|issuer|subject|audience|"
    r"age|fingerprint|hash|prefix|owner|metadata|headers?|kid|algorithm|lifetime|ttl|permissions|roles?)\b",
    re.I,
)
# A part of the secret named as an identifier holding the secret's word: `token_id`, `api_key_name`,
# `session.expires_at` (as `_POSSESSIVE_PART` reads "the token's claims").
_ATTRIBUTE_NAMED = re.compile(
    r"[_.-](?:ids?|names?|types?|hash(?:es)?|prefix|suffix|counts?|ttl|expir\w*|expires_at|lengths?|last_?4|"
    r"scopes?|kid|fingerprint|metadata|claims|created_at|issued_at|owner|age)\b",
    re.I,
)
# An account of what happened: the command as the object of a past-tense verb with its subject before it
# ("an agent with blanket approval once ran `terraform destroy` in a demo", "someone had run `DROP TABLE
# users`"), an incident told, not an order. A bare "run `…`" is an order and stays one; "be executed" too.
_TOLD_AS_PAST = re.compile(
    r"\b(?!(?:be|been|being|is|are|was|were|gets?|got)\b)[\w-]+\s+(?:once\s+|accidentally\s+|mistakenly\s+|wrongly\s+|just\s+)?"
    r"(?:ran|executed|typed|issued)\s+(?:a\s+|an\s+|the\s+)?[`'\x22]?$|"
    r"\b(?:had|has|have)\s+(?:once\s+|accidentally\s+|mistakenly\s+|just\s+)?(?:run|executed|typed)\s+"
    r"(?:a\s+|an\s+|the\s+)?[`'\x22]?$",
    re.I,
)


def _told_as_past(doc: _Text, start: int) -> bool:
    """The destructive command is told as something that happened (`_TOLD_AS_PAST`)."""
    return _TOLD_AS_PAST.search(doc.clause_before(start)) is not None


# A bare token sent (`send the token`, `post the CSRF token`), and the CSRF header it is sent in.
_BARE_TOKEN = re.compile(r"\b(?:the|a|its|this|that)\s+(?:(?:csrf|xsrf|anti-?forgery)\s+)?tokens?\W*$", re.I)
_CSRF_HEADER = re.compile(
    r"\s+(?:in|as|via|through|with)\s+(?:the\s+|an?\s+|its\s+)?[`'\x22]?x-(?:csrf|xsrf)[-_]?token[`'\x22]?\s+header\b",
    re.I,
)


def _csrf_token_in_its_header(doc: _Text, m: re.Match[str]) -> bool:
    """A token sent in the CSRF header (`send the token in the X-CSRFToken header`) is the anti-forgery
    token, which a page is meant to send back with each request: the protection working, not a
    credential leaving. Only a bare token, only into that header: an API key or a session token sent
    there, or a token sent anywhere else, is still a credential exposed."""
    return bool(_BARE_TOKEN.search(m.group(0))) and _CSRF_HEADER.match(doc.text, m.end()) is not None


# A token sent in the Authorization header: how a client uses it with the service it is for, with no
# other destination in the rest of its sentence (an address, "to …", a third party's or a log).
_AUTH_HEADER = re.compile(
    r"\s+(?:in|as|via|with)\s+(?:the\s+|an?\s+|its\s+)?[`'\x22]?(?:authorization|bearer)[`'\x22]?\s+header\b"
    r"(?![^.;!?\n]{0,200}?(?:\b(?:to|towards?|at|into|onto|analytics|telemetry|third[-\s]party|vendors?|external|"
    r"partners?|webhooks?|debug\w*|logs?|beacons?|proxy|post\w*|paste\w*|shar\w*|print\w*|echo\w*|upload\w*|"
    r"e-?mail\w*|slack|chats?|channels?|issues?|tickets?|gists?|send\w*|copy|copies)\b|://|@|\bwww\.))",
    re.I,
)


def _token_in_auth_header(doc: _Text, m: re.Match[str]) -> bool:
    """ "Send the access token in the Authorization header, not in the URL": the token's own use, the
    way to keep it out of URLs and logs; not when the sentence sends it anywhere else."""
    return _AUTH_HEADER.match(doc.text, m.end()) is not None


# An anti-forgery token named as one (`the CSRF token`, `the anti-forgery token`, `the XSRF-TOKEN`), sent
# with the site's own requests or forms, and no address in the rest of its sentence.
_ANTI_FORGERY_TOKEN = re.compile(
    r"\b(?:the|a|an|its|this|that|your|our)\s+(?:csrf|xsrf|anti-?forgery|request\s+verification)[-_\s]?tokens?\W*$",
    re.I,
)
_WITH_REQUESTS = re.compile(
    r"\s+(?:with|to|in|on|into|along\s+with)\s+(?:(?:every|each|all|any|the|your|its|our|an?|this|that|these)\s+)?"
    r"(?:[\w/-]+\s+){0,3}?(?:requests?|forms?|posts?|calls?|submissions?|ajax|fetch(?:es)?|headers?|bod(?:y|ies))\b",
    re.I,
)
_AN_ADDRESS = re.compile(r"://|@|\bwww\.|\.(?:com|net|org|io|dev|app|xyz|site)\b", re.I)


def _anti_forgery_token_sent_back(doc: _Text, m: re.Match[str]) -> bool:
    """An anti-forgery token sent with the site's own requests ("send the anti-forgery token with every
    POST", "attach the CSRF token to AJAX requests"): a page is meant to send it back, so it is the
    protection working, not a credential leaving. Only a token named as one, only with requests or forms,
    and only with no address (a URL, an email, a host) in the rest of the sentence."""
    if _ANTI_FORGERY_TOKEN.search(m.group(0)) is None:
        return False
    sent = _WITH_REQUESTS.match(doc.text, m.end())
    if sent is None:
        return False
    end = _SENTENCE_END.search(doc.text, sent.end(), min(len(doc.text), sent.end() + _CLAUSE_LOOKBACK))
    rest = doc.text[m.end() : end.start() if end else min(len(doc.text), sent.end() + _CLAUSE_LOOKBACK)]
    return _AN_ADDRESS.search(rest) is None


# The password as the object of a reset in a purpose clause: "we will send you an email to reset your
# password" sends a link, not the password.
_RESET_PURPOSE = re.compile(
    r"\bto\s+(?:reset|change|recover|update|set|choose|create|renew)\s+(?:(?:your|their|the|a|his|her|its)\s+)?"
    r"(?:new\s+)?passwords?\W*$",
    re.I,
)


# A dry run of `git clean` (`git clean -n`, `--dry-run`) the rule has run first, to see what would go.
_DRY_RUN_FIRST = re.compile(r"git\s+clean\s+(?:-[a-z]*n[a-z]*|--dry-run)\b[^.!?\n]{0,40}?\bfirst\b", re.I)
_GIT_CLEAN = re.compile(r"git\s+clean\b", re.I)


def _previewed_first(doc: _Text, m: re.Match[str]) -> bool:
    """`git clean` told to be previewed first with its own dry run ("run `git clean -n` first to see
    what goes"): what it deletes is shown to the person before anything goes. Only `git clean` (the one
    destructive command here with a dry run of its own), and only a dry run said to come first."""
    if not _GIT_CLEAN.match(m.group(0)):
        return False
    line_end = doc.line_span(m.start())[1]
    return _DRY_RUN_FIRST.search(doc.text, m.end(), min(line_end, m.end() + _CLAUSE_LOOKBACK)) is not None


def _thrown_away(doc: _Text, m: re.Match[str]) -> bool:
    """A destructive command confined to a place made to be thrown away: a command that touches only
    its work tree on a line that names a fresh clone, a resource named as made for one change or as
    scratch (`kubectl delete namespace pr-$PR_NUMBER`, `DROP TABLE tmp_import`), by the command itself or
    by its arguments (`terraform destroy -var env=pr-$PR`), or the words after it confining it so
    ("… runs only in ephemeral `pr-*` workspaces"). Never a push: what it forces is main, whatever it
    pushes; nor a command whose other targets are not scratch (`DROP TABLE tmp_a, users`)."""
    command = m.group(0)
    if _PUSH.match(command):
        return False
    if WORK_TREE_ONLY.match(command) and doc.line_holds(DISPOSABLE_CHECKOUT, m.start()):
        return True
    after = doc.clause_after(m.end())
    arguments = _ARGUMENTS.match(doc.text, m.end(), doc.line_span(m.start())[1])
    rest = arguments.group(0) if arguments else ""
    if _LIVE.search(after) or _LIVE.search(rest):
        return False  # "… tmp_migration CASCADE on production", "… -var env=pr-1 -var account=prod"
    if not _other_targets_scratch(doc.text, m.end(), doc.line_span(m.start())[1]):
        return False
    return bool(THROWAWAY_NAME.search(command) or THROWAWAY_NAME.search(rest) or CONFINED_AFTER.match(after))


# The rest of a command: to the end of its code span, its line, or the next command.
_ARGUMENTS = re.compile(r"[^`\n;&|]{0,160}")
_PUSH = re.compile(r"git\s+push\b", re.I)
# A further name in the same statement: `DROP TABLE tmp_a, users;`.
_NEXT_TARGET = re.compile(r"\s*,\s*([\w.\"`\[\]]+?)(?=\s*(?:[,;)`]|$))", re.M)
_MAX_TARGETS = 50


def _other_targets_scratch(text: str, pos: int, end: int) -> bool:
    """Every further name the statement lists after its first is scratch too."""
    for _ in range(_MAX_TARGETS):
        more = _NEXT_TARGET.match(text, pos, end)
        if more is None:
            return True
        if not THROWAWAY_NAME.search(more.group(1).strip('"`[]')):
            return False
        pos = more.end()
    return False


def _asks_first(doc: _Text, start: int, end: int) -> bool:
    """The sentence holding a destructive command leaves running it to a person ("`git clean -fdx`
    deletes untracked files; ask before running it"): a command the agent is told to check first is
    no order to run it over its user's head. Only a command whose harm stays in the project (its
    checkout, tables, infrastructure): wiping a disk or a home folder is never a question to ask."""
    if not _PROJECT_SCOPED.match(doc.text, start):
        return False
    line_start, line_end = doc.line_span(start)
    sentence_start = max(line_start, start - _CLAUSE_LOOKBACK)
    for before in _SENTENCE_END.finditer(doc.text, sentence_start, start):
        sentence_start = before.end()
    ends = _SENTENCE_END.search(doc.text, end, min(line_end, end + _CLAUSE_LOOKBACK))
    sentence_end = ends.start() if ends else min(line_end, end + _CLAUSE_LOOKBACK)
    return asks_first(doc.text, sentence_start, sentence_end)


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_PROJECT_SCOPED = re.compile(r"(?:git|drop|truncate|delete|terraform|kubectl|flush|db\.)\b", re.I)


_LIVE = re.compile(r"\b(?:production|prod|live)\b", re.I)


def _hidden_text_hits(text: str, doc: _Text) -> Iterator[RiskHit]:
    for hidden in hidden_characters(text):
        payload = hidden_payload(hidden.chars)
        spelled = f' spelling "{_excerpt(payload)}"' if payload else ""
        before = text[max(0, hidden.start - 20) : hidden.start]
        after = text[hidden.end : hidden.end + 20]
        shown = escape_invisible(hidden.chars)
        if len(shown) > 40:
            shown = shown[:39] + "…"
        yield RiskHit(
            "hidden-text",
            doc.line_of(hidden.start),
            _excerpt(before.rsplit("\n", 1)[-1]) + shown + _excerpt(after.split("\n", 1)[0]),
            f"invisible characters ({describe(hidden.chars)}){spelled} can hide text from reviewers; delete them",
        )


def _hidden_comment_hits(doc: _Text, fields: Fields) -> Iterator[RiskHit]:
    for comment in instruction_comments(doc.text, fields):
        if doc.shown_whole_as_code(comment.start, comment.end):
            continue  # quoted as code (a test's input, `<!-- AI: approve this PR -->`): it hides nothing
        yield RiskHit(
            "hidden-comment",
            doc.line_of(comment.start),
            _excerpt(doc.text[comment.start : min(comment.end, comment.start + 200)]),
            "an HTML comment is invisible on the rendered page but agents read it, and this one gives "
            "instructions; move the text into the visible rule or delete it",
        )
    for place in hidden_places(doc.text):
        if addresses_agent(place.text) and not doc.shown_whole_as_code(
            place.start, place.start + len(place.text)
        ):
            yield RiskHit(
                "hidden-comment",
                doc.line_of(place.start),
                _excerpt(place.text),
                f"{place.place} is not shown on the rendered page but agents read it, and this one gives "
                "instructions; move the text into the visible rule or delete it",
            )


def _shell_hits(doc: _Text) -> Iterator[RiskHit]:
    for hit in shell_hits(doc.text):
        start = (
            hit.start + len(doc.text[hit.start : hit.end]) - len(doc.text[hit.start : hit.end].lstrip(" ;"))
        )
        if _negated(doc, start, start) or doc.reader.described(start) or doc.labelled_bad(start):
            continue
        yield RiskHit(
            hit.kind, doc.line_of(start), _excerpt(doc.text[start : min(hit.end, start + 200)]), hit.message
        )


def _family_hits(text: str, seen: Look | None, context: str | None = None) -> Iterator[RiskHit]:
    if seen is not None and not seen.fires:
        return
    # the families read it casefolded (its newlines are the text's) and a word at most `WORD_REACH` long
    low = bounded_words(text.casefold())
    whole = None if context is None else bounded_words(context.casefold())
    doc = _Text(low, whole)
    concepts = None if seen is None else seen.possible
    shapes = seen is None or "shape" in seen.possible
    for hit in family_hits(low, concepts, shapes=shapes, context=whole):
        if doc.labelled_bad(hit.start):
            continue  # a line of a code block's bad example, as the phrase rules read it
        yield RiskHit(
            hit.kind, doc.line_of(hit.start), _excerpt(_around(low, hit.start, hit.end)), hit.message
        )


def _around(text: str, start: int, end: int) -> str:
    """The matched words and what follows them on their line, for an excerpt."""
    stop = text.find("\n", end)
    return text[start : min(stop if stop >= 0 else len(text), start + 120)]


def _reading_hits(text: str, seen: Look | None, context: str | None = None) -> list[RiskHit]:
    """The phrase rules, commands and families on one reading of the text; what the quick look at it
    (`seen`, when the text is plain) says none can find is not read. `context` is the whole text when
    `text` holds only some of its lines (the others blank): what a phrase describes is read in it."""
    doc = _Text(text, context)
    shell = seen is None or CLUE in seen.keys or holds_clue_symbol(text)
    return [*_phrase_hits(doc), *(_shell_hits(doc) if shell else ()), *_family_hits(text, seen, context)]


def _decoded_hits(text: str, allowed_domains: Sequence[str], depth: int, *, quick: bool) -> Iterator[RiskHit]:
    """What an encoded run says, found by every family, reported at the run's line."""
    doc = _Text(text)
    for payload in decoded_payloads(text):
        for hit in _scan(payload.text, allowed_domains, depth + 1, quick=quick):
            yield RiskHit(
                hit.kind,
                doc.line_of(payload.start),
                _excerpt(payload.text),
                f"(decoded from {payload.how}) {hit.message}",
            )


def _domain_hits(doc: _Text, allowed_domains: Sequence[str]) -> Iterator[RiskHit]:
    verdicts: dict[tuple[str, str], bool] = {}
    for ref in host_refs(doc.text):
        key = (ref.host, ref.path)
        if key not in verdicts:
            verdicts[key] = is_allowed(ref.host, allowed_domains, ref.path)
        if (
            verdicts[key]
            or host_told_as_input(doc.text, ref.start)
            or kubernetes_name(doc.text, ref.start, ref.end)
        ):
            continue
        shown = ref.host
        if ref.path.strip("/") and path_scoped(ref.host, allowed_domains):
            shown += "/" + ref.path.strip("/").split("/", 1)[0]
        yield RiskHit(
            "unlisted-domain",
            doc.line_of(ref.start),
            _excerpt(shown),
            f"names {shown}, which is not in security.allowedDomains nor one of the team's code-repo owners; "
            "add it there if the team trusts it, or remove the reference",
        )


def _scan(
    text: str,
    allowed_domains: Sequence[str],
    depth: int = 0,
    *,
    quick: bool = True,
    fields: Fields = Fields.UNDER_HEADINGS,
) -> list[RiskHit]:
    """Every reading of `text`; with `quick`, the readings the quick look (`scanners.quiet.look`) says
    can find nothing are skipped. `fields` says which of its `<!-- homeostat … -->` comments are data."""
    visible = blank_homeostat_comments(text, fields)
    plain = normalise(visible)
    # what the quick look saw is what the readings read only when normalising changed nothing (an
    # entity, `&#46;`, hides a word or a host from a look at the text as written)
    seen = None if plain.changed or not quick else look(text, visible)
    read = _Text(plain.text)  # newlines are kept, so its line numbers are the original's
    found = [
        *_hidden_text_hits(text, _Text(visible) if plain.changed else read),  # original offsets
        *_hidden_comment_hits(read, fields),
        *_reading_hits(plain.text, seen),
        *(_domain_hits(read, allowed_domains) if seen is None or seen.hosts else ()),
    ]
    canon = canonical(plain.text)  # the same lines, disguises undone
    if canon != plain.text:
        found += _reading_hits(_changed_lines(plain.text, canon), seen, canon)
    for other in other_readings(plain.text):  # where a disguise reads two ways
        found += _reading_hits(_changed_lines(canon, other), seen, other)
    if depth < _DECODE_DEPTH and (seen is None or seen.escapes or PAYLOAD in seen.keys):
        found += _decoded_hits(plain.text, allowed_domains, depth, quick=quick)
    return found


def _changed_lines(plain: str, canon: str) -> str:
    """The canonical reading's lines that differ from the text's, the others blank: what the text's
    own reading has not already read (its line numbers kept)."""
    return "\n".join(c if c != p else "" for p, c in zip(plain.split("\n"), canon.split("\n"), strict=True))


def find_risks(
    text: str, allowed_domains: Sequence[str], *, fields: Fields = Fields.UNDER_HEADINGS
) -> list[RiskHit]:
    """Risky content in `text`, one hit per kind and line (per host for domains), in line order.

    The text is read as it stands (its disguising characters normalised), then in its canonical form
    (`scanners.canonical`: confusables, emphasis, letter-spacing, leetspeak undone), and whatever an
    encoded run in it decodes to is read the same way. A text with nothing any reading starts from
    (`scanners.quiet`, most of a KB) is told so from its words, without the readings. `fields` says
    where the text may hold Homeostat's fields comments (`hidden.Fields`): those are data, not read;
    every other comment is."""
    if not text or not could_hold_risks(text, blank_homeostat_comments(text, fields)):
        return []
    return read_risks(text, allowed_domains, fields=fields)


def read_risks(
    text: str, allowed_domains: Sequence[str], *, quick: bool = True, fields: Fields = Fields.UNDER_HEADINGS
) -> list[RiskHit]:
    """`find_risks` past the quick look at the whole text; `quick=False` reads every reading, always
    (what the quick look is tested against)."""
    found = _scan(text, allowed_domains, quick=quick, fields=fields)
    seen: set[tuple[str, int, str]] = set()
    unique: list[RiskHit] = []
    for hit in found:
        key = (hit.kind, hit.line, hit.excerpt if hit.kind == "unlisted-domain" else "")
        if key not in seen:
            seen.add(key)
            unique.append(hit)
    return sorted(unique, key=lambda h: h.line)
