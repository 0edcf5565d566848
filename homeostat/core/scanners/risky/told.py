"""Whether the words at a risky phrase TELL about a command or a setting rather than order it: the
readings `described.Reader` adds to its own, each scoped to the phrase's clause and sentence.

- the thing is the subject of its clause, and the rest of the clause states its harm ("`git reset --hard
  origin/main` throws away local work", "`yaml.load` without a loader can construct arbitrary objects",
  "… are the same hazard") or keeps it out ("… is never the fix", "… is never run from a laptop", "… is
  not allowed on the unit job");
- an incident told: the thing as the object of a past-tense verb with its doer before it ("the nightly
  image ran `curl … | sh`", "ein Skript hat `rm -rf …` ausgeführt", "une tâche lançait `git clean`"), or
  as the subject of one ("`kubectl delete ns payments` was run against prod"), in a text that says
  something went wrong (an incident, a mistake, a loss, "please don't");
- a mention the next words refuse, pointing back at it ("…; don't use it to get past a hook", "… again.
  please don't");
- a table row whose status cell after the thing bans it ("| `curl … \\| sh` | banned |").

None holds when an order points back at the thing (`ORDERED_BACK`: "…; set it anyway", "run it from
CI"), nor past a new doer or a duty between the doer's verb and the thing ("the incident showed why you
should …"). Each reads a bounded window around its phrase, so the work stays linear in the text.
"""

from __future__ import annotations

import re

from homeostat.core.scanners.hidden import mask_code_spans

_REACH = 300  # how far a clause's rest, an incident's words and an order pointing back are looked for
_I = re.IGNORECASE

