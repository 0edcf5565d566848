"""Family shapes read by what a sentence makes an agent do (issue 29, branch i29gaps), for three meanings
review found unread, each said in the words of several languages, never as a sentence seen:

- a secret placed where others read it: a key, token, password, cookie, session id, `.env` or
  credentials file put into a log, the build output, a shared bucket or drive, a chat, a ticket, an
  issue, a paste, the repository, a URL or an error message, whatever verb moves it there;
- a risk dismissed to license an act: "the risk is low, so …", "nobody will exploit it: …", "it's safe
  to …", followed by an act that exposes, disables or opens something; the dismissal is the pretext,
  and the act after it is an order however the sentence opened;
- checks weakened under a pretext: tests, linters, type checks, scans, hooks or reviews skipped,
  muted, deleted, marked to fail or retried until green when CI is slow, flaky, red or late, on a
  Friday, for a hotfix, to save time.

Like `wider_shapes`, each is one regex whose gaps are bounded and stay inside a sentence (or a line
where said), so the work is linear in the text; `families._shaped` runs them with its negation and
exception handling, and `exempt` holds what each must not read as an order.
"""

from __future__ import annotations

import re

from homeostat.core.scanners.risky.agent_shapes import _compile

# --- a secret placed where others read it -------------------------------------------------------------

