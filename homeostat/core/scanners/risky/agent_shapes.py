"""More family shapes, read by what a sentence does rather than by any sentence seen (issue 29): coding
agents' and hosts' permission settings by what they switch off, Homeostat turned off in more words and
languages, a text told to copy itself into the places agents read, test markers and CI settings that hide
a failure, secrets and environment dumps sent where others read them, and data given the user's voice.

Each is one regex whose gaps are bounded and stay inside a sentence, so the work is linear in the text;
`families._shaped` runs them with the same negation and exception handling as the other shapes.
"""

from __future__ import annotations

import re

# A character of the same sentence (a dot inside a path or a file name does not end it).
_S = r"(?:[^.;\n]|\.(?=[\w/]))"

# A character of the same line: the reason may follow after a semicolon ("…; it keeps failing").
_L = r"(?:[^.\n]|\.(?=[\w/]))"
# The same sentence, but a negation does not fall inside the gap ("… only, never environment variables").
_SN = (
    r"(?:(?!\b(?:never|not|no|without|nor|out\s+of|away\s+from|nie|nicht|niemals|jamais|nunca|jamás|não|mai)\b)"
    r"(?:[^.;\n]|\.(?=[\w/])))"
)


def _compile(source: str) -> re.Pattern[str]:
    """The regex with its gap tokens spelled out: `<S>` a character of the sentence, `<SN>` one that is
    not a negation's start, `<L>` a character of the line (a semicolon does not end it)."""
    return re.compile(source.replace("<SN>", _SN).replace("<S>", _S).replace("<L>", _L))


# A cloud's roles that hold every permission (root on the account).
CLOUD_ADMIN_ROLES = r"administratoraccess|iamfullaccess|poweruseraccess"
# Any coding agent's or host's permission prompts off, read by what the setting does.
AGENT_GRANT = _compile(
    # a mode that accepts edits or skips prompts; a hook that answers "approve" for the user
    r"\b(?:default|permission)[-_\s]?mode[\"'`]?\s*(?:[:=]|\s+to)\s*[\"'`]?(?:acceptedits|bypasspermissions|dontask|yolo|auto)\b|"
    r"\b(?:pre[-_\s]?tool[-_\s]?use|permission[-_\s]?request|hooks?)\b[^\n]{0,80}?[\"']?(?:permission)?decision[\"']?\s*:\s*"
    r"[\"'](?:approve|allow)\b|"
    # commands run with no one asked: auto-execution for every command, turbo mode, an emptied deny list
    r"\bauto[-\s]?(?:execut\w*|run\w*)\b<S>{0,30}?\b(?:turbo|all|every|any|everything|anything)\b|"
    r"\b(?:clear|empty|remove|delete|wipe)\w*\b<S>{0,30}?\b(?:command\s+)?(?:deny|block)[-\s]?list\b|"
    r"\bempty\s+(?:command\s+)?(?:deny|block)[-\s]?list\b|"
    r"\btool\s+polic\w*\s+(?:\w+\s+){0,2}(?:to|=|:)\s*[\"']?(?:automatic|auto|always|allow\w*)\b|"
    r"\b(?:yes[-_]always|always[-_]?allow\w*|auto[-_]?approv\w*|auto[-_]?accept\w*|always[-_]?approv\w*)[\"']?\s*"
    r"(?:[:=]|\s+to)\s*[\"']?(?:true|on|yes|1)\b|"
    r"\bconfirmation[-_\s]?mode[\"']?\s*(?:[:=]\s*[\"']?(?:false|off|0|none)\b|\s+(?:disabled|off)\b)|"
    r"\b(?:disable|turn\s+off|switch\s+off)\s+(?:the\s+)?confirmation[-_\s]?mode\b|"
    r"\b(?:without|no)\s+(?:any\s+)?confirmation\b<S>{0,20}?\b(?:for\s+)?(?:the\s+agent|commands?)\b|"
    r"\brun\s+commands\s+without\s+confirmation\b|\bskip\s+the\s+confirmation\s+step\b|"
    r"\b(?:tick|check|enable|turn\s+on|select)\s+[\"'`‘“]?always[-\s]?(?:approve|allow)\b|"
    # root on the host: every permission of the cloud, the docker or sudo group, the host's root mounted
    r"\b(?:" + CLOUD_ADMIN_ROLES + r")\b|"
    r"\b(?:to|into)\s+the\s+(?:docker|sudo|wheel|root|admin)\s+group\b|"
    r"\bhost(?:'s)?\s+(?:root\s+)?(?:file\s*system|root)\s+mounted\b|\bmount\w*\s+(?:the\s+)?host(?:'s)?\s+(?:root|file\s*system)\b|"
    # every tool approved, said in other languages
    r"\b(?:aprueb\w*|apruebe|aprob\w*|aprov\w*|approuv\w*|genehmig\w*|autoriz\w*)\s+(?:\w+\s+)?autom[aá]ti\w*|"
    r"\bautom[aá]ti\w*\s+(?:\w+\s+)?(?:aprob|aprov|approuv|genehmig|autoriz)\w*|"
    # clouds and code hosts: every action on every resource, owner roles, every token scope
    r"[\"']?action[\"']?\s*:\s*[\"']\*[\"']|\broles/(?:owner|editor)\b|"
    r"\b(?:owner|contributor|user\s+access\s+administrator)\s+role\b<S>{0,40}?\b(?:subscription|tenant|management\s+group)\b|"
    r"\b(?:every|all)\s+(?:the\s+)?scopes?\b|\b(?:admin:org|admin:enterprise|delete_repo)\b|"
    r"\b(?:--privileged|docker\.sock)\b<S>{0,60}?\b(?:agent|assistant|ci|build|--privileged|docker\.sock)\b",
)
AGENT_GRANT_KEYS = (
    "default pre permission hook hooks auto clear empty remove delete wipe tool yes always confirmation disable "
    "turn switch without no run skip aprueb apruebe aprob aprov approuv genehmig autoriz autom action roles owner "
    "contributor user every all admin delete privileged docker tick check enable select administratoraccess "
    "iamfullaccess poweruseraccess to into host mount permission",
    "--privileged",
)