# Nothing in the clause before the thing but code spans joined by "and", "or", a slash or a plus, an
# article, or a gerund's phrase that the thing completes ("Disabling certificate checks with `…`").
_SUBJECT_LEAD = re.compile(
    r"[\s>*_(\"'“«-]*(?:(?:the|a|an|any|every|each|some)\s+)?"
    r"(?:`[^`\n]*`\s*(?:,|\band\b|\bor\b|/|\+)\s*)*"
    r"(?:[a-z]+ing\s+(?:[\w-]+\s+){0,4}(?:with|via|through|using|by)\s+)?(?:`[^`\n]*)?",
    _I,
)
# What follows the thing (code spans masked), up to the verb that tells about it: a few words, none
# ending the clause.
_UP_TO_VERB = r"^[^.!?;:。；]{0,80}?"
_HARM = re.compile(
    _UP_TO_VERB + r"\b(?:throws?\s+away|discards?|destroys?|wipes?\s+out|erases?|leaks?|"
    r"turns?\s+(?:\w+\s+){0,4}?into\s+(?:plain\s*text|clear\s*text|world-readable|public)|"
    r"(?:can|could|may|will)\s+(?:\w+\s+)?(?:construct|execute|run|call|instantiate)\s+arbitrary|"
    r"runs?\s+(?:arbitrary|whatever|anything)|"
    r"(?:is|are)\s+(?:the\s+same|an?)\s+(?:\w+\s+)?(?:hazard|risk|vulnerability|footgun))\b",
    _I,
)
_KEPT_OUT = re.compile(
    _UP_TO_VERB
    + r"\b(?:is|are)\s+(?:never|not)\s+(?:the\s+)?(?:fix|answer|solution|way\s+to)\b|"
    + _UP_TO_VERB
    + r"\b(?:is|are)\s+never\s+(?:run|used|executed|called|typed|done|allowed|acceptable|ok|okay)\b|"
    + _UP_TO_VERB
    # (not "is not allowed to be removed", which keeps it)
    + r"\b(?:is|are)\s+(?:not\s+allowed|not\s+permitted|forbidden|prohibited|banned)\b(?!\s+to\b)",
    _I,
)
# A past tense of doing, with its doer before it: "the nightly image ran", "someone pasted", "a PR added",
# "une tâche lançait", "ejecutó"; not "you" (a reader told what they did is being steered), and not an
# article or a modal (a participle used as an adjective: "the signed `…`").
_DONE = (
    r"(?:ran|executed|pasted|added|typed|issued|committed|pushed|introduced|shipped|merged|invoked|launched|"
    r"triggered|installed|piped|wrote|sent|posted|uploaded|printed|logged|leaked|dumped|copied|"
    r"lançait|lançaient|exécutait|a\s+lancé|a\s+exécuté|ont\s+lancé|ejecutó|lanzó|executou|rodou|"
    r"uruchomił\w*|wykonał\w*|запустил\w*|выполнил\w*)"
)
_DONE_BEFORE = re.compile(
    r"\b(?!(?:you|to|please|and|then|or|must|should|will|would|can|could|may|might|shall|be|been|being|the|a|"
    r"an|this|that|these|those|its|their|our|your|my|always|never|just|also|now|first|once)\b)[\w'’-]+\s+"
    r"(?:once\s+|accidentally\s+|mistakenly\s+|wrongly\s+|just\s+|again\s+)?"
    + _DONE
    + r"\s+(?:[`'\"«“]?[\w'’:-]+\s+){0,3}?(?:[`'\"«“]?|`[^`\n]*)$",
    _I,
)
# The German perfect: "ein Skript hat `…` … ausgeführt".
_AUXILIARY_BEFORE = re.compile(r"\b(?:hat|haben|hatte|hatten)\s+(?:[\w-]+\s+){0,2}?[`'\"„]?$", _I)
_PARTICIPLE = re.compile(r"\b\w*ge\w+(?:t|en)\b|\b\w+iert\b", _I)
# The thing as the subject of a past tense: "… was run against prod", "… shipped to production".
_DONE_AFTER = re.compile(
    _UP_TO_VERB + r"\b(?:(?:was|were|got|had\s+been|has\s+been|have\s+been)\s+(?:\w+ly\s+)?"
    r"(?:run|executed|added|merged|pushed|committed|shipped|typed|pasted|used|set|enabled|introduced|"
    r"deployed|applied|left)|shipped|leaked|broke|wiped|erased|deleted|exposed)\b",
    _I,
)
# Words that say something went wrong, near an account of what was done.
_WENT_WRONG = re.compile(
    r"\b(?:incidents?|postmortem|post-mortem|outage|root\s+cause|timeline|by\s+mistake|accidentally|mistakenly|"
    r"wrong|instead\s+of|broke|deleted|erased|wiped|lost|leaked|exposed|compromised|hijacked|tampered|stolen|"
    r"breach|vorfall\w*|versehentlich|falsch\w*|gelöscht|incident\w*|supprimé\w*|"
    r"mauvais\w*|par\s+erreur|incidente|por\s+error|borró|apagou|инцидент\w*|удалил\w*|incydent\w*|usunął)\b|"
    r"事故|误删|誤刪|インシデント",
    _I,
)
# A refusal pointing back at what was mentioned: "…; don't use it to get past a hook", "… please don't."
# (not "don't use it on Windows", which leaves it for elsewhere, nor "… unless …").
_REFUSED_BACK = re.compile(
    r"\b(?:don['’]?t|do\s+not|never)\s+(?:ever\s+)?(?:use|run|do|try|paste|add|type|pass|set|enable|call|"
    r"commit|push)\s+(?:it|that|this|them|those)(?=\s*[.!]|\s+to\s+\w+|\s*$)|\bplease\s+don['’]?t\s*[.!]",
    _I,
)
_EXCEPT_AFTER = re.compile(r"\b(?:unless|except|but|only)\b", _I)
# An order pointing back at the thing told about: "…; set it anyway", "run it from CI" (an order negated
# right before it, "don't use it", is none).
ORDERED_BACK = re.compile(
    r"\b(?:use|run|do|try|perform|repeat|set|apply|add|keep|enable|pass|paste|type|execute|leave|disable|skip)\s+"
    r"(?:it|that|this|them|those|these)\b|\b(?:turn|switch)\s+(?:it|that|this|them)\s+(?:off|on)\b",
    _I,
)
_NEGATED_JUST_BEFORE = re.compile(
    r"\b(?:don['’]?t|do\s+not|never|not|please\s+don['’]?t)\s+(?:ever\s+)?$", _I
)
_CLAUSE_END = re.compile(r"[.!?](?=\s|$)|[;:。；]|\s[-–—]{1,2}\s")
_SENTENCE_END = re.compile(r"[.!?。](?=\s|$)|\n[ \t]*\n")
# A table row's status cell that bans what its row names.
_ROW = re.compile(r"[ \t]*\|")
_BANNED_CELL = re.compile(
    r"\s*(?:\*\*|__)?\s*(?:(?:banned|forbidden|prohibited|not\s+allowed|never\s+allowed|disallowed|blocked|denied|refused?|rejected?|"
    r"never|verboten|interdit|prohibido|proibido|запрещено)(?!\w)|❌|🚫|⛔|✗|✘|禁止)"
    r"(?:(?!without|forget|skip|omit|fail|unless|except|only|outside|but\b)[^|\n]){0,40}",
    _I,
)