# Secret material, by name, in English, German, Spanish, French, Italian and Portuguese.
_SECRET = (
    r"(?:(?:the|your|our|a|an|this|that|my|its|their|every|all|each|das|den|dem|der|die|el|la|los|las|le|les|o|os|"
    r"il|lo|un|una|um|uma)\s+(?:[\w-]+\s+)?tokens?\b|"
    r"(?:the|your|our|their|my|all\s+the|all)\s+keys\b|"
    r"(?:api|access|refresh|auth|bearer|session|deploy|npm|publish|github|gitlab|pypi|slack|bot|service|ci|"
    r"oauth|personal\s+access|registry|admin)[-\s]tokens?\b|"
    r"(?:ssh|signing|private|secret|api|access|deploy|encryption|master|root|aws|gcp|azure|service[-\s]account|"
    r"license)[-\s]keys?\b|"
    r"passwd\b|passphrases?\b|"
    # (a secret's tool is no secret: the secret scanner, the password manager)
    r"(?:secrets?|passwords?|credentials?)\b(?![-\s]+(?:scann\w*|manag\w*|stores?|detect\w*|mask\w*|redact\w*|rotation|names?|vaults?|"
    r"polic\w*|reset|fields?|hygiene|sprawl|hashing))|(?:session|auth|login)\s+cookies?\b|"
    r"session\s+(?:ids?|tokens?|keys?)\b|jwts?\b|client\s+secrets?\b|kubeconfig\b|connection\s+strings?\b|"
    r"environment\s+variables\b|env\s+vars\b|"
    r"(?:~/)?\.aws/credentials\b|id_(?:rsa|ed25519|ecdsa)\b|\.npmrc\b|\.pgpass\b|\.netrc\b|"
    r"\.env(?!\.(?:example|sample|template|dist|defaults)\b)(?:\.[\w-]+)?(?:\s+files?)?(?![\w.-])|"
    # German, Spanish and Portuguese, French, Italian
    r"passw[öo]rt\w*|kennw[öo]rt\w*|zugangsdaten|anmeldedaten|geheimnis\w*|"
    r"ssh-(?:schlüssel|keys?)\w*|(?:privat\w*|geheim\w*)\s+schlüssel\w*|"
    r"contraseñas?|credenciales|senhas?|credenciais|mots?\s+de\s+passe|identifiants|jetons?|credenziali|"
    r"(?:claves?|chaves?|clés?|cles?|chiavi)\s+(?:ssh|privad\w*|priv[ée]\w*|privat\w*|secret\w*|segret\w*|de\s+api|"
    r"d['’]api|api|de\s+acceso|de\s+acesso|d['’]accès))"
)
# Where others read it: logs and output, shared storage, chats, trackers, pastes, the repository, URLs.
_PLACE = (
    r"(?:(?:[\w#@~/.-]+\s+){0,3}?(?:logs?(?!\s+(?:in|on|out|into)\b)|log\s+output|output|stdout|stderr|console|buckets?|drives?|dropbox|"
    r"folders?|shares?|channels?|chats?|slack|discord|tickets?|issues?|jira|wiki(?:\s+pages?)?|confluence|"
    r"pastebins?|pastes?|gists?|descriptions?|comments?|commit\s+messages?|repo(?:sitory)?|readme|urls?|links?|"
    r"query\s+(?:strings?|param\w*)|error\s+messages?|responses?|e-mails?|emails?|spreadsheets?|sheets?|notion|forums?|"
    r"threads?|(?:bug\s+|incident\s+|support\s+)?reports?|support\s+cases?|protokoll\w*|ausgabe|konsole|[\w-]*-logs?|registros?|bit[áa]cora|consola|journa(?:l|ux)|sortie|"
    r"canal|canale|canais|depósito|dépôt|depot|repositorio|repositório)\b)"
)
# A destination before the place: "to", "into", "in", "on" and their like in the other languages.
_INTO = (
    r"\b(?:to|into|in|on|onto|inside|zu|im|ins|auf|al|en|dans|au|aux|sur|nel|nella|nei|nello|sul|sulla|nos|nas|ao|"
    r"para|no(?=\s+(?:canal|chat|log|registro|bucket|reposit|ticket|wiki|drive|pasta))|"
    r"na(?=\s+(?:canal|chat|log|registro|bucket|reposit|ticket|wiki|drive|pasta)))\s+(?:the\s+|a\s+|an\s+|our\s+|your\s+|every\s+|der\s+|die\s+|das\s+|"
    r"den\s+|dem\s+|des\s+|le\s+|les\s+|los\s+|las\s+|il\s+|lo\s+|o\s+|os\s+|un\s+|una\s+|um\s+|uma\s+)?"
)
# The gap between them: no other thing named with "and" or "or" (the place may be another's: "secrets, and
# write access to the repository").
_GAP = r"(?:(?!\b(?:and|or|und|oder|y|o|et|ou|e)\b)<SN>)"
SECRET_PLACED = _compile(r"(?<![\w.-])" + _SECRET + _GAP + r"{0,60}?" + _INTO + _PLACE)
SECRET_PLACED_KEYS = (
    "the your our a an this that my its their every all each api access refresh auth bearer session deploy "
    "npm publish github gitlab pypi slack bot service ci oauth personal registry admin ssh signing private "
    "secret encryption master root aws gcp azure license password passwd passphrase credential cookie jwt "
    "client kubeconfig connection environment env id_ token passw pass kennw zugangsdaten anmeldedaten "
    "geheim contrase credenciales senha credenciais mot mots identifiants jeton credenziali clave claves "
    "chave chaves clé clés cle cles chiavi privat",
    ".env .aws .npmrc .pgpass .netrc",
)

# --- a risk dismissed to license an act ---------------------------------------------------------------