# Homeostat turned off in more words: told not to run it, its configuration emptied, its check bypassed
# or merged past, and in other languages.
HOMEOSTAT_OFF_MORE = _compile(
    r"(?:\b(?:no\s+longer|not|never|stop|no\s+need\s+to|need\s+not)|n't)\s+(?:need\s+to\s+|have\s+to\s+)?"
    r"(?:call|use|run|invoke|consult|query|load|check|wait\s+for)\w*\s+(?:the\s+)?homeostat\b|"
    r"\b(?:empty|blank|truncate|wipe|clear)\w*\b<S>{0,20}?\bhomeostat\b|"
    r"(?:\bnot|\bnever|n't|\bno\s+longer|\bstop)\s+(?:\w+\s+){0,3}?(?:call|use|consult|query|load|read|check|follow|trust)\w*\s+"
    r"(?:the\s+)?(?:team'?s\s+)?(?:knowledge\s+base|kb|homeostat)\b<S>{0,30}?\b(?:anymore|any\s+more|from\s+now\s+on|again)\b|"
    r"\bhomeostat_\w*(?:disable|off|skip|bypass)\w*[\"']?\s*[:=]\s*[\"']?(?:1|true|yes|on)\b|"
    r"\bignor\w*\b<S>{0,30}?\bhomeostat(?:'s)?\s+(?:tools?|rules?|context|answers?|output|results?|mcp|server|kb|knowledge)\b|"
    r"\bhomeostat\b<S>{0,20}?\b(?:ausschalten|abschalten|deaktivieren|entfernen|deinstallieren|löschen|désactiver|supprimer|"
    r"desactivar|eliminar|desinstalar|desativar|remover|disattivare|rimuovere)\b|"
    r"\bhomeostat\b<S>{0,40}?\bfail\w*<S>{0,60}?\b(?:anyway|regardless|all\s+the\s+same)\b|"
    r"\b(?:merge|push|land|ship)\w*\b<S>{0,60}?\bwithout\s+(?:waiting\s+for\s+|running\s+|checking\s+)?(?:the\s+)?homeostat\b|"
    r"(?:\bn['’]\w+\s+plus|\bne\s+\w+\s+plus|\bnicht\s+mehr|\bya\s+no|\bno\s+vuelvas\s+a|\bnão\s+\w+\s+mais|"
    r"\bбольше\s+не|\bне\s+\w+\s+больше)\b<S>{0,40}?\bhomeostat\b|"
    r"\b(?:remov(?!e\b|es\b|ed\b|ing\b)|supprim|entfern|elimin|borr|desinstal|deinstall|deaktivier|désactiv|desactiv|desativ|disattiv|"
    r"rimuov|удал|отключ|выключ)\w*<S>{0,60}?\bhomeostat\b|"
    r"(?:删除|禁用|卸载|关闭|停用|移除|不要再?(?:调用|使用)|别再?(?:调用|使用)|削除|無効)[^。；\n]{0,30}?homeostat|"
    r"homeostat[^。；\n]{0,30}?(?:删除|禁用|卸载|关闭|停用|移除|削除|無効)",
)
HOMEOSTAT_OFF_KEYS = ("homeostat knowledge kb", "")