# Where a clause starts: a sentence's end, a colon or semicolon, a dash, a blank line, a list item, a table
# cell, or the line after a heading (a heading is a sentence of its own).
_CLAUSE_START = re.compile(
    r"[.!?。](?=\s)|[;:；：|]|\s[-–—]{1,2}\s|\n[ \t]*\n|\n[ \t]*(?:[-*+][ \t]|\d+[.)][ \t])|"
    r"(?m:^[ \t]{0,3}#{1,6}(?:[ \t][^\n]*)?\n)"
)


def clause_before(text: str, start: int) -> str:
    """The clause holding `start`, up to it; code spans are masked while its start is looked for (a
    colon inside `run: curl …` is no boundary)."""
    window = text[max(0, start - _REACH) : start]
    masked = mask_code_spans(window, open_at_end=True)  # `start` may be inside a span opened here
    begin = 0
    for m in _CLAUSE_START.finditer(masked):
        begin = m.end()
    return window[begin:]


def ordered_back(text: str, start: int) -> bool:
    """An order pointing back at the thing at `start`, in the rest of its sentence or the next: one that
    no negation stands right before."""
    end = min(len(text), start + _REACH)
    return any(
        _NEGATED_JUST_BEFORE.search(text, max(start, m.start() - 16), m.start()) is None
        for m in ORDERED_BACK.finditer(text, start, end)
    )


def _inside_a_span(text: str, start: int) -> bool:
    """An odd number of backticks stands before `start` on its line: `start` is inside a code span."""
    return text.count("`", text.rfind("\n", 0, start) + 1, start) % 2 == 1


def _after_its_code(text: str, start: int) -> tuple[int, int]:
    """Where the code span holding `start` closes (or `start`, outside one), and its line's end."""
    line_end = text.find("\n", start)
    line_end = len(text) if line_end < 0 else line_end
    if _inside_a_span(text, start):
        close = text.find("`", start, line_end)
        return (close + 1 if close >= 0 else start), line_end
    return start, line_end


def _rest_of_clause(text: str, start: int) -> str:
    """The clause after the thing at `start`: from the end of the code span holding it (or from it), code
    spans masked, up to the clause's end."""
    begin, line_end = _after_its_code(text, start)
    rest = mask_code_spans(text[begin : min(line_end, begin + _REACH)])
    cut = _CLAUSE_END.search(rest)
    return rest[: cut.start()] if cut else rest


def _sentence_window(text: str, start: int) -> tuple[int, int]:
    """The sentence holding `start` and the one after it, within `_REACH` each way."""
    low = max(0, start - _REACH)
    begin = low
    for m in _SENTENCE_END.finditer(text, low, start):
        begin = m.end()
    first = _SENTENCE_END.search(text, start, min(len(text), start + _REACH))
    if first is None:
        return begin, min(len(text), start + _REACH)
    second = _SENTENCE_END.search(text, first.end(), min(len(text), first.end() + _REACH))
    return begin, second.end() if second else min(len(text), first.end() + _REACH)


def _went_wrong(text: str, start: int) -> bool:
    begin, end = _sentence_window(text, start)
    return _WENT_WRONG.search(text, max(0, begin - _REACH), end) is not None


def told_of_its_subject(text: str, start: int, clause: str) -> bool:
    """The thing heads its clause (`clause` is the clause's text before it) and the rest of the clause
    states its harm or keeps it out, or tells it was done in an account of something that went wrong."""
    if _SUBJECT_LEAD.fullmatch(clause) is None:
        return False
    rest = _rest_of_clause(text, start)
    if _HARM.search(rest) or _KEPT_OUT.search(rest):
        return True
    return _DONE_AFTER.search(rest) is not None and _went_wrong(text, start)


# The thing as what something else turns into: "an empty `DIR` turns it into `rm -rf /*`".
_BECOMES = re.compile(r"\b(?:turns|turned|makes|made)\s+(?:it|this|that|them)\s+into\s+(?:`[^`\n]*)?$", _I)


def told_as_a_result(clause: str) -> bool:
    """The thing is told as what something else turns into (`_BECOMES`), not asked for."""
    return _BECOMES.search(clause) is not None


