"""The words of the topic gate's mechanism topics (`safety.topics`): security-relevant mechanisms a
lesson sets the handling of — how failures are handled, retries and timeouts, caches, how queries
and commands are built, identifiers and randomness, deserialisation, personal data, access
control, defaults and flags, input handling.

Why topics and not harms: a red team told to write harm as an ordinary engineering choice ("key
the page cache on the path", "if the permission service is down, allow the request", "assemble
ORDER BY from the sort parameter") uses no word a harm table can list, but it cannot avoid naming
the mechanism it sets. So a lesson that sets how code handles one of them goes to a person by
default, however it is phrased; a team accepts a mechanism unread by listing its topic in
`scoring.autoMerge.subjects`.

Each topic is read like the other topics (`topic_words`): a few distinctive phrases alone, and a
word shared with everyday code ("cache", "error", "query", "default", "role") only beside a second
concept in the same sentence that makes it the setting of the mechanism (a key, a lifetime, a
limit, a source, a scope, a fallback). Stems are regex fragments over the gate's canonical reading
(lower case, digits inside words folded as leetspeak: `uuid4` reads `uuida`, `base64` `basega`);
every repeat is bounded, so each concept is one linear pass.

Two moves toward safety do not count (`topics._counts`). A dangerous act forbidden in its own
clause ("never unpickle user data"): the act concepts are listed in `MECHANISM_ACTS`. And a
safeguard asked for by its safe value (`SAFE_VALUES`: "use parameterised queries", "include the
tenant id in every cache key", "cap retries at 3 with exponential backoff"), but only when the
sentence also holds no weakener (`MECHANISM_WEAKENERS`: a negation, "without", "except", "but",
"only", "forever", "public", a swap such as "rather than" or "over"). The safe values are narrow
names of the safeguard itself (a bound parameter, a per-user key part, a small cap, a safe loader),
not adjectives an attacker can sprinkle ("secure", "safe", "careful"); a rule that names the safe
value and weakens it in the same sentence still goes to a person.
"""

from __future__ import annotations

_GAP2 = r"(?:\S{1,80}\s+){0,2}?"
_GAP3 = r"(?:\S{1,80}\s+){0,3}?"
_GAP4 = r"(?:\S{1,80}\s+){0,4}?"
_GAP6 = r"(?:\S{1,80}\s+){0,6}?"

MECHANISM_TOPICS: dict[str, str] = {
    "error-handling": "it is about how failures are handled (caught, swallowed, fallen back, failing open or closed, shown)",
    "retries-and-timeouts": "it is about retries, timeouts, attempt limits and how long things may run",
    "caching": "it is about caches (keys, lifetimes, shared, CDN or HTTP caching, memoisation)",
    "query-building": "it is about how SQL, NoSQL, shell, template or HTML strings are built from values",
    "identifiers-and-randomness": "it is about how ids, tokens, codes and links are generated (sequence, time, randomness)",
    "deserialisation": "it is about parsing or loading serialised objects and formats from untrusted input",
    "personal-data": "it is about keeping, storing, copying or exposing personal or customer data",
    "access-control": "it is about roles, permissions, scopes, tenancy or ownership checks",
    "defaults-and-flags": "it is about default settings, feature flags, debug toggles or environment switches",
    "input-handling": "it is about validating, trusting or using request input (uploads, paths, redirects, URLs, sizes)",
}