# A text told to copy itself where agents or people will read it again: instruction files, memory, PR
# templates, commit messages, review comments, word for word.
SPREADS_ITSELF = _compile(
    r"\b(?:this|these)\s+(?:exact\s+)?(?:rules?|instructions?|texts?|paragraphs?|lines?|notes?|guidance|directives?|"
    r"prompts?|sentences?)\b<S>{0,80}?"
    r"(?:\bmemor\w*|\btemplates?\b|pull_request_template|\bcommit\s+messages?\b|\breview\s+comments?\b|"
    r"\bword\s+for\s+word\b|\bverbatim\b|\bas\s+the\s+replacement\b|\binstruction\s+files?\b|agents\.md|claude\.md|"
    r"\.cursorrules|copilot-instructions|\bevery\s+(?:new\s+|future\s+)(?:session|conversation|chat|task)s?\b|"
    r"\b(?:through|via|with|using)\s+(?:the\s+)?(?:learn|flag)\b|\bwhenever\s+it\s+is\s+(?:removed|deleted|reverted)\b|"
    r"\b(?:every|all|each)\s+(?:other\s+)?(?:repo\w*|agents?)\b)|"
    r"\b(?:in|into)\s+every\s+(?:review\s+comment|commit\s+message|pull\s+request|pr)\b<S>{0,60}?\b(?:this|these)\s+(?:rules?|instructions?|texts?|lines?)\b|"
    r"\b(?:cette|ces|ce)\s+(?:consignes?|règles?|instructions?|textes?|paragraphes?|notes?)\b<S>{0,80}?"
    r"(?:\bautres?\s+agents?\b|\bchaque\s+(?:autre\s+)?agent\b|\bmémoire\b|\bfichiers?\s+d['’]instructions?\b|\bmot\s+pour\s+mot\b)|"
    r"\b(?:diese[nrs]?)\s+(?:text|regel|anweisung|hinweis|absatz)\w*\b<S>{0,80}?"
    r"(?:\bwörtlich\b|\banderen\s+agenten\b|\banweisungsdatei\w*|\bgedächtnis\b)|"
    r"\b(?:esta|estas|este|estos|esse|essa|questa|questo)\s+(?:instrucci[oó]n|instrucciones|reglas?|texto|instrução|regras?|"
    r"regola|istruzione|testo)\b<S>{0,80}?(?:\bdem[aá]s\s+agentes\b|\botros\s+agentes\b|\boutros\s+agentes\b|\baltri\s+agenti\b|"
    r"\bmem[oó]ria\b|\barchivos?\s+de\s+instrucciones\b|\bpalabra\s+por\s+palabra\b|\bliteralmente\b|\btodos\s+los\s+repositorios\b)|"
    r"この(?:指示|ルール|文章?|テキスト)[^。\n]{0,40}?(?:他の|すべてのエージェント|指示ファイル|そのまま|メモリ)",
)
SPREADS_ITSELF_KEYS = (
    "this these in into cette ces ce diese dieser diesen dieses esta estas este estos esse essa questa questo",
    "この",
)