_NOT_A_NEGATION = r"(?!(?:not|never|no|nicht|nie|kein\w*|pas|jamais|nunca|mai|non|não)\b)"
_LOW = (
    r"(?:low|lower|negligible|minimal|minor|tiny|small|slim|remote|acceptable|theoretical|zero|nil|none|"
    r"non-?existent|fine|ok|okay|gering\w*|niedrig\w*|minimal\w*|vernachlässigbar\w*|klein\w*|akzeptabel\w*|"
    r"bajo|baja|m[íi]nim[oa]|insignificante|pequeñ[oa]|aceptable|nul[oa]?|despreciable|faible|minime|"
    r"n[ée]gligeable|acceptable|petit|basso|bassa|trascurabile|accettabile|nullo|piccolo|baixo|baixa|"
    r"desprez[íi]vel|aceit[áa]vel|pequeno)\b"
)
# What says the danger is small: the risk rated low, attackers said unable or uninterested, nobody said
# to look, an exploit said unlikely, the act said safe.
_DISMISSAL = (
    r"\b(?:risks?|danger|chances?|likelihood|probability|exposure|threat|impact|blast\s+radius|risiko|gefahr|"
    r"riesgo|peligro|risque|danger|rischio|pericolo|risco|perigo)\b<L>{0,50}?\b(?:is|are|seems?|looks?|was|stays?|"
    r"remains?|ist|bleibt|es|est|è|é|sind|son|sont|sono|são)\s+(?:"
    + _NOT_A_NEGATION
    + r"\w+\s+){0,2}?"
    + _LOW
    + r"|"
    r"\b(?:no|little|zero|low|negligible|minimal)\s+(?:real\s+|actual\s+|serious\s+|big\s+|security\s+)?"
    r"(?:risks?|threat|danger|exposure)\b|"
    r"\brisks?\s*[:=]\s*(?:low|negligible|minimal|none|acceptable)\b|"
    r"\b(?:no\s*one|nobody|no\s+(?:attackers?|hackers?|adversar\w*|outsiders?|one\s+outside))\s+(?:\w+\s+)?"
    r"(?:will|can|could|would|is\s+going\s+to|ever|is\s+able\s+to)?\s*(?:\w+\s+)?"
    r"(?:exploit|abuse|reach|see|read|reads|find|notice|access|bother|care|stop|touch|target|attack|hack|guess|"
    r"steal|break|look|looks|check|checks)\w*|"
    r"\b(?:attackers?|hackers?|adversar\w*|bad\s+actors|outsiders)\s+(?:\w+\s+)?(?:can'?t|cannot|can\s+not|won'?t|"
    r"will\s+not|wouldn'?t|would\s+not|couldn'?t|could\s+not|never|(?:would|will|could)\s+(?:gain|get|learn)\s+nothing)\b|"
    r"\b(?:exploitation|exploits?|abuse|attacks?|leaks?|compromise|breach\w*)\s+(?:is\s+|are\s+|seems?\s+)?(?:\w+\s+)?"
    r"(?:unlikely|improbable|impossible|not\s+(?:a\s+)?(?:concern|realistic|likely))\b|"
    r"\bniemand\s+(?:wird|kann|würde)\b|\bnadie\s+(?:va\s+a|puede|podr[áa])\b|\bpersonne\s+ne\s+(?:va|peut|pourra)\b|"
    r"\bnessuno\s+(?:può|potrà|va)\b|\bningu[ée]m\s+(?:vai|pode)\b"
)
# How the act is licensed after it: "so", "therefore", a colon, a dash, a comma, or the same in the other
# languages; then perhaps "just", "go ahead and", "feel free to", "you can".
_CONNECTIVE = (
    r"(?:(?:and\s+)?(?:so|therefore|thus|hence|then|which\s+means)\b[,:]?|(?:action|do|fix|plan)\s*:|deshalb|daher|"
    r"also|darum|así\s+que|asi\s+que|por\s+(?:eso|lo\s+tanto|isso)|entonces|donc|alors|ainsi|quindi|perciò|dunque|"
    r"ent[ãa]o|portanto)"
)
_LICENSE = (
    r"(?:\s*(?:[,;:]|\s[-–—]+)\s*(?:" + _CONNECTIVE + r"\s*)?|\s+" + _CONNECTIVE + r"\s*)"
    r"(?:(?:just|simply|go\s+ahead\s+and|feel\s+free\s+to|you\s+(?:can|may|should)|we\s+(?:can|may|should)|"
    r"it'?s\s+fine\s+to)\s+)?"
)
# The act that licence is for: a verb that exposes, disables or opens in itself, or one that does so with
# what follows it (`_RISKY_OBJECT`).
_EXPOSING = (
    r"(?:disable|deactivate|turn\s+off|switch\s+off|skip|bypass|expose|publish|upload|share|send|post|paste|print|"
    r"echo|log|dump|leak|chmod|whitelist|sudo|curl|wget|mute|silence|comment\s+out|hard-?code|embed|sync|e-mail|email|"
    r"grant|make\s+(?:\w+\s+){0,3}(?:public|world-?readable|world-?writable)|force[-\s]push|"
    r"deaktivier\w*|abschalt\w*|ausschalt\w*|überspring\w*|lade|hochlad\w*|teile|sende|schick\w*|veröffentlich\w*|"
    r"desactiv\w*|deshabilit\w*|apag\w*|omit\w*|sube|subir|compart\w*|envía|envia|publica|imprim\w*|muestra|"
    r"désactiv\w*|coupe|saute|envoie|publie|partage|affiche|téléverse|televerse|disattiv\w*|spegni|salta|carica|"
    r"condividi|invia|pubblica|stampa|desativ\w*|desliga|pula|envie|compartilh\w*|publiqu\w*|mostre|coloque)\b"
)
# Verbs that do harm with what follows them: a guard removed or lowered, a host or a store opened wide,
# a change pushed past review, a secret put somewhere.
_GUARD = (
    r"(?:tests?|checks?|scans?|reviews?|auth\w*|tls|ssl|cert\w*|verif\w*|firewall|csrf|mfa|2fa|protection|"
    r"encryption|rate\s+limit\w*|sandbox|prod\w*|zertifikat\w*|certificado\w*|certificat\w*|"
    r"certificato\w*|revue|revisi[óo]n|revis[ãa]o|revisione|autenti\w*|authentifi\w*|verifica\w*|vérifica\w*)"
)
_WIDE_OPEN = (
    r"(?:root|admin\w*|sudo|privileged|0\.0\.0\.0|public\w*|world|777|666|plain[-\s]?text|unencrypted|http(?!s)|"
    r"host\s+network|docker\.sock|everyone|anyone|--force|force|without|no\s+(?:auth\w*|password|tls|ssl|review))"
)
_SECRET_WORD = (
    r"(?:secrets?|passwords?|tokens?|(?:ssh|api|private|signing|access|deploy)\s+keys?|credentials?|\.env|cookies?|"
    r"pii|personal\s+data|customer\s+(?:data|records)|contraseñas?|senhas?|passw[öo]rt\w*|mots?\s+de\s+passe|"
    r"claves?|clés?|chaves?|chiavi|credenciales|credenziali)"
)
_OPENING = (
    r"(?:(?:delete|remove|drop|lower|relax|loosen|widen|ignore|weaken|entfern\w*|lösch\w*|elimin\w*|borr\w*|"
    r"supprim\w*|rimuov\w*|remov[ae]\w*)\b<SN>{0,40}?\b" + _GUARD + r"|"
    r"(?:run|install|use|mount|deploy|open|allow|trust|accept|give|keep|leave|set|add|start|expose|abre|ouvre|apri|abra)"
    r"\b<SN>{0,60}?\b" + _WIDE_OPEN + r"|"
    r"(?:push|pushe|pousse|merge|commit|check\s+in|land|ship|deploy)\b<SN>{0,40}?\b(?:main|master|prod\w*|without|"
    r"sin|sans|ohne|senza|sem|force|--force|" + _SECRET_WORD + r")|"
    r"(?:store|save|put|copy|reuse|commit|leave|keep|write|speicher\w*|gib|guarda|stocke|salva|memorizza|armazen\w*)"
    r"\b<SN>{0,40}?\b" + _SECRET_WORD + r")\b"
)
RISK_DISMISSED = _compile(
    r"(?:" + _DISMISSAL + r")<L>{0,80}?" + _LICENSE + r"(?:" + _EXPOSING + r"|" + _OPENING + r")|"
    # "it's safe to …", "es seguro …": the act said harmless right before it
    r"\b(?:it'?s|it\s+is|that'?s|this\s+is|es\s+ist|es|c['’]est|è|é)\s+(?:"
    + _NOT_A_NEGATION
    + r"\w+\s+)?(?:safe|fine|ok|okay|harmless|"
    r"sicher|harmlos|seguro|sûr|sans\s+risque|sicuro)\s+(?:to|zu|para|de|d['’])\s+(?:"
    + _EXPOSING
    + r"|"
    + _OPENING
    + r")"
)
RISK_DISMISSED_KEYS = (
    "risk risks danger chance chances likelihood probability exposure threat impact blast risiko gefahr riesgo "
    "peligro risque rischio pericolo risco perigo no little zero low negligible minimal nobody attacker "
    "attackers hacker hackers adversar bad outsiders exploitation exploit exploits abuse attack attacks leak "
    "leaks compromise breach niemand nadie personne nessuno ningu it it's that's this es c'est è é",
)

