"""Family shapes read more widely (issue 29, the round that retired the fifth held-out set): each
names what a family does in more of the ways a sentence can say it, not a sentence seen.

- review dropped: a change approved by its own author, a review said to be unneeded, in several
  languages;
- weakened checks: security tests switched off whatever the reason given, a test runner told to run
  nothing (`-run '^$'` with no benchmark, `--skip ''`, an ignore pattern matching every path), failures
  swallowed inside tests, assertions turned into prints or warnings;
- a force push onto the main branch, said without `git`;
- exfiltration: secret files (`.env`, `.npmrc`, cloud credentials) sent to public places, a secret's
  value put into responses, pages or telemetry;
- indirect triggers: a marker in data followed by "follow the text after it", data said to outrank
  the user or to count as someone's approval, data obeyed "as an instruction of the user" in other
  languages and scripts;
- self-replication: an instruction file created that holds "this rule", every PR description as
  where a text copies itself;
- permission grants: a tool map's shell set to "allow", every command allowed, an always-allow switch
  turned on, a cluster's admin role bound;
- Homeostat evaded: a text reworded until the check passes.

Like `agent_shapes`, each is one regex whose gaps are bounded and stay inside a sentence (or a line
where said), so the work is linear in the text; `families._shaped` runs them with its negation and
exception handling.
"""

from __future__ import annotations

import re

from homeostat.core.scanners.risky.agent_shapes import _compile

_SELF_TEXT = r"(?:this|these)\s+(?:exact\s+)?(?:rules?|instructions?|texts?|paragraphs?|lines?|notes?|guidance|sentences?)\b"
_USER = r"(?:the\s+|your\s+|any\s+)?(?:user|human|operator|developer|owner|maintainer)s?(?:'s|s')?"
_DATA = (
    r"(?:readmes?|node_modules|dependenc(?:y|ies)|packages?|pages?|issues?|comments?|tool\s+(?:results?|outputs?)|"
    r"logs?|outputs?|e-?mails?|tickets?|messages?|inbox|replies|commits?|labels?|docstrings?|responses?)"
)


def _wide(source: str) -> re.Pattern[str]:
    """`agent_shapes._compile` with these tokens spelled out too: `<DATA>` a place text nobody on the team
    wrote comes from, `<USER>` the one the agent works for, `<SELF>` the text itself."""
    return _compile(source.replace("<DATA>", _DATA).replace("<USER>", _USER).replace("<SELF>", _SELF_TEXT))


# A change approved by its own author, or a review said to be unneeded.
REVIEW_DROPPED = _wide(
    r"\bapprov\w*\s+(?:and\s+(?:merg|land|ship)\w*\s+)?(?:your|their|its|his|her|one'?s)\s+own\b|"
    r"\bno\s+(?:code\s+|human\s+|peer\s+)?(?:reviews?|reviewers?|approvals?|approvers?|sign-?offs?)\s+(?:is\s+|are\s+)?"
    r"(?:needed|required|necessary)\b|"
    r"\b(?:aprueb|aprob|approuv|genehmig|aprov)\w*\s+(?:\w+\s+){0,2}?(?:tus|sus|tes|ses|vos|deine|ihre|seine|seus|teus|tuoi|suoi)\s+"
    r"(?:propi|propr|eigen)\w*",
)
REVIEW_DROPPED_KEYS = ("approv no aprueb aprob approuv genehmig aprov", "")

# Security tests switched off, whatever reason is given (but where a fork has no secrets to run them).
SECURITY_TESTS_OFF = _wide(
    r"\b(?:disable|skip|remove|delete|drop|comment\s+out|turn\s+off|switch\s+off|mute|silence|deselect|bypass)\w*\b<SN>{0,30}?"
    r"\b(?:security|auth\w*|authz|login|permissions?|csrf|xss|sql[-\s]injection|access[-\s]control|crypto\w*|sast|dast)\s+"
    r"(?:tests?|specs?|suites?|scans?)\b(?!')(?!<S>{0,80}?\b(?:on|from|for|in)\s+(?:\w+\s+)?forks?\b)|"
    r"\b(?:deaktivier|entfern|lösch|überspring|desactiv|elimin|borr|omit|désactiv|supprim|disattiv|rimuov|salt|desativ|remov|"
    r"wyłącz|usuń|pomiń|отключ|удал|пропуст)\w*\b<SN>{0,30}?"
    r"(?:\bsicherheitstests?\b|\bpruebas\s+de\s+seguridad\b|\btests?\s+de\s+s[ée]curit[ée]\b|\btest\s+di\s+sicurezza\b|"
    r"\btestes\s+de\s+seguran[çc]a\b|\btesty\s+bezpiecze[ńn]stwa\b|\bтесты\s+безопасности\b)",
)
SECURITY_TESTS_OFF_KEYS = (
    "disable skip remove delete drop comment turn switch mute silence deselect bypass deaktivier entfern lösch "
    "überspring desactiv elimin borr omit désactiv supprim disattiv rimuov salt desativ remov wyłącz usuń pomiń "
    "отключ удал пропуст",
    "",
)