MECHANISM_WORDS: dict[str, tuple[str, ...]] = {
    # --- error-handling --------------------------------------------------------------------------
    "error_catchall": (
        r"except\s*(?:exception\s*)?(?:as\s+\w{1,40}\s*)?:\s*(?:pass|continue)\b",
        r"bare\s+`?except\b",
        r"catch\w*\s+" + _GAP2 + r"(?:every|all|any)\s+(?:exceptions?|errors?|throwables?|failures?)",
        r"catch\s*\(\s*\w{0,40}\s*\w{0,40}\s*\)\s*\{\s*\}",
        r"fail\w*[-\s]open",
        r"swallow\w*\s+" + _GAP3 + r"(?:errors?|exceptions?|failures?)",
        r"on_?errors?\s*[=:]\s*['\"]?(?:ignore|continue|resume)",
        r"errors\s*=\s*['\"]?ignore",
        r"suppress\(\s*exception",
        r"rescue\s+nil",
    ),
    "fail_word": (
        r"unreachable",
        r"unavailable",
        r"times?\s+out\b",
        r"timed\s+out\b",
        r"(?:is|are|goes|go)\s+down\b",
        r"fails?\b",
        r"failed\b",
        r"failures?\b",
        r"errors?\b",
        r"exceptions?\b",
        r"raises?\b",
        r"goes\s+wrong",
        r"throws?\b",
        r"try\s*/\s*(?:except|catch)",
        r"wirft\b",
        r"fehler\w*",
        r"ne\s+répond\s+pas",
        r"erreurs?\b",
        r"échou\w*",
        r"no\s+responde\w*",
        r"falla\w*",
        r"ошибк\w*",
        r"недоступ\w*",
        r"не\s+отвеча\w*",
        "失败",
        "出错",
        "异常",
        "エラー",
        "失敗",
        "例外",
    ),
    "fail_open": (
        r"treat\w*\s+"
        + _GAP4
        + r"as\s+(?:allowed|valid|authori[sz]ed|authenticated|success\w*|ok|passed|approved|granted)",
        r"let\s+" + _GAP4 + r"through\b",
        r"fall\w*\s+back\b",
        r"fallback\w*",
        r"return\w*\s+(?:the\s+)?(?:payload|true|200|ok|success|input|unverified)",
        r"(?:answer|respond|reply|return)\w*\s+(?:with\s+)?(?:a\s+)?(?:200|ok|success)\b",
        r"(?:keep|carry|continu|proceed)\w*\s+(?:on|serving|going|anyway|with)\b",
        r"(?:means|count\w*\s+as)\s+(?:a\s+)?(?:score\s+)?(?:zero|0|pass|success|ok|allowed|valid)",
        r"(?:allow|accept|approv|grant)\w*\s+(?:it|the\s+request|the\s+order|access)\s+anyway",
        r"laisse\w*\s+passer",
        r"mach\w*\s+(?:einfach\s+)?weiter",
        r"fange?\w*\s+" + _GAP3 + r"ab\b",
        r"deja\w*\s+pasar",
        r"continú\w*",
        r"пропуска\w*",
        r"продолжа\w*",
        "继续",
        "放行",
        "続行",
        "通過",
    ),
    "error_detail": (
        r"stack\s*traces?",
        r"tracebacks?",
        r"exception\s+(?:details?|messages?|text)",
        r"internal\s+errors?\s+(?:details?|messages?)",
    ),
    "error_audience": (
        r"(?:error\s+)?(?:bod(?:y|ies)|responses?|pages?)\b",
        r"clients?\b",
        r"users?\b",
        r"browsers?\b",
        r"api\b",
        r"json\b",
    ),
    # --- retries-and-timeouts ----------------------------------------------------------------------
    "retry_alone": (
        r"without\s+(?:a\s+|an\s+|any\s+)?(?:timeouts?|time\s*limits?|deadlines?|backoff|retry\s+limits?|"
        r"idempotency\s+keys?|max(?:imum)?\s+(?:attempts|retries|tries))",
        r"no\s+(?:timeouts?|time\s*limits?|deadlines?|backoff|max(?:imum)?\s+(?:attempts|retries|tries)|retry\s+limits?)\b",
        r"retr(?:y|ies|ied|ying)\s+" + _GAP4 + r"(?:forever|indefinitely|endlessly)",
        r"unlimited\s+(?:\S{1,80}\s+)?(?:attempts|retries|tries|login)",
        r"max_?retries\s*[=:]\s*(?:none|-[1i]|0)\b",
        r"timeout\s*[=:]\s*(?:none|0|-[1i])\b",
        r"statement_timeout",
    ),
    "retry_word": (
        r"retr(?:y|ies|ied|ying)\b",
        r"re-?tr(?:y|ies|ied|ying)\b",
        r"re-?send\w*",
        r"re-?submit\w*",
        r"attempts?\b",
        r"backoff",
        r"lockouts?",
        r"reintent\w*",
        r"intentos?\b",
        r"réessa\w*",
        r"tentatives?\b",
        r"wiederhol\w*",
        r"versuche?\b",
        r"повтор\w*",
        r"попыт\w*",
        "重试",
        "リトライ",
        "再試行",
    ),
    "timeout_word": (
        r"time-?outs?\b",
        r"time\s*limits?",
        r"deadlines?",
        r"session\s+(?:lifetime|expiry|length|duration)",
        r"zeitlimit\w*",
        r"tiempo\s+de\s+espera",
        r"délai\w*",
        r"таймаут\w*",
        "超时",
        "タイムアウト",
    ),
    "limit_setting": (
        r"forever",
        r"indefinitely",
        r"endless\w*",
        r"unlimited",
        r"unbounded",
        r"infinit\w*",
        r"unendlich\w*",
        r"none\b",
        r"null\b",
        r"-[1i]\b",
        r"immediately",
        r"\d{1,4}\s+(?:days?|weeks?|months?|years?|hours?)",
        r"max\w*",
        r"cap\w*",
        r"at\s+most",
        r"limit\w*",
        r"raise\w*",
        r"increas\w*",
        r"extend\w*",
        r"bump\w*",
        r"sin\s+l[ií]mite\w*",
        r"sans\s+limite\w*",
        r"ohne\s+(?:limit|grenze)\w*",
        r"без\s+ограничен\w*",
        "无限",
        "無制限",
    ),
    # --- caching --------------------------------------------------------------------------------------
    "cache_alone": (
        r"cache-control",
        r"cache[-_\s]keys?",
        r"memoi[sz]\w*",
        r"vary\s*:",
        r"vary\s+headers?",
        r"surrogate-(?:key|control)",
        r"s-maxage",
        r"max-age",
        r"(?:edge|proxy|shared|reverse[-\s]proxy|cdn|http|response)[-\s]cach\w*",
        r"cdns?\b\s+" + _GAP3 + r"cach\w*",
        r"cach\w*\s+"
        + _GAP4
        + r"(?:authenticated|per[-\s]user|private|personal|account|tenants?|sessions?|tokens?|permissions?|authori[sz]ations?)\b",
        r"cach\w*\s+" + _GAP3 + r"across\s+(?:tenants|users|accounts|customers)",
        r"mets?\s+en\s+cache",
    ),
    "cache_word": (
        r"cach(?:e|es|ed|ing)\b",
        r"redis\b",
        r"memcached?",
        r"caché\b",
        r"кэш\w*",
        r"кеш\w*",
        "缓存",
        "キャッシュ",
    ),
    "cache_setting": (
        r"key\w*",
        r"ttl\b",
        r"expir\w*",
        r"invalidat\w*",
        r"evict\w*",
        r"shar\w+",
        r"public\b",
        r"user\s+ids?",
        r"tenant\w*",
        r"for\s+(?:a|one|an)\s+(?:day|week|month|hour)",
        r"\d{1,4}\s+(?:days?|hours?|weeks?|months?)",
        r"forever",
        r"under\s+the\b",
        r"reus\w*",
        r"utilisateur\w*",
        r"benutzer\w*",
        r"konto\w*",
        r"usuario\w*",
        r"une\s+heure",
        r"eine\s+stunde",
    ),
    # --- query-building --------------------------------------------------------------------------------
    "query_alone": (
        r"query_string",
        r"render_template_string",
        r"template\(\s*\w{1,40}\s*\)\.render",
        r"\.raw\(",
        r"\braw\(\)",
        r"where\s+\w{1,40}\s*=\s*'?[\"']\s*\+",
        r"order\s+by\s+" + _GAP6 + r"(?:parameter|param|request|client|user|input)\w*",
        r"sql-(?:запрос|consulta)\w*",
    ),
    "query_word": (
        r"sql\b",
        r"quer(?:y|ies)\b",
        r"where\s+clauses?",
        r"order\s+by",
        r"ldap\b",
        r"(?:ldap|mongo\w*|search|elasticsearch)\s+filters?",
        r"mongo\w*",
        r"nosql",
        r"elasticsearch",
        r"command\s+lines?",
        r"shell\s+(?:commands?|strings?)",
        r"xpath",
        r"consulta\w*",
        r"requête\w*",
        r"abfrage\w*",
        r"запрос\w*",
        "查询",
        "クエリ",
    ),
    "query_assembly": (
        r"assembl\w*",
        r"build\w*",
        r"construct\w*",
        r"creat\w*",
        r"concatenat\w*",
        r"interpolat\w*",
        r"join\w*",
        r"merg\w*",
        r"splic\w*",
        r"format\w*",
        r"f-strings?",
        r"%\s*formatting",
        r"\+\s*\w{1,40}\s*\+",
        r"as\s+is\b",
        r"(?:straight|directly)\s+into",
        r"from\s+" + _GAP3 + r"(?:parameters?|params?|requests?|forms?|inputs?|clients?|users?)\b",
        r"render\w*",
        r"put\w*\s+" + _GAP4 + r"into\b",
        r"construy\w*",
        r"concatenand\w*",
        r"concaten\w*",
        r"собира\w*",
        r"конкатенац\w*",
        r"zusammen\w*",
        "拼接",
        "組み立て",
    ),
    # --- identifiers-and-randomness ----------------------------------------------------------------
    "id_alone": (
        r"auto-?increment\w*",
        r"sequential\w*",
        r"guessabl\w*",
        r"predictabl\w*",
        r"uuid[1i]\b",
        r"incremental\s+ids?",
        "递增",
        "連番",
    ),
    "id_word": (
        r"ids?\b",
        r"identifiers?",
        r"tokens?\b",
        r"codes?\b",
        r"links?\b",
        r"urls?\b",
        r"api\s+keys?",
        r"nonces?",
        r"otps?\b",
        r"coupons?",
        r"invites?\b",
        r"reset\s+(?:codes?|links?|tokens?)",
        r"numbers?\b",
        r"codes?\s+de\s+v[ée]rifica\w*",
        r"identifiant\w*",
        r"kennung\w*",
        r"идентификатор\w*",
        "编号",
        "链接",
        "识别码",
    ),
    "id_source": (
        r"increment\w*",
        r"sequen\w*",
        r"timestamps?",
        r"current\s+time",
        r"(?:system\s+)?clock",
        r"login\s+time",
        r"usernames?",
        r"(?:the\s+)?user'?s\s+e-?mail",
        r"deriv\w*",
        r"basega",
        r"base[-\s]?sixty-?four",
        r"math\.random",
        r"random\.random",
        r"rand\(\)",
        r"seed\w*",
        r"guessabl\w*",
        r"predictabl\w*",
        r"\w{1,10}\s+digits?\b",
        r"递增",
        r"数字",
    ),
    # --- deserialisation ------------------------------------------------------------------------------
    "deser_alone": (
        r"unpickl\w*",
        r"pickl\w*",
        r"torch\.load",
        r"joblib\.load",
        r"typenamehandling",
        r"default\s*typing",
        r"enabledefaulttyping",
        r"activatedefaulttyping",
        r"serializ\w*\s+(?:java\s+)?objects?",
        r"objectinputstream",
        r"readobject",
        r"unserialize",
        r"marshal\b",
        r"marshal\.loads?",
        r"external\s+entit\w*",
        r"resolve_entities",
        r"xxe\b",
        r"dtds?\b",
        r"yaml\s+" + _GAP4 + r"(?:python\s+tags?|unsafe|full\s*loader)",
        r"!!python",
        r"jsonpickle",
        r"binaryformatter",
        r"xstream",
        r"node-serialize",
    ),
    "deser_word": (
        r"deseriali[sz]\w*",
        r"unmarshal\w*",
        r"désérialis\w*",
        r"deserialisier\w*",
        r"десериализ\w*",
        "反序列化",
        "デシリアライズ",
    ),
    "untrusted_source": (
        r"upload\w*",
        r"users?\b",
        r"user'?s\b",
        r"clients?\b",
        r"partners?\b",
        r"requests?\b",
        r"cookies?\b",
        r"queues?\b",
        r"external\w*",
        r"untrusted",
        r"public\b",
        r"envoy\w*",
        r"partenaires?",
        r"nachrichten",
        r"raw\s+(?:request|input|payload)",
    ),
    # --- personal-data -----------------------------------------------------------------------------------
    # the safeguards of personal data, named: about the topic unless asked for by their safe value
    "pii_alone": (
        r"anonymi[sz]\w*",
        r"pseudonymi[sz]\w*",
        r"redact(?:s|ed|ing|ion)?\b",
        r"data\s+retention",
        r"retention\s+(?:periods?|polic\w*|windows?)",
        r"erasure",
        r"right\s+to\s+be\s+forgotten",
        r"deletion\s+requests?",
        r"gdpr",
        r"dsars?\b",
        r"data\s+subjects?",
    ),
    "pii_word": (
        r"personal\s+(?:data|information|details)",
        r"\bpii\b",
        r"dates?\s+of\s+birth",
        r"birth\s*dates?",
        r"phone\s+numbers?",
        r"(?:home|postal|street|e-?mail|ip)\s+address\w*",
        r"addresses\b",
        r"passports?\b",
        r"passport\s+numbers?",
        r"national\s+ids?",
        r"\bssns?\b",
        r"social\s+security",
        r"diagnos\w*",
        r"medical\s+(?:records?|data|history)",
        r"health\s+(?:records?|data)",
        r"patient'?s?\b",
        r"(?:real|full)\s+names?",
        r"(?:production|prod|customer|user|patient|client)\s+(?:rows|records|data|tables?|profiles?)",
        r"customer'?s\s+(?:full\s+)?(?:profile|record|data)",
        r"(?:full\s+)?profiles?\b",
        r"geolocation",
        r"(?:gps|precise|exact|user'?s?|visitors?'?)\s+locations?",
        r"biometric\w*",
        r"datos\s+personales",
        r"données\s+personnelles",
        r"personenbezogen\w*",
        r"ip-adressen",
        r"standort\w*",
        r"персональн\w*\s+данн\w*",
        "个人信息",
        "个人数据",
        "個人情報",
        "개인정보",
    ),
    "pii_handling": (
        r"keep\w*",
        r"kept\b",
        r"stor\w*",
        r"retain\w*",
        r"retention",
        r"forever",
        r"indefinitely",
        r"erasure",
        r"deletion\s+requests?",
        r"anonymi[sz]\w*",
        r"pseudonymi[sz]\w*",
        r"mask\w*",
        r"encrypt\w*",
        r"plain\b",
        r"writ\w*(?=\s+(?:\S{1,80}\s+){0,8}?(?:to|into)\b)",
        r"(?:access|request|audit|debug|error|app)\s+logs?\b",
        r"copy\w*",
        r"url\w*",
        r"return\w*",
        r"expos\w*",
        r"public\w*",
        r"staging",
        r"conserv\w*",
        r"speicher\w*",
        r"unbegrenzt",
        r"guard\w*",
        r"sin\s+plazo",
        r"хран\w*",
        "保存",
        "保留",
    ),
    # --- access-control ----------------------------------------------------------------------------------
    "acl_alone": (
        r"(?:owner|admin|administrator|editor|superuser|root)\s+role",
        r"role\s+claims?",
        r"s[3e]:\*",
        r"action\W{0,4}\*",
        r"resource\W{0,4}\*",
        r"\bon\s+`?\*`?",
        r"(?:full|all|broad|wide|admin:\w{1,40}|write:\w{1,40})\s+(?:`\S{1,40}`\s+(?:and\s+)?)*scopes?",
        r"admin:\w{1,40}",
        r"tenant\w*\s+(?:id\s+)?(?:from|in)\s+(?:the\s+)?"
        + _GAP2
        + r"(?:query|param\w*|headers?|body|request|url)",
        r"by\s+id\s+alone",
        r"(?:any|another|other)\s+(?:member|user|account)'?s?\s+"
        + _GAP2
        + r"(?:roles?|permissions?|data|orders?)",
        r"rôle\s+administrateur",
        r"administrator\s+rights",
        r"least[-\s]privilege",
    ),
    "acl_word": (
        r"roles?\b",
        r"rôles?\b",
        r"rollen?\b",
        r"permissions?\b",
        r"scopes?\b",
        r"owners?\b",
        r"ownership",
        r"tenan\w*",
        r"groups?\b",
        r"privileg\w*",
        r"admins?\b",
        r"iam\b",
        r"polic(?:y|ies)",
        r"rbac",
        r"acls?\b",
        r"service\s+accounts?",
        r"members?\b",
        r"cuentas?\b",
        r"роль\w*",
        r"права\b",
        "角色",
        "権限",
        "ロール",
    ),
    "acl_widen": (
        r"grant\w*",
        r"giv\w*",
        r"any\b",
        r"all\b",
        r"whole\b",
        r"full\b",
        r"\*",
        r"start\w*\s+in\b",
        r"accept\w*",
        r"trust\w*",
        r"from\s+the\s+(?:client|request|body|query|header|url)",
        r"alone\b",
        r"frontend'?s?",
        r"anyone",
        r"in\s+case",
        r"broad\w*",
        r"cualquier\w*",
        r"tous\b",
        r"alle\w*",
        r"люб\w*",
        "所有",
        "任何",
    ),
    # --- defaults-and-flags --------------------------------------------------------------------------------
    "default_alone": (
        r"public-read\w*",
        r"0\.0\.0\.0",
        r"\?debug",
        r"introspection",
        r"graphql\s+playground",
        r"actuator",
        r"admin\s+(?:console|panel|interface|ui)",
        r"(?:enabled?|on|open|public|true)\s+by\s+default",
        r"by\s+default\s+" + _GAP3 + r"(?:enabled?|on|open|public|true)\b",
        r"default\w*\s+to\s+(?:on|true|enabled|public|open|allow\w*|all|development|dev)\b",
        r"(?:when|if)\s+\w{1,40}\s+is\s+unset",
        r"assume\s+" + _GAP2 + r"(?:development|dev|debug|test)\s+mode",
        r"endpoints?\s+" + _GAP2 + r"open\b",
    ),
    "default_word": (
        r"defaults?\b",
        r"by\s+default",
        r"par\s+défaut",
        r"standardm[äa](?:ß|ss)ig",
        r"por\s+defecto",
        r"по\s+умолчанию",
        "默认",
        "デフォルト",
    ),
    "default_open": (
        r"public\w*",
        r"open\b",
        r"(?:all|every)\s+(?:tenants|users|accounts|environments|features)",
        r"development\b",
        r"debug\w*",
        r"without\s+auth\w*",
        r"ouvert\w*",
        r"activ\w*",
        r"freigeschaltet",
        r"alle\s+funktionen",
        r"todos\b",
        r"все\b",
        "公开",
        "全部",
    ),
    # --- input-handling ------------------------------------------------------------------------------------
    "input_alone": (
        r"return_to",
        r"redirect_(?:to|url|uri)",
        r"`next`\s+param\w*",
        r"redirect\w*\s+" + _GAP6 + r"(?:urls?|address\w*|parameters?|params?|whatever|any\s+host)\b",
        r"redirige\w*\s+" + _GAP6 + r"(?:url|adresse|paramètre)\w*",
        r"path\s+traversal",
        r"\.\./",
        r"zip\s*slip",
        r"extract\w*\s+" + _GAP4 + r"(?:zip|tar|archive)\w*",
        r"(?:original|client|user)(?:-supplied)?\s+file\s*names?",
        r"content-type\s+" + _GAP4 + r"(?:browser|client)\w*",
        r"mass\s+assignment",
        r"bind\w*\s+"
        + _GAP3
        + r"(?:request|json|form|params?)\s+"
        + _GAP3
        + r"(?:onto|to|into)\s+(?:the\s+)?\w{1,40}\s+model",
        r"ssrf",
        r"internal\s+addresses",
        r"(?:in|into)\s+the\s+page\s+as\s+html",
        r"(?:of\s+)?any\s+size",
        r"file\s+extensions?",
        r"extensi[oó]n\s+de\s+archivo",
    ),
    "input_word": (
        r"input\w*",
        r"user[-\s]supplied",
        r"uploads?\b",
        r"uploaded",
        r"file\s*names?",
        r"paths?\b",
        r"urls?\b",
        r"redirects?\b",
        r"parameters?",
        r"params?\b",
        r"request\s+(?:bod(?:y|ies)|json|data)",
        r"form\s+(?:fields?|data|values?)",
        r"archives?\b",
        r"zip\b",
        r"subidas?",
        r"archivos?",
        r"paramètre\w*",
        r"eingab\w*",
        r"ввод\w*",
        "输入",
        "上传",
        "入力",
    ),
    "input_trust": (
        r"trust\w*",
        r"as\s+(?:they\s+are|it\s+is|is|html)\b",
        r"whatever\b",
        r"arbitrary",
        r"(?:straight|directly)\b",
        r"unvalidated",
        r"unchecked",
        r"without\s+" + _GAP2 + r"(?:check\w*|validat\w*|saniti[sz]\w*|escap\w*|limits?)",
        r"keep\w*\s+(?:the\s+)?original",
        r"join\w*\s+" + _GAP4 + r"onto\b",
        r"every\s+field",
        r"sans\s+(?:la\s+)?vérifi\w*",
        r"sin\s+validar",
        r"cualquier\w*",
        r"любо\w*",
        "任意",
        "直接",
    ),
}