# --- checks weakened under a pretext ------------------------------------------------------------------

_WEAKEN = (
    r"(?:skip|disable|mute|silence|comment\s+out|delete|remove|drop|turn\s+off|switch\s+off|bypass|ignore|"
    r"deselect|suppress|lower|loosen|relax|dismiss|override|retry|rerun|re-run|"
    r"überspring\w*|deaktivier\w*|entfern\w*|lösch\w*|ignorier\w*|desactiv\w*|deshabilit\w*|salt[ae]\w*|omit\w*|"
    r"elimin\w*|borr\w*|ignor[ae]\w*|coment[ae]\w*|désactiv\w*|saute\w*|supprim\w*|commente\w*|disattiv\w*|"
    r"rimuov\w*|pula\w*|desativ\w*|remov[ae]\w*)\b"
)
_CHECKS = (
    r"(?:tests?|test\s+(?:suites?|jobs?|steps?)|suites?|specs?|linters?|lint(?:ing)?|type[-\s]?check\w*|mypy|tsc|"
    r"pyright|scans?|scanners?|hooks?|pre-commit|checks?|reviews?|approvals?|codeql|sast|alerts?|thresholds?|"
    r"e2e|end-to-end|pruebas?|prüfung\w*|kontrollen|controles|contr[ôo]les|controlli|verifiche|testes|"
    r"tests\s+d['’]\w+)\b"
)
# What a weakening is done for, or when: CI slow, flaky, red or late, a Friday, a hotfix, time saved.
_PRETEXT_WORD = (
    r"(?:slow\w*|flak\w*|late|red|fail\w*|broken|break\w*|time\s*out|timing\s+out|timeouts?|block\w*|hotfix\w*|"
    r"urgent|emergenc\w*|deadline|hurry|rush\w*|fridays?|weekends?|crunch|complain\w*|annoy\w*|noisy|"
    r"langsam\w*|rot|fehl\w*|schlägt|dringend|lent[oae]s?|rojo|roja|fall[ae]\w*|bloque\w*|urgente|prisa|"
    r"rouge|échou\w*|echou\w*|urgence|press[ée]|rosso|fallisc\w*|blocc\w*|fretta|vermelh\w*|falh\w*)\b"
)
_WHEN = (
    r"\b(?:when|whenever|if|once|while|during|before|as\s+soon\s+as|every\s+time|each\s+time|wenn|falls|sobald|"
    r"cuando|si|siempre\s+que|quand|lorsque|d[èe]s\s+que|quando|se|sempre\s+che|caso)\b<S>{0,50}?\b"
    + _PRETEXT_WORD
)
_FOR = (
    # put off until a date that only pressure sets: "ignore lint errors until the release ships"
    r"\b(?:until|till)\s+(?:after\s+)?(?:the\s+|our\s+|this\s+|next\s+)?(?:[\w-]+\s+)?(?:releases?|launch\w*|demo|deadline|"
    r"ship\s+date)\b|"
    r"\b(?:on\s+fridays?|for\s+(?:hotfix\w*|urgent|emergency|quick)|to\s+save\s+time|"
    r"so\s+(?:they|it|we|you|the\s+\w+)\s+(?:merge|ship|land|go|run)s?\s+faster|to\s+(?:merge|ship|move|go)\s+faster|"
    r"as\s+a\s+(?:habit|routine)|routinely|for\s+now|temporarily|for\s+(?:this|the)\s+(?:sprint|release|week|launch)|"
    r"just\s+this\s+(?:once|time|sprint|week))\b"
)
_WEAKENED = (
    r"(?:"
    + _WEAKEN
    + r"<SN>{0,60}?\b"
    + _CHECKS
    + r"|(?:(?:add|use|put|append|mark|tag)\w*\s+(?:<SN>{0,40}?\s)?)?"
    r"(?:xfail\w*|--no-verify|#\s?type:\s?ignore|#\s?noqa|@?pytest\.mark\.skip\w*))"
)
_PRETEXT = r"(?:" + _WHEN + r"|" + _FOR + r")"
CHECKS_WEAKENED_WHEN = _compile(
    _WEAKENED
    + r"<SN>{0,80}?"
    + _PRETEXT
    + r"|"
    # the pretext first: "When the build runs late, turn off the type checks", "On Fridays, skip …"
    + _PRETEXT
    + r"<S>{0,30}?,\s*(?:then\s+|just\s+|simply\s+)?"
    + _WEAKENED
    + r"|"
    # retried until it passes: "retry the job until it goes green", "rerun failing tests until they pass"
    r"\b(?:retry|rerun|re-run|restart|re-trigger|retrigger)\b<SN>{0,40}?\b(?:tests?|jobs?|builds?|pipelines?|ci|"
    r"workflows?|checks?)\b<SN>{0,40}?\buntil\b<S>{0,30}?\b(?:green|pass\w*|succeed\w*|works?)\b|"
    # some tests deselected, and the deselected never run anywhere: "-k 'not slow' on every PR, never run the rest"
    r"(?<![\w-])-k\s+[\"']?not\s+[\w-]+[\"']?<S>{0,60}?\b(?:never|don'?t|do\s+not)\s+(?:run|execute)\s+"
    r"(?:them|those|the\s+(?:[\w-]+\s+)?ones|the\s+rest)\b"
)
CHECKS_WEAKENED_WHEN_KEYS = (
    "skip disable mute silence comment delete remove drop turn switch bypass ignore deselect suppress lower "
    "loosen relax dismiss override retry rerun re überspring deaktivier entfern lösch ignorier desactiv "
    "deshabilit salt omit elimin borr ignor coment désactiv desactiv saute supprim commente disattiv rimuov "
    "pula desativ remov xfail when whenever if once while during before as every each wenn falls sobald "
    "cuando si siempre quand lorsque dès des quando se sempre caso on for to so routinely restart retrigger until "
    "till temporarily just",
    "--no-verify # -k",
)