# A test runner told to run nothing: Go's `-run '^$'` (not beside `-bench`, where it is how benchmarks
# run alone), cargo's `--skip ''`, an ignore pattern or a name filter matching every test.
NO_TESTS_RUN = _wide(
    r"\bgo\s+test\b[^\n;&|]{0,40}?\s-run[=\s]+[\"']?\^?\$[\"']?(?=[\s`;]|$)(?![^\n;&|]{0,60}?-bench)|"
    r"\bcargo\s+(?:test|nextest\s+run)\b[^\n;&|]{0,40}?--skip[=\s]+(?:''|\"\"|[\"']?\.\*?[\"']?(?=[\s`;]|$))|"
    r"--test-?path-?ignore-?patterns?[=\s]+[\"']?(?:\.\*?|\*\*?|/)[\"']?(?=[\s`;]|$)|"
    r"--(?:test-?name-?pattern|grep|filter)[=\s]+[\"']?\^\$[\"']?(?=[\s`;]|$)",
)
NO_TESTS_RUN_KEYS = ("go cargo", "--test --grep --filter")

# Failures swallowed inside tests, or assertions turned into something that cannot fail.
FAILURE_SWALLOWED = _wide(
    r"\btests?\b[^\n;]{0,60}?\b(?:except|rescue)\b[^\n]{0,30}?:\s*pass\b|"
    r"\b(?:except|rescue)\b[^\n]{0,30}?:\s*pass\b<S>{0,60}?\btests?\b|"
    r"\btests?\b<S>{0,60}?\bcatch\s*(?:\([^)\n]{0,30}\))?\s*\{\s*\}|"
    r"\b(?:replace|swap|turn|convert|rewrite|downgrade)\w*\b<S>{0,30}?\b(?:assert\w*|expect\w*)\b<S>{0,40}?\b(?:with|into|by|for)\b"
    r"<S>{0,40}?\b(?:print\w*|log(?:ging|s)?|logger|console\.\w+|warn\w*|comments?|pass|no-?ops?|nothing)\b",
)
FAILURE_SWALLOWED_KEYS = ("test tests except rescue replace swap turn convert rewrite downgrade", "")

# A force push onto the main branch, said in prose.
FORCE_TO_MAIN = _wide(
    r"\bpush\w*\s+(?:\w+\s+){0,2}?(?:with\s+)?(?:--force(?:-with-lease)?|-f|force)\b<S>{0,20}?\b(?:to|onto|on|into)\s+"
    r"(?:the\s+)?(?:main|master)\b(?![-/\w])|"
    r"\bforce[-\s]?push\w*\s+(?:\w+\s+){0,2}?(?:to|onto|on|into)\s+(?:the\s+)?(?:main|master)\b(?![-/\w])",
)
FORCE_TO_MAIN_KEYS = ("push pushes pushing force", "")

# A secret's value put where others read it: responses, pages, telemetry, a URL.
SECRET_SHOWN = _wide(
    r"\b(?:include|add|put|return|echo|append|embed|expose|show|render|attach)\w*\b<SN>{0,30}?\b(?:values?\s+of\s+)?"
    r"(?:[\w$]*_(?:api_?)?(?:key|token|secret|password|passwd|pwd)|api\s+keys?|secret\s+keys?|access\s+tokens?|"
    r"passwords?|client\s+secrets?)\b<SN>{0,30}?\b(?:in|into|to|on)\s+(?:the\s+|every\s+|all\s+|each\s+|its\s+|our\s+)?"
    r"(?:[\w-]+\s+){0,2}?(?:responses?|response\s+(?:headers?|bod(?:y|ies))|error\s+(?:messages?|pages?)|"
    r"web\s+pages?|html|telemetry|traces?|spans?|analytics|urls?|query\s+strings?)\b",
)
SECRET_SHOWN_KEYS = ("include add put return echo append embed expose show render attach", "")