# Test markers and CI settings that hide a failure, told for the failure's sake; a check merged past
# anyway; a change approved by its author or accepted unread.
HIDES_FAILURE = _compile(
    r"(?:\bit\.skip|\bxit\b|\bxdescribe\b|\bdescribe\.skip|\btest\.skip|@disabled\b|@ignore\b|#\[ignore\]|\bt\.skip\b|"
    r"@pytest\.mark\.skip\w*|@unittest\.skip\w*|\bmarktestskipped\b|\[ignore\]|\[skip\])<S>{0,60}?"
    r"\b(?:so\s+(?:that\s+)?(?:the\s+)?(?:ci|build|suite|pipeline|checks?)|green\b|pass(?:es)?\b)|"
    r"\b(?:fail\w*|broken|red|rot|fehlschl\w*|échou\w*|falla\w*|kaputt|cassés?|rotos?)\b<S>{0,60}?(?:\bit\.skip|\bxit\b|\bxdescribe\b|\bdescribe\.skip|\btest\.skip|"
    r"@disabled\b|@ignore\b|#\[ignore\]|\bt\.skip\b|@pytest\.mark\.skip\w*|\bmarktestskipped\b|@pytest\.mark\.xfail\w*|"
    r"\bpytest\.xfail\b)|"
    r"\bcatcherror\s*\(\s*buildresult\s*:\s*['\"]success|\b(?:ignorefailures|testfailureignore|maven\.test\.failure\.ignore)"
    r"[\"']?\s*[:=]?\s*[\"']?true\b|-dmaven\.test\.skip=true|"
    r"\b(?:delete|remove|disable|drop|comment\s+out)\b<L>{0,60}?\b(?:tests?|specs?|jobs?|steps?|checks?|stages?)\b<L>{0,60}?"
    r"\b(?:keeps?\s+(?:failing|breaking)|always\s+fails|is\s+(?:always\s+)?(?:red|failing|broken))\b|"
    r"\b(?:fail\w*|échou\w*|fehlschlag\w*|schlagen\s+fehl|falla\w*|falh\w*|fallisc\w*|падают|упал\w*)<S>{0,100}?"
    r"\b(?:merge|fusionn?\w*|push|land|ship|mergen?|haz\s+merge)\w*\b(?:\s+\w+){0,2}?\s+"
    r"(?:anyway|regardless|quand\s+même|trotzdem|igualmente|de\s+todos\s+modos|mesmo\s+assim|comunque|lo\s+stesso)\b|"
    r"\bmake\s+(?:the\s+)?(?:failing|broken|red)\s+(?:tests?|specs?|checks?)\s+pass\s+by\s+(?:catching|swallowing|ignoring|"
    r"suppressing|deleting|removing|commenting|skipping|returning|wrapping|mocking\s+out)\b|"
    r"\breplace\s+(?:the\s+)?(?:failing\s+|broken\s+)?(?:assertions?|asserts?|expects?|checks?)\s+with\s+"
    r"(?:print|log|console\.log|comments?|pass\b|nothing|no-?ops?)|"
    r"\b(?:when|if|whenever)\s+(?:the\s+)?(?:linter|type\s*checker|mypy|eslint|ruff|checker|scanner|ci|clippy|rubocop)\s+"
    r"(?:complains|fails|flags|errors|warns)\w*\b<S>{0,20}?\b(?:add|put|use|sprinkle)\s+[`'\"]?(?:#\s*noqa|#\s*type:\s*ignore|"
    r"//\s*eslint-disable|@ts-ignore|@ts-expect-error|#\s*nosec|//\s*nolint|@suppresswarnings|#\[allow)|"
    r"\bapprove\s+your\s+own\b|\bself[-\s]?approv\w*|"
    r"\bmerge\w*\b<S>{0,40}?\bwithout\s+(?:waiting\s+for\s+)?(?:an?\s+|the\s+|any\s+)?(?:reviews?|reviewers?|approvals?)\b|"
    # (not told as what happened: "… were merged without reading")
    r"(?<!\bwere\s)(?<!\bwas\s)(?<!\bgot\s)(?<!\bbeen\s)"
    r"\b(?:update|accept|approve|merge|regenerate|overwrite)\w*\b<S>{0,60}?\bwithout\s+(?:looking\s+at|reading|"
    r"reviewing|checking|inspecting|examining)\b|"
    r"\b(?:expected|assert\w*|expectations?)\b<S>{0,40}?\bwhatever\b<S>{0,30}?\b(?:returns?|outputs?|produces?|gives?)\b",
)
HIDES_FAILURE_KEYS = (
    "it xit xdescribe describe test disabled ignore t pytest unittest marktestskipped fail broken red catcherror "
    "ignorefailures testfailureignore maven dmaven delete remove disable drop comment échou fehlschlag schlagen "
    "falla falh fallisc падают упал approve self merge update accept regenerate overwrite expected assert expectation "
    "make replace when if whenever rot kaputt cass roto",
    "@ #[ [ignore] [skip]",
)