# --- what each must not read as an order ---------------------------------------------------------------

# Something done to a secret that keeps it, in the clause before it: rotated, masked, scanned for.
_PROTECTS = re.compile(
    r"\b(?:rotat\w*|revok\w*|invalidat\w*|regenerat\w*|reissu\w*|redact\w*|mask\w*|scrub\w*|purg\w*|detect\w*|"
    r"encrypt\w*|hash\w*|(?:scan|check|search|look)\w*\s+for|find\w*|rotier\w*|widerruf\w*|revoc\w*|rot[ae]\w*)\b"
)
# Where the clause holding the secret starts.
_CLAUSE_MARK = re.compile(r"[.;:!?,(\n]|\s[-–—]\s")
# What the secret does right after it, as the subject of a verb that tells of it: "the session id is
# exchanged over …", "a reset token will be sent to …", "if they were ever uploaded to …", "secrets can be
# exfiltrated (printing to logs …)"; not an order given in the passive ("the token must be printed to the
# log", "is to be posted"), nor a permission ("the key can be uploaded to the bucket").
_TOLD_OF = re.compile(
    r"\s*(?:\w+\s+)?(?:(?:if|when|whenever|once|after|in\s+case)\s+(?:they|it|one|any\s+\w+)\s+)?(?:ever\s+)?"
    r"(?:(?:is|are|was|were|been|being|gets?|got|has|have|had)(?!\s+to\b)|could|might|would|will|leaks?|ends?\s+up|"
    r"(?:can|may)\s+(?:be\s+|get\s+)?(?:exfiltrat|leak|stolen|steal|expos|disclos|intercept|captur|compromis|harvest|"
    r"sniff|seen|read\b))",
)
_OBLIGED = re.compile(r"\b(?:must|should|shall|needs?\s+to|is\s+to|are\s+to|has\s+to|have\s+to)\b")
# …or a hypothesis before it: "the URL might disclose the session ID (in logs …)"; not a suggestion ("you
# could paste the token into Slack").
_MIGHT = re.compile(r"(?<!\byou\s)(?<!\bwe\s)\b(?:might|could|would)\s+(?:\w+\s+){0,2}$")
# …or tells of it as something done in a condition: "if someone pasted a password into the chat, …".
_HAPPENED = re.compile(
    r"\b(?:if|when|whenever|once|after|because|since|in\s+case)\s+(?:\w+\s+){0,3}?"
    r"(?:\w+ed|sent|put|got|wrote|written|left|made|shown|given)\s+(?:(?:the|a|an|their|his|her|your|some|any)\s+)?$"
)
# The secret opens its clause, an article or a participle before it: "shared credentials in Slack are a
# risk", "tokens in URLs end up in proxy logs".
_CLAUSE_OPEN = re.compile(
    r"^\s*(?:[-*+>]\s+)?(?:(?:the|a|an|any|your|our|their|its|every|each|all|some|no|"
    r"der|die|das|el|la|los|las|le|les|il|lo|o|os|as|un|una|um|uma)\s+)?(?:(?!embed\b)[\w-]+(?:ed|en)\s+)?$"
)
# …or a doer's habit told in the third person before it: "the agent posts a token in a PR comment" (an
# imperative ending in -s has no doer before it: "pass the token in the URL"; nor is an article a verb:
# "gib das API-Token …", "sube las claves …").
_DOER_DOES = re.compile(
    r"^\s*(?:[-*+>]\s+)?(?:(?:the|a|an|this|that|its|their|our|any|every|each|some|one)\s+)?[\w-]+\s+(?:[\w-]+\s+)?"
    r"(?!(?:das|des|les|las|los|os|as|his|its|this|is|was|has|does|dies|plus|thus|alles)\s)[\w-]+(?<!ss)(?<!us)s\s+"
    # (a determiner after the verb: "it dumps every secret into the container log")
    r"(?:(?:every|all|each|the|your|our|their|its|any)\s+)?$"
)
# What is printed is about the secret, not the secret: "the name of the token", "the expiry of the key".
_ABOUT = re.compile(
    r"\b(?:names?|ids?|types?|paths?|locations?|counts?|numbers?|expir\w*|ages?|lengths?|scopes?)\s+of\s+"
    r"(?:the\s+|a\s+|an\s+|each\s+|every\s+)?$"
)
_SECRET_AT = re.compile(_SECRET)