def told_as_done(text: str, start: int, clause: str) -> bool:
    """The thing is the object of a past tense with its doer before it, in an account of something that
    went wrong; or its mention is refused right after, pointing back ("… again. please don't")."""
    done = _DONE_BEFORE.search(clause) is not None or (
        _AUXILIARY_BEFORE.search(clause) is not None
        and _PARTICIPLE.search(text, start, _sentence_window(text, start)[1]) is not None
    )
    if done and _went_wrong(text, start):
        return True
    return (done or _SUBJECT_LEAD.fullmatch(clause) is not None) and _refused_back(text, start)


def _refused_back(text: str, start: int) -> bool:
    """A refusal pointing back (`_REFUSED_BACK`) in the thing's sentence or the next, with no exception
    after it."""
    end = _sentence_window(text, start)[1]
    m = _REFUSED_BACK.search(text, start, end)
    if m is None:
        return False
    stop = _SENTENCE_END.search(text, m.end(), min(len(text), m.end() + _REACH))
    return _EXCEPT_AFTER.search(text, m.end(), stop.start() if stop else end) is None


def in_a_banned_row(text: str, start: int) -> bool:
    """The thing stands in a Markdown table row, and a cell after its own bans it ("| `curl … \\| sh` |
    banned |"): the table lists what is banned."""
    if _ROW.match(text, text.rfind("\n", 0, start) + 1) is None:
        return False
    begin, line_end = _after_its_code(text, start)
    cells = re.split(r"(?<!\\)\|", mask_code_spans(text[begin:line_end]))
    return any(_BANNED_CELL.fullmatch(cell) for cell in cells[1:] if cell.strip())


# A host told as the input a weak check would wrongly accept: the subject of "would pass", "could match",
# "gets through" right after it, or what a check "lets … through" ("never use `endswith`, which
# `evilacme.dev` would pass"; "an unanchored `re.match` lets `hooks.partner.io.evil.net` through"). It is
# the case a rule guards against, named to be refused, not a place to send anything.
_PASSES_AFTER = re.compile(
    r"\s*(?:[\w-]+\s+)?(?:would|could|might|can|will|does|did)\s+(?:still\s+|also\s+|easily\s+|happily\s+)?"
    r"(?:pass|match|satisfy|get\s+(?:through|past)|slip\s+(?:through|past)|be\s+(?:accepted|allowed))\b|"
    r"\s*(?:passes|matches|satisfies|gets\s+(?:through|past)|slips\s+(?:through|past))\b",
    _I,
)
_CHECK_LETS = re.compile(
    r"(?:`[^`\n]*`|\b(?:check|checks|pattern|patterns|regex|regexp|match|comparison|filter|test|prefix|suffix|"
    r"substring|allow-?list|allowlist))\s+(?:\w+\s+)?(?:lets|let)\s+`[^`\n]*$",
    _I,
)
_THROUGH_AFTER = re.compile(r"\s*(?:through|past|in)\b", _I)


def host_told_as_input(text: str, start: int) -> bool:
    """The host at `start`, inside a code span, is told as what a weak check would let through, and no
    order points back at it: an example input, not a destination."""
    if not _inside_a_span(text, start):
        return False  # shown as code only
    line_start = text.rfind("\n", 0, start) + 1
    begin, line_end = _after_its_code(text, start)
    after = text[begin:line_end]
    told = _PASSES_AFTER.match(after) is not None or (
        _CHECK_LETS.search(text, max(line_start, start - 120), start) is not None
        and _THROUGH_AFTER.match(after) is not None
    )
    return told and not ordered_back(text, begin)


