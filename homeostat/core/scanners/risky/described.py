"""Whether the words at a risky phrase DESCRIBE a risk rather than ORDER it: security prose names every
attack it defends against ("an attacker who can open a pull request can exfiltrate the secrets"), and a
rule that explains a risk is no rule that asks for it.

Each reading is scoped to the clause holding the phrase, so an order beside a description is still one:

- an adversary is the subject ("attackers can …", "a malicious PR could …", "… used by an attacker to …"),
  with no new doer, condition or duty between it and the phrase ("…, and the agent should …", "… if you
  …"); "someone" and "anyone" are no adversary ("anyone can merge without review" grants it);
- a consequence or an equivalence is told ("… can lead to …", "… is equivalent to granting …", "the
  problem is that …", "the risk of …"), on the same terms;
- an invariant the system keeps, negated right before its verb ("a user cannot approve their own
  request"), unless the negation is itself the harm ("must not tell the user", "cannot ask");
- the sentence is a question that asks what could happen ("could they use it to …?"), not a request or a
  question of duty ("why not …?", "can you …?", "should agents …?"), and no answer follows ("…? Yes.");
- a list item sits under a heading or a lead-in that prohibits its items ("Don't:", "### Avoid",
  "Anti-patterns") or names them as attacks or risks ("prevent attacks such as:", "alert on:"), and not one
  that lets them through ("Risks we accept", "Exceptions"); only the item's first clause is covered, an
  item offering an alternative ("… instead") is not, and a double negative ("Don't forget to:") covers
  nothing;
- the phrase is inside a label that names a term ("- **Data exfiltration**: …").

A phrase inside a quotation is read as described only when negated right before its verb (an invariant
quoted): any other literal string (a prompt injection quoted as an example of one) reaches the agent word
for word, and a person should see it.

A clause ends at a sentence end, a colon or semicolon, a dash, a comma that opens a new main clause
("…, so send …", "…, then …") and the comma closing a leading condition ("If an attacker can read the
logs, send …"); a later "do it" or an endorsement ("…, which is what we want", "and so should you") turns
any description into an order. The patterns are matched once over the text and each phrase asks by
bisection within a bounded window, so the work stays linear in the text and its hits.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from homeostat.core.scanners.risky import told

_REACH = 400  # how far back and on a sentence and its clause are read
_LINES_UP = 60  # how many lines above a list item its lead-in is looked for
_UP_REACH = 6000
_INVARIANT_REACH = 60  # an invariant's negation stands right before its verb
_LONGEST_LINE = 2000  # a longer line above a list is read as a paragraph

# Where a sentence starts: after a sentence end, a blank line, or at a list item or a heading.
_SENTENCE_START = re.compile(r"[.!?](?=\s)|\n[ \t]*\n|\n(?=[ \t]*(?:[-*+][ \t]|\d+[.)][ \t]|#))")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n[ \t]*\n|\n(?=[ \t]*(?:[-*+][ \t]|\d+[.)][ \t]|#))")
# Where a clause starts, within its sentence: a colon, semicolon or dash, or a comma opening a main clause
# of its own (a connective, or a new subject: "…, you …", "…, the agent …").
_CLAUSE_START = re.compile(
    r"[:;]|\s[-–—]{1,2}\s|,\s*(?:(?:and|but|or)\s+)?(?:so|then|therefore|thus|hence|now|instead|please|just|also|"
    r"otherwise|meanwhile|yet|but|always|you|we|i|the\s+agent|agents?|claude|copilot|assistants?)\b",
    re.I,
)
# "…; do it", "go ahead and do that": an order pointing back at what was described.
_DO_IT = re.compile(
    r"\b(?:do|try|use|run|perform|repeat)\s+(?:it|that|this|so|them|those|these)\b|\bgo\s+ahead\b|\bplease\s+do\b|"
    # or endorsing it: "…, which is what we want", "… — and so should you", "do the same"
    r"\b(?:which|that|this|and\s+that)\s+(?:is|'s|was)\s+(?:just\s+)?(?:what|how(?!\s+(?:the|an?|our|their|its|his|her)\s)|fine|ok|okay|expected|intended|desired|"
    r"good|correct|required|allowed|the\s+point|the\s+plan)\b|\bwhat\s+(?:you|we|agents?|the\s+agent)\s+"
    r"(?:should|must|will|do|does|want)\b|\bso\s+(?:should|must|can|will|do|does)\s+(?:you|we|agents?|the\s+agent)\b|"
    r"\bdo\s+the\s+same\b|\blikewise\b|\b(?:you|we)\s+(?:should|must|can|may)\s+too\b",
    re.I,
)
_DO_IT_REACH = 200
_NEGATED_RIGHT_BEFORE = re.compile(r"\b(?:don['’]?t|do\s+not|never|please\s+don['’]?t)\s+(?:ever\s+)?$", re.I)

_ADVERSARY = (
    r"(?:attackers?|adversar(?:y|ies)|malware|hackers?|intruders?|(?:threat|bad|malicious)\s+actors?|"
    r"attacks?|exploits?|vulnerabilit(?:y|ies)|(?:malicious|compromised|rogue|hostile|poisoned)\s+[\w-]+)"
)
# The adversary as the subject of what it can do, a few words before its verb.
_ADVERSARY_CAN = re.compile(
    r"\b"
    + _ADVERSARY
    + r"(?:\s+(?:or\s+)?[\w'’()-]+){0,6}?\s+(?:(?:can|could|may|might|will|would)(?!['’]t|not|\s+not)|"
    r"(?:is|are|was|were)\s+(?:able|likely)\s+to|tr(?:y|ies|ied)\s+to|attempts?\s+to|attempted\s+to|"
    r"manages?\s+to|managed\s+to|(?:is|are)\s+(?:then\s+)?free\s+to)\b|"
    r"\bwho\s+(?:has\s+|have\s+|had\s+)?(?:tried|tries|attempted|attempts)\s+to\b|"
    r"\b(?:used|abused|leveraged|exploited|misused)\s+by\s+(?:an?\s+|the\s+)?" + _ADVERSARY + r"\s+to\b|"
    r"\b(?:enables?|allows?|lets?|helps?)\s+(?:an?\s+|the\s+)?" + _ADVERSARY + r"\b",
    re.I,
)
# A consequence, an equivalence, a problem stated.
_CONSEQUENCE = re.compile(
    r"\b(?:can|could|may|might|would|will)\s+(?:\w+\s+)?(?:lead\s+to|result\s+in)\b|"
    r"\b(?:leads?|led)\s+to\b|\bresults?\s+in\b|"
    r"\b(?:is|are|was|were|be)\s+(?:\w+\s+)?(?:equivalent|tantamount|equal|akin)\s+to\b|\bamounts?\s+to\b|"
    r"\b(?:problem|risk|issue|danger|weakness|flaw|vulnerability|threat)\s+(?:here\s+)?(?:is|was)\s+that\b|"
    r"\b(?:risks?|dangers?|hazards?)\s+(?:of|posed\s+by)\b",
    re.I,
)
# Between a description and the phrase, what makes the phrase an order again: the reader as a new doer
# (you, we), a condition, a duty ("…, and the agent should …"). The agent named as the one an adversary
# steers ("may tell the agent to ignore …") is still the description.
_NEW_ORDER = re.compile(
    r"\b(?:you|we|i|if|when|whenever|unless|until|so|because|then|should|must|shall|need\s+to|have\s+to|"
    r"always|please)\b",
    re.I,
)
# An invariant the system keeps, its negation right before the verb: "a user cannot approve their own request".
_INVARIANT = re.compile(
    r"\b(?:cannot|can'?t|can\s+not|must\s+not|mustn'?t|may\s+not|(?:is|are)\s+not\s+(?:allowed|permitted|able)\s+to|"
    r"(?:should|must)\s+never\s+be\s+able\s+to)\s+(?:ever\s+|even\s+)?$",
    re.I,
)
# An exception after an invariant's verb makes it a permission: "agents cannot ignore previous
# instructions unless the ticket says so".
_EXCEPTED = re.compile(
    r"\b(?:unless|except|excepting|other\s+than|save\s+(?:for|when)|but\s+(?:may|can|should|must|will)|"
    r"only\s+(?:if|when|while|after|once))\b",
    re.I,
)
# The verbs whose negation is itself the harm: "must not tell the user", "cannot ask first", "must not check".
_HARM_IS_NOT_DOING = re.compile(
    r"(?:tell|inform|notify|mention|report|show|reveal|disclose|ask|confirm|wait|warn|alert|say|check|verify|"
    r"review|validate|log|audit|flag|escalate|let\s+(?:the\s+)?(?:user|human|person|team|reviewer))\b",
    re.I,
)
# A sentence that opens with a condition or a reason: its first comma ends that clause ("If an attacker can
# read the logs, rotate …" orders the rotation).
_SUBORDINATE = re.compile(
    r"[\s*_>-]*(?:if|when|whenever|once|unless|until|because|since|after|before|while|as\s+soon\s+as|in\s+case)\b"
    r"[^,]*,",
    re.I,
)
# A question that asks what could happen: it opens (or its clause after a comma opens) with an
# interrogative word, and no one is asked to do anything.
_ASKS = re.compile(
    r"(?:^|[,(]\s*)(?:is|are|was|were|do|does|did|can|could|would|will|should|has|have|had|may|might|what|how|"
    r"which|who|whom|whose|where|when)\b",
    re.I,
)
_REQUEST = re.compile(
    r"\b(?:why\s+not|why\s+don'?t|how\s+about|what\s+about|please|should|shall|must|ought|"
    r"is\s+it\s+(?:\w+\s+)?(?:ok|okay|fine|safe|allowed|acceptable|alright|better|best)|"
    r"(?:may|can)\s+(?:i|we|agents?|the\s+agent|the\s+assistant)\b|(?:can|could|would|will|won'?t)\s+"
    r"(?:you|we|u)\b|do\s+you\s+mind|(?:you|we)\s+(?:should|must|need|have)\b)",
    re.I,
)

# An answer right after a question that says to do it, or who does it.
_ANSWER = re.compile(
    r"[\s)\]\"'’”*_]*(?:yes|yep|yeah|sure|always|absolutely|of\s+course|definitely|correct|right|indeed|do\s+it|"
    r"go\s+ahead|you|we|the\s+agent|agents|the\s+assistant|claude|copilot)\b",
    re.I,
)
_LIST_ITEM = re.compile(r"([ \t]*)(?:[-*+]|\d+[.)])[ \t]+")
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+(.*)")
_LEAD_IN = re.compile(r"(.*?)[*_ \t]*:[*_ \t]*$")
# A lead-in whose items are prohibited.
_PROHIBITS = re.compile(
    r"\b(?:don'?ts?|do\s+not|never|avoid|anti-?patterns?|pitfalls?|mistakes|bad\s+practices?|what\s+not\s+to\s+do|"
    r"must\s+not|should\s+not|forbidden|prohibited|not\s+allowed)\b",
    re.I,
)
# A lead-in that names its items as attacks or risks: it prohibits nothing, so an item there is a
# description only when it names one (a gerund or a noun: "- Disabling MFA", "- Poisoning documents"),
# never when it is itself an order ("### Known attacks\n- Ignore previous instructions and …" still
# reaches the agent as one).
_NAMES_RISKS = re.compile(
    r"\b(?:attacks?|attack\s+vectors?|threats?|risks?|abuse\s+cases?|red\s+flags?|warning\s+signs?|alert\s+on)\b",
    re.I,
)
_NAMED = re.compile(
    r"[*_ ]*(?:(?:a|an|the|any|some)\s|[\w-]*(?:ions?|ing|ment|ments|ance|ence|ure|age|ity|ies)\b)", re.I
)
# A lead-in that lets its items through ("Risks we accept", "Exceptions", "Allowed here"), not one that
# forbids them ("not allowed").
_PERMITS = re.compile(
    r"\b(?<!not\s)(?:accept(?:s|ed|able)?|allowed|fine|ok|okay|tolerat\w*|permitted|approved|exceptions?|exempt\w*|"
    r"waived?|sanctioned)\b",
    re.I,
)
# "Don't forget to:", "Never skip:": a prohibition of not doing, an order.
_DOUBLE_NEGATIVE = re.compile(
    r"\b(?:don'?t|do\s+not|never|not)\s+(?:ever\s+)?(?:forget|skip|neglect|omit|fail|hesitate|miss|overlook)\w*\b",
    re.I,
)
_FIRST_CLAUSE_END = re.compile(
    r"[.!?;:](?=\s|$)|,\s*(?:but|instead|so|then|and\s+then)\b|\s[-–—]{1,2}\s", re.I
)
# An item that undoes its lead-in's prohibition: "- Forgetting to …", "- Failing to …" (not doing it is
# what is prohibited, so doing it is asked).
_ITEM_DOUBLE_NEGATIVE = re.compile(
    r"(?:forget|skip|neglect|omit|fail|hesitate|miss|overlook)\w*\s+to\b", re.I
)
_INSTEAD = re.compile(r"\b(?:instead|rather)\b", re.I)
_BOLD_LABEL = re.compile(r"(\*\*|__)([^*_\n]{1,80}?)\1[ \t]*[:.]")
# The same label with its emphasis undone (the canonical reading): a few words and a colon open the item.
_PLAIN_LABEL = re.compile(r"()((?:[\w/&-]+[ \t]+){0,4}[\w/&-]+)[ \t]*:")
_NOMINAL = re.compile(r"[\w-]*(?:ions?|ing|ment|ments|ance|ence|ure|age|ity|ies)\b", re.I)


class Reader:
    """One text's readings, the lead-ins of its list items found once each (a text of thousands of
    hits on one list reads its lines once).

    `context`, when given, is the whole text a reading of only some of its lines was taken from (the
    canonical reading keeps the lines a disguise changed and blanks the rest, line for line): a phrase
    on such a line is read with the lines around it, at the same line and column."""

    def __init__(self, text: str, context: str | None = None) -> None:
        self.text = text if context is None else context
        self._read = text
        self._lead_ins: dict[int, str | None] = {}
        self._starts: tuple[list[int], list[int]] | None = None
        self._lines: list[int] | None = None
        self._found: dict[re.Pattern[str], tuple[list[int], list[int]]] = {}

    def _in_context(self, pos: int) -> int:
        if self._read is self.text:
            return pos
        if self._starts is None:
            self._starts = (_line_starts(self._read), _line_starts(self.text))
        read, context = self._starts
        line = bisect_right(read, pos) - 1
        if line >= len(context):
            return min(pos, len(self.text))
        end = context[line + 1] - 1 if line + 1 < len(context) else len(self.text)
        return min(context[line] + pos - read[line], end)

    def described(self, start: int) -> bool:
        """The phrase at `start` is described, not ordered (see the module's docstring)."""
        start = self._in_context(start)
        if self._ordered_after(start):
            return False
        clause, sentence_end = self._clause(start)
        if (
            _INVARIANT.search(clause[-_INVARIANT_REACH:])
            and _HARM_IS_NOT_DOING.match(self.text, start) is None
            and _EXCEPTED.search(self.text, start, sentence_end) is None
        ):
            return True  # negated right before its verb, inside a quotation or not
        if self._quoted(start):
            return False
        begin = start - len(clause)
        if self._tells_what_is_done(_ADVERSARY_CAN, begin, start) or self._tells_what_is_done(
            _CONSEQUENCE, begin, start
        ):
            return True
        if self._asked(start, clause, sentence_end):
            return True
        return self._in_a_prohibited_item(start) or self._in_a_label(start) or self._told_about(start)

    def _told_about(self, start: int) -> bool:
        """A command or setting told about (`told`): its harm or its ban stated after it, an incident
        told, a mention refused, a banned table row; never with an order pointing back at it."""
        clause = told.clause_before(self.text, start)
        return (
            told.told_of_its_subject(self.text, start, clause)
            or told.told_as_done(self.text, start, clause)
            or told.in_a_banned_row(self.text, start)
            or told.told_as_a_result(clause)
            or told.told_as_past_account(self.text, start, clause)
            or told.refused_by_a_bare_not(self.text, start, clause)
            or told.told_as_a_capability(self.text, start, clause)
        ) and not told.ordered_back(self.text, start)

    def _matches(self, pattern: re.Pattern[str]) -> tuple[list[int], list[int]]:
        """Where `pattern` matches in the whole text (starts, ends; both ascending), found once: each hit
        then asks by bisection, so thousands of hits do not each search the text around them."""
        found = self._found.get(pattern)
        if found is None:
            spans = [m.span() for m in pattern.finditer(self.text)]
            found = self._found[pattern] = ([a for a, _ in spans], [b for _, b in spans])
        return found

    def _within(self, pattern: re.Pattern[str], low: int, high: int) -> bool:
        """Some match of `pattern` lies within `low:high`."""
        return self._first_end(pattern, low, high) is not None

    def _first_end(self, pattern: re.Pattern[str], low: int, high: int) -> int | None:
        """The end of the first match of `pattern` within `low:high`, if there is one."""
        starts, ends = self._matches(pattern)
        i = bisect_left(starts, low)
        return ends[i] if i < len(starts) and ends[i] <= high else None

    def _tells_what_is_done(self, pattern: re.Pattern[str], begin: int, start: int) -> bool:
        """A match of `pattern` (an adversary's doing, a consequence) in the clause, and between it and the
        phrase no new doer, condition or duty ("attackers will never notice if you disable …", "…, and
        the agent should …"): what it tells is what the phrase names."""
        end = self._first_end(pattern, begin, start)
        return end is not None and _NEW_ORDER.search(self.text, end, start) is None

    def _last_end(self, pattern: re.Pattern[str], low: int, high: int) -> int:
        """The end of the last match of `pattern` within `low:high`, or `low`."""
        starts, ends = self._matches(pattern)
        i = bisect_right(ends, high) - 1
        return ends[i] if i >= 0 and starts[i] >= low else low

    def _ordered_after(self, start: int) -> bool:
        """An order pointing back (`_DO_IT`) after `start`, not one negated right before it ("don't do
        it"; "never forget to do it" still orders)."""
        starts, ends = self._matches(_DO_IT)
        i = bisect_left(starts, start)
        while i < len(starts) and ends[i] <= start + _DO_IT_REACH:
            if _NEGATED_RIGHT_BEFORE.search(self.text, max(start, starts[i] - 16), starts[i]) is None:
                return True
            i += 1
        return False

    def _quoted(self, start: int) -> bool:
        """Inside a quotation opened earlier on its line: a literal string (a prompt injection quoted as an
        attack) is served to agents word for word whatever the sentence around it says."""
        line = self._line(start)[0]
        before = self.text[max(line, start - _REACH) : start]
        return before.count('"') % 2 == 1 or before.count("\u201c") > before.count("\u201d")

    def _sentence_start(self, pos: int) -> int:
        return self._last_end(_SENTENCE_START, max(0, pos - _REACH), pos)

    def _sentence_end(self, pos: int) -> int:
        end = min(len(self.text), pos + _REACH)
        m = _SENTENCE_END.search(self.text, pos, end)
        return m.end() if m else end

    def _clause(self, start: int) -> tuple[str, int]:
        """The clause up to `start` (from its last clause start in the sentence), and the sentence's end."""
        begin = self._sentence_start(start)
        condition = _SUBORDINATE.match(self.text, begin, start)
        if condition is not None:
            begin = condition.end()
        begin = self._last_end(_CLAUSE_START, begin, start)
        return self.text[begin:start], self._sentence_end(start)

    def _asked(self, start: int, clause: str, sentence_end: int) -> bool:
        if _ANSWER.match(self.text, sentence_end, min(len(self.text), sentence_end + _REACH)):
            return False  # "…? Yes, always.": the question was asked to be answered with an order
        if not self.text[start:sentence_end].rstrip(" \t\n)]}*_\"'’”").endswith("?"):
            return False
        sentence = self.text[self._sentence_start(start) : sentence_end]
        if _REQUEST.search(sentence):
            return False
        return (
            _ASKS.search(sentence.lstrip(" \t\n-*+>")) is not None
            and ":" not in self.text[start:sentence_end]
        )

    # --- list items --------------------------------------------------------------------------------

    def _line(self, pos: int) -> tuple[int, int]:
        """The line holding `pos`, from the line starts found once (a `rfind` back to the start of a long
        line for each of thousands of hits on it would be quadratic)."""
        if self._lines is None:
            self._lines = _line_starts(self.text)
        line = bisect_right(self._lines, pos) - 1
        end = self._lines[line + 1] - 1 if line + 1 < len(self._lines) else len(self.text)
        return self._lines[line], end

    def _item(self, pos: int) -> tuple[int, int] | None:
        """The start of the list item holding `pos` and the end of its marker, if `pos` is in one's
        first line."""
        begin, _ = self._line(pos)
        m = _LIST_ITEM.match(self.text, begin)
        if m is None or m.end() > pos:
            return None
        return begin, m.end()

    def _in_a_prohibited_item(self, start: int) -> bool:
        item = self._item(start)
        if item is None:
            return False
        lead = self._lead_in(item[0])
        if lead is None or _DOUBLE_NEGATIVE.search(lead) or _PERMITS.search(lead):
            return False
        if not _PROHIBITS.search(lead) and not (
            _NAMES_RISKS.search(lead) and _NAMED.match(self.text, item[1]) is not None
        ):
            return False
        first = self.text[item[1] : start]
        if _INSTEAD.search(self.text, start, self._line(start)[1]):
            return False  # an alternative offered: "- Slow installs (disable the check instead)"
        return (
            _FIRST_CLAUSE_END.search(first) is None
            and _CLAUSE_START.search(first) is None
            and not _ITEM_DOUBLE_NEGATIVE.match(first.lstrip("*_ "))
        )

    def _lead_in(self, item_start: int) -> str | None:
        found = self._lead_ins.get(item_start, "")
        if found != "":
            return found
        found = self._lead_ins[item_start] = self._find_lead_in(item_start)
        return found

    def _find_lead_in(self, item_start: int) -> str | None:
        """The heading or the line ending in a colon the list holding the item hangs from: its lines above
        are items, their continuation lines and blank lines only; a parent item ending in a colon
        ("- Alert on:") leads its nested items."""
        marker = _LIST_ITEM.match(self.text, item_start)
        indent = len(marker.group(1)) if marker else 0
        end = item_start - 1
        floor = max(0, item_start - _UP_REACH)
        for _ in range(_LINES_UP):
            if end < floor:
                return None
            begin = self._line(end)[0]
            if end - begin > _LONGEST_LINE:
                return None  # a paragraph, not an item nor a lead-in (and not sliced whole for each item)
            line = self.text[begin:end]
            end = begin - 1
            if not line.strip():
                continue
            item = _LIST_ITEM.match(line)
            if item is not None:
                if len(item.group(1)) >= indent:
                    continue
                lead = _LEAD_IN.match(line)
                return lead.group(1) if lead else None
            if len(line) - len(line.lstrip(" \t")) > indent:
                continue  # an item's continuation line
            heading = _HEADING.match(line)
            if heading is not None:
                return heading.group(1)
            lead = _LEAD_IN.match(line)
            return lead.group(1) if lead else None
        return None

    def _in_a_label(self, start: int) -> bool:
        """Inside a bold label that opens its line or item and names a term ("**Data exfiltration**:")."""
        item = self._item(start)
        begin = item[1] if item else self._line(start)[0]
        label = _BOLD_LABEL.match(self.text, begin) or (
            _PLAIN_LABEL.match(self.text, begin) if item else None
        )
        return (
            label is not None
            and label.start(2) <= start < label.end(2)
            and _NOMINAL.match(self.text, start) is not None
        )


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in re.finditer("\n", text))]


def described(text: str, start: int) -> bool:
    """`Reader(text).described(start)`, for a single question."""
    return Reader(text).described(start)