# A bare "the tokens" or "the keys" after an English determiner names a secret only when an act puts it
# somewhere: "Post the keys in the ticket" does, "Count the tokens in the chat" (a model's tokens) or "Sort
# the keys in the ticket table" (a map's keys) does not.
_BARE_SECRET = re.compile(
    r"(?:the|your|our|a|an|this|that|my|its|their|every|all|each|all\s+the)\s+(?:[\w-]+\s+)?(?:tokens?|keys)\b"
)
_PLACING = re.compile(
    r"\b(?:post|paste|put|share|send|sent|write|wrote|print|log|dump|copy|copie|add|include|attach|commit|push|"
    r"upload|store|save|leave|drop|forward|e-?mail|mail|publish|expose|echo|hard-?code|embed|check\s+in|pin|"
    r"list|give|hand|dm|message|show|display|output|return|place|stick|record|note|cc)\w*\b"
)


def secret_not_placed(before: str, match: str, after: str = "") -> bool:
    """The secret is not put anywhere: the clause before it protects it (rotates, masks, scans for it),
    tells of a part of it or something about it, makes it a hypothesis, a condition past or a doer's habit; or the secret is what the
    clause tells of, its subject with the place its own ("API keys in URLs end up in proxy logs") or the
    verb after it telling what happens to it ("if a token was posted in an issue", "the session id is
    exchanged over …"), or the subject of a consequence told after its place (`after`, the words that
    follow the match: "credentials in a build log give access to anyone")."""
    clause = before[max((m.end() for m in _CLAUSE_MARK.finditer(before)), default=0) :]
    if any(p.search(clause) for p in (_PROTECTS, _ABOUT, _MIGHT, _HAPPENED, _DOER_DOES)):
        return True
    if _BARE_SECRET.match(match) and _PLACING.search(clause) is None and _PLACING.search(match) is None:
        return True  # "count the tokens in the chat": nothing puts them there
    secret = _SECRET_AT.match(match)
    gap = match[secret.end() :] if secret else match
    told = (_TOLD_OF.match(gap) is not None or _FOUND_THERE.fullmatch(gap) is not None) and _OBLIGED.search(
        gap
    ) is None
    subject = _CLAUSE_OPEN.match(clause) is not None
    return (
        told
        or (subject and _INTO_AT.match(gap) is not None)
        or (
            _CONSEQUENCE_OPEN.match(clause) is not None
            and _INTO_AT.match(gap) is not None
            and _VERB_AFTER_PLACE.match(after) is not None
        )
    )