MECHANISM_READINGS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]] = {
    "error-handling": (
        ("error_catchall",),
        (("fail_word", "fail_open"), ("error_detail", "error_audience")),
    ),
    "retries-and-timeouts": (
        ("retry_alone",),
        (("retry_word", "limit_setting"), ("timeout_word", "limit_setting")),
    ),
    "caching": (("cache_alone",), (("cache_word", "cache_setting"),)),
    "query-building": (("query_alone",), (("query_word", "query_assembly"),)),
    "identifiers-and-randomness": (("id_alone",), (("id_word", "id_source"),)),
    "deserialisation": (("deser_alone",), (("deser_word", "untrusted_source"),)),
    "personal-data": (("pii_alone",), (("pii_word", "pii_handling"),)),
    "access-control": (("acl_alone",), (("acl_word", "acl_widen"),)),
    "defaults-and-flags": (("default_alone",), (("default_word", "default_open"),)),
    "input-handling": (("input_alone",), (("input_word", "input_trust"),)),
}

# Dangerous acts: forbidden in their own clause ("never unpickle …", "don't fall back to …"), they
# move toward safety and are no topic.
MECHANISM_ACTS: frozenset[str] = frozenset(
    {
        "error_catchall",
        "fail_open",
        "retry_alone",
        "deser_alone",
        "id_alone",
        "query_assembly",
        "cache_word",
        "input_trust",
        "acl_widen",
        "default_alone",
    }
)