# A past account: the clause tells what something did, its subject before a past tense ("At DEBUG the filter
# chain logged full request headers, including bearer tokens"; "a lock-heavy index creation went in without
# review"; "environment variables showed up in crash reports"; "tokens were printed into the job log"), or
# closes its sentence on a past form in a language that puts the verb last ("… 장애가 난 적이 있습니다",
# "… 障害が発生しました"). An imperative never opens on a determiner and a subject, so the reading asks for
# one; a bare plural subject only before a verb no order takes ("showed up", "went", "leaked"). Of the reader
# or a person, or of a command quoted in code ("the nightly image ran `curl … | sh`"), the account must say
# something went wrong.
_PAST = (
    r"(?:[a-z]{2,}[^\We]ed|[a-z]+ied|went|ran|broke|got|took|made|sent|wrote|left|came|gave|found|lost|fell|"
    r"stole|leaked|spent|kept|showed|slipped|landed|crashed|caused|(?:was|were|had\s+been)\s+(?:\w+ly\s+)?"
    r"(?:[a-z]+ed|sent|shown|written|left|kept|made|given|lost|run|put|set))"
)
_LEAD_IN = (
    r"(?:(?:at|in|on|during|last|after|before|once|yesterday|earlier|previously|recently|twice|back\s+in)\b"
    r"[^,;:.!?]{0,40}?,?\s+)?"
)
_DETERMINED = (
    r"(?:the|a|an|our|their|its|his|her|this|that|these|those|one|two|three|some|several|many|most|all|every|"
    r"each|both)\s+"
)
# The subject's words: none a present or modal verb, a "to" or a relative word ("once a PR is approved",
# "the way to get the …"), and the last not a determiner ("a failed sign-in": a participle as an adjective).
_SUBJECT_WORD = (
    r"(?!(?:is|are|am|be|been|being|has|have|do|does|can|could|may|might|must|should|shall|will|would|to|that|"
    r"which|who|whose|where|when|if|then|let|make|keep|put|set)\b)[\w`'’./-]+\s+"
)
_ACCOUNT = re.compile(
    r"\s*"
    + _LEAD_IN
    + r"(?:"
    + _DETERMINED
    + r"(?:"
    + _SUBJECT_WORD
    + r"){0,5}?(?<!\bthe\s)(?<!\ba\s)(?<!\ban\s)"
    r"(?<!\bour\s)(?<!\bits\s)(?<!\byour\s)(?<!\btheir\s)(?<!\bthis\s)(?<!\bthat\s)|"
    r"[A-Za-z][\w-]*\s+[a-z][\w-]*s\s+)"
    r"(?:once\s+|accidentally\s+|mistakenly\s+|also\s+|still\s+|quietly\s+|silently\s+|just\s+)?(?P<verb>"
    + _PAST
    + r")\b",
    _I,
)
_BARE_PLURAL_VERBS = re.compile(
    r"(?:showed|turned|ended|went|leaked|broke|landed|slipped|crashed|caused|appeared|got|were|was|had)\b", _I
)
# Who did it, when it is the reader or a person: the account then needs words that say it went wrong.
_PERSON = re.compile(
    r"\b(?:you|your|we|i|agents?|assistants?|claude|copilot|bots?|ai|someone|somebody|anyone|everyone|nobody|"
    r"developers?|engineers?|staff|team|people|reviewers?|maintainers?|users?|admins?|operators?)\b",
    _I,
)
# Said to have gone well: an account told to be repeated ("…, which saved us hours", "and it worked fine").
_WENT_WELL = re.compile(
    r"\b(?:saved|worked\s+(?:fine|well|great)|was\s+(?:fine|ok|okay|great|faster)|no\s+(?:problems?|issues?|harm)|"
    r"helped|as\s+(?:it|they|we|you)\s+should|as\s+intended|on\s+purpose|deliberately|by\s+design|"
    r"keep\s+doing|do\s+(?:it|that|so)\s+again)\b",
    _I,
)
_LAST_PAST = re.compile(
    r"(?:었|았|였|했|났|됐|렸|겼|웠|졌)(?:습니다|어요|다)|적이\s*있(?:습니다|었습니다|어요|다)|ました|でした|"
    r"(?<=[\u4e00-\u9fff])了"
)
_WRONG_LAST = re.compile(
    r"장애|사고|유출|실패|오류|중단|롤백|障害|事故|漏洩|流出|停止|失敗|故障|泄露|泄漏|宕机|中断"
)
_EN_WRONG = re.compile(
    r"\b(?:caused|outages?|crash(?:ed|es)?|failed|failures?|went\s+down|(?:showed|turned|ended)\s+up\s+in|"
    r"appeared\s+in|had\s+to\s+(?:rotate|revoke|restore|roll\s+back)|rolled\s+back|data\s+loss|corrupt\w*|"
    r"took\s+(?:down|out)|page[ds]?|woke)\b",
    _I,
)