_INTO_AT = re.compile(r"\s*" + _INTO)
# The secret as the subject of a consequence: a word naming it at most before it (after "so" or "because"),
# then its place, then right after it (a word of the place's between at most) the verb that tells what
# follows ("so a bearer token in a log line is effectively published", "Cluster credentials in a build log
# give cluster access to anyone"). An order has its verb before the secret, and one after the place is
# another clause's ("… in the log that is public", "… in the channel so everyone is unblocked").
_CONSEQUENCE_OPEN = re.compile(
    r"^\s*(?:[-*+>]\s+)?(?:(?:so|because|since|otherwise|else|thus|hence|therefore)\s+)?"
    r"(?:(?:the|a|an|any|every|each|all|some|no)\s+)?(?:[\w-]+\s+)?$",
    re.IGNORECASE,
)
_VERB_AFTER_PLACE = re.compile(
    r"\s*(?:[\w-]+\s+)?(?:is|are|was|were|gives?|grants?|lets?|allows?|exposes?|means?|becomes?|ends?\s+up|"
    r"stays?|remains?)\b",
    re.IGNORECASE,
)
# The place told by a participle right after the secret, and nothing else: "secrets discovered in code or
# logs", "tokens found in the build output"; not one the secret is sent on to ("the SSH keys stored in
# ~/.ssh into the team chat").
_FOUND_THERE = re.compile(
    r"(?:\s*(?:\w+ed|found|seen|shown|left|kept|written|stolen)|<S>{0,40}?\b(?:scoped|stored|kept|found|discovered|"
    r"detected|seen|limited|restricted|bound|tied|pinned|issued|granted|held|appears|lives|sits|ends\s+up|shows\s+up|"
    r"turns\s+up|lands))\s*".replace("<S>", r"[^.;\n]")
    + _INTO
    + _PLACE
)