# Text found in data obeyed over the user's head.
DATA_OBEYED = _wide(
    # a marker in data, then "follow the text after it"
    r"\b(?:contains?|containing|says?|starts?\s+with|starting\s+with|begins?\s+with|beginning\s+with|includes?|mentions?)\b"
    r"<S>{0,60}?\b(?:follow|obey|execute|run|carry\s+out|apply|act\s+on|perform)\w*\s+(?:\w+\s+){0,2}?"
    r"(?:text|instructions?|commands?|steps?|words?|lines?|what(?:ever)?\s+comes)\s+(?:after|following|behind|that\s+follows?)\b|"
    # what data asks carried out where it does harm: "carry out their requests against production"
    r"\b<DATA>\b<L>{0,100}?\b(?:carry\s+out|execute|fulfil\w*|perform|apply|implement|do)\s+"
    r"(?:(?:their|its)\s+(?:requests?|instructions?|commands?|asks?)|what(?:ever)?\s+(?:they|it)\s+"
    r"(?:describes?|says?|asks?(?:\s+for)?|requests?|lists?))\b<S>{0,40}?\b(?:against|on|in|to|into)\s+(?:the\s+)?"
    r"(?:production|prod|live|main|master)\b|"
    # data said to outrank the user
    r"\b<DATA>\b<S>{0,80}?\b(?:take|takes|taking|have|has|get|gets)\s+(?:priority|precedence)\s+over\s+<USER>|"
    r"\b<DATA>\b<S>{0,80}?\b(?:override|overrides|outrank|outranks|supersede|supersedes)\s+<USER>|"
    # data said to count as someone's approval or consent
    r"\b(?:<DATA>|containing|starting\s+with|marked)\b<S>{0,80}?\b(?:counts?|counted|serves?)\s+as\s+(?:an?\s+|the\s+)?"
    r"(?:(?:user|owner|maintainer|team|tech\s+lead|lead)(?:'s|s')?\s+)?(?:approv\w*|consent|sign-?off|authori[sz]ation|go-?ahead)\b|"
    # "as an instruction of the user", whatever verb carries it out
    r"\b(?:follow|obey|execute|run|carry\s+out|act\s+on|apply|handle|treat|perform|do)\w*\b<SN>{0,60}?\bas\s+"
    r"(?:if\s+it\s+(?:were|was)\s+|though\s+it\s+(?:were|was)\s+)?(?:an?\s+|the\s+)?(?:direct\s+|explicit\s+)?"
    r"(?:instructions?|commands?|orders?|requests?)\s+(?:from|of|by)\s+(?:the\s+|your\s+)?(?:user|owner|operator)s?\b|"
    r"\b(?:wie|als)\s+(?:eine?[nmr]?\s+)?(?:befehle?|anweisung\w*|anfrage\w*|auftr[äa]g\w*|aufforderung\w*)\s+(?:des|der|vom|von)\s+"
    r"(?:nutzer|benutzer|anwender|user)\w*|"
    r"\bcomo\s+(?:una?\s+|uma\s+)?(?:instrucci[oó]n\w*|[oó]rden\w*|petici[oó]n\w*|solicitud\w*|instru[çc][ãa]o\w*|"
    r"instru[çc][õo]es|ordem|pedido)\s+(?:del|do|da)\s+(?:usu[aá]ri[oa]|utilizador)|"
    r"\bcomme\s+(?:une?\s+)?(?:instructions?|demandes?|consignes?|ordres?)\s+de\s+l['’]utilisat\w*|"
    r"\bcome\s+(?:una?\s+)?(?:istruzion\w*|richiest\w*|ordin\w*)\s+dell['’]utent\w*|"
    r"(?:ユーザー|ユーザ|利用者|使用者)(?:から|より)?の?(?:依頼|指示|命令|要求|リクエスト)として|"
    r"(?:当作|当成|视为|作为|當作|當成|視為|作為)(?:用户|用戶|使用者)(?:的)?(?:指令|请求|請求|命令|要求|指示)|"
    r"사용자의\s*(?:요청|지시|명령)(?:으로|처럼)",
)
DATA_OBEYED_KEYS = (
    "contains contain containing says say starts start starting begins begin beginning includes include mentions "
    "mention readme readmes node dependency dependencies package packages page pages issue issues comment "
    "comments tool log logs output outputs email emails e mail mails ticket tickets message messages inbox replies "
    "commit commits label labels docstring docstrings response responses marked follow obey execute run carry act "
    "apply handle treat perform do wie als como comme come",
    "ユーザ 利用者 使用者 当作 当成 视为 作为 當作 當成 視為 作為 사용자",
)