# A safeguard asked for by its safe value: the narrow name of the safeguard itself, per topic.
_SAFE_BY_TOPIC: dict[str, str] = {
    "retries-and-timeouts": (
        r"(?:at\s+most|cap\w*\s+" + _GAP3 + r"at|max(?:imum)?(?:\s+of)?|up\s+to|limit\w*\s+" + _GAP2 + r"to)"
        r"\s+(?:\d{1,2}|one|two|three|four|five|ten)\b(?!\s*(?:days?|weeks?|months?|years?))"
        r"|exponential\s+backoff|(?:explicit\s+)?timeout\s+of\s+\d{1,3}\s*(?:s|ms|seconds?)\b"
        r"|rate-?limit\w*|como\s+m[aá]ximo\s+(?:\d{1,2}|tres|dos|cinco)"
    ),
    "caching": (
        r"includ\w*\s+" + _GAP4 + r"(?:tenant|user|account)\s+ids?\s+" + _GAP4 + r"(?:cache\s+)?keys?"
        r"|keys?\s+" + _GAP3 + r"includ\w*\s+(?:the\s+)?(?:tenant|user|account)\s+ids?"
        r"|at\s+most\s+(?:a|one|five|ten|thirty|sixty|\d{1,3})\s+(?:minutes?|seconds?)\b|ttl_cache\("
        r"|per[-\s](?:user|tenant)\s+(?:cache\s+)?keys?|(?<![^\W_])private,\s*no-store|no-store"
    ),
    "query-building": (
        r"parameteri[sz]ed|parametri[sz]ed|bind\s+(?:parameters|variables)|bound\s+parameters|"
        r"placeholders?|prepared\s+statements?|as\s+a\s+list"
    ),
    "identifiers-and-randomness": (
        r"uuida\b|uuid\.uuida|secrets\.\w{1,40}|token_urlsafe|token_hex|os\.urandom|securerandom|"
        r"crypto\.randombytes|crypto\.getrandomvalues|randomuuid"
    ),
    "deserialisation": r"safe_load|safeloader|defusedxml|weights_only\s*=\s*true",
    "personal-data": (
        r"mask\w*|anonymi[sz]\w*|pseudonymi[sz]\w*|redact\w*|"
        r"delet\w*\s+" + _GAP4 + r"within\s+\d{1,3}\s+days"
    ),
    "access-control": (
        r"narrowest|least[-\s]privilege|minimal\s+scopes?|"
        r"(?:current\s+)?user\s+owns|owns\s+the|belongs\s+to\s+the\s+(?:current\s+)?user"
    ),
    "defaults-and-flags": r"default\w*\s+to\s+(?:private|off|false|disabled|closed|deny)\b|blocked\b",
    "input-handling": (
        r"reject\w*|allow-?list\w*|relative\s+paths?|max(?:imum)?\s+(?:body\s+|upload\s+)?size|size\s+limits?"
    ),
}

# The concepts a safe value exempts, each with its topic's safe value.
SAFE_VALUES: dict[str, str] = {
    concept: _SAFE_BY_TOPIC[topic]
    for topic, (alone, pairs) in MECHANISM_READINGS.items()
    if topic in _SAFE_BY_TOPIC
    for concept in (*alone, *(name for pair in pairs for name in pair))
}

# What undoes a safe value in its sentence: a negation, an absence, an exception or a swap, and the
# settings that widen a mechanism. Hard to pair with a safe value by accident, easy to spot.
MECHANISM_WEAKENERS = (
    r"(?<![^\W_])(?:none|null|without|skip\w*|remov\w*|drop\w*|overkill|unnecessar\w*|needless|"
    r"optional|instead|rather|over|except\w*|unless|but|only|alone|apart|elsewhere|however|"
    r"\w+n't|dont|doesnt|isnt|not|never|no(?!-)|nor|sans|ohne|sin|без|nunca|jamais|niemals|nie|nicht|не|"
    r"forever|indefinitely|unlimited|unbounded|infinit\w*|whatever|"
    r"arbitrary|plain|raw|disabl\w*|ignor\w*|bypass\w*|trust\w*|later)(?![^\W_])|不要|不需要|无需"
)