# A check weakened instead of a fix, said so ("silence the rule instead of fixing the code", "desactiva la
# prueba en lugar de arreglar el error", "statt den Fehler zu beheben"): a weakening word, then the fix
# it stands in for.
WEAKENED_OVER_FIX = _compile(
    r"\b(?:skip|silenc|suppress|disabl|ignor|exclu|mute|loosen|relax|lower|xfail|comment\w*\s+out|desactiv|omit|"
    r"salta|deaktivier|überspring|ausschlie|désactiv|saute|abaiss|baiss|desativ|pul[ae]|disattiv|abbass)\w*\b<S>{0,80}?"
    r"(?:\b(?:instead\s+of|rather\s+than)\s+(?:\w+\s+)?(?:fix|repair|correct|solv|address|investigat|debug|resolv|"
    r"look\w*\s+into)\w*|"
    r"\b(?:en\s+(?:lugar|vez)\s+de|au\s+lieu\s+de|em\s+(?:vez|lugar)\s+de|invece\s+di)\s+(?:\w+\s+)?"
    r"(?:arregl|correg|solucion|investig|corrig|répar|résoud|cherch|consert|resolv|sistem)\w*|"
    r"\b(?:an)?statt\s+(?:\w+\s+){0,3}zu\s+(?:beheb|fix|reparier|korrigier|untersuch)\w*)",
)
WEAKENED_OVER_FIX_KEYS = (
    "skip silenc suppress disabl ignor exclu mute loosen relax lower xfail comment desactiv omit salta deaktivier "
    "überspring ausschlie désactiv saute abaiss baiss desativ pula pule disattiv abbass",
    "",
)

# Secrets or the environment sent where others read them: a public issue or gist, telemetry, a collector.
# (the secret files a developer's machine holds: `.env` but not its `.example`, package-registry and
# cloud logins)
_SECRET_FILES = (
    r"\bprintenv\b|\bprocess\.env\b|\bos\.environ\b|\.aws/credentials\b|\.ssh/id_\w+|\bsecrets?\s+files?\b|"
    r"\bcredentials\s+files?\b|(?<![\w.])\.env(?![\w.-])|\.npmrc\b|\.netrc\b|\.pypirc\b|\.git-credentials\b|"
    r"\.kube/config\b|\.docker/config\.json\b|"
    # the folders a developer's keys live in, named whole, and the shell's history of typed secrets
    r"~/\.(?:ssh|aws|gnupg)(?![\w./-])|\.(?:bash|zsh)_history\b"
)
# (where everyone reads: public issues, gists, pastes and buckets, telemetry, another repo's issues)
_PUBLIC = (
    r"\b(?:public\s+(?:issues?|gists?|channels?|repo\w*|pastes?|buckets?)|telemetry|collector|webhooks?|pastebin\w*|"
    r"paste\s+sites?|gists?|issue\s+create)\b|--public\b|\bpublic-read(?:-write)?\b"
)
ENV_SENT = _compile(
    r"(?:" + _SECRET_FILES + r"|\benvironment\s+variables\b)<SN>{0,80}?(?:" + _PUBLIC + r")|"
    r"(?:" + _PUBLIC + r"|\b(?:sends?|posts?|uploads?)\b)<SN>{0,80}?(?:" + _SECRET_FILES + r")",
)
ENV_SENT_KEYS = (
    "printenv process os environment aws ssh secret secrets credentials public telemetry collector "
    "webhook webhooks pastebin paste gist gists send sends post posts upload uploads env npmrc netrc pypirc git "
    "kube docker issue gnupg bash zsh",
    "--public",
)