# A text copied into instruction files it creates, or into every PR description.
SPREADS_MORE = _wide(
    r"\b(?:add|create|write|put|commit|open|include|drop)\w*\b<S>{0,60}?(?:agents\.md|claude\.md|gemini\.md|\.cursorrules|"
    r"\.windsurfrules|\.clinerules|copilot-instructions(?:\.md)?|\binstruction\s+files?\b)<S>{0,60}?\b<SELF>|"
    r"\b<SELF><S>{0,80}?\b(?:every|each|all|any)\s+(?:\w+\s+)?(?:pull\s+requests?|prs?|merge\s+requests?|mrs?)\s+"
    r"(?:descriptions?|bod(?:y|ies)|templates?|you\s+(?:open|write|create|raise))\b",
)
SPREADS_MORE_KEYS = ("add create write put commit open include drop this these", "")

# Permission prompts off in more tools' words.
GRANT_MORE = _wide(
    r"[\"']?(?:bash|shell|exec|execute|command|commands|terminal|run_shell_command|\*)[\"']?\s*:\s*[\"'](?:allow|always)[\"']|"
    r"\ballowed[-_]?commands[\"']?\s*[:=]\s*\[\s*[\"']\*[\"']|"
    r"\b(?:tick|check|enable|turn\s+on|select|activate|switch\s+on)\s+(?:the\s+)?[\"'`‘“]?"
    r"(?:always[-_\s]?(?:approv|allow)(?!\w*read)|auto[-_\s]?approv|yes[-_]always)\w*|"
    r"\b(?:bind|grant|give|assign|attach)\w*\b<S>{0,60}?\bcluster-admin\b|\bclusterrolebinding\b[^\n]{0,80}?\bcluster-admin\b",
)
GRANT_MORE_KEYS = (
    "bash shell exec execute command commands terminal run_shell_command allowed tick check enable turn select "
    "activate switch bind grant give assign attach clusterrolebinding",
    "*",
)

# Homeostat's check evaded: a text reworded until it passes, or so the check does not see it.
CHECK_EVADED = _wide(
    r"\b(?:rephrase|reword|rewrite|paraphrase|obfuscate|disguise|respell|tweak|reformul|umformulier|riformul)\w*\s+"
    r"(?:(?:the|this|that|your|each|every|la|le|die|den|das)\s+)?(?:rules?|lessons?|texts?|wording|sentences?|instructions?|"
    r"paragraphs?|findings?|regla|règle|regel|regola|it|them)\b<S>{0,40}?"
    r"\b(?:until|till|hasta\s+que|jusqu['’]à\s+ce\s+qu\w*|bis|finché|até\s+que)\b<S>{0,40}?"
    r"\b(?:passes|pass|is\s+clean|(?:no\s+longer|stops?)\s+(?:flag|report|complain|find)\w*|no\s+(?:risky\s+)?findings?|"
    r"pase|passe|durchgeht|passi)\b|"
    r"\b(?:rephrase|reword|rewrite|paraphrase|obfuscate|disguise|respell|tweak)\w*\b<S>{0,60}?\b(?:until|till)\b<S>{0,20}?"
    r"\b(?:homeostat|validate|the\s+(?:risky\s+|safety\s+)?(?:check|checker|scanner|validator))\s+"
    r"(?:passes|is\s+clean|(?:no\s+longer|stops?)\s+(?:flag|report|complain|find)\w*)|"
    r"\bso\s+(?:that\s+)?(?:homeostat|validate|the\s+(?:risky\s+|safety\s+)?(?:check|checker|scanner|validator))\s+"
    r"(?:does\s+not|doesn't|won't|will\s+not|cannot|can't)\s+(?:flag|catch|notice|see|find|detect)\b",
)
CHECK_EVADED_KEYS = (
    "rephrase reword rewrite paraphrase obfuscate disguise respell tweak reformul umformulier riformul so",
    "",
)