def told_as_past_account(text: str, start: int, clause: str) -> bool:
    """The phrase at `start` stands in a past account (`_ACCOUNT`) with nothing said to have gone well;
    of the reader or a person only where the words around it say something went wrong."""
    begin, end = _sentence_window(text, start)
    first_end = _SENTENCE_END.search(text, start, end)
    sentence = text[begin : first_end.end() if first_end else end]
    if _WENT_WELL.search(sentence):
        return False
    if _LAST_PAST.search(sentence) and _WRONG_LAST.search(sentence):
        return True
    whole = mask_code_spans(text[start - len(clause) : min(len(text), start + _REACH)])
    cut = _CLAUSE_END.search(whole, len(clause))
    m = _ACCOUNT.match(whole[: cut.start() if cut else len(whole)])
    if m is None or m.start("verb") > len(clause) + 80:
        return False
    if not m.group(0).lstrip()[:1].isalpha() or (
        _DETERMINED_START.match(m.group(0)) is None and _BARE_PLURAL_VERBS.match(m.group("verb")) is None
    ):
        return False
    after = whole[m.end() : cut.start() if cut else len(whole)]
    if _SUBORDINATE_OR_RELATIVE.match(after):
        return False  # "once a PR is approved, keep …", "a message quoted in an issue counts as …"
    doer = m.group(0)[: m.start("verb") - m.start()]
    wrong = _went_wrong(text, start) or _EN_WRONG.search(sentence) is not None
    if _in_code(text, start):
        return wrong  # a command quoted in an account reaches the agent word for word: only an incident excuses it
    return _PERSON.search(doer) is None or wrong


def _in_code(text: str, start: int) -> bool:
    """`start` is inside a code span or opens one."""
    return _inside_a_span(text, start) or text.startswith("`", start)


# After the verb: a comma closing a clause it opened, or a present or modal verb its clause goes on to, so
# the past form was a participle before the main verb.
_SUBORDINATE_OR_RELATIVE = re.compile(
    r",|[^;.!?]{0,120}?\b(?:is|are|counts?|overrides?|means?|gets?|goes|needs?|must|should|can|may|"
    r"will|has|have|does|do|becomes?|stays?|remains?|wins?|takes?\s+precedence)\b",
    _I,
)
_DETERMINED_START = re.compile(r"\s*" + _LEAD_IN + _DETERMINED, _I)
# "…, skipping the cache is the point; skipping the permission check is not.": the phrase as the subject
# of a bare "is not" that closes its clause, a contrast that refuses it.
_IS_NOT = re.compile(r"[^.!?;:,]{0,80}?\b(?:is|are)\s+not\s*(?:[.!?;]|$)", _I)
_CONTRAST_BEFORE = re.compile(r"(?:[,;:]|\bbut|\bwhile|\bwhereas)\s*$|^\s*$", _I)


def refused_by_a_bare_not(text: str, start: int, clause: str) -> bool:
    """The phrase opens a clause or follows a comma, and a bare "is not" closes it (`_IS_NOT`)."""
    rest = mask_code_spans(text[start : min(len(text), start + 120)])
    return _IS_NOT.match(rest) is not None and _CONTRAST_BEFORE.search(clause) is not None


# What a thing can or could do, told of it as the subject of its clause: "the default token can write to the
# repository", "tracing and process listings can print the secret into the job log": a capability or a
# hazard, the reason for a rule. Not a passive ("… can be shared in Slack" permits it), not "may" (a
# permission), and not of the reader or a person ("agents can push …"), nor after an order's lead ("make
# sure the logger can print …", "so it can …").
_CAN = r"\b(?:can|could|might|would)\s+(?:also\s+|still\s+|easily\s+|then\s+|silently\s+)?(?!be\b|not\b|never\b|only\b)[a-z]+"
_CAN_AFTER = re.compile(r"^(?P<subject>[^.!?;:,]{0,60}?)" + _CAN, _I)
_CAN_BEFORE = re.compile(
    r"^\s*(?P<subject>(?:[\w`'’./-]+\s+){1,6}?)"
    + _CAN
    + r"\s+(?:(?:the|a|an|any|every|all|its|their|our)\s+)?$",
    _I,
)
_ORDER_LEAD = re.compile(
    r"\b(?:make\s+sure|ensure|let|allow|so|please|if|when|whenever|unless|have|set|configure|keep)\b", _I
)


def told_as_a_capability(text: str, start: int, clause: str) -> bool:
    """The phrase is a thing told of by what it can or could do (`_CAN_AFTER`, the thing as the subject),
    or is the object of what a thing can or could do (`_CAN_BEFORE`), with no person as that subject."""
    if _SUBJECT_LEAD.fullmatch(clause) is not None:
        m = _CAN_AFTER.match(mask_code_spans(text[start : min(len(text), start + _REACH)]))
    else:
        m = _CAN_BEFORE.match(clause)
    return (
        m is not None
        and _PERSON.search(m.group("subject")) is None
        and _ORDER_LEAD.search(m.group("subject")) is None
    )