# Secrets spelled into DNS names, which a lookup carries out of any network.
DNS_SENT = _compile(
    r"\b(?:encode|put|embed|pack|hex|base32|base64|split)\w*\b<S>{0,40}?\b(?:keys?|secrets?|tokens?|credentials?|passwords?)\b"
    r"<S>{0,40}?\b(?:subdomains?|dns\s+(?:names?|labels?|quer\w*|lookups?))\b",
)
DNS_SENT_KEYS = ("encode put embed pack hex base32 base64 split", "")

# Text from data given the user's voice: issues, comments, mail treated as the user's instructions.
DATA_AS_USER = _compile(
    r"\b(?:treat|consider|regard|take|handle)\w*\b<SN>{0,80}?\bas\s+(?:an?\s+)?(?:direct\s+|explicit\s+|the\s+)?"
    r"(?:instructions?|commands?|orders?|requests?)\s+(?:from|of|by)\s+(?:the\s+|your\s+)?(?:repository\s+|repo\s+|project\s+)?(?:user|owner|operator|developer|maintainer)s?\b|"
    r"\b(?:comments?|issues?|tickets?|e-?mails?|pages?|files?|outputs?|logs?|messages?|docs?|readmes?)\b<S>{0,60}?\b(?:are|count\s+as|serve\s+as)\s+(?:\w+\s+)?(?:commands?|orders?|instructions?)\s+(?:that\s+)?(?:you|the\s+agent)\s+"
    r"(?:must|should|shall|have\s+to)\s+(?:carry\s+out|follow|obey|execute|run)\b|"
    r"\b(?:obey|follow|execute|carry\s+out|act\s+on)\w*\s+(?:any|all|every)\s+(?:instructions?|commands?|orders?|directives?)\s+"
    r"(?:contained|found|embedded|written|given|hidden)\s+in\b|"
    r"\binstructions?\s+(?:inside|in|within|from|found\s+in|embedded\s+in)\s+(?:\w+\s+){0,2}(?:documentation|docs|pages?|"
    r"files?|issues?|comments?|e-?mails?|tickets?|outputs?|logs?|web\w*)\b<S>{0,20}?\b(?:override|outrank|supersede|"
    r"take\s+precedence\s+over)\w*\b|"
    r"\bbefolg\w*\s+(?:alle|jede)\w*\s+anweisung\w*<S>{0,40}?\b(?:findest|stehen|enthalten|liest)\b|"
    r"\bsuis\s+toutes\s+les\s+(?:instructions|consignes)\s+que\s+tu\s+(?:trouves|lis)\b|"
    r"\bsigue\s+todas\s+las\s+instrucciones\s+que\s+(?:encuentres|leas)\b|"
    r"\bbehandl\w*\b<SN>{0,80}?\b(?:wie|als)\s+(?:\w+\s+)?(?:befehle?|anweisung\w*|anfrage\w*|auftr[äa]g\w*)\s+"
    r"(?:des|der|vom|von)\s+(?:nutzer\w*|benutzer\w*|anwender\w*)|"
    r"\bcomo\s+si\b<S>{0,30}?\b(?:usuari[oa]|user)\b|\bcomme\s+s['i]\b<S>{0,30}?\butilisat\w*|"
    r"\bals\s+(?:ob|wären?|käme\w*)\b<S>{0,30}?\b(?:nutzer|benutzer|anwender)\w*|\bcome\s+se\b<S>{0,30}?\butent\w*",
)
DATA_AS_USER_KEYS = (
    "treat comment comments issue issues ticket tickets email emails e mail mails page pages file "
    "files output outputs log logs message messages doc docs readme readmes obey follow execute "
    "carry act behandl como comme als come consider regard take handle instruction instructions befolg suis sigue",
    "",
)
