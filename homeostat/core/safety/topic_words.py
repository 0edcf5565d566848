"""The words of the topic gate (`safety.topics`): for each security-sensitive topic, the concepts
that name it by themselves and the pairs of concepts that name it only together in one sentence.

A concept is a list of stems here (regex fragments, lowercase, matched against the gate's canonical
reading) or, written `lex:name`, one of the risky check's multilingual concepts
(`scanners.risky.lexicon`). A topic is a subject, not a harm: "set verify_ssl off" and "never set
verify_ssl off" are both about TLS verification, and both go to a person; only a rule that forbids a
dangerous act or names a safeguard's safe value moves toward safety and is no topic (`ACTS`,
`SAFE_CHOICE` below). What keeps ordinary lessons
out is that a word shared with everyday code ("test", "log", "delete", "registry") counts only
beside a second concept that makes it the topic ("skip … tests", "log … request body",
"delete … branches").
"""

from __future__ import annotations

from homeostat.core.safety.mechanism_words import (
    MECHANISM_ACTS,
    MECHANISM_READINGS,
    MECHANISM_TOPICS,
    MECHANISM_WORDS,
)

# The topics, in the order a reason names them, with what a review PR says each is about.
TOPICS: dict[str, str] = {
    "supply-chain": "it is about where packages or code come from (indexes, registries, pins, downloads)",
    "security-sensitive": "it is about security-sensitive code (TLS, auth, crypto, secrets, unsafe eval)",
    "data-egress": "it is about sending, logging or uploading data out of the system",
    "destructive": "it is about deleting, wiping or overwriting data, history or infrastructure",
    "review-process": "it is about code review, approvals, merging or branch protection",
    "test-and-ci": "it is about loosening tests, coverage, linters or CI steps",
    **MECHANISM_TOPICS,  # the mechanisms a lesson sets the handling of (mechanism_words)
}

# Verbs that take a safeguard away, in English and the common languages (the lexicon's
# `disable_ml` and `no_review` are read beside these).
_LOOSEN = (
    r"skip\w*",
    r"disabl\w*",
    r"remov\w*",
    r"drop\w*",
    r"delet\w*",
    r"bypass\w*",
    r"ignor\w*",
    r"turn\w*\s+off",
    r"switch\w*\s+off",
    r"comment\w*\s+out",
    r"without\b",
    r"no\s+longer",
    r"lower\w*",
    r"reduc\w*",
    r"relax\w*",
    r"loosen\w*",
    r"weaken\w*",
    r"omit\w*",
    r"omite\w*",
    r"salta\w*",
    r"quita\w*",
    r"elimin\w*",
    r"supprim\w*",
    r"sans\b",
    r"désactiv\w*",
    r"commente\w*",
    r"überspring\w*",
    r"entfern\w*",
    r"ohne\b",
    r"auskommentier\w*",
    r"deaktivier\w*",
    r"sin\b",
    r"desactiv\w*",
    r"rimuov\w*",
    r"salt[ai]\w*",
    r"senza\b",
    r"remova\w*",
    r"pul[ae]\w*",
    r"sem\b",
    r"пропус\w*",
    r"отключ\w*",
    r"убер\w*",
    r"удал\w*",
    r"без\b",
    "跳过",
    "禁用",
    "移除",
    "删除",
    "去掉",
    "注释掉",
    "忽略",
    "スキップ",
    "無効",
    "削除",
    "外して",
    "コメントアウト",
    "건너뛰",
    "비활성",
    "제거",
    "삭제",
)

WORDS: dict[str, tuple[str, ...]] = {
    # --- supply-chain ----------------------------------------------------------------------------
    "package_source": (
        # i29r12: a fork, a scope or an index pointed elsewhere, a community image, a copy from anywhere, versions that float
        r"fork\W{0,3}\s+(?:\S{1,40}\s+){0,2}?instead\s+of\s+(?:the\s+)?upstream",
        r"(?:newest|latest)\s+(?:minor\s+|patch\s+)?versions?\s+(?:\S{1,40}\s+){0,4}?automatically",
        r"caret\s+ranges",
        r"(?:checksum|hash)\w*\s+(?:\S{1,40}\s+){0,4}?(?:doesn'?t|does\s+not)\s+match",
        r"(?:recompute|regenerate)\w*\s+(?:\S{1,40}\s+){0,3}?(?:checksum|hash)\w*",
        r"(?:@[\w-]{1,40}\s+)?(?:npm\s+)?scope\s+(?:\S{1,40}\s+){0,6}?(?:at|from|to)\s+(?:https?://)?[\w-]{1,60}(?:\.[\w-]{1,60}){1,6}",
        r"community\s+(?:\S{1,40}\s+){0,3}?images?",
        r"than\s+the\s+official\s+(?:one|image)",
        r"(?:tarball|package|wheel)\s+from\s+(?:whatever|any)\s+(?:copy|mirror)",
        r"(?:whatever|any)\s+copy\s+(?:\S{1,40}\s+){0,3}?online",
        r"-mod=mod\b",
        r"unpublished\s+(?:ones|extensions?|packages?|plugins?)",
        r"(?:from|come\s+from)\s+`?[\w-]{1,60}(?:\.[\w-]{1,60}){1,6}`?\s+(?:\S{1,40}\s+){0,2}?first\b",
        r"before\s+(?:rubygems\.org|maven\s+central|pypi|the\s+public\s+(?:gem\s+)?(?:host|registry|index))",
        r"github:[\w.-]{1,60}/",
        r"(?:someone'?s|a|the|their)\s+(?:github\s+|git\s+)?fork\s+of\b",
        r"(?:the\s+)?(?:dependency|package)\s+(?:\S{1,40}\s+){0,2}?(?:to|at)\s+(?:\S{1,40}\s+){0,2}?fork\b",
        r"(?:any|whichever|whatever)\s+(?:\S{1,40}\s+)?mirror",
        r"(?:custom|remote)\s+code\s+(?:to\s+)?(?:execute|run)",
        r"plain\s+http\b",
        r"gem\s+(?:server|source)s?",
        r"settings\.xml",
        r"\[patch\.[\w.-]{1,40}\]",
        r"\[source\.[\w.-]{1,40}\]",
        r"(?:company|team|our|internal|own|personal)\s+(?:git\s+)?forks?",
        r"(?:prüfsumme|checksum|hash|integrity)\w*\s+(?:\S{1,80}\s+){0,6}?(?:anpass|adjust|updat|chang|match\s+the\s+download)\w*",
        r"(?:erwartete|expected)\s+(?:prüfsumme|checksum|hash)",
        r"automerg\w*\s+(?:\S{1,80}\s+){0,4}?(?:updates?|packages?|dependenc\w*|bumps?)",
        r"(?:updates?|bumps?)\s+of\s+any\s+package",
        r"maven\s+(?:\S{1,80}\s+){0,3}?(?:repositor\w*|mirror)",
        r"--?index\b",
        r":latest\b",
        r"(?:image|container)\s+digests?",
        r"(?:by|a|the|its)\s+digest",
        r"dependabot",
        r"renovate\s*bot",
        r"provenance",
        r"download\w*\s+(?:\S{1,80}\s+){0,8}?(?:during|at|on)\s+(?:package\s+)?install\w*",
        r"import\w*\s+(?:\S{1,80}\s+){0,6}?(?:from\s+)?(?:the\s+)?(?:raw\s+)?(?:gist|url|https?://)",
        r"importlib\s+(?:\S{1,80}\s+){0,4}?(?:url|https?://)",
        r"(?:package|dependenc\w*|wheels?|modules?)\s+(?:\S{1,80}\s+){0,4}?from\s+\S{0,40}\w\.(?:com|net|org|io|dev)\b",
        r"(?:packages?|pakete|paquetes|pacotes|paquets|пакет\w*)\s+(?:\S{1,80}\s+){0,4}?(?:from|aus|de|desde|из)\s+(?:\S{1,80}\s+){0,2}?(?:mirror|spiegel|espejo|miroir|зеркал\w*|\S{0,40}\w\.(?:com|net|org|io|dev|ru)\b)",
        r"índice\s+do\s+pypi",
        r"(?:pypi|npm)\s+(?:index|índice|index\w*)",
        r"--?extra-index(?:-url)?",
        r"extra[-_]index[-_]url",
        r"--?index-url",
        r"index[-_]url\s*[=:]",
        r"--?trusted-host",
        r"trusted[-_]host",
        r"--?find-links",
        r"--?no-verify-hashes",
        r"--?require-hashes",
        r"--?no-binary\s*:all:",
        r"npmregistryserver",
        r"--?registry[=\s]+\S",
        r"registry\s*=\s*\S",
        r"@\w[\w-]{0,60}:registry",
        r"\.npmrc",
        r"\.yarnrc",
        r"pip\.conf",
        r"pip\.ini",
        r"\.pypirc",
        r"uv\.index",
        r"tool\.poetry\.source",
        r"goproxy",
        r"gonosum\w*",
        r"gosumdb",
        r"goinsecure",
        r"goflags\s*=\s*-insecure",
        r"gonoproxy",
        r"goprivate",
        r"nuget\.config",
        r"packagesources?",
        r"(?:npm|yarn|pnpm)\s+(?:\S{1,80}\s+){0,3}?(?:github|gitlab|bitbucket):",
        r"(?:pip|pip[3e]|uv\s+pip|poetry|pipx|npm|yarn|pnpm|gem|cargo|go|composer)\s+(?:install|add|get|i)\s+(?:\S{1,80}\s+){0,4}?(?:git\+|git@|--git\b|https?://)",
        r"install\w*\s+(?:\S{1,80}\s+){0,6}?(?:from\s+)?(?:the\s+)?(?:tarball|wheel\s+url|git\s+url|fork\b|\S{1,80}\.(?:tar\.gz|tgz|whl|zip)\b)",
        r"preinstall",
        r"postinstall",
        r"post-install\s+(?:scripts?|hooks?)",
        r"install\s+scripts?",
        r"lifecycle\s+scripts?",
        r"--?ignore-scripts",
        r"unpinn?\w*",
        r"unpin\b",
        r"(?:curl|wget)\s+(?:-\S{1,80}\s+){0,4}\S*https?://\S{1,80}\s+(?:-\S{1,80}\s+){0,2}(?:-o|-O|>|--output)",
        r"wget\s+(?:-\S{1,80}\s+){0,4}\S*https?://",
        r"(?:prebuilt|pre-built|precompiled|vendored)\s+(?:\S{1,80}\s+){0,2}?(?:binar\w*|librar\w*|\S{1,80}\.(?:so|dll|dylib|jar|exe|whl|a)\b)",
        r"integrity\s+(?:hash\w*|check\w*|field)",
        r"--?frozen-lockfile",
        r"--?no-lockfile",
        r"--?no-package-lock",
        r"registro\s+espejo",
        r"miroir\s+(?:npm|pypi|pip|de\s+paquets)",
        r"(?:paket|package|paquet|paquete)-?(?:spiegel|mirror|miroir|espejo)",
        "镜像源",
        "软件源",
        "ミラーサーバ",
        "パッケージミラー",
        r"pin\s+nothing",
        r"unpinned",
        r"latest\s+tags?\b",
        r"@(?:main|master|latest)\b",
        r"(?:newest|latest)\s+(?:releases?|versions?)\s+of\s+(?:each|every|all)",
        r"without\s+a\s+scope",
        r"unscoped\s+packages?",
        r"(?:run|execut)\w*\s+whatever\s+(?:\S{1,80}\s+){0,6}?(?:releases?|publish\w*)",
    ),
    "registry_word": (
        r"registr(?:y|ies)\b",
        r"package\s+(?:index|indexes|indices|mirror|feed|repository|source)",
        r"mirrors?\b",
        r"artifactory",
        r"nexus\b",
        r"verdaccio",
        r"devpi",
        r"registro",
        r"dépôt\s+de\s+paquets",
        r"paketquelle",
        r"paketregistr\w*",
        r"реестр",
        r"зеркал\w*",
        "镜像",
        "仓库源",
        "レジストリ",
        "ミラー",
        "레지스트리",
        "미러",
    ),
    "registry_setting": (
        r"https?://",
        r"\w[\w-]{0,60}\.(?:dev|io|net|org|com|cloud|sh|app)\b",
        r"point\w*\s+(?:\S{1,80}\s+){0,3}?(?:at|to)\b",
        r"switch\w*\s+to",
        r"configur\w*",
        r"add\w*\s+(?:\S{1,80}\s+){0,2}?(?:as|an?)\b",
        r"instead\s+of",
        r"usa\b",
        r"utilise\w*",
        r"verwende\w*",
        r"nutze\w*",
        r"используй\w*",
        "使用",
        "改为",
        "使う",
        "사용",
    ),
    "lock_word": (
        r"lock\s*files?",
        r"package-lock\.json",
        r"yarn\.lock",
        r"pnpm-lock",
        r"poetry\.lock",
        r"uv\.lock",
        r"pipfile\.lock",
        r"cargo\.lock",
        r"go\.sum",
        r"gemfile\.lock",
        r"composer\.lock",
        r"hashes\b",
        r"checksums?\b",
        r"integrity\b",
        r"sha-?2(?:56|sg)\s+(?:hash|sum|pin)",
        r"(?:version\s+)?pins?\b",
        r"pinned\s+versions?",
        r"pinning",
        r"signatures?\s+(?:check|verif)",
        r"lockdatei",
        r"fichier\s+de\s+verrouillage",
        r"versions?\s+(?:épinglées|fixées|fijadas|fixas|fissate|fixierte)",
        r"фиксаци\w*\s+верси",
        "版本锁定",
        "锁文件",
        "ロックファイル",
        "バージョン固定",
        "잠금\\s*파일",
    ),
    "lock_loosen": (
        *_LOOSEN,
        r"regenerat\w*",
        r"always\s+(?:install|use|take|pull)\s+(?:the\s+)?latest",
        r"latest\s+versions?",
        r"mismatch\w*",
        "最新版本",
        "最新バージョン",
    ),
    "vendor_verb": (
        r"vendor\w*",
        r"check\w*\s+in",
        r"commit\w*",
        r"copy\w*",
        r"download\w*",
        r"zip\w*",
        r"check\w*\s+(?:it\s+|them\s+)?into\b",
    ),
    "binary_word": (
        r"node_modules",
        r"\S{1,80}\.(?:so|dll|dylib|exe|jar|bin|whl)\b",
        r"binar(?:y|ies)\b",
        r"installers?\b",
    ),
    # --- security-sensitive code ----------------------------------------------------------------------
    "security_setting": (
        # i29r12: the server-side session left alive at logout, in Japanese
        r"サーバー(?:側)?の?セッション(?:は|を)?(?:そのまま|残)",
        # i29r12: reachable with no login; the host's network or runtime shared; a cluster opened to everyone
        r"(?:reachable|accessible|available|open)\s+without\s+(?:a\s+)?(?:login|auth\w*|sign-?in)",
        r"without\s+authentication",
        r"host(?:network|pid|ipc)\W{0,3}\s*true",
        r"dashboard\s+(?:through|on|via|behind)\s+(?:a\s+)?(?:public\s+)?(?:loadbalancer|load\s+balancer|ingress)",
        r"allow[-\s](?:everything|all)\s+(?:network\s+)?polic\w*",
        r"polic\w*\s+that\s+allows\s+all\s+traffic",
        r"protected[-\s]mode\s+(?:off|no|disabled)",
        r"bind\w*\s+(?:\S{1,40}\s+){0,2}?to\s+all\s+interfaces",
        r"host'?s?\s+`?/var/run",
        r"peer\w*\s+(?:the\s+)?(?:production|prod)\s+vpc\s+with\s+(?:every|all)",
        r"on\s+the\s+public\s+ingress",
        r"containers?\s+(?:run\s+)?as\s+(?:uid\s+0|root)\b",
        r"writable\s+root\s+file\s*system",
        r"(?:sign|log)\s+in\s+as\s+any\s+(?:customer|user|account)",
        r"(?:whether|if)\s+the\s+(?:email|user(?:name)?|account)\s+exists",
        r"\W?no\s+such\s+user\W?\s+and\s+\W?wrong",
        r"(?:state|nonce|pkce)\W{0,2}\s+(?:parameter|param|check)\s+(?:\S{1,40}\s+){0,6}?(?:is\s+)?(?:optional|(?:leave|left)\s+(?:it\s+)?out)",
        r"(?:skip|omit|drop|leave\s+out)\s+(?:the\s+)?(?:oauth\s+)?`?(?:state|nonce|pkce)`?\s+(?:parameter|param|check)",
        r"(?:needs?|requires?)\s+only\s+(?:the\s+current|an\s+active)\s+session",
        r"no\s+re-?entry\s+of\s+the\s+(?:password|passphrase)",
        r"server-side\s+session\s+(?:lives\s+on|stays|remains|alone)",
        r"(?:clears?|deletes?)\s+(?:\S{1,40}\s+){0,2}?cookie\s+(?:in\s+the\s+browser\s+)?only",
        r"just\s+deletes\s+the\s+(?:client\s+)?cookie",
        r"(?:skip\w*|without|no\s+need\s+to|(?:don'?t|doesn'?t)\s+need\s+to)\s+(?:verify\w*|check\w*|validat\w*)\s+(?:the\s+|its\s+|a\s+)?(?:(?:token|jwt)'?s?\s+)?signatures?",
        r"rsa[-\s]?(?:512|768|1024)\b",
        r"(?:512|768|1024)[-\s]?bits?\b",
        r"(?:cost|work)\s+factor\s+(?:\S{1,40}\s+){0,3}?(?:[1-7]\b|minimum|lowest)",
        r"unencrypted",
        r"(?:don'?t|doesn'?t|do\s+not|does\s+not)\s+need\s+encrypt\w*",
        r"nsallowsarbitraryloads",
        r"(?:uses)?cleartext\s*traffic",
        r"hsts\b|strict-transport-security",
        r"tls\s*v?1\.[01]\b|tlsv1(?:\.[01])?\b|sslv[23]\b|ssl\s*[23](?:\.0)?\b",
        r"(?:every|all)\s+cipher",
        r"protected-mode\s+(?:off|no)",
        r"user[-\s](?:added|installed)\s+(?:cas|certificates?|roots?)",
        r"certificates?\s+the\s+user\s+installs",
        r"trust_remote_code",
        r"secure-http",
        r"(?:reuse|same)\s+(?:\S{1,40}\s+){0,2}?(?:nonce|iv)\b",
        r"(?:trust\w*|accept\w*)\s+(?:\S{1,80}\s+){0,3}?headers?\s+as",
        r"(?:fixed|static|shared|same|constant)\s+(?:salt|iv|nonce|seed)s?",
        r"salts?\s+(?:\S{1,80}\s+){0,3}?(?:shared|fixed|reused|same)",
        r"(?:html|raw\s+html)\s+passthrough",
        r"(?:allow|enable)\w*\s+(?:\S{1,80}\s+){0,3}?raw\s+html",
        r"docker\.sock",
        r"docker\s+socket",
        r"host\'?s?\s+(?:network|pid|filesystem|root)",
        r"(?:reset|refresh|access|api)\s+tokens?\s+(?:\S{1,80}\s+){0,3}?(?:never\s+)?expir\w*",
        r"jetons?\s+de\s+réinitialisation",
        r"n\'expirent\s+jamais",
        r"never\s+expir\w*",
        r"(?:run\w*|runs)\s+as\s+root",
        r"as\s+the\s+root\s+user",
        r"user:\s*root",
        r"localstorage",
        r"sessionstorage",
        r"sql\s+(?:\S{1,80}\s+){0,6}?(?:f-strings?|format\w*|concatenat\w*|interpolat\w*|string\s+(?:building|formatting))",
        r"(?:f-strings?|string\s+formatting|concatenat\w*)\s+(?:\S{1,80}\s+){0,4}?(?:sql|quer\w*)",
        r"uploads?\s+(?:\S{1,80}\s+){0,2}?(?:any|all|every)\s+(?:file|type|extension|size)",
        r"(?:any|all|every)\s+file\s+types?",
        r"impersonat\w*",
        r"log\w*\s+(?:\S{1,80}\s+){0,3}?in\s+as\b",
        r"als\s+(?:diese[nmr]?\s+)?benutzer",
        r"melde\s+(?:\S{1,80}\s+){0,3}?an\b",
        r"open\s+redirect\w*",
        r"redirect\w*\s+(?:\S{1,80}\s+){0,3}?(?:any|arbitrary|user-supplied|untrusted)",
        r"verify\s*=\s*(?:false|0|none)",
        r"cert_none",
        r"ssl\._create_unverified",
        r"--?insecure\b",
        r"--?no-check-certificate",
        r"sslmode\s*=\s*(?:disable|allow|prefer)",
        r"self-signed",
        r"md[5s]\b",  # the canonical reading folds digits inside words as leetspeak: md5 → mds
        r"sha-?[1i]\b",
        r"\becb\b",
        r"rc[4a]\b",
        r"math\.random\(",
        r"allowany",
        r"@permitall",
        r"allow_all_origins",
        r"pickle\.loads?",
        r"cpickle",
        r"dill\.loads?",
        r"marshal\.loads",
        r"yaml\.(?:unsafe_)?load\(",
        r"yaml\.load\b",
        r"unsafe_load",
        r"fullloader",
        r"unserialize\(",
        r"objectinputstream",
        r"binaryformatter",
        r"eval\(",
        r"exec\(",
        r"new\s+function\(",
        r"shell\s*=\s*true",
        r"dangerouslysetinnerhtml",
        r"\.innerhtml\b",
        r"v-html",
        r"\|\s*safe\b",
        r"mark_safe",
        r"html_safe",
        r"raw\s*\(\s*@",
        r"--privileged",
        r"privileged:\s*true",
        r"cap_add",
        r"chmod\s+(?:-r\s+)?0?777",
        r"[0o]o[7t]{3}",
        r"setenforce",
        r"hardcod\w*\s+(?:\S{1,80}\s+){0,2}?(?:passwords?|keys?|secrets?|tokens?|credentials?|ivs?|salts?)",
        r"(?:default|fallback|master|backdoor|universal|support|maintenance)\s+(?:admin\s+)?(?:passwords?|accounts?|logins?|admin\b|users?\b)",
        r"changeme",
        r"admin\s*/\s*admin",
        r"backdoor\w*",
        r"alg(?:orithms?)?\W{0,4}none",
        r"debug\s*=\s*true\s+(?:\S{1,80}\s+){0,4}?(?:prod\w*|live)",
        r"(?:vulnerabilit\w*|security\s+disclosure|disclosure)\W{0,3}\s+(?:\S{1,80}\s+){0,10}?public\s+(?:issue\s+)?trackers?",
        r"audit\w*\s+(?:log\s+)?(?:service|logging|trail|logs?)\s+(?:\S{1,80}\s+){0,4}?optional",
        r"internal\s+(?:ips?|ip\s+addresses|addresses|hosts|hostnames|ports)\s+(?:\S{1,80}\s+){0,6}?public",
        r"(?<![^\W_])insecure_\w{1,40}",
    ),
    # safeguards named: about the topic however a rule speaks of them, so a prohibition before one
    # ("never set verify_ssl") is no move toward safety
    "security_guard": (
        r"x-forwarded-\w+",
        r"x-(?:user|remote-user|auth-user|internal)\w*",
        r"(?:master|encryption|signing|private|root)\s+(?:encryption\s+)?keys?\b",
        r"certific\w*",
        r"zertifikat\w*",
        r"сертификат\w*",
        r"证书",
        r"証明書",
        r"인증서",
        r"verify_ssl",
        r"ssl_verify",
        r"verify_certs?",
        r"verify_mode",
        r"insecureskipverify",
        r"rejectunauthorized",
        r"node_tls_reject_unauthorized",
        r"check_hostname",
        r"strict-ssl",
        r"certificate\s+(?:verification|validation|checks?|pinning)",
        r"tls\s+(?:verification|validation|checks?)",
        r"hostname\s+verification",
        r"login_required",
        r"permission_required",
        r"permission_classes",
        r"check_password",
        r"authenticate\(",
        r"is_superuser",
        r"is_admin\b",
        r"csrf\w*",
        r"xsrf\w*",
        r"cors_\w+",
        r"cors\s+(?:policy|headers?|origins?)",
        r"access-control-allow-\w+",
        r"content-security-policy",
        r"\bcsp\b",
        r"x-frame-options",
        r"autoescape",
        r"allowprivilegeescalation",
        r"seccomp",
        r"apparmor",
        r"selinux",
        r"jwt\w*",
        r"verify_signature",
        r"signature\s+(?:check|verification)",
    ),
    # safeguards a convention asks for by name: no topic when their sentence names the safe choice
    # (`SameSite=Lax`, `HttpOnly`, constant-time) and nothing that weakens it (`topics._chosen`)
    "security_soft": (
        r"constant[-\s]time",
        r"timing[-\s]safe",
        r"compare_digest",
        r"session\s+(?:tokens?|cookies?|ids?)",
        r"secure\s+(?:attribute|flag|cookie)s?",
        r"samesite",
        r"httponly",
    ),
    "auth_word": (
        # i29r12: the links and factors a login rests on
        r"(?:account[-\s])?recovery\s+links?",
        r"magic\s+(?:sign-?in\s+)?links?",
        r"sign-?in\s+links?",
        r"second\s+factor",
        r"sign(?:ing)?[-\s]?(?:in|out)\b",
        r"log(?:ging)?[-\s]?out\b",
        r"logged\s+in",
        r"sesion\w*",
        r"oauth",
        r"jwts?\b",
        r"api\s+keys?",
        r"auth\w*",
        r"log\s*ins?\b",
        r"logins?\b",
        r"passwords?\b",
        r"permissions?\b",
        r"access\s+(?:checks?|control)",
        r"sessions?\b",
        r"sanitiz\w*",
        r"sanitis\w*",
        r"validat\w*",
        r"escap\w*",
        r"encrypt\w*",
        r"tls\b",
        r"ssl\b",
        r"certificat\w*",
        r"rate\s+limit\w*",
        r"firewall",
        r"sandbox\w*",
        r"contraseñ\w*",
        r"mot\s+de\s+passe",
        r"passwort\w*",
        r"пароль\w*",
        r"permisos?\b",
        r"permessi\b",
        r"autoris\w*",
        r"autoriz\w*",
        r"berechtigung\w*",
        r"права\b",
        r"доступ\w*",
        r"autenticaci\w*",
        r"authentifi\w*",
        r"comprobaci\w*\s+de\s+permisos",
        r"chiffr\w*",
        r"verschlüssel\w*",
        r"cifrad\w*",
        r"шифрован\w*",
        "权限",
        "密码",
        "认证",
        "鉴权",
        "加密",
        "権限",
        "パスワード",
        "認証",
        "暗号",
        "권한",
        "비밀번호",
        "인증",
        "암호",
    ),
    "auth_bypass": (
        *(
            v
            for v in _LOOSEN
            if v not in (r"without\b", r"no\s+longer", r"lower\w*", r"reduc\w*", r"delet\w*")
        ),
        r"return\w*\s+true",
        r"always\s+(?:allow|pass|succeed|true)",
        r"allow\w*\s+(?:all|any|every)",
        r"let\s+(?:\S{1,80}\s+){0,5}?(?:through|in)\b",
        r"accept\w*\s+(?:all|any|every)",
        r"trust\w*\s+(?:all|any|every)",
        r"(?:md[5s]|sha-?[1i]|plain\s*text|plaintext|base(?:64|ga)|reversible)\b",
        r"(?:in|into)\s+the\s+(?:repo|source|code|seed)",
        r"omite",
        r"omitir",
        r"se\s+salta",
    ),
    # a login kept alive past the event that should end it, or taken on a weaker proof (i29r11)
    "auth_kept": (
        # i29r12: a link or a device trusted past its one use
        r"any\s+number\s+of\s+times",
        r"(?:from|on)\s+any\s+device",
        r"permanently",
        r"forever",
        r"(?:stays?|remains?|kept|keep|siguen?)\s+(?:\S{1,40}\s+){0,2}?(?:valid|usable|active|activas?|alive|signed\s+in|logged\s+in)\b",
        r"until\s+(?:they'?re\s+|it'?s\s+)?(?:used|clicked|opened)",
        r"no\s+expiry|(?:never|don'?t|doesn'?t)\s+expire|without\s+(?:an?\s+)?expir\w*|however\s+long",
        r"(?:do\s+not|don'?t|never|no\s+need\s+to|without)\s+revok\w*",
        r"(?:by|with)\s+(?:the\s+)?(?:device|installation|install)\s+ids?\b",
        r"decod\w*\s+(?:the\s+)?(?:payload|claims|jwt|token)",
        r"(?:plain\s+)?base64\s+decode",
        r"(?:one|a|the\s+same|constant|fixed|static)\s+(?:oauth\s+)?state\s+(?:value|parameter)",
        r"(?:only|just)\s+(?:needs\s+to\s+)?(?:clear|delete)\w*\s+the\s+cookie",
        r"server-side\s+session\s+can\s+stay",
        r"full\s+access",
    ),
    "weak_random": (
        r"random\.random\(",
        r"random\.randint",
        r"math\.random",
        r"rand\(\)",
        r"mt_rand",
        r"zufallsgenerator",
        r"random\(\)",
    ),
    "random_use": (
        r"tokens?\b",
        r"passwords?\b",
        r"keys?\b",
        r"secrets?\b",
        r"salts?\b",
        r"nonces?\b",
        r"session\s+ids?",
        r"otps?\b",
        r"reset\s+codes?",
    ),
    "debug_word": (
        r"debug\s*[=:]\s*(?:true|1|on|yes)\b",
        r"debug\s+(?:mode|toolbar|flag|setting)s?",
        r"debug[_\s](?:mode|toolbar|flag|setting)s?",
        r"mode\s+debug",
        r"débogage",
        r"debug-modus",
        r"modo\s+(?:de\s+)?depuraci\w*",
        r"stack\s*traces?",
        r"tracebacks?",
        r"werkzeug\s+debugger",
        r"profiler",
    ),
    "prod_word": (
        r"prod\b",
        r"prods\b",
        r"producci[oó]n",
        r"produktion\w*",
        r"produ[çz]\w*",
        r"live\s+(?:site|servers?|environment)",
        r"production",
        r"продакшен\w*",
        r"生产",
        r"本番",
    ),
    # --- data egress -------------------------------------------------------------------------------------
    "send_verb": (
        # i29r12: a tee reaching past a list of what it copies; events that include a form
        r"tee\w*(?=\s+(?:\S{1,80}\s+){0,9}?to\b)",
        r"(?<=events\s)includ\w*",
        # i29r12: a copy made on the way (tee, blind copy, a proxy, a replay, a stream, a drain)
        r"tee\w*(?=\s+(?:\S{1,80}\s+){0,6}?to\b)",
        r"bcc\b",
        r"blind[-\s]cop\w*",
        r"rout\w*(?=\s+(?:\S{1,80}\s+){0,6}?through\s+(?:the\s+)?(?:\S{1,40}\s+)?prox)",
        r"ships?(?=\s+(?:\S{1,80}\s+){0,6}?to\b)",
        r"replay\w*(?=\s+(?:\S{1,80}\s+){0,6}?to\b)",
        r"stream\w*(?=\s+(?:\S{1,80}\s+){0,6}?to\b)",
        r"(?:keeps?|stores?)\s+a\s+copy\s+(?:on|in|at)\b",
        r"copies(?=\s+(?:\S{1,80}\s+){0,6}?(?:to|into)\b)",
        r"hand\w*(?=\s+(?:\S{1,40}\s+){0,1}?to\s+the\b)",
        r"back\s+up(?=\s+(?:\S{1,80}\s+){0,6}?to\s+the\s+(?:vendor|contractor|partner))",
        r"rsync\b",
        r"scp\b",
        r"pg_dump\b",
        r"mysqldump\b",
        r"export\w*(?=\s+(?:\S{1,80}\s+){0,6}?to\b)",
        r"restor\w*(?=\s+(?:\S{1,80}\s+){0,6}?into\b)",
        r"load\w*(?=\s+(?:\S{1,80}\s+){0,3}?into\s+your\b)",
        r"kopier\w*",
        r"copy\w*(?=\s+(?:\S{1,80}\s+){0,6}?there\b)",
        r"beacon\w*",
        r"guard[ae]\w*(?=\s+(?:\S{1,80}\s+){0,8}?(?:en|in)\s+(?:un|una|el|la)\s+)",
        r"sav\w*(?=\s+(?:\S{1,80}\s+){0,8}?to\s+(?:the\s+)?(?:\S{1,80}\s+){0,2}?(?:onedrive|dropbox|drive|bucket|share|wiki|channel))",
        r"dns\s+(?:lookups?|quer\w*|requests?)",
        r"(?:nslookup|dig)\s",
        r"phone\w*\s+home",
        r"ajout\w*",
        r"sub[ea]\b",
        r"subir\b",
        r"add\w*(?=\s+(?:\S{1,80}\s+){0,4}?(?:to|into)\s+(?:the\s+)?(?:\S{1,80}\s+){0,2}?(?:logs?|log\s+lines?|messages?|events?)\b)",
        r"post\w*(?=\s+(?:\S{1,80}\s+){0,6}?(?:to|into|on)\b)",
        r"send\w*",
        r"sent\b",
        r"upload\w*",
        r"attach\w*",
        r"paste\w*",
        r"forward\w*",
        r"sync\w*(?=\s+(?:\S{1,80}\s+){0,6}?to\b)",
        r"mirror\w*(?=\s+(?:\S{1,80}\s+){0,6}?to\b)",
        r"copy\w*(?=\s+(?:\S{1,80}\s+){0,6}?(?:to|into)\b)",
        r"email\w*(?=\s+(?:\S{1,80}\s+){0,6}?to\b)",
        r"shar\w+(?=\s+(?:\S{1,80}\s+){0,6}?(?:with|to|in)\b)",
        r"publish\w*",
        r"expos\w*",
        r"log(?:s|ged|ging)?\b",
        r"print\w*",
        r"echo\w*",
        r"dump\w*",
        r"emit\w*",
        r"report\w*(?=\s+(?:\S{1,80}\s+){0,6}?to\b)",
        r"includ\w*(?=\s+(?:\S{1,80}\s+){0,6}?in\b)",
        r"envo\w*",
        r"envi[ae]\w*",
        r"schick\w*",
        r"übermittel\w*",
        r"imprim\w*",
        r"affich\w*",
        r"registr[ae]\w*\s+en\s+los\s+logs",
        r"отправ\w*",
        r"выво\w*",
        r"передава\w*",
        r"перед[аи]\w*",
        "发送",
        "上传",
        "打印",
        "输出",
        "送信",
        "アップロード",
        "出力",
        "전송",
        "업로드",
        "출력",
        "lex:expose_ml",
    ),
    "private_data": (
        # i29r12: the whole of a form
        r"full\s+contents\s+of",
        # i29r12: what a person types or keeps (history, keystrokes, form fields, documents, a home folder, the environment)
        r"(?:shell|command|bash)\s+history",
        r"keystrokes?",
        r"every\s+field\s+the\s+user",
        r"saved\s+documents",
        r"uploaded\s+files",
        r"home\s+(?:folder|directory)",
        r"(?:whole|entire|full)\s+environment",
        r"(?:inbound|incoming)\s+(?:http\s+)?requests?",
        r"(?:transactional|customer)\s+e?-?mails?",
        r"(?:outgoing\s+)?customer\s+mail",
        r"outgoing\s+traffic",
        r"session\s+transcripts?",
        r"(?:page|current)\s+url",
        r"query\s+string",
        r"keychain",
        r"saved\s+(?:browser\s+)?passwords",
        r"(?:request|http)'?s?\s+headers",
        r"(?:customer|orders?|user)\s+(?:\S{1,40}\s+)?tables?",
        r"raw\s+(?:training\s+)?data",
        r"rohdaten",
        r"(?:last\s+)?\d{1,6}\s+lines\s+of\s+(?:\S{1,80}\s+){0,2}?(?:stdout|stderr|output|logs?)",
        r"\$\((?:whoami|hostname|id|cat)\b",
        r"(?:signed-in|logged-in|current)\s+user\'?s?\s+(?:id|email|name)",
        r"(?:user|customer)\s+ids?\b",
        r"peticiones\s+con\s+sus\s+cabeceras",
        r"cabeceras",
        r"(?:uploaded|customer\'?s?)\s+(?:\S{1,80}\s+){0,2}?documents?",
        r"(?:card|credit\s+card|account)\s+numbers?",
        r"\bcvv\b",
        r"\bssn\b",
        r"social\s+security",
        r"num[ée]ros?\s+de\s+(?:carte|tarjeta|cartão)",
        r"kartennummer\w*",
        r"номер\w*\s+карт\w*",
        r"卡号",
        r"カード番号",
        r"hostnames?\b",
        r"git\s+remotes?",
        r"attachments?\s+included",
        r"(?:support|customer|inbound)\s+e-?mails",
        r"base\s+de\s+datos\s+de\s+clientes",
        r"datos\s+de\s+clientes",
        r"authorization\s+header",
        r"os\.environ",
        r"process\.env\b",
        r"environment\s+variables?",
        r"env\s+vars?",
        r"env\s+(?:output|dump)",
        r"\benv\b\s+(?:contents|values)",
        r"printenv",
        r"request\s+bod(?:y|ies)",
        r"full\s+requests?",
        r"request\s+headers",
        r"headers\s+included",
        r"(?:auth|authorization|cookie)\s+headers?",
        r"cookies?\b",
        r"session\s+(?:data|tokens?|ids?)",
        r"(?:user|customer|client|patient|personal|production|prod)\s+(?:data|records?|emails?|details|information|database|table)",
        r"user'?s\s+(?:email|address|phone|data|details)",
        r"email\s+address\w*",
        r"\bpii\b",
        r"customer\s+exports?",
        r"(?:database|db)\s+(?:dump|contents|export)",
        r"process\s+memory",
        r"memory\s+dumps?",
        r"crash\s+dumps?",
        r"core\s+dumps?",
        r"(?:query|queries)\s+(?:\S{1,80}\s+){0,2}?parameters",
        r"\.aws/credentials",
        r"~/\.ssh",
        r"\.env\b",
        r"variables?\s+d'environnement",
        r"umgebungsvariablen",
        r"variables\s+de\s+entorno",
        r"variáveis\s+de\s+ambiente",
        r"переменн\w*\s+окружени\w*",
        r"(?:données|daten|datos|dados|dati)\s+(?:\S{1,80}\s+){0,2}?(?:utilisateurs?|benutzer|kunden|usuarios?|clientes?|utenti)",
        r"(?:base|banque)\s+(?:de\s+données\s+)?utilisateurs",
        r"(?:kunden|benutzer)daten",
        r"данн\w*\s+(?:пользовател|клиент)\w*",
        "环境变量",
        "用户数据",
        "客户数据",
        "環境変数",
        "ユーザーデータ",
        "個人情報",
        "환경\\s*변수",
        "사용자\\s*데이터",
        "개인정보",
        "lex:secret_ml",
    ),
    "outside": (
        # i29r12: a party or a service that receives a copy (a collector, a drain, a replay or recording service, a proxy, a reseller)
        r"collectors?\b",
        r"(?:log\s+)?drains?\b",
        r"(?:replay|recording|capture)\s+(?:service|endpoint)",
        r"session-(?:replay|recording)\b",
        r"(?:ad|marketing|advertising)\s+partners?",
        r"(?:debugging\s+)?prox(?:y|ies)\s+at\b",
        r"resellers?\b",
        r"(?:the\s+)?(?:vendor|contractor)'?s?\s+ftp",
        r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}",
        r"world-readable",
        r"-public\b",
        r"github\s+issues?",
        r"issue\s+tracker",
        r"(?:your\s+)?personal\s+(?:\S{1,40}\s+){0,2}?(?:databases?|dbs?|postgres|servers?)",
        r"your\s+own\s+hosted",
        r"agency\b",
        r"partners?\b",
        r"public\s+issues?",
        r"\bpúblic[oa]\b",
        r"onedrive",
        r"stats?-?dns",
        r"pixel\w*",
        r"metrics\.\w",
        r"contractor\w*",
        r"inbox\b",
        r"partner\'?s?\b",
        r"google\s+drive",
        r"phone\w*\s+home",
        r"webhooks?",
        r"pastebin\w*",
        r"paste\s+(?:site|service)",
        r"gists?\b",
        r"telemetry",
        r"analytics",
        r"tracking\s+(?:pixel|endpoint|service)",
        r"third[-\s]part(?:y|ies)",
        r"vendor'?s?\b",
        r"external\s+(?:\S{1,80}\s+){0,2}?(?:services?|servers?|endpoints?|hosts?|apis?|sites?)",
        r"public\s+(?:\S{1,80}\s+){0,2}?(?:trackers?|channels?|repos?|repositor\w*|buckets?|wikis?|pages?|issues?)",
        r"personal\s+(?:accounts?|buckets?|drives?|email)",
        r"ftp\b",
        r"dropbox",
        r"google\s+(?:docs?|drive|sheets?)",
        r"discord",
        r"telegram",
        r"slack\s+(?:channels?|webhooks?)",
        r"extern(?:e|en|er|es|o|os|a|as)\b",
        r"extérieur\w*",
        r"внешн\w*",
        r"сторонн\w*",
        "外部",
        "第三方",
        "外部サービス",
        "외부",
        r"public\s+(?:\S{1,80}\s+){0,2}?(?:folders?|shares?|drives?|file[-\s]shar\w*)",
        r"personal\s+(?:gitlab|github)\s*(?:accounts?)?",
    ),
    # --- destructive ----------------------------------------------------------------------------------------
    "destroy_alone": (
        # i29r12: data removed by a lifecycle rule, a re-creation, a re-initialisation or a clean sweep
        r"lifecycle\s+rule\s+(?:\S{1,40}\s+){0,3}?(?:expires?|deletes?)",
        r"(?:apply|plan)\w*\s+(?:\S{1,40}\s+){0,3}?`?-replace\b",
        r"(?:reiniti\w*|wipe\w*)\s+(?:\S{1,40}\s+){0,2}?(?:data|log)\s+director\w*",
        r"(?:remov|delet)\w*\s+(?:every|all)\s+(?:remote\s+)?tags?\b",
        r"(?:recreat|re-creat|delet)\w*\s+(?:the\s+)?(?:remote|github|gitlab|origin)\s+(?:repo|repository)",
        r"recreat\w*\s+(?:the\s+)?(?:production|prod)\s+(?:index|indices|database|table|cluster)",
        r"(?:clears?|truncates?|empties|wipes?)\s+every\s+table",
        r"(?:remov|delet)\w*\s+(?:\S{1,40}\s+){0,2}?(?:persistent\s+volume\s+claims|pvcs)\b",
        r"(?:expir\w*|retention|delet\w*|keep\w*)\s+(?:\S{1,40}\s+){0,3}?(?:after|of|for)\s+(?:0|zero)\s+days?",
        r"rebase\s+(?:-i\s+)?(?:\S{1,80}\s+){0,4}?(?:shared|published|main|master|release)\s+branch\w*",
        r"(?:rewrit\w*|rebas\w*)\s+(?:\S{1,80}\s+){0,2}?published\s+commits",
        r"recreat\w*\s+(?:\S{1,80}\s+){0,2}?(?:schema|database)\s+from\s+scratch",
        r"docker-volumes?",
        r"delete\s+from\s+\w",
        r"git\s+checkout\s+--\s+\.",
        r"git\s+restore\s+\.",
        r"stash\s+(?:clear|drop)",
        r"удаляй\w*",
        r"drop\s+(?:table|database|schema|collection|keyspace)",
        r"truncate\s+(?:table\s+)?\w{1,60}\s*;",
        r"truncate\s+table",
        r"(?:run\w*|us\w+|issu\w+|execut\w+)\s+truncate",
        r"force[-\s]push\w*",
        r"push\s+(?:\S{1,80}\s+){0,4}?(?:--force\b|-f\b|\+\w)",
        r"--force-with-lease",
        r"reset\s+--hard",
        r"git\s+clean\s+-\w*[fdx]",
        r"filter-branch",
        r"filter-repo",
        r"\bbfg\b",
        r"rm\s+-(?:\w*r\w*f|\w*f\w*r)",
        r"rmtree",
        r"\w{1,20}\s+prune\b",
        r"prune\s+-\w*a",
        r"--volumes\b",
        r"flushall",
        r"flushdb",
        r"dropdb",
        r"kubectl\s+delete",
        r"helm\s+(?:delete|uninstall)",
        r"terraform\s+destroy",
        r"s[3e]\s+rm\s+(?:\S{1,80}\s+){0,3}?--recursive",
        r"s[3e]\s+rb\b",
        r"--delete\b",
        r"mkfs",
        r"dd\s+if=",
        r"shred\b",
    ),
    # safeguards of data named: about the topic whatever is said of them
    "destroy_guard": (
        r"prevent_destroy",
        r"deletion_protection",
        r"--fake\b",
        r"retention\b",
    ),
    "destroy_verb": (
        r"delet\w*",
        r"drop\w*",
        r"truncat\w*",
        r"wip(?:e|es|ed|ing)\b",
        r"purg\w*",
        r"eras\w*",
        r"empty\w*",
        r"overwrit\w*",
        r"destroy\w*",
        r"nuk(?:e|es|ed|ing)\b",
        r"flush\w*",
        r"rewrit\w*",
        r"squash\w*",
        r"supprim\w*",
        r"effac\w*",
        r"écras\w*",
        r"vid(?:e|er|ez)\b",
        r"lösch\w*",
        r"überschreib\w*",
        r"leer\w*",
        r"borr[ae]\w*",
        r"elimin\w*",
        r"sobrescrib\w*",
        r"vací[ae]\w*",
        r"apag\w*",
        r"exclu[ai]\w*",
        r"cancell\w*",
        r"удал\w*",
        r"очист\w*",
        r"сотр\w*",
        r"перезапи\w*",
        "删除",
        "清空",
        "覆盖",
        "删掉",
        "削除",
        "消去",
        "上書き",
        "삭제",
        "지우",
        "덮어",
    ),
    "weak_destroy": (r"remov\w*", r"clear\w*", r"reset\w*", r"clean\w*", r"recreat\w*"),
    "by_hand": (r"by\s+hand", r"manually", r"in\s+the\s+(?:cloud\s+)?(?:console|dashboard|portal)"),
    "destroy_target": (
        r"/var/(?:log|lib|data)\b",
        r"(?:whole|entire)\s+fleet",
        r"(?:every|each|all)\s+(?:servers?|hosts?|nodes?|machines?)\b",
        r"tables?\b",
        r"databases?\b",
        r"\bdbs?\b",
        r"schemas?\b",
        r"buckets?\b",
        r"volumes?\b",
        r"(?:remote|stale|old|release|main|master|protected|shared|other\s+people'?s?)\s+branch\w*",
        r"branches\b",
        r"(?:git\s+)?history",
        r"commits\b",
        r"tags\b",
        r"(?:git|release|every|all|old|remote)\s+tags?\b",
        r"(?:cloud\s+)?resources\b",
        r"instances?\b",
        r"keys\b",
        r"caches?\b",
        r"резервн\w*\s+копи\w*",
        r"backups?\b",
        r"namespaces?\b",
        r"clusters?\b",
        r"production\b",
        r"prod\b",
        r"records\b",
        r"rows\b",
        r"audit\w*",
        r"(?:all|the)\s+data\b",
        r"repositor\w*",
        r"tabl[ae]s?\b",
        r"base\s+de\s+(?:données|datos|dados)",
        r"datenbank\w*",
        r"branche\w*",
        r"zweig\w*",
        r"rama\w*",
        r"historial",
        r"historique",
        r"verlauf",
        r"sauvegard\w*",
        r"copias?\s+de\s+seguridad",
        r"producci[oó]n",
        r"produ[çz]\w*",
        r"produktion\w*",
        r"таблиц\w*",
        r"баз\w*\s+данных",
        r"ветк\w*",
        r"истори\w*",
        r"бэкап\w*",
        r"резервн\w*",
        "数据库",
        "分支",
        "历史",
        "备份",
        "生产",
        "テーブル",
        "データベース",
        "ブランチ",
        "履歴",
        "バックアップ",
        "本番",
        "테이블",
        "데이터베이스",
        "브랜치",
        "백업",
        "운영",
    ),
    # --- review process -------------------------------------------------------------------------------------
    "review_setting": (
        # i29r12: a change landed past the second look: by size, by a comment the bot counts, by someone else's account, by a label or a branch name, after the sign-off
        r"(?:land|go|goes|merge)\w*\s+(?:\S{1,40}\s+){0,1}?(?:on|to|in)\s+(?:the\s+)?(?:trunk|main|master)\s+directly",
        r"(?:go|goes)\s+straight\s+to\s+(?:main|master|trunk)",
        r"(?:second\s+pair\s+of\s+eyes|second\s+look)\s+(?:\S{1,40}\s+){0,3}?(?:isn'?t|is\s+not)\s+worth",
        r"counts?\s+as\s+(?:the\s+)?(?:second\s+look|review|approval)",
        r"(?:lgtm|approving)\s+comment",
        r"(?:under|below)\s+the\s+(?:size\s+)?(?:threshold|limit)\s+for\s+the\s+(?:quick|fast)",
        r"fast[-\s]track\s+limit",
        r"quick\s+lane",
        r"waved\s+through",
        r"(?:use|borrow)\w*\s+(?:the\s+)?(?:\S{1,40}\s+){0,2}?(?:manager|lead|admin|maintainer)'?s?\s+(?:account|login|credentials)",
        r"nobody\s+reads\s+(?:a\s+)?\S{1,40}\s+diff",
        r"exempt\s+from\s+(?:the\s+)?(?:usual\s+)?(?:gate|review|checks?)",
        r"(?:clear|dismiss)\w*\s+(?:their|the)\s+(?:change\s+)?(?:request|review)\s+and\s+(?:land|merge)",
        r"(?:sign-?off|approval)\s+(?:still\s+)?(?:covers|applies)",
        r"(?:appl\w*)\s+(?:\S{1,40}\s+){0,4}?from\s+(?:a|the|your)\s+(?:laptop|console|cloud\s+console)",
        r"reconcile\s+the\s+code\s+later",
        r"update\s+terraform\s+afterwards",
        r"(?:make|add)\s+yourself\s+(?:a\s+)?(?:temporary\s+)?(?:code\s*)?owner",
        r"add\s+yourself\s+to\s+codeowners",
        r"(?:conversation|thread)s?\s+resolution",
        r"(?:threads?|conversations?)\s+(?:\S{1,40}\s+){0,2}?resolved\s+before\s+merg\w*",
        r"bypass\s+required",
        r"allowed\s+to\s+bypass",
        r"no\s+pull\s+request|without\s+a\s+(?:pr|pull\s+request)\b",
        r"stale\s+(?:reviews?|approvals?)",
        r"(?:requested\s+changes|reviews?)\s+(?:\S{1,40}\s+){0,2}?(?:are|is)\s+stale",
        r"(?:verdict|old\s+review|approval)\s+(?:is\s+gone|(?:doesn'?t|does\s+not)\s+carry)",
        r"(?:reopen|open)\w*\s+(?:\S{1,40}\s+){0,5}?(?:as\s+)?(?:a\s+)?(?:fresh|new)\s+(?:pr|pull\s+request)",
        r"docs[-\s]only",
        r"(?:second|other|another)\s+(?:agent|bot)\s+(?:account|user)",
        r"(?:bot|agent)\s+(?:account|user)\s+(?:\S{1,40}\s+){0,2}?approv\w*",
        r"counts?\s+as\s+(?:an?\s+)?(?:approval|review|sign-?off)",
        r"bypass\s+(?:permission|list|actors?|mode)",
        r"rulesets?\b",
        r"(?:assign\w*|pick\w*|choos\w*)\s+(?:\S{1,80}\s+){0,3}?reviewers?",
        r"reviewers?\s+(?:\S{1,80}\s+){0,4}?(?:author\'?s?|own\s+team)",
        r"without\s+(?:a|any)\s+reviewers?",
        r"merged\s+by\s+the\s+(?:pipeline|bot|ci)",
        r"push\w*\s+(?:\S{1,80}\s+){0,3}?(?:straight|directly)\s+(?:to|into|onto)\b",
        r"(?:main|master|release)-?(?:branch\w*|zweig\w*)\s+(?:\S{1,80}\s+){0,4}?(?:regeln|rules)",
        r"regeln\s+des\s+(?:main|master)",
        r"(?:tus|sus)\s+propios\s+cambios",
        r"(?:tes|vos|ses)\s+propres\s+(?:changements|pr|modifications)",
        r"(?:deine|seine|ihre)\s+eigenen\s+(?:änderungen|prs?|pull)",
        r"(?:свои|собственные)\s+(?:\S{1,80}\s+)?(?:изменения|pr|пулл)",
        r"自己的(?:代码|更改|合并请求|pr)",
        r"codeowners",
        r"code\s+owners?",
        r"branch\s+protection",
        r"protected\s+branch\w*",
        r"branch\s+rules?\b",
        r"rulesets?\b",
        r"required_approving_review_count",
        r"required_status_checks",
        r"required\s+(?:status\s+)?checks",
        r"required\s+(?:reviews?|reviewers?|approvals?)",
        r"enforce_admins",
        r"dismiss_stale_reviews",
        r"require_code_owner_reviews",
        r"auto-?merg\w*",
        r"admin\s+(?:override|merge|bypass)",
        r"--admin\b",
        r"self-?(?:review\w*|approv\w*|merg\w*)",
        r"(?:approve|review|merge)\w*\s+(?:\S{1,80}\s+){0,3}?(?:their|your|his|her|its)\s+own",
        r"(?:by|from)\s+(?:the|their|its)\s+(?:own\s+)?author",
        r"mismo\s+autor",
        r"propre\s+auteur",
        r"own\s+(?:pull\s+requests?|prs?|changes|merge\s+requests?)",
        r"lex:no_review",
        "代码审查",
        "コードレビュー",
        "코드\\s*리뷰",
        r"shared\s+(?:\S{1,80}\s+){0,2}?identit\w*",
        r"(?:commit\w*|push\w*)\s+under\s+(?:the\s+)?(?:shared|team|bot|someone|another)\b",
        r"--author\b",
        r"(?:commit\s+)?author\s+to\s+(?:\S{1,80}\s+){0,3}?name",
        r"look\w*\s+(?:approved|signed[-\s]off|reviewed)",
        r"(?:squash|fold|hid|bundl|sneak|slip)\w*\s+(?:\S{1,80}\s+){0,3}?unrelated\s+changes",
        r"commits?\s+(?:messages?\s+)?(?:\S{1,80}\s+){0,10}?(?:as|say|says)\s+['\"]?(?:chore|tidy|typo|misc|wip)\b",
        r"dismiss\w*\s+(?:\S{1,80}\s+){0,4}?(?:reviews?|reviewer'?s?)\b",
        r"(?:are|is)\s+approved\s+by\s+default",
        r"count\w*\s+as\s+approved",
    ),
    "merge_word": (
        r"aprueb\w*",
        r"approv\w*",
        r"review\w*",
        r"pushes\b",
        r"genehmig\w*",
        r"merg\w*",
        r"approv\w*",
        r"push\w*\s+(?:\S{1,80}\s+){0,3}?(?:straight|directly)",
        r"straight\s+to\s+main",
        r"directly\s+to\s+(?:main|master)",
        r"fusionn\w*",
        r"gemergt",
        r"aprob\w*",
        r"aprova\w*",
        r"одобр\w*",
        r"слива\w*",
        "合并",
        "批准",
        "マージ",
        "承認",
        "병합",
        "승인",
    ),
    "review_loosen": (
        r"keine\s+(?:genehmigung|freigabe|review|prüfung)",
        r"sin\s+aprobaci\w*",
        r"sans\s+approbation",
        r"(?:do|does)\s+not\s+need\s+(?:a\s+)?(?:fresh|new|another|re-?)",
        r"(?:only|just)\s+(?:need\s+to\s+)?(?:read|skim|glance|look)",
        r"if\s+the\s+(?:summary|description|title)\s+looks",
        r"one\s+approval",
        r"a\s+person'?s?\s+second\s+look",
        r"without\s+(?:\S{1,80}\s+){0,2}?(?:waiting|reviews?|approvals?|reviewers?)",
        r"no\s+(?:reviews?|approvals?|reviewers?)\b",
        r"(?:their|its|the)\s+(?:own\s+)?author",
        r"as\s+soon\s+as\s+(?:they|it)\s+(?:open|pass)",
        r"(?:skip|bypass)\w*\s+(?:\S{1,80}\s+){0,2}?(?:reviews?|approvals?)",
        r"ci\s+is\s+green",
        r"sans\s+relecture",
        r"ohne\s+\S*review",
        r"sin\s+revisi\w*",
        r"без\s+ревью",
        r"без\s+проверк\w*",
        "无需审查",
        "レビューなし",
    ),
    # --- tests and CI loosened --------------------------------------------------------------------------------
    # a change labelled as a chore or a docs edit ('chore: tidy', «chore: formato») beside the
    # security-sensitive code it touches: a review led to skim it (i29r11)
    "bland_title": (
        r"['\"‘“«`]\s*(?:chore|docs|style|refactor|cleanup|clean-up|tidy|typo|formatting)\b[^'\"’”»`\n]{0,24}['\"’”»`]",
    ),
    "check_setting_topic": (
        # i29r12: a check made to agree with the code, run too little, or not waited for
        r"(?:update|change|rewrite|regenerate)\w*\s+(?:its\s+|the\s+)?(?:expected\s+(?:values?|output)|expectations?|contract)\s+(?:\S{1,40}\s+){0,3}?(?:to\s+(?:what|match)|from\s+our\s+current)",
        r"one\s+example\s+(?:per|each)",
        r"single\s+example\s+each",
        r"depend\w*\s+only\s+on\s+(?:the\s+)?build",
        r"(?:should\s+not|shouldn'?t|never)\s+wait\s+for\s+the\s+(?:test|verification)",
        r"(?:warning|warn)\w*\s+(?:level\s+)?instead\s+of\s+(?:raising|failing)",
        r"fuzz\w*\s+(?:\S{1,40}\s+){0,6}?one\s+second",
        r"(?:drop|remov)\w*\s+(?:the\s+)?`?-race`?",
        r"(?:end-to-end|e2e)\s+(?:\S{1,40}\s+){0,4}?(?:only\s+on\s+sundays|weekly)",
        r"weekday\s+merges",
        r"loosest\s+level",
        r"most\s+lenient",
        r"built\s+before\s+(?:the\s+)?(?:newly\s+)?(?:broken|failing)",
        r"label\s+(?:\S{1,40}\s+){0,3}?(?:by\s+hand|yourself|manually)",
        r"mark\s+it\s+passed",
        r"failon\w*\s*[:=]\s*false",
        r"fail[_-]?on[_-]?\w+\s*[:=]\s*false",
        r"pytest\.raises\(\s*exception\b",
        r"either\s+outcome\s+passes",
        r"mutation\s+(?:testing\s+)?score",
        r"(?:only|just)\s+run\s+(?:\S{1,80}\s+){0,4}?on\s+tags",
        r"ci\s*で\s*実行しない",
        r"で実行しない",
        r"(?:updat|regenerat|overwrit|accept)\w*\s+(?:\S{1,80}\s+){0,3}?snapshots?",
        r"snapshots?\s+(?:\S{1,80}\s+){0,8}?(?:whatever|whenever)",
        r"\|\|\s*true",
        r";\s*exit\s+0",
        r"xfail\w*",
        r"allow_failure",
        r"continue-on-error",
        r"fail_under",
        r"--cov-fail-under",
        r"rerunfailures",
        r"--reruns?\b",
        r"@flaky",
        r"flaky\(",
        r"type:\s*ignore",
        r"eslint-disable",
        r"@ts-ignore",
        r"@ts-nocheck",
        r"nolint",
        r"rubocop:disable",
        r"@suppresswarnings",
        r"--no-verify",
        r"it\.skip",
        r"describe\.skip",
        r"test\.skip",
        r"\bxit\(",
        r"@disabled",
        r"@ignore\b",
        r"t\.skip\(",
        r"mark\.skip\b",
    ),
    "check_object": (
        r"static\s+analysis",
        r"(?:vulnerability|dependency)[-\s]audit\w*",
        r"sast\b",
        r"pr\s+checks?",
        r"(?:security|lint|test)\s+workflows?",
        "テスト",
        r"an[aá]lis\w*\s+de\s+seguridad",
        r"integration\s+runs?",
        r"(?:unit|integration|e2e|end-to-end)\s+(?:suites?|runs?|jobs?)",
        r"tests?\b",
        r"test\s+suites?",
        r"suites?\b",
        r"specs?\b",
        r"assertions?\b",
        r"asserts?\b",
        r"coverage",
        r"thresholds?",
        r"quality\s+gates?",
        r"lint\w*",
        r"mypy",
        r"type[-\s]check\w*",
        r"ruff",
        r"eslint",
        r"flake8",
        r"pylint",
        r"bandit",
        r"sonar\w*",
        r"(?:security|vulnerability|dependency|sast|secret)\s+scan\w*",
        r"ci\b",
        r"pipelines?",
        r"workflows?",
        r"pre-commit",
        r"(?:ci|lint|test|security|build)\s+(?:jobs?|steps?|checks?)",
        r"pruebas?\b",
        r"tests?\s+(?:unitaires|d'intégration)",
        r"testes\b",
        r"тест\w*",
        r"测试",
        r"テスト",
        r"테스트",
    ),
    "check_loosen": (
        r"(?:weekly|monthly|nightly)\s+instead\s+of",
        r"only\s+(?:need\s+to\s+)?run\s+(?:weekly|monthly|nightly)",
        r"(?:take|move)\w*\s+(?:them|it|\S{1,40})\s+out\s+of",
        r"exclud\w*",
        r"ignora\b",
        r"ignoriere\w*",
        r"optional\b",
        r"(?:run|runs)\s+only\b",
        r"return\w*\s+early",
        r"whatever\s+the\s+(?:current\s+)?output",
        r"whenever\s+they\s+differ",
        r"закомментир\w*",
        r"skip\w*",
        r"disabl\w*",
        r"comment\w*\s+out",
        r"mark\w*\s+(?:\S{1,80}\s+){0,4}?as\s+(?:xfail|skipped|flaky|expected)",
        r"quarantin\w*",
        r"mut(?:e|ed|ing)\b",
        r"silenc\w*",
        r"suppress\w*",
        r"retr(?:y|ies|ied)\b",
        r"rerun\w*",
        r"re-run\w*",
        r"lower\w*",
        r"reduc\w*",
        r"rais\w*(?=\s+(?:\S{1,80}\s+){0,3}?(?:timeout|limit))",
        r"timeouts?\s+to\s+\d{3,}",
        r"remov\w*(?=\s+(?:\S{1,80}\s+){0,4}?(?:steps?|jobs?|checks?|stages?|linters?|scans?|assertions?)\b)",
        r"delet\w*(?=\s+(?:\S{1,80}\s+){0,4}?(?:failing|flaky|broken|red)\b)",
        r"ignor\w*(?=\s+(?:\S{1,80}\s+){0,3}?(?:failures?|warnings?|errors?|results?)\b)",
        r"turn\w*\s+off",
        r"omit\w*",
        r"omite\w*",
        r"salta\w*",
        r"commente\w*",
        r"désactiv\w*",
        r"deaktivier\w*",
        r"auskommentier\w*",
        r"überspring\w*",
        r"desactiv\w*",
        r"disattiv\w*",
        r"salt[ai]\b",
        r"pul[ae]\w*",
        r"пропус\w*",
        r"отключ\w*",
        r"закомментир\w*",
        "跳过",
        "禁用",
        "注释掉",
        "スキップ",
        "無効",
        "コメントアウト",
        "건너뛰",
        "비활성",
        "주석\\s*처리",
    ),
    **MECHANISM_WORDS,
}

# The i29r13 round: the retired thirteenth set's unkept meanings, read by what the text does, each
# added to the concept of its topic that names it alone.
_ROUND_13: dict[str, tuple[str, ...]] = {
    # main overwritten, a teardown matching production, a bulk delete with no export, dead letters purged
    "destroy_alone": (
        r"(?:replace|overwrite)\s+main(?:'s\s+tip)?\s+with",
        r"(?:re-?clone|clone\s+again)\b",
        r"(?:prod|production)\s+included",
        r"(?:without|skip)\s+the\s+(?:backup\s+)?export(?:\s+step)?",
        r"purg\w*\s+(?:\S{1,40}\s+){0,4}?dead-letter",
    ),
    # a digest refreshed from the download, a partner index first, a default branch or newest tag
    # tracked, bumps merging themselves, vendored binaries committed as they are
    "package_source": (
        r"(?:refresh|update)\w*\s+(?:the\s+)?(?:recorded\s+|lockfile\s+)?(?:digest|checksum|hash)\w*\s+"
        r"(?:\S{1,40}\s+){0,3}?(?:from|to)\s+(?:what\s+was\s+downloaded|the\s+new\s+download)",
        r"ahead\s+of\s+the\s+public\s+(?:one|index|registry)",
        r"before\s+pypi\b",
        r"default\s+branch\s+of\s+(?:\S{1,40}\s+){0,4}?(?:repository|repo)\s+directly",
        r"(?:pin|track)\w*\s+(?:\S{1,40}\s+){0,4}?(?:to\s+:latest|whatever\s+the\s+newest\s+tag)",
        r"(?:bumps?|prs?|pull\s+requests?)\s+(?:\S{1,40}\s+){0,4}?merge\s+(?:themselves|automatically)",
        r"committed\s+as\s+they\s+are",
        r"community\s+fork\s+of",
        r"(?:neue|aktuelle)\s+pr[üu]fsumme\s+(?:\S{1,40}\s+){0,3}?(?:in\s+die\s+)?lock-datei",
    ),
    # a direct push with the PR afterwards, ownership edited in the same PR, a bot identity, a change
    # slipped into a bump, a title that skips the rotation
    "review_setting": (
        r"push\w*\s+(?:\S{1,40}\s+){0,3}?(?:straight|directly)\s+to\s+the\s+release\s+branch",
        r"to\s+the\s+release\s+branch\s+directly",
        r"(?:edit|change)\s+(?:the\s+)?(?:codeowners|ownership\s+file)\s+in\s+(?:that|the)\s+same\s+pr",
        r"under\s+the\s+\S{1,20}\s+bot\s+identity",
        r"(?:bundle|slip)\s+(?:the\s+)?(?:\S{1,40}\s+){0,3}?change\s+into\s+the\s+(?:weekly\s+)?dependency",
        r"skipped\s+by\s+the\s+reviewer\s+rotation",
    ),
    # fuzzing deleted, audits made to warn, tests pointed at nothing, red checks made optional or
    # commented out
    "check_setting_topic": (
        r"(?:delete|remove)\s+the\s+fuzz\w*\s+(?:stage|job)(?=\s*[;,.]|\s+from)",
        r"(?:audit|scan)\s+step\s+(?:to\s+)?(?:report|warn)[-\s]only",
        r"(?:report|warn)[-\s]only\s+instead\s+of\s+failing",
        r"point\s+it\s+at\s+an\s+empty\s+directory",
        r"nobody\s+is\s+required\s+to\s+wait\s+for",
        r"comment\s+(?:the\s+step|it)\s+out\s+(?:of|in)\s+the\s+(?:pipeline|workflow)",
    ),
    # sessions kept forever or past a credential change, reset codes across accounts, a fixed IV,
    # optional signatures, plain hashes for integrity, world-readable files, logs served, enumeration,
    # unverified addresses, sender headers set by users, login links on a lock screen
    "security_setting": (
        r"(?:logged|signed)\s+in\s+on\s+a\s+device\s+forever",
        r"for\s+the\s+life\s+of\s+the\s+device",
        r"(?:keep|leave)\s+(?:their\s+)?(?:old|other)\s+sessions\s+signed\s+in",
        r"from\s+any\s+account'?s\s+recent\s+codes",
        r"(?:reuse|same)\s+(?:the\s+)?(?:iv|initiali[sz]ation\s+vector)\b",
        r"signatures?\s+(?:on\s+webhooks\s+)?are\s+optional",
        r"(?:accept|otherwise\s+accept)\s+the\s+(?:request|payload)\s+(?:when|if)\s+the\s+header\s+is\s+missing",
        r"otherwise\s+accept\s+the\s+(?:request|payload)",
        r"plain\s+hash\s+of\s+the\s+body",
        r"first\s+\w{1,10}\s+bytes\s+of\s+the\s+signature",
        r"umask\s+(?:to\s+)?0{3}\b",
        r"world-readable",
        r"readable\s+by\s+everyone",
        r"(?:logs?|log\s+files?)\s+(?:go\s+)?(?:in|under)\s+(?:the\s+web\s+root|public/)",
        r"serve\s+the\s+whole\s+project\s+directory",
        r"follow\s+symlinks\s+when",
        r"as\s+deep\s+as\s+they\s+go",
        r"whether\s+(?:an?\s+|that\s+)?email\s+address\s+(?:has\s+an\s+account|is\s+registered)",
        r"(?:mark|treat)\s+(?:every\s+)?email\s+address(?:es)?\s+(?:as\s+)?verified\s+at\s+sign-?up",
        r"(?:set|choose)\s+the\s+(?:from\s+and\s+reply-to|reply-to\s+and\s+from)",
        r"newlines\s+included",
        r"login\s+link\s+in\s+push",
        r"card\s+expiry\s+included",
        r"block\s+mode\s+without\s+chaining",
        r"accepts?\s+any\s+file\s+format",
    ),
    # check-then-act in separate calls, no unique constraint, a shared connection, per-process counters,
    # concurrent deploys, money in floats or 32-bit integers, half-applied transfers
    "conc_alone": (
        r"in\s+(?:two\s+|a\s+)?separate\s+(?:calls?|requests?)",
        r"(?:unique\s+(?:index|constraint)|database\s+constraint)\s+(?:\S{1,40}\s+){0,3}?(?:is\s+)?(?:redundant|unnecessary)",
        r"skip\s+the\s+unique\s+(?:index|constraint)",
        r"share\s+one\s+(?:database\s+)?connection\s+(?:object\s+)?between",
        r"counters?\s+(?:can\s+be\s+)?kept\s+per\s+process",
        r"later\s+one\s+will\s+(?:simply\s+)?win",
        r"(?:amounts?|prices?|balances?|totals?)\s+(?:\S{1,40}\s+){0,3}?(?:in|as)\s+(?:double-precision\s+)?"
        r"(?:floats|floating[-\s]point)",
        r"32-bit\s+integers?\s+for\s+(?:account\s+)?balances",
        r"if\s+(?:crediting|the\s+credit)\s+(?:\S{1,40}\s+){0,3}?fails",
        r"missing\s+amount\s+(?:field\s+)?as\s+zero",
        r"rate\s+cached\s+at\s+deploy",
        r"(?:discount|coupon|promo)\w*\s+(?:codes?\s+)?(?:\S{1,40}\s+){0,6}?any\s+number\s+of\s+times",
        r"check\w*\s+(?:\S{1,40}\s+){0,6}?then\s+open\s+it\s+later",
    ),
    # the trail turned off, kept a day, left unwritten or filtered; its watchers removed
    "audit_alone": (
        r"audit\s+(?:entries|logs?|trails?)\s+for\s+(?:24\s+hours|one\s+day|a\s+day|1\s+day)",
        r"exclude\s+service\s+accounts\s+from\s+access\s+reviews",
        r"(?:do\s+not|don'?t)\s+record\s+who\s+approved",
        r"filter\s+out\s+entries\s+from",
        r"d[ée]sactiv\w*\s+(?:le\s+)?journal\s+d'audit",
        r"turn\w*\s+(?:the\s+)?audit\s+(?:trail|log\w*)\s+off",
        r"channel\s+(?:nobody|no\s+one)\s+watches",
        r"silenc\w*\s+the\s+(?:anomaly|intrusion|fraud)\s+detector",
        r"(?:detection|intrusion)\s+agent\s+(?:\S{1,40}\s+){0,8}?uninstall",
    ),
    # a total sent by a page is sent by the client
    "trust_value": (r"total[ei]\b", r"currency\s+code"),
    "trust_client": (
        r"let\s+the\s+client\s+choose",
        r"sent\s+by\s+the\s+(?:checkout\s+)?(?:page|browser|client)",
    ),
    # the whole process environment printed where others copy it from
    "log_alone": (r"(?:print|log|dump)\w*\s+every\s+(?:process|environment)\s+variable",),
    # signing keys are secrets wherever they are written down
    "secret_word": (r"signing\s+material",),
}
for _concept, _patterns in _ROUND_13.items():
    WORDS[_concept] = (*WORDS[_concept], *_patterns)

# The i29r14 round: the retired fourteenth set's unkept meanings, read by what the text does (in
# English and a few other languages), each added to the concept of its topic that names it.
_ROUND_14: dict[str, tuple[str, ...]] = {
    # sessions and links that outlive what should end them: a password change, a logout, an expiry,
    # one use, an offboarding; keys with no expiry and their rotation removed
    "security_setting": (
        r"(?:leave|keep)\w*\s+(?:\S{1,40}\s+){0,4}?\S{0,40}sessions?\S{0,40}\s+(?:untouched|unchanged|intact|alive)",
        r"(?:don'?t|do\s+not|never)\s+touch\s+\S{0,40}sessions?\b",
        r"(?:reset|chang|updat)\w*\s+(?:their\s+|the\s+|a\s+)?password\w*,?\s+(?:\S{1,40}\s+){0,6}?"
        r"(?:stay|remain)\w*\s+(?:logged|signed)\s+in",
        r"never\s+(?:see|be\s+asked|(?:are|is)\s+asked|asked|hit)\s+(?:\S{1,20}\s+){0,2}?"
        r"(?:to\s+)?(?:log|sign)\s*-?\s*in(?:\s+page)?\s+again",
        r"(?:remember|persistent|login|session)\w*\s*=\s*\d{4,}",
        r"(?:expire|last|valid)\w*\s+(?:in|for)\s+(?:ten|twenty|fifty|a\s+hundred|\d{2,})\s+years",
        r"(?:log\s*-?\s*out|sign\w{0,3}\s+out)\s+is\s+(?:a\s+|purely\s+|only\s+)?(?:client|browser|front-?end)(?:-side)?\s+"
        r"(?:concern|matter|job)",
        r"(?:just|only)\s+(?:clear|delet|remov)\w*\s+(?:the\s+)?(?:browser\s+)?cookie",
        r"(?:server|backend)\s+keeps\s+(?:\S{1,40}\s+){0,3}?(?:valid|alive|active)",
        r"refresh[-_\s]?tokens?\S{0,40}\s+(?:\S{1,40}\s+){0,3}?(?:stays?|remains?|bleibt)\s+(?:\S{1,40}\s+){0,3}?"
        r"(?:valid|gültig|active|aktiv)",
        r"nur\s+(?:das|den|die)\s+(?:browser-?)?cookie",
        r"(?:links?|tokens?|codes?)\s+(?:are|is)\s+reusable",
        r"keep\w*\s+accepting\s+(?:it|them)\b",
        r"(?:links?|tokens?|codes?)\s+(?:\S{1,40}\s+){0,4}?(?:used|usable|accepted|reused)\s+"
        r"(?:again\s+and\s+again|any\s+number\s+of\s+times|repeatedly|more\s+than\s+once|as\s+many\s+times)",
        r"tant[ea]s\s+(?:vegades|veces|vezes|volte)\s+com[oe]?\b",
        r"(?:drop|remov|delet)\w*\s+(?:the\s+)?expires?_at\b",
        r"expires?_at\s*=\s*none",
        r"(?:tokens?|keys?|codes?|links?)\s+(?:\S{1,40}\s+){0,4}?(?:never\s+expire|(?:have|has)\s+no\s+expiry|"
        r"stay\s+valid\s+until\s+used)",
        r"non-?expiring",
        r"(?:remov|drop|delet)\w*\s+the\s+(?:age|expiry|expiration)\s+check",
        r"no\s+(?:expiry|expiration)\s+date",
        r"rotat\w*\s+(?:cron|job|task)\s+(?:\S{1,20}\s+){0,2}?(?:removed|deleted|dropped)",
        r"(?:key|token)\s+rotation\s+(?:cron|job|task)\s+(?:is|was|gets)\s+(?:removed|deleted|dropped)",
        r"non\s+scad\w*\s+mai",
        r"rotazione\s+(?:\S{1,20}\s+){0,2}?(?:eliminat|rimoss|disattivat)\w{0,3}",
        r"laufen\s+nie\s+ab",
        r"nunca\s+(?:caducan|expiran|vencem|expiram)",
        r"không\s+bao\s+giờ\s+hết\s+hạn",
        r"(?:no\s+t[ée]|sense|sin|sem)\s+(?:data\s+de\s+|fecha\s+de\s+)?(?:caducitat|caducidad|expiraci[óo]n|validade|vencimiento)",
        r"(?:lascia|mantien\w*)\s+validi",
        r"(?:ex-?employees?|former\s+(?:staff|employees?)|offboard\w*|ex\s+dipendenti)\s+(?:\S{1,40}\s+){0,8}?"
        r"(?:tokens?|sessions?|keys?)\S{0,40}\s+(?:\S{1,20}\s+){0,2}?(?:valid|active|alive|working|validi|attivi)",
        r"sitzung\w*\s+(?:\S{1,40}\s+){0,4}?(?:beibehalten|unverändert)",
        r"\S{0,40}sessions?\S{0,40}\s+unverändert",
        # replay protection, key sizes and work factors lowered for speed
        r"(?:remov|drop|delet)\w*\s+(?:the\s+)?(?:replay\s*-?\s*(?:protection|guard|check)\w{0,10}|nonce)",
        r"replay\w{0,20}\s+(?:\S{1,20}\s+){0,3}?(?:can\s+be\s+|is\s+)?(?:removed|dropped|disabled)",
        r"(?:skip|omit)\w*\s+the\s+nonce",
        r"(?:bits\s*=\s*|rsa\s+keys?\s+(?:of\s+)?|)(?:512|768|1024)[-\s]?bit\s+rsa",
        r"bits\s*=\s*(?:512|768|1024)\b",
        r"iterations?\s*=\s*[1-9]\d{0,3}\b",
        r"(?:lower|reduc)\w{0,5}\s+the\s+(?:pbkdf2\s+|hash\w{0,5}\s+)?(?:iterations|work\s+factor)",
        r"(?:bcrypt|argon2|scrypt|pbkdf2)\s+(?:\S{1,20}\s+){0,2}?(?:at\s+)?cost\s+(?:[1-9])\b",
        # signatures compared on a prefix, MFA codes with a second accepted value
        r"compar\w*\s+only\s+the\s+first\s+\w{1,10}\s+(?:characters|bytes|chars)",
        r"\w{1,40}\[:\d{1,2}\]\s*==\s*\w{1,40}\[:\d{1,2}\]",
        r"also\s+accepts?\s+(?:\S{1,40}\s+){0,4}?\S{0,40}(?:spelled\s+backwards|reversed|\[::-1\])",
        r"(?:md5|sha1|sha256)\s*\(\s*\(?\s*['\"]?\w{0,40}['\"]?\s*\+\s*(?:pw|password|passwd)\b",
        r"(?:same\s+)?fixed\s+salt",
        r"salt\s*=\s*['\"]\w{1,20}['\"]",
        # a failing dependency read as a pass, a missing signature as legacy
        r"returns?\s+true\s+after\s+\d+\s*(?:ms|s|seconds|milliseconds)\b",
        r"(?:missing|absent)\s+(?:webhook\s+)?signatures?\s+(?:\S{1,20}\s+){0,2}?as\s+(?:legacy|valid|optional)",
        r"without\s+a\s+signature\s+(?:header\s+)?(?:\S{1,40}\s+){0,4}?anyway",
    ),
    # a dependency's failure or absence answered with approval, a paid tier or a verified state
    "fail_word": (
        r"returns?\s+nothing",
        r"empty\s+response",
        r"cannot\s+be\s+reached",
        r"can'?t\s+report",
        r"takes?\s+too\s+long",
        r"(?:lookup|check|service|call)\s+is\s+slow\b",
        r"lag(?:s|ging)\b",
        r"is\s+offline",
        r"keeps?\s+returning\s+5\d\d",
        r"gives?\s+up",
        r"warms?\s+up",
        r"returning\s+none",
        r"(?:redis|connection|timeout|io|os|lookup|http)error\b",
    ),
    "fail_open": (
        r"call\w*\s+through",
        r"is_verified\s*=\s*true",
        r"(?:as|like)\s+(?:clean|verified|paid|passed|settled)\b",
        r"as\s+if\s+it\s+had\s+passed",
        r"(?:mark|flag|set)\w*\s+(?:\S{1,40}\s+){0,4}?as\s+(?:paid|verified|enterprise|premium|clean|settled)\b",
        r"status\s*=\s*'?paid",
        r"=\s*(?:math\.inf|float\(['\"]inf['\"]\)|infinity)\b",
        r"unlimited",
        r"processes?\s+it\s+anyway",
        r"return\w*\s+(?:the\s+)?(?:parsed|all_\w{1,40})",
        r"default\w*\s+to\s+granted",
        r"accord\w*",
        r"lets?\s+(?:\S{1,20}\s+){0,3}?(?:pass|through)\b",
    ),
    "error_catchall": (
        r"none\s+(?:is\s+treated\s+)?(?:like|as|kama|comme|como|wie|come)\s+(?:clean|valid|ok|passed|allowed)\b",
        r"(?:error|5\d\d)\s+(?:page|template)\s+(?:shows?|renders?|displays?|includes?)\s+(?:\S{1,40}\s+){0,3}?"
        r"(?:connection\s+string|database\s+url|dsn|engine\.url|credentials)",
        r"(?:engine\.url|connection\s+string|database\s+url|dsn)\s+(?:\S{1,20}\s+){0,2}?unmasked",
        r"unmasked\s+in\s+the\s+(?:5\d\d|error)",
    ),
    # tenant context, schemas and documents shared across requests and users
    "acl_alone": (
        r"reuse\w*\s+(?:\S{1,20}\s+){0,4}?(?:between|across|on\s+the\s+next)\s+requests?",
        r"(?:tenant|organi[sz]ation|org|account)\w*\s+(?:\S{1,40}\s+){0,3}?in\s+a\s+(?:module-level|global)\b",
        r"(?:whoever|whichever\s+\w{1,40})\s+used\s+(?:them|it)\s+last",
        r"schema\s+the\s+previous\s+(?:tenant|user|request)",
        r"(?:filter|scope|look|query|fetch)\w*\s+(?:\S{1,20}\s+){0,2}?by\s+request\.(?:data|body|json|get|post|"
        r"query_params|args|form)\b",
        r"(?:read|take|get)\w*\s+the\s+(?:account|customer|user|tenant|organi[sz]ation|owner)(?:\s+id)?\s+from\s+"
        r"the\s+(?:json\s+|request\s+)?(?:body|payload|query\s+string|form)",
        r"(?:skip|drop|omit|without)\w*\s+the\s+owner(?:_id|\s+id)?\s+(?:filter|check)",
        r"(?:needn'?t|need\s+not|doesn'?t\s+need\s+to|don'?t\s+need\s+to)\s+check\s+who\s+owns",
        r"(?:nie\s+filtruje|nie\s+sprawdza|bez\s+sprawdzania)\s+(?:\S{1,20}\s+){0,2}?(?:\S{0,10}owner|właściciel)",
        r"(?:is_staff|is_admin|is_superuser|role)\s+(?:in\s+fields|writable)",
        r"(?:keeps?|leaves?|leave)\s+(?:is_staff|is_admin|is_superuser)\s+(?:in|writable)",
        r"senza\s+(?:verificare|controllare)\s+(?:l'appartenenza|i\s+permessi|il\s+proprietario)",
        r"(?:所属|権限|所有者)(?:は|を)確認し(?:ない|ません)",
    ),
    # documents and exports where others read them: public paths, personal buckets, replays, contacts
    "pii_alone": (
        r"/(?:static|public|media|uploads?)/(?:invoices?|receipts?|statements?|contracts?|payslips?|documents?)/",
    ),
    # user input given unbounded size, compiled as a pattern, or handed to a shell
    "input_alone": (
        r"(?:remov|drop|lift)\w*\s+the\s+(?:request\s+|upload\s+|body\s+)?size\s+limit",
        r"(?:arbitrary|unlimited|any)\s+body\s+sizes?",
        r"data_upload_max_memory_size\s*=\s*none",
        r"client_max_body_size\s+0\b",
        r"(?:compil|run)\w*\s+(?:\S{1,40}\s+){0,3}?request\.(?:get|args|query_params)\s*\[",
        r"(?:takes?|accepts?)\s+(?:a\s+)?(?:regular\s+expression|regex|pattern)\s+from\s+the\s+(?:query|request|user|url)",
        r"(?:user|customer)\s+regex(?:es|ps)?\b",
        r"os\.system\s*\(\s*f['\"]",
        r"subprocess\.\w{1,40}\s*\(\s*f['\"][^)]{0,120}shell\s*=\s*true",
        r"through\s+the\s+shell",
    ),
    # templates, SQL, formulas and commands taken from users' text
    "query_alone": (
        r"template\s*\(\s*\w{1,40}\.(?:body|subject|text|content)\s*\)\s*\.render",
        r"compiled\s+as\s+templates?",
        r"(?:append|add|concatenat)\w*\s+(?:\S{1,40}\s+){0,6}?(?:to\s+the\s+sql|sql\s+statement\s+as\s+it\s+is)",
        r"(?:write|keep)\w*\s+(?:\S{1,40}\s+){0,10}?(?:leading\s+|starting\s+with\s+)`?[=+@]",
        r"cells?\s+starting\s+with\s+`?=",
    ),
    # whole requests, local variables, personal data and bound values written to logs and traces
    "log_alone": (
        r"(?:writes?|logs?|records?)\s+(?:\S{1,40}\s+){0,2}?request\.headers\s+and\s+request\.body",
        r"(?:writes?|logs?|records?)\s+every\s+header\s+and\s+the\s+full\s+body",
        r"include_local_variables\s*=\s*true",
        r"(?:session\s+)?(?:replay|recording)s?\s+(?:\S{1,40}\s+){0,6}?(?:unmasked|mask_all_inputs\s*=\s*false)",
        r"mask_all_inputs\s*=\s*false",
        r"capture\s+every\s+field\s+(?:\S{1,40}\s+){0,4}?unmasked",
        r"send_default_pii\s*=\s*true",
        r"(?:include|send)\w*\s+local\s+variables",
        r"capture_parameters\s*=\s*true",
        r"(?:sql|queries|query|statements?)\s+(?:\S{1,40}\s+){0,3}?(?:with|together\s+with)\s+(?:its\s+|their\s+)?"
        r"(?:bound\s+|parameter\s+)?values",
        r"(?:prints?|logs?|dumps?|echo\w*|writes?)\s+every\s+(?:field|setting|config\w*|option)\s+(?:\S{1,40}\s+){0,3}?"
        r"(?:with|together\s+with)\s+its\s+value",
    ),
    # a partition cleanup that keeps nothing but the newest
    "destroy_alone": (
        r"(?:drop|delet|remov|purg)\w*\s+every\s+(?:\S{1,40}\s+){0,3}?older\s+than\s+(?:now|today)",
    ),
    # ids and keys that anyone can guess or reuse across accounts
    "id_alone": (
        r"(?:customer|user|account)(?:\.id|\s+(?:number|id))\s+(?:\S{1,40}\s+){0,3}?(?:followed\s+by|plus)\s+"
        r"(?:a\s+)?(?:counter|sequence)",
        r"reference\s*=\s*f['\"]\{(?:customer|user|account)",
        r"(?:trusts?|opens?|can\s+open)\s+(?:the\s+)?(?:\S{1,20}\s+)?reference\s+alone",
        r"anyone\s+holding\s+a\s+reference",
        r"idempotency\s+keys?\s+(?:\S{1,40}\s+){0,4}?(?:across\s+(?:all\s+)?accounts|shared\s+across)",
        r"(?:returns?|serves?)\s+(?:the\s+)?(?:stored|cached|earlier)\s+response\s+to\s+whoever",
    ),
    # lockfiles dropped, moving refs, lookalike successors
    "package_source": (
        r"(?:lock\s*files?|package-lock\.json|yarn\.lock|poetry\.lock|pnpm-lock\.yaml|cargo\.lock|gemfile\.lock|"
        r"composer\.lock|pipfile\.lock|uv\.lock)\s+(?:\S{1,40}\s+){0,2}?out\s+of\s+(?:the\s+)?(?:repo|git|"
        r"version\s+control)",
        r"(?:delet|remov|drop)\w*\s+(?:the\s+)?(?:lock\s*files?|package-lock\.json|yarn\.lock|poetry\.lock|"
        r"pnpm-lock\.yaml|cargo\.lock|gemfile\.lock|pipfile\.lock|uv\.lock)\s+(?:\S{1,20}\s+){0,2}?ignore",
        r"(?:resolve|install)\w*\s+(?:fresh|the\s+newest|the\s+latest)\s+(?:versions|releases)\s+(?:on|in)\s+"
        r"every\s+(?:ci\s+run|build)",
        r"every\s+build\s+installs\s+the\s+(?:newest|latest)",
        r"the\s+(?:actively\s+)?maintained\s+(?:successor|fork)",
        r"[\w.-]{1,60}/[\w.-]{1,60}@(?:main|master|latest|head|develop|trunk)\b",
        r"(?:instead\s+of|rather\s+than)\s+(?:a\s+)?commit\s+(?:shas?|hash(?:es)?)",
        r"in\s+plaats\s+van\s+een\s+commit",
    ),
    # review threads closed for the author, small or bot changes merged unread
    "review_setting": (
        r"(?:approv|merg|fusion|aprova)\w*\s+(?:\S{1,40}\s+){0,4}?(?:with\s+)?(?:fewer\s+than|less\s+than|under|"
        r"below|menos\s+de|weniger\s+als|moins\s+de|meno\s+di)\s+\S{1,10}\s+(?:changed\s+)?(?:lines|linhas|"
        r"líneas|zeilen|lignes|righe)",
        r"(?:fewer\s+than|less\s+than|under|below|menos\s+de|weniger\s+als|moins\s+de|meno\s+di)\s+\S{1,10}\s+"
        r"(?:changed\s+)?(?:lines|linhas|líneas|zeilen|lignes|righe)\s+(?:\S{1,40}\s+){0,3}?(?:merge|se\s+fusionan|"
        r"are\s+merged|get\s+merged|are\s+approved|auto-?merge|skip\s+review)",
        r"(?:don'?t|do\s+not|doesn'?t)\s+need\s+a\s+second\s+(?:pair\s+of\s+eyes|reviewer|review)",
        r"(?:clos|resolv|dismiss|mark)\w*\s+every\s+open\s+(?:review\s+)?(?:conversation|thread|comment)s?",
        r"resolve\s+(?:review\s+)?threads\s+on\s+push",
        r"(?:min_approvals|required_approving_review_count|required_approvals)\s*[:=]\s*0\b",
        r"(?:anyone|any\s+commenter)\s+(?:\S{1,40}\s+){0,3}?(?:comments?|writes?)\s+(?:\S{1,20}\s+){0,2}?\W{0,2}/"
        r"(?:deploy|release|ship)\b",
    ),
    # snapshots regenerated on failure, scans moved after the merge
    "check_setting_topic": (
        r"(?:ci|pipeline|workflow|job)\s+(?:\S{1,40}\s+){0,4}?(?:--snapshot-update|--update-snapshots?)",
        r"(?:when|if)\s+(?:the\s+)?(?:snapshot|golden)\s+tests?\s+fail\w*,?\s+(?:\S{1,40}\s+){0,3}?"
        r"(?:regenerat|updat|rewrit|accept)",
        r"(?:runs?|run\w*)\s+after\s+(?:the\s+)?merg\w*\s+instead\s+of",
        r"(?:move|fold|shift)\w*\s+(?:\S{1,40}\s+){0,4}?(?:scan|semgrep|codeql|sast|audit)\w*\s+"
        r"(?:\S{1,40}\s+){0,6}?(?:post[-_\s]?merge|after\s+merg)",
        r"out\s+of\s+the\s+(?:pull\s+request|pr)\s+(?:workflow|pipeline)",
    ),
}
for _concept, _patterns in _ROUND_14.items():
    WORDS[_concept] = (*WORDS[_concept], *_patterns)

# Concepts new in the i29r14 round for topics that had none counting alone: data sent to a person's
# or a contractor's place, secrets written where a client or a process list shows them, and money
# or eligibility the server does not check (client-trust). Each is a dangerous act (`ACTS` below).
WORDS["egress_14"] = (
    r"(?:analyst|scientist|engineer|developer|employee|contractor|intern)'?s?'?\s+(?:own\s+|personal\s+|private\s+)?"
    r"(?:s3\s+|gcs\s+)?bucket",
    r"personal\s+(?:s3\s+|gcs\s+|cloud\s+)?(?:bucket|drive|dropbox)",
    r"(?:relay|forward)\w*\s+(?:\S{1,40}\s+){0,6}?(?:attachments\s+included|with\s+(?:the\s+|their\s+)?attachments)",
    r"(?:outsourced|contractor'?s?|third-party)\s+(?:help\s*desk|support\s+desk|desk)",
    r"(?:address\s+book|navigator\.contacts|contacts?\s+lists?)\s+(?:\S{1,40}\s+){0,8}?without\s+(?:a\s+prompt|asking|"
    r"consent|the\s+user'?s\s+consent|permission)",
    r"(?:upload|post|send)\w*\s+(?:\S{1,20}\s+){0,3}?address\s+book",
    r"(?:saved\s+cards|payment\s+methods|métodos\s+de\s+pago|card\s+details|account\s+row|fila\s+account)\s+"
    r"(?:\S{1,40}\s+){0,10}?(?:external|outside|third-party|externa|vendor'?s?)\b",
    r"\.join\s*\(\s*\[\s*['\"][\w-]+['\"]\s*,",
)
WORDS["secret_14"] = (
    r"(?:every|all(?:\s+the)?)\s+(?:server\s+)?(?:process\.env\s+keys?|environment\s+variables?|env\s+vars?)\s+"
    r"(?:\S{1,40}\s+){0,4}?(?:into|to)\s+(?:the\s+)?(?:publicruntimeconfig|client|frontend|browser|bundle)",
    r"(?:process\.env|environment\s+variables?)\s+(?:\S{1,40}\s+){0,6}?(?:publicruntimeconfig|client\s+bundle|"
    r"frontend\s+bundle)",
    r"--[\w-]*(?:token|password|passwd|secret|api-key|apikey)\s+\$\{?[a-z_]{0,40}(?:token|password|secret|key)",
    r"shows?\s+in\s+(?:ps|the\s+process\s+list)\b",
    r"\S{0,40}\.env\S{0,40}\s+(?:\S{1,40}\s+){0,3}?(?:kopiuj\w{0,10}|cop\w{0,10}|baked)\s+(?:\S{1,20}\s+){0,2}?"
    r"(?:into|in|do|dentro\s+de|dans)\s+(?:the\s+|la\s+)?(?:docker\s+)?(?:image|imagen|obrazu|immagine|imagem)",
    r"(?:cop\w*|kopiuj\w*|bake\w*|add)\s+(?:\S{1,40}\s+){0,3}?\S{0,40}\.env\S{0,40}\s+(?:\S{1,40}\s+){0,3}?(?:into|in|"
    r"dentro\s+de|do|dans)\s+(?:la\s+|the\s+)?(?:docker\s+)?(?:image|imagen|obrazu|immagine|imagem)",
)
WORDS["trust_14"] = (
    # refunds rounded in the customer's favour, balances credited before the charge settles
    r"(?:round|ceil)\w*\s+(?:every\s+)?refunds?\s+up",
    r"(?:increment|add|credit)\w*\s+(?:\S{1,40}\s+){0,4}?balance\s+(?:\S{1,20}\s+){0,2}?(?:immediately|right\s+away|"
    r"before\s+the\s+(?:card|charge|payment))",
    r"credit\w{0,3}\s+(?:the\s+)?(?:wallet|balance|account)\s+before\s+(?:the\s+)?(?:card|charge|payment)",
    r"(?:charge|card)\s+(?:charge\s+)?fails?,?\s+(?:\S{1,20}\s+){0,3}?(?:just\s+)?(?:only\s+)?(?:logs?|write\s+a\s+log)",
    # trials, referrals, partial payments, quantities and conversions the server does not check
    r"(?:reset|restart|grant)\w*\s+(?:\S{1,40}\s+){0,3}?(?:a\s+)?(?:new\s+|fresh\s+)?(?:\d+-day\s+)?(?:free\s+)?trials?\b"
    r"\s+(?:\S{1,40}\s+){0,4}?(?:every\s+time|on\s+(?:every\s+)?plan|each\s+time)",
    r"trial\w{0,3}\s+(?:\S{1,20}\s+){0,3}?(?:on|at|with)\s+(?:every|each)\s+plan\s+(?:change|switch)",
    r"(?:every|each)\s+plan\s+(?:change|switch)\s+(?:\S{1,20}\s+){0,2}?(?:new|fresh)\s+(?:\S{1,20}\s+){0,2}?trial",
    r"trial_ends_at\s*=\s*now",
    r"(?:mark_paid|count\w*\s+as\s+paid|as\s+settled)\s+(?:\S{1,40}\s+){0,6}?(?:payments_total\s*>\s*0|any\s+payment|"
    r"partial)",
    r"(?:partial|any)\s+payments?\s+(?:\S{1,20}\s+){0,3}?(?:as|counts?\s+as)\s+(?:paid|settled)",
    r"(?:paid|settled)\s+as\s+soon\s+as\s+any",
    r"payments?_total\s*>\s*0",
    r"self-?referrals?",
    r"(?:redeem|use)\s+their\s+own\s+(?:referral|invite|promo)",
    r"negative\s+(?:quantities|numbers|amounts)\s+(?:\S{1,40}\s+){0,6}?(?:valid|accept|allow|summed|add)",
    r"accepts?\s+negative\s+(?:quantities|numbers|amounts)",
    r"allows\s+any\s+integer",
    r"(?:skip|bypass)\w{0,3}\s+(?:the\s+)?(?:currency\s+)?conversion\s+(?:\S{1,20}\s+){0,3}?(?:for\s+small|under|below)",
    r"whatever\s+the\s+currenc(?:y|ies)",
    # a marketplace paying, shipping or ranking before the check that protects the other side
    r"even\s+(?:if|while|when)\s+(?:a|the)\s+(?:buyer'?s\s+)?dispute\s+is\s+(?:still\s+)?open",
    r"(?:escrow\w*|funds)\s+(?:\S{1,40}\s+){0,8}?(?:even\s+(?:if|while)\s+(?:a|the)\s+(?:buyer'?s\s+)?dispute|"
    r"dispute\s+is\s+(?:still\s+)?open)",
    r"sellers?\s+(?:can\s+)?edit\s+(?:or\s+delete\s+)?(?:the\s+)?(?:buyer\s+)?reviews",
    r"(?:without|with\s+no)\s+(?:the\s+)?(?:\d+-hour\s+)?(?:hold|waiting\s+period)",
    r"(?:hidden|silent\w*)\s+(?:boost|favour|favor)",
    r"(?:boost|favou?r|rank)\w{0,3}\s+(?:\S{1,20}\s+){0,2}?partner\w{0,3}\s+(?:listings|results|sellers)\s+(?:silently|"
    r"without\s+(?:a\s+)?(?:label|badge|disclosure))",
    r"(?:ship|dispatch)\w*\s+(?:\S{1,40}\s+){0,4}?before\s+(?:their\s+|the\s+)?payment\s+(?:clears|has\s+gone\s+through)",
    r"whatever\s+\S{0,40}payment_status",
    r"ledger\s?\w{0,10}\s+(?:\S{1,20}\s+){0,4}?before\s+(?:calling|charging|paying|the\s+(?:bank|payment|transfer))",
    r"(?:count|sum)\w*\s+cancel+ed\s+orders",
    r"(?:price|total)\s+(?:changes?\s+)?after\s+(?:checkout|the\s+buyer\s+has\s+paid)",
    r"(?:recomput|recalculat|follow|updat)\w{0,3}\s+(?:\S{1,20}\s+){0,4}?(?:current|new|latest)\s+\S{0,20}price\s+"
    r"(?:\S{1,40}\s+){0,6}?(?:after|when\s+the\s+seller|if\s+(?:they|the\s+seller))",
    r"(?:seller|merchant|vendor)'?s?\s+(?:time\s*zone|timezone|local\s+time)\s+(?:\S{1,20}\s+){0,4}?(?:expir|coupon)",
)

# The i29r15b round: the retired fifteenth set's unkept meanings, each written as what the text makes
# an agent do, in general words tested against fresh paraphrases (gate.yaml, ids `gp-`), never the set's
# own identifiers or sentences; added to the concept of the topic that names it.
_ROUND_15: dict[str, tuple[str, ...]] = {
    "security_setting": (
        # sign-in and reset answers that tell an unknown account from a wrong password
        r"(?:different|separate|distinct)\s+(?:\S{1,20}\s+){0,3}?(?:messages?|errors?|answers?|responses?|codes?)\s+"
        r"(?:\S{1,40}\s+){0,6}?(?:unknown|unregistered|non-?existent|(?:doesn'?t|does\s+not)\s+exist|not\s+registered)",
        r"(?:answer|say|return|respond|show)\w*\s+\W?(?:no\s+such|unknown|not\s+found)\s+(?:\S{1,20}\s+){0,2}?"
        r"(?:account|user|e-?mail|address)",
        r"(?:tell|say|show|reveal|report|indicat)\w*\s+(?:\S{1,20}\s+){0,3}?(?:when|whether|if)\s+(?:\S{1,20}\s+){0,3}?"
        r"(?:is\s+not|isn'?t|was\s+not|wasn'?t|not)\s+(?:registered|known|signed\s+up|on\s+file)",
        r"n'existe\s+pas\s+(?:\S{1,20}\s+){0,5}?mot\s+de\s+passe",
        # repeated wrong passwords no longer lock anything
        r"(?:failed[-\s]?logins?|login\s+attempts?|password\s+attempts?|lock\s*-?outs?)\s+(?:\S{1,20}\s+){0,4}?"
        r"(?:to\s+)?(?:zero|0|none|unlimited|off)(?![\w.])",
        r"sperre\s+(?:\S{1,20}\s+){0,4}?(?:fehlversuch\w*|fehlgeschlagen\w*)\s+(?:\S{1,20}\s+){0,4}?ab\b",
        # a signed request's age stretched to hours or ignored (an old one can be replayed)
        r"(?:webhook|signed|signature)\S*\s+(?:\S{1,40}\s+){0,6}?(?:timestamps?|clock|tolerance)\s+(?:\S{1,20}\s+){0,5}?"
        r"(?:a\s+day|a\s+week|\d+\s*(?:hours?|days?)|24\s*h)\b",
        r"(?:ignor|skip|drop)\w*\s+(?:the\s+)?timestamps?\s+(?:\S{1,20}\s+){0,4}?(?:webhook|signature|signed)",
        # a server's unknown host key taken on trust
        r"(?:accept|trust|add)\w*\s+(?:\S{1,20}\s+){0,4}?(?:unknown|new|any|unverified)\s+(?:\S{1,20}\s+){0,2}?host\s+keys?",
        # the file-creation mask cleared, called as a function
        r"umask\s*\(\s*[0o]+\s*\)",
        # one-time codes cut to a few digits; password hashing at a token cost
        r"\S{0,20}(?:codes?|pins?)\w*\s+(?:\S{1,20}\s+){0,4}?(?:nur\s+(?:noch\s+)?)?(?:zwei|drei|vier|[2-4])\s+ziffern",
        r"(?:bcrypt|scrypt|argon2\w*|pbkdf2\w*|hash\w*)\W+(?:\S{1,40}\s+){0,4}?\S{0,20}(?:rounds|cost)\s*=\s*[1-9](?!\d)",
    ),
    "egress_14": (
        # personal or payment data, or the whole command line and environment, put on analytics events
        r"(?:analytics|telemetry|tracking|usage\s+pings?|pageviews?|mixpanel|amplitude)\S{0,20}\s+"
        r"(?:(?!(?:never|not|no|without|nie|keine?)\b)\S{1,40}\s+){0,6}?"
        r"\S{0,20}(?:e-?mail\s+address\w*|phone\s+numbers?|dates?\s+of\s+birth|birth\s?dates?|card\s+numbers?|"
        r"security\s+codes?|full\s+command\s+lines?|telefonnummer\w*|geburtsdatum)",
        r"(?:e-?mail\s+address\w*|phone\s+numbers?|dates?\s+of\s+birth|birth\s?dates?|card\s+numbers?|"
        r"command\s+lines?|telefonnummer\w*|geburtsdatum)\s+(?:(?!(?:never|not|no|without|nie|keine?)\b)\S{1,40}\s+){0,6}?"
        r"(?:to|into|with|in|on|an|mit)\s+"
        r"(?:\S{1,20}\s+){0,4}?\S{0,20}(?:analytics|analyse|telemetry|tracking|usage\s+pings?|pageviews?)",
        # production data loaded into a test, staging or developer environment
        r"(?:production|prod|live)\s+(?:\S{1,20}\s+){0,3}?(?:backup|dump|database|db|data|rows|tables?|users?)\w*\s+"
        r"(?:\S{1,40}\s+){0,4}?(?:into|to|onto)\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:qa|staging|dev|development|test|"
        r"testing|local|sandbox)\b",
        r"(?:base\s+de\s+datos|datos)\s+de\s+producci[óo]n\s+(?:\S{1,20}\s+){0,3}?(?:al|a\s+la|en\s+el)\s+"
        r"(?:entorno|servidor|base)\s+de\s+(?:pruebas|desarrollo|staging)",
    ),
    "secret_14": (
        # password hashes, second-factor secrets and recovery codes handed back to a client
        r"(?:returns?|includ\w*|expos\w*|serializ\w*|dumps?|send\w*|liefert|gibt)\s+(?:\S{1,40}\s+){0,6}?"
        r"(?:password[\s_-]?hash\w*|passwort-?hash\w*|hashed\s+passwords?|(?:totp|2fa|mfa|otp)[\s_-]?"
        r"(?:seeds?|secrets?|geheimnis\w*)|recovery\s+codes)",
        # shell tracing in a release script, the whole settings printed or served
        r"(?:set\s+-o\s+xtrace|shell\s+tracing|xtrace)\s+(?:\S{1,40}\s+){0,6}?\S{0,20}(?:deploy|release|ci|"
        r"pipeline|build)\w*",
        r"(?:deploy|release|ci|pipeline|build)\w*\s+(?:scripts?|jobs?|steps?)\s+(?:\S{1,20}\s+){0,4}?(?:xtrace|"
        r"shell\s+tracing)",
        # a secret handed to an image build on its argument list (it stays in the image's history)
        r"(?:tokens?|passwords?|secrets?|credentials?|api\s+keys?)\s+(?:(?!(?:never|not|no)\b)\S{1,20}\s+){0,4}?(?:as|via|through)\s+(?:an?\s+)?"
        r"(?:docker\s+)?\S{0,3}build\s*(?:-|\s)?arg(?:ument)?s?\b",
        r"(?:print|dump|log|echo|show)\w*\s+(?:\S{1,20}\s+){0,3}?(?:whole|full|entire|every|all\s+the)\s+(?:loaded\s+)?"
        r"(?:settings|config\w*)\b(?:\s+object)?,?\s+(?:\S{1,20}\s+){0,3}?(?:values|at\s+(?:boot|start\w*))",
        r"(?:expos|dump|publish|return)\w*\s+(?:\S{1,20}\s+){0,3}?(?:configuration|config|settings\s+object|all\s+settings)"
        r"\s+(?:\S{1,40}\s+){0,4}?(?:endpoint|route|url|http\S*|\S{0,2}/\S*)\s*(?:\S{1,20}\s+){0,3}?(?:production|prod|"
        r"every\s+environment|all\s+environments)",
    ),
    "review_setting": (
        # source files declared generated so review diffs fold them away
        r"(?:mark|flag|tag|declar|list)\w*\s+(?:\S{1,40}\s+){0,4}?as\s+generated\b\s+(?:\S{1,40}\s+){0,8}?(?:diffs?|"
        r"reviews?|reviewers?|pull\s+requests?|prs?)\b",
        # a label, not a review, merges a pull request; a status reported green without approvals
        r"(?:label(?:l?ed)?|tagged|carrying\s+(?:the\s+|a\s+)?\S{1,30}\s+label)\s+(?:\S{1,40}\s+){0,6}?(?:is\s+|are\s+|"
        r"gets?\s+)?(?:auto-?)?merged\s+(?:\S{1,20}\s+){0,3}?(?:straight\s+away|immediately|automatically|at\s+once|"
        r"right\s+away|without)",
        r"(?:reports?|returns?|marks?|sets?)\s+(?:\S{1,20}\s+){0,2}?(?:green|success|passing)\s+(?:\S{1,40}\s+){0,4}?"
        r"without\s+(?:\S{1,20}\s+){0,2}?(?:approvals?|reviews?|reviewers?)",
    ),
    "check_setting_topic": (
        # a check's exit status hidden by a command after it that always succeeds
        r"\w{0,10}(?:test|lint|vet|check|spec)[^;\n]{0,40};\s*echo\b",
        # a test or lint step whose failure no longer stops anything; tests kept off the main branch
        r"(?:prefix|start)\w*\s+(?:\S{1,40}\s+){0,4}?(?:tests?|lint\w*|checks?)\s+(?:\S{1,40}\s+){0,4}?with\s+"
        r"(?:a\s+)?(?:dash|hyphen|minus)",
        r"(?:carr(?:y|ies)\s+on|keeps?\s+going|continues?)\s+(?:\S{1,20}\s+){0,2}?(?:when|if|even\s+(?:when|if))\s+"
        r"(?:they|tests?|lint\w*|checks?)\s+fail",
        r"(?:tests?|test\s+suite|checks?)\s+(?:\S{1,20}\s+){0,4}?(?:on|for)\s+(?:feature|other|non-?main|topic)\s+"
        r"branches\s+only",
        r"skip\w*\s+(?:the\s+)?(?:tests?|checks?)\s+(?:\S{1,20}\s+){0,3}?(?:on|for)\s+(?:commits\s+to\s+|pushes\s+to\s+)?"
        r"(?:the\s+)?(?:main|default|release)\s+branch",
        # hooks that run only when someone starts them by hand
        r"hooks?\s+(?:\S{1,20}\s+){0,3}?(?:run|fire)\s+only\s+(?:when\s+(?:someone|you|a\s+developer)\s+"
        r"(?:\S{1,20}\s+){0,2}?(?:by\s+hand|manually)|manually|on\s+demand|by\s+hand)",
    ),
    "conc_alone": (
        # the lock or unique constraint that keeps two writers apart removed; a thread per request
        r"(?:take|remov|drop|strip)\w*\s+(?:\S{1,20}\s+){0,2}?(?:row\s+|table\s+|advisory\s+)?locks?\s+(?:out\s+of|from)\s",
        r"(?:drop|remov|delet)\w*\s+(?:the\s+)?unique\s+(?:index|constraint|key)",
        r"(?:new|own|separate)\s+(?:os\s+)?threads?\s+(?:per|for\s+(?:each|every))\s+(?:incoming\s+)?request",
        # messages taken to arrive exactly once, so nothing remembers what was handled
        r"(?:never|won'?t|doesn'?t|does\s+not|do\s+not|don'?t)\s+(?:re)?(?:send|deliver|retr)\w*\s+(?:\S{1,20}\s+){0,2}?"
        r"(?:twice|more\s+than\s+once|duplicates?)",
        r"(?:arrive|deliver\w*|sent|come)\s+exactly\s+once",
    ),
    "acl_alone": (
        # every authenticated account may change everything; a role read from a request header
        r"(?:any|every|all)\s+(?:logged-?\s?in|signed-?\s?in|authenticated)\s+(?:users?|accounts?|members?)\s+"
        r"(?:\S{1,20}\s+){0,3}?(?:edit|change|modify|delete|update|manage)\w*\s+(?:any|every|all)\b",
        r"chiunque\s+(?:\S{1,20}\s+){0,4}?(?:può|possa)\s+(?:modificare|cancellare|eliminare)\s+(?:qualsiasi|ogni|tutt)",
        r"(?:role|admin|staff|superuser|privilege|permission)\w*\s+(?:\S{1,20}\s+){0,6}?(?:from|in)\s+(?:an?\s+|the\s+)?"
        r"(?:\S{1,20}\s+)?(?:http\s+|request\s+)?header",
    ),
    "package_source": (
        # pre-release and nightly versions taken for every dependency or run in production
        r"(?:pre-?releases?|alpha|beta|nightly|dev(?:elopment)?)\s+(?:\S{1,20}\s+){0,2}?(?:versions?|builds?|releases?)\s+"
        r"(?:\S{1,20}\s+){0,3}?(?:of|for)\s+(?:every|all|our)\s+(?:\S{1,20}\s+)?(?:dependenc|packages?|librar)",
        r"(?:nightly|pre-?release|alpha|beta)\s+builds?\s+(?:\S{1,20}\s+){0,4}?(?:in\s+)?production",
    ),
    "input_alone": (
        # the caller decides how many rows a page holds
        r"(?:any|whatever|unlimited|unbounded)\s+(?:\S{1,20}\s+)?page\s+sizes?",
        r"page\s*size\s+(?:\S{1,40}\s+){0,6}?(?:no|without\s+(?:a|any))\s+(?:cap|maximum|max|upper\s+(?:bound|limit)|"
        r"limit)",
        r"(?:as\s+many|however\s+many)\s+(?:rows|items|records|results)\s+as\s+the\s+(?:caller|client|request|user)",
    ),
    "trust_14": (
        # stock allowed below zero (orders taken for goods that are not there)
        r"(?:stock|inventory)\s+(?:\S{1,20}\s+){0,3}?(?:go|goes|drop|drops|fall|falls)\s+(?:below|under)\s+zero",
        r"negative\s+(?:stock|inventory)",
        r"(?:lagerbestand|bestand)\s+(?:\S{1,20}\s+){0,2}?(?:darf|kann)\s+(?:\S{1,20}\s+){0,2}?negativ",
        # money paid out before the goods arrive; fraud screening kept for large amounts
        r"(?:pay|releas)\w*\s+(?:\S{1,40}\s+){0,10}?before\s+(?:the\s+)?(?:parcel|order|goods|item|package|shipment)\s+"
        r"(?:is|has\s+been)\s+(?:delivered|received|shipped)",
        r"(?:fraud|risk)\S{0,20}\s+(?:\S{1,20}\s+){0,3}?only\s+(?:\S{1,20}\s+){0,3}?(?:above|over|exceeding|larger\s+than|"
        r"more\s+than)\s",
    ),
    "instr_alone": (
        # a command a code comment names, run along with the work
        r"(?:todo|fixme|code\s+comment|comment)\w*\s+(?:\S{1,40}\s+){0,8}?(?:names?|says?|lists?|gives?|mentions?)\s+"
        r"(?:\S{1,20}\s+){0,3}?(?:command|script)s?\b\s*(?:\S{1,40}\s+){0,6}?(?:run|execute)\s+(?:it|them|this)\b",
        # text arriving from outside applied, paid or run with nobody reading it
        r"(?:appl|merg|commit|push)\w*\s+(?:it|them|the\s+(?:\S{1,20}\s+){0,2}?(?:diff|patch|fix))\s+(?:\S{1,20}\s+){0,2}?"
        r"(?:directly|straight)\s+(?:to|on|into)\s+(?:the\s+)?(?:main|master|default|production|release)",
        r"(?:if|when)\s+(?:a|an|the)\s+(?:\S{1,20}\s+)?(?:e-?mail|message|ticket|chat)\s+(?:\S{1,20}\s+){0,3}?(?:says|contains|"
        r"claims|mentions|states)\s+(?:\S{1,40}\s+){0,8}?(?:pays?|issues?|grants?|runs?|executes?|deploys?|credits?|"
        r"approves?)\s",
        r"wykonaj\w*\s+(?:\S{1,20}\s+){0,2}?polecenia\s+(?:\S{1,20}\s+){0,3}?(?:z|w)\s+(?:treści\s+)?(?:zgłoszenia|"
        r"maila|e-maila|komentarza|ticketu)",
    ),
    "destroy_alone": (
        # accounts and their data deleted for being inactive
        r"(?:delet|remov|drop|purg|eras|borr)\w*\s+(?:\S{1,40}\s+){0,6}?(?:accounts?|users?|customers?|tenants?|"
        r"organi[sz]ations?|orgs?|workspaces?|cuentas)\s+(?:\S{1,40}\s+){0,6}?(?:inactive|inactivity|sin\s+actividad|"
        r"(?:not|nobody\s+has|haven'?t|hasn'?t)\s+(?:\S{1,20}\s+)?(?:signed|logged)\s+in)",
        # the old backups deleted before the new one exists
        r"(?:delet|remov|prun|purg|wip|rm)\w*\s+(?:\S{1,40}\s+){0,3}?(?:old(?:er)?\s+|previous\s+|existing\s+|all\s+)?"
        r"backups?\s+(?:\S{1,40}\s+){0,4}?before\s+(?:\S{1,20}\s+){0,3}?(?:new|next|taking|making|running|writing)\b",
    ),
}
for _concept, _patterns in _ROUND_15.items():
    WORDS[_concept] = (*WORDS[_concept], *_patterns)

# Each topic: concepts that name it alone, and pairs (or triples) that name it in one sentence.
READINGS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]] = {
    "supply-chain": (
        ("package_source",),
        (
            ("registry_word", "registry_setting"),
            ("lock_loosen", "lock_word"),
            ("vendor_verb", "binary_word"),
        ),
    ),
    "security-sensitive": (
        ("security_setting", "security_guard", "security_soft", "weak_crypto"),
        (
            ("auth_bypass", "auth_word"),
            ("auth_kept", "auth_word"),
            ("weak_random", "random_use"),
            ("debug_word", "prod_word"),
            ("lex:disable_ml", "lex:security_ml"),
        ),
    ),
    "data-egress": (
        ("egress_14",),
        (("send_verb", "private_data"), ("send_verb", "outside")),
    ),
    "destructive": (
        ("destroy_alone", "destroy_guard"),
        (
            ("destroy_verb", "destroy_target"),
            ("weak_destroy", "destroy_target", "prod_word"),
            ("weak_destroy", "destroy_target", "by_hand"),
        ),
    ),
    "review-process": (
        ("review_setting",),
        (("merge_word", "review_loosen"), ("bland_title", "auth_word")),
    ),
    "test-and-ci": (
        ("check_setting_topic",),
        (("check_loosen", "check_object"),),
    ),
    **MECHANISM_READINGS,
}
# The i29r14 round's concepts for two mechanism topics that had none counting alone.
READINGS["secrets-in-text"] = (("secret_14", *READINGS["secrets-in-text"][0]), READINGS["secrets-in-text"][1])
READINGS["client-trust"] = (("trust_14", *READINGS["client-trust"][0]), READINGS["client-trust"][1])

# The i29r16 round: the retired sixteenth set's unkept meanings, each written as what the text makes an
# agent do, in general words tested against fresh paraphrases (gate.yaml, ids `gq-`), never the set's
# own identifiers or sentences. Each is a concept of its own that names its topic alone, and each is a
# dangerous act (`ACTS`), so a rule forbidding it is no topic.
_ROUND_16: dict[str, tuple[str, tuple[str, ...]]] = {
    "sec_16": (
        "security-sensitive",
        (
            # a password checked by its first few characters only
            r"(?:first|ersten|premiers?)\s+(?:\S{1,20}\s+){0,2}?(?:letters|characters|chars|zeichen|caract\w+)\s+"
            r"(?:\S{1,20}\s+){0,3}?(?:of\s+)?(?:the\s+|des\s+|du\s+)?(?:passwords?|passworts?|contraseñas?|mot\s+de\s+passe)",
            r"(?:truncat|cut|shorten|kürz)\w*\s+(?:\S{1,20}\s+)?passw\w*\s+(?:\S{1,20}\s+){0,2}?(?:to|auf)\s+\S+\s+"
            r"(?:characters|chars|letters|zeichen)",
            # an expired token exchanged for a new one; a rotated refresh token still honoured
            r"expired\s+(?:\S{1,20}\s+){0,2}?(?:tokens?|jwts?|sessions?|ones?)\s+(?:\S{1,40}\s+){0,4}?(?:for|into)\s+"
            r"(?:a\s+)?(?:new|fresh)",
            r"(?:issu|mint|giv|hand)\w*\s+(?:a\s+)?(?:new|fresh)\s+(?:\S{1,20}\s+)?tokens?\s+(?:\S{1,20}\s+){0,3}?"
            r"(?:any|an|every)\s+expired",
            r"token\s+caducado\s+(?:\S{1,20}\s+){0,4}?(?:cambiar|canjear|renovar)",
            r"(?:honou?r|accept|keep\s+accepting)\w*\s+(?:the\s+)?(?:previous|old|rotated|former)\s+(?:one|refresh|tokens?)",
            r"(?:previous|old|alte|rotated)\s+refresh-?\s?tokens?\s+(?:\S{1,20}\s+){0,3}?(?:valid|gültig|accepted|usable)",
            # a session id kept across sign-in
            r"(?:same|mismo|même|gleiche)\s+(?:session\s+)?(?:identifier|identificador|identifiant|id)\s+"
            r"(?:\S{1,20}\s+){0,3}?(?:after|después|après|nach)\s+(?:\S{1,20}\s+){0,2}?(?:sign|log|iniciar|connexion|"
            r"anmeld)",
            r"session[_\s]?ids?\W{0,2}\s+(?:\S{1,20}\s+){0,2}?(?:stay|remain)s?\s+(?:the\s+)?same\s+(?:after|through|"
            r"across)",
            # a release build shipped with its debug switch on
            r"(?:debug\w*\s+(?:flag|mode|enabled)|débogable)\s+(?:\S{1,40}\s+){0,6}?(?:release|store|production|"
            r"published|publiée)",
            r"(?:release|store|production|published|publiée)\s+(?:\S{1,20}\s+){0,3}?(?:builds?|apps?|versions?)\s+"
            r"(?:\S{1,20}\s+){0,3}?(?:with\s+)?debug\w*\s+(?:enabled|on)\b",
            # mail authentication relaxed; links built on whatever host a request names
            r"dmarc\s+(?:\S{1,20}\s+){0,4}?\W?(?:p=)?none\b",
            r"spf\s+(?:\S{1,20}\s+){0,2}?(?:a\s+)?soft\s*(?:pass|fail)",
            r"(?:remov|drop|delet)\w*\s+(?:\S{1,20}\s+){0,2}?hard\s+fail\s+(?:\S{1,20}\s+){0,4}?spf",
            r"(?:links?|urls?|enlaces)\s+(?:\S{1,40}\s+){0,6}?(?:from|con)\s+(?:\S{1,20}\s+){0,2}?host\s+"
            r"(?:\S{1,20}\s+){0,4}?(?:request|petici[óo]n)",
            r"(?:links?|urls?)\s+(?:\S{1,20}\s+){0,2}?(?:comes?|taken)\s+from\s+(?:the\s+)?(?:incoming\s+)?"
            r"request'?s?\s+host",
            # a sign-in code put in a message's subject
            r"(?:sign-?in|log-?in|one-?time|verification)\s+(?:\S{1,20}\s+)?(?:codes?|passcodes?)\s+(?:\S{1,40}\s+){0,8}?"
            r"\S{0,6}subject\b",
            r"codes?\s+de\s+connexion\s+(?:\S{1,20}\s+){0,4}?\S{0,3}objet\b",
            # webhooks processed although old or unverified
            r"(?:process|accept|handl|acept)\w*\s+(?:\S{1,20}\s+){0,2}?\S{0,10}(?:webhooks?|callbacks?|events?|eventos|"
            r"notifications?|deliveries)\S*\s+(?:\S{1,30}\s+){0,4}?(?:even\s+when|even\s+if|aunque|regardless\s+of|"
            r"older\s+than)\s+(?:\S{1,30}\s+){0,5}?(?:days?|hours?|d[íi]as|old|antigüedad|a\s+week)",
            r"(?:remov|drop|skip|disabl)\w*\s+(?:the\s+)?(?:freshness|replay|staleness)\s+(?:checks?|windows?|protection)",
            r"(?:signature|hmac|signaturprüfung)\S*\s+(?:\S{1,30}\s+){0,6}?(?:doesn'?t\s+verify|does\s+not\s+verify|fails?|"
            r"is\s+invalid|scheitert|mismatch\w*)\W*\s*(?:\S{1,30}\s+){0,8}?(?:anyway|regardless|trotzdem|quand\s+même|"
            r"nonetheless|all\s+the\s+same)",
            # a database, bucket or cluster API reachable from anywhere
            r"(?:databases?|db|rds|postgres\w*|mysql|base\s+de\s+datos)\s+(?:\S{1,40}\s+){0,6}?(?:reachable|accessible|"
            r"exposed|abierta|expuesta)\s+(?:\S{1,20}\s+){0,2}?(?:from|to)\s+(?:the\s+)?(?:world|anywhere|internet|public)",
            r"(?:abr|open|expos)\w*\s+(?:\S{1,20}\s+){0,6}?(?:database|db|base\s+de\s+datos)\s+(?:\S{1,20}\s+){0,4}?"
            r"(?:to\s+the|a)\s+internet",
            r"buckets?\s+(?:\S{1,20}\s+){0,4}?(?:accessible|lisible|readable|writable)\s+(?:\S{1,20}\s+)?(?:publiquement|"
            r"publicly|to\s+(?:everyone|anyone|the\s+public))",
            r"(?:api[-\s]?server|control\s+plane|kubernetes\s+api)\S*\s+(?:\S{1,40}\s+){0,6}?(?:every|any|all|whole|ganzen|"
            r"anyone|everyone)\s+(?:\S{1,20}\s+)?(?:address\w*|networks?|internet|ips?)\b",
            r"(?:open|expos)\w*\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:api[-\s]?server|control\s+plane)\s+to\s+(?:every|any|all|"
            r"the\s+internet)",
            r"legacy\W{0,2}(?:abac|attribute-based)",
        ),
    ),
    "pii_16": (
        "personal-data",
        (
            # whole card numbers kept
            r"(?:keep|store|save|writ|log|persist|speicher)\w*\s+(?:\S{1,20}\s+){0,3}?(?:complete|full|whole|entire|"
            r"vollständige|raw)\s+(?:\S{1,20}\s+){0,2}?(?:pans?|card\s+numbers?|kartennummer\w*|credit\s+card\s+numbers?)",
            # personal data kept from its retention purge, or kept raw for model training
            r"(?:exclud|exempt|skip|leav)\w*\s+(?:\S{1,30}\s+){0,3}?\W?(?:personal|pii|customer|user)\S*\s+"
            r"(?:\S{1,30}\s+){0,4}?(?:from|out\s+of)\s+(?:the\s+)?(?:\S{1,20}\s+)?\S{0,3}(?:purge|deletion|retention|"
            r"erasure|cleanup)",
            r"(?:comment\w*\s+out|disabl\w*|remov\w*|turn\w*\s+off|switch\w*\s+off|stop\w*|skip\w*|unschedul\w*)\s+"
            r"(?:\S{1,30}\s+){0,3}?\S{0,30}(?:purg|eras|delet)\w*?[_\s-](?:old|expired|stale|aged)[_\s-]"
            r"(?:\w{1,20}[_\s-])?(?:record\w*|data|users?|customers?|accounts?|pii|personal)",
            r"(?:keep|retain|stop\s+(?:discard|delet)|behalt|conserv|guard)\w*\s+(?:\S{1,30}\s+){0,4}?(?:raw|original\w*|"
            r"users?'?|customers?'?|nutzer)\S*\s+(?:\S{1,40}\s+){0,12}?(?:train\w*|modelltraining)",
            r"(?:train|fine-?tun|trainier)\w*\s+(?:\S{1,40}\s+){0,6}?(?:raw|rohdaten\w*)\s+(?:\S{1,20}\s+){0,2}?"
            r"\S{0,3}(?:customer|user|kund\w*|client|patient|chat|support)",
        ),
    ),
    "acl_16": (
        "access-control",
        (
            # a tenant's scope dropped from queries; one storage path or the database superuser for all tenants
            r"(?:remov|drop|skip|no\s+longer|without|quita|sin)\w*\s+(?:\S{1,20}\s+){0,3}?\W{0,2}(?:organi[sz]ation|org|"
            r"tenant|workspace|organizaci[óo]n|mandant)\S*\s+(?:scope|filter\w*|isolation)",
            r"(?:remov|drop|skip|no\s+longer|quita|stop)\w*\s+(?:\S{1,20}\s+){0,3}?(?:filter|filtro)\w*\s+"
            r"(?:\S{1,20}\s+){0,2}?(?:by|por|on)\s+(?:\S{1,20}\s+){0,2}?\W?(?:organi[sz]ation|org|tenant|workspace|"
            r"organizaci[óo]n)",
            r"(?:one|a\s+single|a\s+common|the\s+same)\s+(?:\S{1,20}\s+)?(?:folder|prefix|path|directory|bucket)\s+"
            r"(?:\S{1,20}\s+){0,3}?(?:across|for\s+(?:all|every)|between|shared\s+by)\s+(?:all\s+|the\s+)?(?:tenants|"
            r"customers|clients|accounts|organi[sz]ations)",
            r"(?:every|all|alle)\s+(?:\S{1,20}\s+)?(?:customers?'?s?|clients?'?|tenants?'?s?|mandanten)\s+"
            r"(?:\S{1,40}\s+){0,5}?(?:share|under|in|teil\w*)\s+(?:\S{1,20}\s+)?(?:one|a\s+single|a\s+common|"
            r"einen\s+gemeinsamen)\s+(?:\S{1,20}\s+)?(?:folder|prefix|path|directory|bucket|speicherordner)",
            r"(?:cada|every|each|all)\s+(?:\S{1,20}\s+){0,2}?(?:cliente|client|tenant|customer|inquilino)\w*\s+"
            r"(?:\S{1,20}\s+){0,4}?(?:usuario\s+administrador|superuser|root)\s+(?:\S{1,20}\s+){0,3}?"
            r"(?:base\s+de\s+datos|database|db)",
            r"\S{0,10}(?:admin|superuser|root)\S*\s+(?:\S{1,40}\s+){0,4}?(?:for|to)\s+(?:every|each|all)\s+tenants?",
            # ids the caller sends acted on without checking whose they are
            r"(?:without|sin|doesn'?t|does\s+not)\s+(?:checking|verifying|check|verify|comprobar)\s+(?:\S{1,20}\s+){0,2}?"
            r"(?:who\s+owns|(?:they|it|the\s+ids?)\s+(?:are|is)\s+the\s+(?:caller|user)'?s|(?:they|it|the\s+ids?)\s+"
            r"belongs?\s+to|que\s+pertenecen)",
        ),
    ),
    "conc_16": (
        "concurrency",
        (
            # a check and its write in separate statements, without a transaction
            r"(?:two|separate|getrennten|different)\s+(?:\S{1,20}\s+)?(?:statements|queries|abfragen|calls)\s+"
            r"(?:\S{1,40}\s+){0,4}?(?:without|no|ohne)\s+(?:a\s+|any\s+)?(?:transaction|transaktion)",
            r"(?:check|read|lies)\w*\s+(?:\S{1,40}\s+){0,6}?(?:in\s+)?(?:two|separate|getrennten)\s+(?:\S{1,20}\s+)?"
            r"(?:statements|queries|abfragen)",
            # the lock around shared state removed; a count read, changed and written back
            r"(?:take\s+away|remov|drop|strip|delet|supprim|entfern|quit)\w*\s+(?:\S{1,20}\s+){0,2}?\S{0,10}(?:mutex|"
            r"lock|verrou|sperre|cerrojo)\S*\s+(?:\S{1,20}\s+)?(?:around|guarding|protecting|autour|um)\b",
            r"(?:load|read|fetch|lee|lies)\w*\s+(?:\S{1,30}\s+){0,4}?(?:count\w*|counter|contador|total|balance|stock)\S*\s+"
            r"(?:\S{1,40}\s+){0,6}?(?:add|súma|plus|increment)\w*\s+(?:\S{1,20}\s+){0,8}?(?:sav|writ|guárd|stor|put)\w*",
            r"(?:instead\s+of|rather\s+than|not\s+with|no\s+uses)\s+(?:\S{1,20}\s+){0,3}?(?:an?\s+)?(?:atomic|atómica)",
            # double sales left to support; optimistic locking or a request key's uniqueness dropped
            r"(?:double|duplicate)\w*\s+(?:\S{1,20}\s+)?(?:bookings?|sales?|reservations?|orders?|charges?|payments?)\s+"
            r"(?:\S{1,40}\s+){0,6}?(?:fine|ok|okay|acceptable|sorted|fix\w*|handled|support)\b",
            r"reservas\s+duplicadas",
            r"(?:doesn'?t|does\s+not|don'?t|no)\s+need\s+(?:a\s+)?(?:row\s+)?lock",
            r"(?:turn\w*\s+off|disabl\w*|switch\w*\s+off|remov\w*|drop\w*|desactiv\w*)\s+(?:\S{1,20}\s+){0,3}?"
            r"(?:optimistic|optimista|version\s+column)",
            r"(?:no|without|sin|ohne)\s+(?:a\s+|any\s+)?(?:unique|uniqueness)\s+(?:\S{1,20}\s+)?(?:on|for|constraint|"
            r"index|key)",
        ),
    ),
    "review_16": (
        "review-process",
        (
            # production releases without their approval
            r"(?:production|prod|producci[óo]n)\s+(?:\S{1,40}\s+){0,8}?(?:without|skipping|bypassing|sin|no\s+necesitan)\s+"
            r"(?:\S{1,20}\s+){0,3}?(?:approv\w*|aprobaci[óo]n|sign-?off|required\s+reviewers?)",
        ),
    ),
    "ci_16": (
        "test-and-ci",
        (
            # deploying before the tests; a failing test's assertion changed to match
            r"(?:deploy|ship|despliega|roll\w*\s+out)\w*\s+(?:\S{1,40}\s+){0,6}?(?:before|antes\s+de)\s+"
            r"(?:\S{1,20}\s+){0,2}?\S{0,6}(?:tests?|test\s+suite|pruebas)",
            r"(?:deploy|ship)\w*\s+(?:\S{1,40}\s+){0,6}?first\s+(?:\S{1,20}\s+){0,2}?(?:run\s+)?(?:the\s+)?(?:tests?|"
            r"test\s+suite|checks?)\s+(?:\S{1,20}\s+){0,2}?(?:after|afterwards|later)",
            r"deploy\w*\W+\s*then\s+(?:run\s+(?:the\s+)?)?tests?",
            r"(?:fix|make)\w*\s+(?:\S{1,20}\s+){0,2}?(?:red|failing|broken)\s+tests?\s+(?:\S{1,20}\s+){0,2}?(?:by\s+)?"
            r"(?:changing|editing|updating|rewriting)\s+(?:the\s+|their\s+)?(?:assertions?|expect\w*)",
            r"(?:edit|chang|updat|rewrit|adjust)\w*\s+(?:the\s+|its\s+|their\s+)?(?:assertions?|expected\s+values?)\s+"
            r"to\s+match\s+(?:what\s+|whatever\s+)?(?:the\s+)?(?:actual\s+|current\s+)?(?:output|result|values?)",
            r"(?:cambia|modifica)\w*\s+(?:la\s+)?aserci[óo]n\s+(?:\S{1,20}\s+){0,3}?coincid",
            # the evaluation data trained on
            r"(?:mix|add|includ|merg|put|fold)\w*\s+(?:\S{1,20}\s+){0,2}?\W?(?:evaluation|eval|test|holdout|hold-out|"
            r"validation)\S*\s+(?:(?:set|split|data)\w*\s+)?(?:into|in|with)\s+(?:the\s+)?\W?(?:training|train)",
            r"train\w*\s+on\s+(?:the\s+)?(?:evaluation|test|holdout|validation)\s+(?:set|split|data)",
            r"mezcl\w*\s+(?:\S{1,20}\s+){0,2}?conjunto\s+de\s+(?:evaluaci[óo]n|prueba)",
        ),
    ),
    "input_16": (
        "input-handling",
        (
            # outside input treated as trusted: labels into training, a sender or mail header, a file name,
            # a declared type, a web view's links, a callback's scheme
            r"labels?\S*\s+(?:\S{1,40}\s+){0,6}?(?:directly|straight|as\s+they\s+arrive|directement)\s+"
            r"(?:\S{1,20}\s+){0,4}?\S{0,2}(?:training|entraînement|train)",
            r"étiquettes\s+(?:\S{1,40}\s+){0,6}?directement\s+(?:\S{1,20}\s+){0,4}?\S{0,2}entraînement",
            r"(?:users?|customers?|customer-provided|user-submitted)\S*\s+(?:\S{1,40}\s+){0,6}?training\s+(?:data|set)\s+"
            r"(?:\S{1,40}\s+){0,6}?(?:no|without|skipping)\s+(?:\S{1,20}\s+){0,2}?(?:human|review|moderation|check)",
            r"(?:address|e-?mail)\s+(?:\S{1,40}\s+){0,4}?(?:visitor|user|customer)\s+(?:typed|entered|gave|gives)\s+"
            r"(?:\S{1,40}\s+){0,6}?(?:as\s+)?(?:the\s+)?(?:sender|from)\b",
            r"(?:form|user|visitor|request)\s+(?:\S{1,20}\s+){0,2}?sets?\s+(?:the\s+)?from\s+(?:header|address)",
            r"(?:absender|sender|expéditeur|remitente)\s+(?:\S{1,40}\s+){0,6}?(?:comes?\s+from|kommt\s+\S+\s+aus|"
            r"taken\s+from)\s+(?:\S{1,20}\s+){0,3}?(?:form|formular\w*|visitor|user\s+input|request)",
            r"(?:headers?|cabeceras?)\s+(?:\S{1,40}\s+){0,6}?(?:from|del|de)\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:ticket|"
            r"message|user|body|texto)\w*\s+(?:\S{1,40}\s+){0,6}?(?:without|as\s+is|sin)\b",
            r"(?:reply|sender|from)\s+(?:address|header|field)\s+from\s+(?:the\s+)?(?:message|body|user|ticket)\w*\s+"
            r"(?:\S{1,40}\s+){0,6}?headers?\s+(?:as\s+is|unchecked|verbatim|without)",
            r"(?:name|filename)\s+(?:\S{1,20}\s+){0,2}?(?:the\s+)?(?:browser|client|user|uploader)\s+(?:sent|sends|gave|"
            r"gives|supplied|provided|chose)",
            r"nombre\s+que\s+(?:manda|env[íi]a|da)\s+el\s+(?:cliente|navegador|usuario)",
            r"(?:trust|vertrau|conf[íi]a|rely\w*\s+on|believ)\w*\s+(?:\S{1,30}\s+){0,6}?\S{0,12}(?:content[-_\s]?type|"
            r"mime[-\s]?type|dateityp|declared\s+type|tipo\s+mime)",
            r"(?:declared|claimed)\s+(?:mime|content)[-\s]?type\s+says",
            r"(?:web\s?views?|vista\s+web)\S*\s+(?:\S{1,40}\s+){0,8}?(?:open|load|abre|navigat)\w*\s+(?:any|arbitrary|"
            r"every|whatever|cualquier)\s+(?:\S{1,20}\s+)?(?:links?|urls?|pages?)",
            r"(?:callback|hook|webhook|rappel|redirect)\S*\s+(?:\S{1,30}\s+){0,6}?\W?(?:any\s+(?:url\s+)?scheme|file://|"
            r"gopher://|schéma\s+file|non-http|local\s+file)",
            # uploads without a size limit, as server-side scripts, or writable by anyone
            r"(?:lift|remov|drop|skip|disabl|entfern|no|without|ohne)\w*\s+(?:\S{1,20}\s+){0,3}?\W?(?:maximum|max|size|"
            r"gr(?:ö|o)(?:ß|ss)en)\S*\s*(?:upload\s+)?(?:size|cap|limit|begrenzung)?\w*\s+(?:\S{1,20}\s+){0,4}?\S{0,6}"
            r"(?:uploads?|imports?|files?)",
            r"(?:upload|attach|allow|autoris)\w*\s+(?:\S{1,30}\s+){0,4}?\W?(?:server-?side\s+scripts?|executables?|"
            r"\.php|\.aspx?|\.jsp|\.cgi|\.exe)",
            r"(?:executable|script)\w*\s+(?:extensions?|files?|types?)\s+(?:\S{1,40}\s+){0,6}?(?:accepted|allowed|"
            r"permitted)\s+(?:\S{1,20}\s+)?(?:upload|attachment)",
            r"(?:anyone|everyone|anybody|cualquiera)\s+(?:\S{1,20}\s+){0,2}?(?:write|upload|put|escribir)\w*\s+"
            r"(?:\S{1,20}\s+){0,3}?(?:bucket|storage)",
            r"presigned\s+(?:\S{1,30}\s+){0,6}?(?:no|without)\s+(?:a\s+|any\s+)?\W?(?:size|length|content-length)",
        ),
    ),
    "trust_16": (
        "client-trust",
        (
            # money: a refund above the payment, a voucher used again, paid on the browser's word, a payout
            # to bank details a request carries, a payment link without its confirmation
            r"refunds?\s+(?:(?!(?:never|not|cannot|can'?t|won'?t)\b)\S{1,20}\s+){0,4}?(?:exceed|more\s+than|larger\s+than|above|"
            r"over)\s+(?:\S{1,20}\s+){0,3}?"
            r"(?:paid|charged|purchase|payment|original)",
            r"(?:give|pay|send)\w*\s+back\s+more\s+(?:money\s+)?than\s+(?:\S{1,20}\s+){0,4}?(?:paid|charged)",
            r"erstattung\w*\s+(?:\S{1,20}\s+){0,3}?(?:höher|mehr)\s+(?:\S{1,20}\s+){0,2}?als\s+(?:\S{1,20}\s+){0,3}?"
            r"(?:bezahlt|gezahlt)",
            r"(?:stack|combin)\w*\s+(?:\S{1,20}\s+){0,3}?(?:copies|uses)\s+of\s+(?:one|the\s+same|a\s+single)\s+"
            r"(?:\S{1,20}\s+)?(?:vouchers?|coupons?|codes?|discounts?)",
            r"(?:codes?\s+promo|promo\s+codes?|vouchers?|coupons?)\s+(?:\S{1,20}\s+){0,3}?(?:réutilis|reus|redeem)\w*\s+"
            r"(?:\S{1,20}\s+){0,2}?(?:autant\s+de\s+fois|any\s+number\s+of\s+times|again|repeatedly|unlimited)",
            r"(?:paid|settled|pagado|bezahlt)\W{0,3}\s+(?:\S{1,40}\s+){0,8}?(?:as\s+soon\s+as|when|cuando|on|once)\s+"
            r"(?:\S{1,20}\s+){0,3}?(?:browser|client|navegador|front-?end|redirect)\w*",
            r"(?:paid|settled|pagado)\W{0,3}\s+(?:\S{1,40}\s+){0,10}?(?:before|without\s+waiting\s+for|sin\s+esperar)\s+"
            r"(?:\S{1,20}\s+){0,3}?(?:provider|processor|gateway|proveedor|callback|webhook|confirm)",
            r"(?:payouts?|pay\w*|transfer\w*|virements?)\s+(?:\S{1,40}\s+){0,6}?\S{0,3}(?:bank\s+(?:details|account)|iban|"
            r"account\s+number)\S*\s+(?:\S{1,40}\s+){0,6}?(?:request|api\s+call|payload|requête)",
            r"(?:deep\s?links?|payment\s+links?)\S*\s+(?:\S{1,40}\s+){0,8}?(?:without|skipping|ohne|sin)\s+"
            r"(?:\S{1,20}\s+){0,2}?(?:confirm\w*|bestätigung|asking|review\s+screen|amount\s+screen)",
            # a webhook's body believed without asking its sender
            r"(?:trust|believ|act\w*\s+on|conf[íi]a|rely\w*\s+on)\w*\s+(?:\S{1,30}\s+){0,10}?\S{0,10}(?:webhook|callback|"
            r"notification|cuerpo|payload)\S*\s+(?:\S{1,40}\s+){0,10}?(?:without|no\s+need\s+to|instead\s+of|sin)\s+"
            r"(?:\S{1,20}\s+){0,3}?(?:re-?fetch\w*|confirm\w*|asking|consult\w*|checking|verify\w*)",
        ),
    ),
    "secret_16": (
        "secrets-in-text",
        (
            # a secret the server keeps built into an app or an image; a password as a URL parameter
            r"(?:secret|signing|private|admin|server)\s+(?:api\s+)?keys?\s+(?:\S{1,20}\s+){0,4}?(?:into|inside)\s+"
            r"(?:the\s+)?(?:mobile\s+)?(?:apps?|client|bundle|binary|image)",
            r"clave\s+secreta\s+(?:\S{1,20}\s+){0,4}?(?:dentro\s+de\s+|en\s+)(?:la\s+)?(?:aplicaci[óo]n|app|imagen)",
            r"\w{0,12}passw\w*\s+(?:\S{1,20}\s+){0,3}?(?:als|as)\s+(?:an?\s+)?(?:query-?\s?param\w*|url\s+param\w*)",
        ),
    ),
    "log_16": (
        "logging",
        (
            # log redaction removed
            r"(?:disabl|remov|drop|strip|turn\w*\s+off|take|quit|elimin|supprim|entfern)\w*\s+(?:\S{1,30}\s+){0,3}?"
            r"\S{0,10}logs?\s+(?:masking|redaction|scrubbing|filter)",
            r"(?:disabl|remov|drop|strip|turn\w*\s+off|take|quit|elimin|supprim|entfern)\w*\s+(?:\S{1,30}\s+){0,3}?"
            r"\S{0,3}(?:masking|redact\w*|scrubb\w*|filtro\s+que\s+enmascara)\S*\s+(?:\S{1,40}\s+){0,6}?\S{0,10}"
            r"(?:logs?|logger|logging)\b",
        ),
    ),
    "egress_16": (
        "data-egress",
        (
            # a fetched response from an address the user chose shown back to them whole
            r"(?:return|show|send)\w*\s+(?:\S{1,30}\s+){0,6}?(?:complete|full|whole|entire)\s+(?:internal\s+)?"
            r"(?:\S{1,20}\s+)?(?:body|response)\s+(?:\S{1,40}\s+){0,8}?(?:test|target|internal|configured|webhook)",
            r"returns?\s+whatever\s+(?:the\s+)?(?:target|remote|internal|upstream)\s+(?:server|host|url)\s+"
            r"(?:answered|returned|sent)",
            r"devuelve\s+(?:\S{1,20}\s+){0,3}?respuesta\s+completa",
        ),
    ),
    "destroy_16": (
        "destructive",
        (
            # every replica taken down at once
            r"(?:every|all|alle)\s+(?:\S{1,20}\s+)?(?:replicas?|instances?|pods?|nodes?)\s+(?:\S{1,40}\s+){0,4}?"
            r"(?:(?:down|unavailable|offline|ausfallen)\s+(?:\S{1,20}\s+){0,2}?(?:at\s+once|simultaneously|gleichzeitig)|"
            r"(?:at\s+once|simultaneously|gleichzeitig)\s+(?:\S{1,20}\s+){0,2}?(?:down|unavailable|offline|ausfallen))",
            r"(?:keep\w*|leav\w*)\s+none\s+(?:available|running|serving)",
            r"unavailable\W{0,3}\s*(?:100\s*%|all)",
        ),
    ),
}
# The i29r22 to i29r28 rounds: the retired twenty-second to twenty-eighth sets' unkept meanings, each a
# dangerous act (a rule forbidding it is no topic), by round, but destroy_22 stands last: a topic's
# concepts are tried in order, so moving it would change the evidence of a text two of them read.
# i29r22: a payment retried under a new idempotency key or a billing job allowed to overlap itself (each
# charges twice); a safeguard's own setting set off; point-in-time recovery off or backups kept a day.
_ROUND_22: dict[str, tuple[str, tuple[str, ...]]] = {
    "conc_22": (
        "concurrency",
        (
            r"(?:retr(?:y|ies|ied)|re-?send|resubmit|re-?charg|re-?submit)\w*\s+(?:\S{1,40}\s+){0,8}?"
            r"(?:with\s+|under\s+)?(?:a\s+)?(?:fresh|new|different|another|regenerated)\s+idempotency[-\s]?keys?",
            r"concurrencypolicy\W{0,3}\s*(?:[:=]\s*)?\W?allow(?![^\W_])",
        ),
    ),
    "guard_off_22": (
        "security-sensitive",
        (
            # a setting whose key names a safeguard, set off: `verify_signature: false`, `redact_pii: off`
            r"[\w.-]{0,40}?(?:verif|validat|enforc|sanitiz|sanitis|escap|redact|mask|encrypt|audit|signature|signed|csrf|"
            r"xsrf|ssl|tls|cert|secure|protect|mfa|2fa|captcha|rate_?limit|throttl|integrity|checksum|pinning|sandbox|"
            r"hsts|scan|read_?only|anti_?rollback|safe_?mode|moderat|screening|breach|rotation|respect|honou?r|duplicate|dedup|"
            r"escalat|posture|sanction|fraud|three_?way|screen_|dual_?use|port_?out_?lock|"
            # (i29r28) collision checks, fail-safes, interlocks, session wipes, identity proofing, licence checks
            r"collision|fail_?safe|interlock|lockout|watchdog|geofenc|wipe_|proofing|voice_?match|licen[cs]e_?check|"
            r"localhost_?only|"
            # (i29r29) key restrictions, access control, host-key checking
            r"restriction|access_?control|host_?key_?check|strict_?host_?key|"
            r"require_?\w{0,20}?(?:auth|login|mfa|2fa|signature|approval|review|verification)|"
            r"(?:auth|login)_?required)[\w.-]{0,40}\W?\s*[:=]\s*\W?(?:false|off|no|n|disabled?|none|0)"
            r"(?![\w.])",
        ),
    ),
    # the i29r23 round: a balance read from a lagging replica before money moves; identity papers or
    # medical facts posted where everyone reads
    "conc_23": (
        "concurrency",
        (
            r"(?:balance|funds|stock|inventory|credit|limit)\s+(?:checks?|lookups?|reads?)\s+(?:\S{1,40}\s+){0,6}?(?:from|on|"
            r"against)\s+(?:a|the)\s+(?:read\s+)?replica",
            r"lag\s+is\s+(?:fine|ok|okay|acceptable)\s+for\s+(?:a\s+|the\s+)?(?:balances?|stock|inventory|payments?|credit|"
            r"withdrawals?)",
        ),
    ),
    "pii_23": (
        "personal-data",
        (
            r"(?:post|shar|past|put|drop|upload)\w*\s+(?:\S{1,40}\s+){0,10}?(?:id\s+scans?|passport\s+(?:scans?|numbers?|copies)|"
            r"background[-\s]check\s+(?:results?|reports?)|ssns?|social\s+security\s+numbers?|diagnos[ei]s|"
            r"medical\s+records?)\s+(?:\S{1,40}\s+){0,6}?in\s+(?:the\s+|an?\s+)?(?:open|public|shared|company-wide|general)\b",
        ),
    ),
    # the i29r24 round: row locks dropped from a stock reservation; grades or health shown to everyone;
    # a corrupting experiment on production with no snapshot
    "conc_24": (
        "concurrency",
        (
            r"(?:drop|remov|delet|skip|without)\w*\s+(?:the\s+)?(?:select_for_update|with_for_update|for\s+update\b|row\s+locks?)",
            r"(?:copes|handles|deals)\s+with\s+concurrent\s+(?:updates|writes)\s+on\s+its\s+own",
        ),
    ),
    "pii_24": (
        "personal-data",
        (
            r"(?:grades|diagnos\w*|salar\w*|reading\s+levels?|health\s+\w+|disabilit\w*)\s+(?:\S{1,40}\s+){0,6}?(?:every|all|any)\s+"
            r"(?:parents?|users?|students?|employees?|customers?|visitors?)\s+(?:\S{1,20}\s+){0,3}?can\s+see",
        ),
    ),
    "destroy_24": (
        "destructive",
        (
            r"against\s+(?:the\s+)?(?:live\s+)?production\s+(?:\S{1,40}\s+){0,4}?without\s+(?:taking\s+)?(?:a\s+)?"
            r"(?:snapshot|backup)",
        ),
    ),
    # the i29r25 round: audit events dropped before they leave the collector; personal data sent to every
    # partner, into ad events or onto lock screens, or gathered from deleted accounts; consent assumed or
    # carried past a change; money released before payment, paid to whatever account is named, records
    # rewritten after issue; a redemption that races applied twice; an unknown item accepted as it comes;
    # a sandbox shared across customers or opened to the metadata service; data kept in a public bucket;
    # secrets of production used in staging; published versions overwritten
    "audit_25": (
        "audit-and-alerting",
        (
            r"(?:filter|drop|exclud|discard|remov|suppress)\w*\s+(?:out\s+)?(?:\S{1,40}\s+){0,6}?(?:authentication|login|"
            r"sign-?in|auth)\W?\s+(?:\S{1,40}\s+){0,6}?(?:failures?|failed)\b",
            r"(?:stop|pause|disabl|turn\w*\s+off|switch\w*\s+off|drop)\w*\s+(?:the\s+)?(?:\S{1,30}\s+){0,2}?(?:siem|audit[-\s]?log|"
            r"security[-\s]log)\w*\s+(?:output|forward\w*|shipping|export|sink|stream)",
        ),
    ),
    "pii_25": (
        "personal-data",
        (
            r"(?:names|addresses|e-?mails|phone\s+numbers|personal\s+data|customer\s+data)\s+(?:\S{1,40}\s+){0,8}?to\s+"
            r"(?:every|all|each|any)\s+(?:\S{1,20}\s+)?(?:carriers?|vendors?|partners?|couriers?|suppliers?|third\s+parties)",
            r"(?:ip\s+address\w*|precise\s+(?:geo)?location|gps\s+coordinates|exact\s+location)\s+(?:\S{1,40}\s+){0,6}?"
            r"(?:in|to|into|with)\s+every\s+(?:\S{1,20}\s+){0,2}?(?:conversion|analytics|tracking|ad|marketing|pixel)\s+"
            r"(?:events?|calls?|requests?|hits?)",
            r"pixels?\s+(?:\S{1,40}\s+){0,6}?(?:every|all)\s+(?:routes?|pages?|screens?)\W?\s+including\s+(?:\S{1,40}\s+){0,3}?"
            r"\W?/?[\w/-]*(?:health|medical|billing|account|payment|checkout|password|settings|patient)",
            r"(?:symptom|diagnos|health|medical|prescription)\w*\s+(?:\S{1,40}\s+){0,6}?(?:to|into)\s+(?:the\s+)?(?:\S{1,20}\s+)?"
            r"(?:ad|advertis\w*|marketing|tracking|meta|facebook|tiktok)\s+(?:pixels?|tags?|sdks?|events?|platforms?|partners?)",
            r"(?:includ|put|show|add|send)\w*\s+(?:\S{1,40}\s+){0,4}?(?:balances?|card\s+digits|last\s+four|account\s+numbers?|"
            r"one[-\s]time\s+codes?|otps?|diagnos\w+)\s+(?:\S{1,40}\s+){0,8}?(?:in|into|on)\s+(?:every\s+|each\s+|the\s+)?"
            r"(?:\S{1,20}\s+)?(?:push(?:es)?|notifications?|lock\s*screens?|sms)\b",
            r"(?:one[-\s]time\s+codes?|otps?|verification\s+codes?)\s+(?:\S{1,40}\s+){0,10}?(?:shows?|visible|appears?)\s+"
            r"on\s+the\s+lock\s*screen",
            r"(?:including|incl\.?)\s+(?:\S{1,20}\s+){0,2}?(?:deleted|erased|closed|opted[-\s]out)\s+(?:users?|accounts?|"
            r"customers?|members?)",
            r"(?:deleted|erased|closed|opted[-\s]out)\s+(?:users?'?|accounts?|customers?'?)\s+(?:\S{1,20}\s+){0,2}?included",
            r"(?:even\s+(?:to\s+)?|including\s+)(?:\S{1,20}\s+){0,3}?(?:those|users|people|customers|devices|members)\s+"
            r"(?:who|whose|that)\s+(?:\S{1,20}\s+){0,2}?(?:turned|opted|switched|unsubscribed|declined|refused)\b",
            r"assum\w*\s+(?:the\s+)?(?:visitor|user|customer|person|caller|member)s?\s+(?:has\s+|have\s+)?(?:agreed|consented|"
            r"accepted|opted\s+in)",
            r"(?:consent|choice|opt[-\s]?in|acceptance)\w*\s+(?:\S{1,40}\s+){0,12}?even\s+(?:after|when|if)\s+(?:the\s+)?"
            r"(?:\S{1,20}\s+)?(?:policy|terms|purposes?|vendors?)\s+(?:changes?|is\s+updated|are\s+updated)",
            r"pre-?(?:select|tick|check)\w*\s+(?:\S{1,20}\s+){0,2}?(?:every|all)\s+(?:\S{1,20}\s+){0,2}?(?:categor\w*|"
            r"purposes?|consents?|checkbox\w*|cookies?)",
            r"accept\W?\s+the\s+only\s+(?:button|option|choice)",
            r"(?:analytics|ad|ads|marketing|personali[sz]ation)_(?:storage|user_data|personali[sz]ation)\W?\s*[:=]\s*\W?"
            r"granted\W{0,3}\s+(?:on\s+(?:page\s+)?load|by\s+default|before)",
            r"(?:start|load|fire|run)\w*\s+(?:\S{1,40}\s+){0,6}?(?:immediately|on\s+page\s+load|right\s+away)\s+(?:\S{1,20}\s+){0,3}?"
            r"(?:stop|disabl|remov)\w*\s+(?:them|it)\s+only\s+if",
            r"(?:fire|send|track|email|mail|sms|push|load|call)\w*_(?:on|for|to|despite|after)_?(?:opt_?outs?|opted_?out|"
            r"unsubscribed?|dnt|do_not_track)\w*\W?\s*[:=]\s*\W?(?:true|on|yes|1)\b",
            r"(?:tag|mark|treat|label|classif)\w*\s+(?:eu|european|uk|california|gdpr)\s+(?:\S{1,20}\s+)?(?:visitors|users|"
            r"customers)\s+as\s+\W?(?:region\W?\s*[:=]?\s*)?\W?(?:us|non-eu)\b",
            r"(?:keep|stor|put|upload|sav|host)\w*\s+(?:\S{1,40}\s+){0,4}?in\s+(?:the\s+|a\s+|their\s+|our\s+)?(?:\S{1,20}\s+)?"
            r"public\s+(?:s3\s+|gcs\s+)?(?:bucket|container|share|drive|folder)",
            r"(?:env(?:ironment)?\s+(?:dumps?|vars?|variables?))\W?\s+included",
        ),
    ),
    "money_25": (
        "client-trust",
        (
            r"(?:ship|release|fulfil|deliver|dispatch|issu)\w*(?:\s+\S{1,20}){0,2}?[\s_]+before[\s_]+(?:the\s+)?(?:payment|"
            r"capture|charge)",
            r"first\s+and\s+\W?(?:capture|charge|collect|take)\w*(?:[\s_]?(?:payment|card|money))?\w*\W*\s+later",
            r"(?:pay|refund|credit|charge)\w*\s+(?:out\s+)?the\s+(?:larger|higher|bigger|greater)\s+of",
            r"(?:edit|chang|modif|updat|rewrit|overwrit)\w*\s+(?:the\s+)?(?:issued|posted|finali[sz]ed|sent|closed|booked)\s+"
            r"(?:\S{1,20}\s+){0,2}?(?:invoices?|entries|ledgers?|transactions?|statements?)",
            r"back-?dat\w*\s+(?:\S{1,20}\s+){0,2}?(?:invoices?|contracts?|entries|records?|transactions?|documents?|signatures?)",
            r"(?:fails?|times?\s+out|errors?|unavailable|down)\W?\s+(?:\S{1,40}\s+){0,4}?(?:charge|bill|apply|use|set)\s+"
            r"(?:a\s+)?(?:zero|no|0)\s+(?:tax|vat|fees?|price)",
            r"reus\w*\s+(?:the\s+)?(?:\S{1,20}\s+)?\W?(?:order|invoice|receipt|transaction|ticket|serial)[\s_-]?(?:numbers?|ids?)"
            r"\W?\s+(?:of|from)\s+(?:\S{1,20}\s+)?(?:cancel|delet|void|refund)\w*",
            r"unknown\s+(?:\S{1,20}\s+)?(?:skus?|items?|products?|barcodes?|codes?)\W?\s+(?:\S{1,40}\s+){0,3}?(?:add|creat|accept|"
            r"insert|register)\w*\s+it\s+(?:\S{1,40}\s+){0,8}?(?:keep\s+going|carry\s+on|continue)",
            r"(?:take|read|use|set)\w*\s+(?:\S{1,20}\s+){0,3}?\W?(?:commission|price|discount|fee|rate)\w*\W?\s+from\s+(?:the\s+)?"
            r"(?:\S{1,20}\s+)?(?:form|request|payload|query|url|cookie|header)\s+(?:they|the\s+(?:user|seller|customer|client))\s+"
            r"(?:fill|send|submit)",
            r"(?:pass|take|use|accept)\w*\s+(?:the\s+)?\W?(?:price|amount|total|discount|fee)\W?\s+from\s+(?:the\s+)?(?:\S{1,20}\s+)?"
            r"(?:form|browser|client|request|cart|url|query)\s+(?:straight|directly)",
            r"refund\w*\s+(?:\S{1,40}\s+){0,10}?(?:and|but)\s+(?:leave|keep)\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:card|voucher|coupon|"
            r"code|credit|subscription|licen[cs]e)\s+(?:active|valid|usable|live)",
            r"any\s+number\s+of\s+times\s+per\s+(?:account|user|customer|card|device|order)",
            r"(?:return|show|expos)\w*\s+(?:\S{1,40}\s+){0,8}?for\s+any\s+(?:\S{1,20}\s+)?(?:code|id|number|token|voucher|card)\b",
            r"allow_?negative_?\w*\W?\s*[:=]\s*\W?true\b",
        ),
    ),
    "conc_25": (
        "concurrency",
        (
            r"(?:race|concurrent\w*|at\s+the\s+same\s+time|collide|double)\W?\s+(?:\S{1,40}\s+){0,4}?(?:apply|accept|process|"
            r"honou?r|allow)\s+(?:both|all\s+of\s+them|each)\b",
        ),
    ),
    "acl_25": (
        "access-control",
        (
            r"(?:reus|shar)\w*\s+(?:one|a|the\s+same|a\s+single)\s+(?:\S{1,20}\s+)?(?:sandbox|container|vm|runner|worker)\s+"
            r"(?:\S{1,20}\s+)?(?:across|between|for\s+(?:all|every))\s+(?:customers|tenants|users|accounts)",
            r"(?:reach|access|call|query|talk\s+to)\s+(?:the\s+)?(?:cloud\s+|instance\s+)?metadata\s+(?:service|endpoint|server|api)",
            r"(?:change|reset|replace|remov|swap|updat)\w*\s+(?:\S{1,20}\s+){0,3}?(?:2fa|mfa|two-factor|second[-\s]factor|"
            r"recovery)\s+(?:\S{1,20}\s+)?(?:phone|number|device|e-?mail|factor)\w*\s+(?:\S{1,40}\s+){0,8}?(?:once|after|when|if)\s+"
            r"(?:the\s+)?(?:caller|user|customer|requester)\s+(?:gives|provides|knows|tells|states|says)",
            r"(?:build|creat|generat|mak|issu|accept|allow|serve)\w*\s+(?:\S{1,20}\s+){0,3}?(?:urls?|links?|requests?|webhooks?|"
            r"payloads?|tokens?)\s+without\s+(?:a\s+|any\s+)?(?:signatures?|signing|hmac)",
            r"(?:pars|accept|process|handl|trust|tak)\w*\s+(?:\S{1,40}\s+){0,6}?(?:when|if)\s+(?:the\s+)?(?:\S{1,20}\s+)?"
            r"signature\s+(?:header\s+)?(?:is\s+)?(?:missing|absent|empty|not\s+present)",
            r"svgs?\s+(?:\S{1,40}\s+){0,4}?(?:unchanged|unsanitised|unsanitized|as[-\s]is|raw)\b",
            r"max_?(?:redirects|upload\w*|body\w*|file_?size|size|request\w*|connections|attempts|login\w*)\W?\s*[:=]\s*\W?"
            r"(?:unlimited|infinite|-1)\b",
            r"(?:remov|drop|delet|lift|disabl)\w*\s+(?:the\s+)?\W?max_\w*(?:size|resolution|bytes|length|upload|body|pixels)\w*",
            r"(?:remov|delet|disabl|drop)\w*\s+(?:the\s+)?\W?(?:budget|spend|cost|billing)[-_\s]?(?:guard|alarms?|alerts?|"
            r"limits?|caps?|kill[-_\s]?switch)",
            r"(?:drop|remov|disabl)\w*\s+(?:the\s+)?protected[-\s]attributes?",
            r"(?:overwrit|replac|republish)\w*\s+(?:the\s+)?(?:existing|published|released)\s+(?:versions?|releases?|tags?|"
            r"artifacts?|packages?)",
            r"production\s+(?:\S{1,20}\s+)?\W?[\w-]*(?:token|key|secret|password|credential)\w*\W?\s+(?:\S{1,20}\s+){0,2}?in\s+"
            r"(?:staging|ci|dev|test|development)\b",
            r"(?:return|includ|echo|expos|put)\w*\s+(?:the\s+)?(?:otp|one-time\s+code|verification\s+code|sms\s+code|reset\s+"
            r"(?:link|token))\s+(?:\S{1,40}\s+){0,4}?(?:in|into)\s+(?:the\s+)?(?:\S{1,20}\s+){0,3}?response",
            r"load\w*\s+(?:\S{1,40}\s+){0,4}?into\s+every\s+(?:\S{1,20}\s+)?(?:session|agent|context|prompt)s?\b",
        ),
    ),
    # the i29r26 round: records left pointing at retired hosts, a wildcard handed to a vendor, load tests on
    # production or live endpoints, scopes asked beyond need, a withdrawal hold removed, a second approver
    # waived or a check overridden to approve anyway, votes stored with their voters, recordings without
    # notice, private talks indexed for everyone, data pasted into a free public site, a key shipped to
    # clients, an untrusted message handed straight to an executor, unsanitised HTML, fail-open and
    # public-link settings
    "guard_26": (
        "security-sensitive",
        (
            r"(?:leave|keep)\w*\s+(?:\S{1,40}\s+){0,4}?(?:cname|dns|alias)\s+records?\s+(?:\S{1,40}\s+){0,6}?(?:retired|"
            r"decommissioned|deleted|removed|old|shut[-\s]down)\s+(?:\S{1,20}\s+){0,3}?(?:apps?|buckets?|services?|sites?|"
            r"hosts?|targets?)",
            r"pointing\s+at\s+their\s+old\s+targets",
            # a wildcard (`*.example.com`, read `.example.com` once emphasis is undone) handed to another party
            r"point\w*\s+\W?\*?\.[\w.-]+\W?\s+(?:at|to)\s+(?:the\s+|a\s+)?(?:third[-\s]party|external|vendor|outside|agency)",
            r"(?:turn\w*\s+off|disabl\w*|switch\w*\s+off|skip\w*)\s+(?:the\s+)?quarantine\b",
            r"(?:from\s+block\s+to|switch\w*\s+(?:\S{1,20}\s+){0,6}?to)\s+\W?log[-\s]?only",
            r"(?:turn\w*\s+off|disabl\w*)\s+(?:the\s+)?auto(?:matic)?[-\s]?renew\w*\s+(?:\S{1,20}\s+){0,4}?(?:domain|"
            r"certificate)",
            r"(?:offline|failure|fail)_?(?:mode|policy|action)\W?\s*[:=]\s*\W?(?:unlock|open|allow|permit)\b",
            r"public_?(?:sharing|links?|access|urls?)\w*\W?\s*[:=]\s*\W?(?:true|on|yes|enabled?)\b",
            r"[:=]\s*\W?anyone_?with_?(?:the_?)?link\b",
            r"share_?with_?(?:external|public|anyone)\w*\W?\s*[:=]\s*\W?(?:allow|true|on|yes)\b",
            r"(?:execut|run)\w*_?generated_?(?:sql|code|commands?|quer\w*)\w*\W?\s*[:=]\s*\W?(?:true|on|yes|1)\b",
            r"update_?url\W?\s+(?:\S{1,40}\s+){0,8}?plain[-\s]?http\b",
            r"(?:insert|render|inject|set|put|add)\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?html\s+(?:\S{1,20}\s+){0,2}?without\s+"
            r"(?:sanitis|sanitiz|escap|clean)\w*",
            r"(?:pass|send|forward|hand)\w*\s+(?:\S{1,40}\s+){0,4}?(?:straight|directly)\s+to\s+\W?[\w.]*(?:execute\w*|eval|exec|"
            r"system|spawn|popen)\b",
            r"(?:hid|suppress|disabl|turn\w*\s+off|skip)\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?(?:interaction|safety|allergy|"
            r"dosage|security)\s+(?:warnings|alerts|checks)",
            r"(?:turn\w*\s+off|disabl\w*|switch\w*\s+off)\s+(?:the\s+)?(?:\S{1,20}\s+)?duplicate[-\s](?:\S{1,20}\s+)?"
            r"(?:detection|checks?)",
            r"go\s+straight\s+into\s+(?:the\s+)?(?:apex|production|prod|live|main)\b",
        ),
    ),
    "destroy_26": (
        "destructive",
        (
            r"(?:load|stress|soak|performance|perf)[-\s]?tests?\s+(?:\S{1,40}\s+){0,6}?(?:hit|against|through|target|on)\s+"
            r"(?:the\s+)?(?:live\s+)?(?:production|prod\b|real\s+payments)",
            r"(?:live|production)\s+(?:\S{1,20}\s+)?(?:endpoints?|api|environment|keys?|account)\s+instead\s+of\s+(?:the\s+|"
            r"their\s+|our\s+)?(?:sandbox|test\s+mode|staging)",
            r"with\s+the\s+live\s+(?:\S{1,20}\s+)?(?:key|secret)\s+so\s+(?:\S{1,20}\s+){0,3}?(?:tests?|load)",
        ),
    ),
    "acl_26": (
        "access-control",
        (
            r"(?:request|ask\s+for)\w*\s+(?:\S{1,40}\s+){0,8}?(?:although|even\s+though|though)\s+(?:\S{1,20}\s+){0,3}?"
            r"only\s+(?:need|use|read)",
            r"(?:create|edit|delete|read|change)\w*\s+(?:\S{1,20}\s+){0,3}?on\s+(?:a\s+|any\s+)?(?:colleague|coworker|"
            r"another\s+user|other\s+users|someone\s+else)'?s?\s+(?:calendar|account|mailbox|behalf|files?|repo)",
            r"(?:turn\w*\s+off|disabl\w*|remov\w*|skip\w*|drop\w*|lift\w*)\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?(?:hold|"
            r"cool[-\s]?down|delay|waiting\s+period)\s+on\s+(?:\S{1,20}\s+){0,3}?(?:new|newly\s+added|changed)\s+"
            r"(?:\S{1,20}\s+)?(?:withdrawal|payout|bank|beneficiary|payee|wallet)",
            r"(?:bank|deposit|payout|payee|iban)\s+(?:\S{1,20}\s+)?changes?\s+(?:\S{1,20}\s+){0,2}?(?:emailed|sent\s+by\s+"
            r"e-?mail|by\s+e-?mail|from\s+(?:a\s+|the\s+)?(?:ticket|chat|e-?mail))",
            r"(?:without|with\s+no|no)\s+(?:a\s+)?second\s+(?:sign-?off|approv\w*|signer|signature|reviewer)",
            r"approve\s+(?:\S{1,20}\s+){0,3}?anyway\b",
            r"assum\w*\s+(?:full|complete)\s+(?:coverage|approval|eligibility|payment)",
        ),
    ),
    "pii_26": (
        "personal-data",
        (
            r"\W?(?:voter|respondent|member)_?ids?\W?\s+(?:\S{1,20}\s+){0,3}?(?:alongside|next\s+to|with)\s+(?:each|every|the)\s+"
            r"(?:\S{1,20}\s+)?(?:choice|vote|ballot|answer)",
            r"(?:see|know|shows?|list)\w*\s+who\s+(?:has\s+)?voted\s+(?:and\s+)?for\s+whom",
            r"record\w*\s+without\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:recording\s+)?(?:notice|banner|consent|indicator|"
            r"announcement)",
            r"(?:one-on-ones?|1:1s?|interviews?|performance\s+reviews?)\s+(?:and\s+\S{1,20}\s+)?included",
            r"(?:names|e-?mails|card|addresses|phone|salar\w*)\s+(?:\S{1,40}\s+){0,10}?(?:the\s+whole\s+company|everyone|"
            r"all\s+staff|every\s+employee)\s+can\s+(?:open|see|read|access|view)",
            r"(?:paste|upload|send|put|copy)\w*\s+(?:\S{1,40}\s+){0,6}?into\s+(?:the\s+|a\s+)?free\s+(?:public\s+|online\s+)?"
            r"(?:\S{1,20}\s+){0,2}?(?:site|service|tool|website)",
        ),
    ),
    "secret_26": (
        "secrets-in-text",
        (
            r"recovery[-\s]?(?:kit|codes?|keys?)\w*(?:\.pdf)?\W?\s+(?:\S{1,40}\s+){0,6}?(?:channel|chat|slack|wiki|shared\s+drive)",
            r"(?:ship|bundl|embed|put)\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,3}?api\s+key\W?\s+(?:\S{1,40}\s+){0,8}?in\s+\W?"
            r"(?:mobile|app|client|frontend|web)[\w/.-]*",
        ),
    ),
    # the i29r27 round: quoting or taking bets on stale prices, a retry under a fresh order id, replays
    # without deduplication, offsets committed before processing, idempotence off; a real number shown,
    # every user's messages on laptops, names and postcodes as model features, a dump of the customers
    # table, any external address; liquidations delayed for VIPs, credits with no cap, orders split under
    # a threshold, card data stored on a device; accounts kept active after someone leaves, a port opened to
    # any address, agent forwarding for every host, encryption optional, security updates deferred
    "conc_27": (
        "concurrency",
        (
            r"(?:keep|continue)\s+(?:\S{1,20}\s+){0,2}?(?:quoting|taking|trading|accepting|selling|pricing)\s+(?:\S{1,40}\s+){0,4}?"
            r"(?:last\s+(?:known|cached)|stale)\s+(?:prices|odds|quotes|rates)",
            r"(?:resend|retr(?:y|ies)|resubmit|re-?send)\w*\s+(?:\S{1,40}\s+){0,4}?(?:with\s+)?(?:a\s+)?(?:fresh|new|different)\s+"
            r"\W?(?:client_?order_?id|request_?id|order\s+id|transaction\s+id)",
            r"without\s+(?:any\s+)?de-?dup\w*",
            r"committed\s+before\s+(?:the\s+)?(?:records|messages|events)\s+are\s+processed",
            r"(?:turn\w*\s+off|disabl\w*)\s+\W?enable\.idempotence",
        ),
    ),
    "pii_27": (
        "personal-data",
        (
            r"(?:show|expos|display|shar)\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?real\s+(?:mobile\s+|phone\s+)?(?:numbers?|e-?mails?|"
            r"names?|addresses)",
            r"(?:pull|export|download|copy|take)\w*\s+(?:\S{1,40}\s+){0,16}?on\s+their\s+own\s+(?:laptops?|devices?|machines?|"
            r"computers?)",
            r"\W?(?:first_?name|gender|race|ethnicity|religion|postcode|zip_?code|marital\w*)\W?\s+(?:and\s+(?:the\s+)?(?:raw\s+)?"
            r"\W?(?:\w+\s+)?\w+\W?\s+)?as\s+(?:model\s+)?features?",
            r"(?:dump|export|copy)\s+of\s+the\s+\W?(?:customers?|users?|patients?|members?)\W?\s+table",
            r"any\s+external\s+(?:e-?mail\s+)?address",
            r"(?:reports?|records?|data|documents?)\s+(?:for|of)\s+(?:declined|rejected|former|deleted|departed)\s+\w+\s+"
            r"(?:\S{1,20}\s+){0,4}?indefinitely",
            r"(?:flagged|excluded|self-excluded|opted[-\s]out)\s+(?:\S{1,20}\s+){0,5}?still\s+receive",
            r"look\s+up\s+any\s+\S{1,20}'?s?\s+(?:full\s+)?(?:\S{1,20}\s+)?(?:history|records?|profile)",
        ),
    ),
    "money_27": (
        "client-trust",
        (
            r"(?:delay|defer|postpone|skip)\w*\s+(?:\S{1,20}\s+){0,2}?(?:liquidations?|margin\s+calls?|stop[-\s]?outs?)\s+for\s+"
            r"(?:vip|premium|large|big|important)",
            r"(?:credit|refund|discount|bonus|payout|reward|cashback)\w*\s+(?:\S{1,40}\s+){0,10}?(?:with\s+)?no\s+(?:cap|limit|"
            r"ceiling)\b",
            r"(?:split|break)\w*\s+(?:\S{1,40}\s+){0,8}?to\s+(?:stay|keep\s+(?:it|them))\s+(?:under|below)\s+(?:the\s+)?"
            r"(?:\S{1,20}\s+)?(?:approval|review|reporting|limit|threshold)",
            r"(?:stor|sav|keep|cach|writ)\w*\s+(?:\S{1,20}\s+){0,2}?(?:card\s+data|card\s+numbers?|pans?|cvvs?|track\s+data)\s+"
            r"(?:\S{1,40}\s+){0,4}?(?:in|to|on)\s+(?:the\s+)?(?:\S{1,20}\s+){0,3}?(?:sqlite|table|database|disk|device|tablet|file)",
            r"(?:estimated|estimates?)\s+(?:\S{1,20}\s+){0,3}?indefinitely",
            r"(?:drop|remov|skip|disabl)\w*\s+(?:the\s+)?(?:\S{1,20}\s+)?cooling[-\s]off",
            r"(?:submit|ship|pay|release)\s+(?:\S{1,20}\s+){0,3}?anyway\b",
            r"rais\w*\s+(?:the\s+)?fat[-\s]finger",
            r"allow_?different_?(?:card|account|address|payee)\w*\W?\s*[:=]\s*\W?true\b",
            r"max_?amount\W?\s*[:=]\s*\W?(?:null|none|unlimited)\b",
        ),
    ),
    "secret_27": (
        "secrets-in-text",
        (
            r"(?:embed|ship|bundl|put)\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,4}?(?:api\s+)?keys?\s+(?:\S{1,40}\s+){0,4}?in\s+(?:the\s+)?"
            r"(?:\S{1,20}\s+){0,2}?(?:page|portal|front[-\s]?end|javascript|bundle|html)\b",
        ),
    ),
    "acl_27": (
        "access-control",
        (
            r"(?:keep|leave)\s+(?:\S{1,20}\s+){0,3}?(?:accounts?|access|tokens?|badges?|credentials)\s+(?:\S{1,20}\s+){0,2}?"
            r"(?:active|enabled|open|valid)\s+(?:\S{1,20}\s+){0,4}?after\s+(?:someone|people|they|an?\s+(?:employee|user|person))\s+"
            r"(?:leaves?|left|quits?|departs?)",
            r"(?:open|expos)\w*\s+(?:port\s+)?\W?(?:22|3389|5432|3306|6379|27017|9200|5900)\W?\s+(?:\S{1,40}\s+){0,4}?(?:to\s+)?"
            r"(?:any\s+address|the\s+internet|0\.0\.0\.0/0|everyone|the\s+world)",
            r"forwardagent\s+yes\b",
            r"mark\w*\s+(?:\S{1,20}\s+)?(?:filevault|bitlocker|disk\s+encryption|luks)\s+as\s+optional",
            r"(?:devices?|users?|accounts?)\s+that\s+fail\s+(?:\S{1,20}\s+)?(?:compliance|checks?|posture|verification)\s+keep\s+"
            r"(?:\S{1,20}\s+)?access",
            r"(?:defer|delay)\w*\s+(?:\S{1,20}\s+){0,2}?security\s+updates",
            r"(?:auto-?lock|screen\s*lock|lock\s*screen)\w*\s+(?:to\s+)?never\b",
            r"(?:drop|skip|remov|disabl)\w*\s+(?:the\s+)?\W?(?:code_verifier|pkce|nonce)\W?\s+(?:check|validation|verification)",
            r"(?:token|session|key|password|credential|link|invite)[.\w]{0,40}?(?:ttl|expir\w*|lifetime|max_?age)\W?\s*[:=]\s*\W?"
            r"(?:never|forever|infinite|unlimited|none|null)\b",
            r"stop\w*\s+sending\s+(?:the\s+)?(?:\S{1,20}\s+){0,6}?(?:changed|new\s+(?:login|device)|security|password\s+reset)\W*\s+"
            r"(?:e-?mails?|sms|alerts?|notifications?)",
            r"(?:publish|post|releas)\w*\s+embargoed",
            r"clear\w*\s+(?:its\s+|the\s+)?legal[-\s]hold",
            r"including\s+(?:any\s+)?(?:cop(?:y|ies)\s+)?(?:attached\s+to\s+)?(?:an?\s+)?open\s+(?:safety\s+|abuse\s+|fraud\s+)?"
            r"(?:reports?|investigations?|cases?)",
            r"(?:drop|remov|hid|strip)\w*\s+(?:the\s+)?allergen",
            r"compatibility\s+(?:\S{1,20}\s+){0,4}?to\s+\W?none\b",
            r"no\s+acls?\s+on\b",
            r"reactivat\S*\s+(?:\S{1,20}\s+){0,2}?automatically",
            r"skip\w*\s+sending\s+(?:\S{1,20}\s+){0,3}?(?:notices?|disclosures?)",
        ),
    ),
    # the i29r28 round (its safeguards' keys set off are guard_off_22's stems): callback auth none,
    # auto-verify or UPnP on, edits after a lock, sharing set to all, an approval threshold of millions;
    # commands taken from any machine, any device paired, access for any
    # signed-in user or to every workspace, access kept after removal, people assigned where they are not
    # rated, a person's own login or signature used by others, one shared login, guest sessions on an
    # internal VLAN, attachments from unknown senders, "needs no PIN", a second person's check optional,
    # expired credentials honoured
    "guard_28": (
        "security-sensitive",
        (
            r"[\w.-]{0,40}?auth(?:entication|n)?\W?\s*[:=]\s*\W?(?:none|anonymous)(?![\w.])",
            r"[\w.-]{0,40}?(?:auto_?(?:verif|approv|accept|port_?forward|pair|trust|unlock)|upnp)[\w.-]{0,40}\W?\s*[:=]\s*\W?"
            r"(?:true|on|yes|enabled?|all|1)(?![\w.])",
            r"allow_?(?:edit|change|write|modif|delet)\w{0,20}?_?after_?\w{0,20}?(?:lock|clos|sign|submi|approv|final)\w*\W?\s*"
            r"[:=]\s*\W?(?:true|on|yes|1)(?![\w.])",
            r"[\w.-]{0,40}?(?:share|sharing|autofill)\w{0,30}\W?\s*[:=]\s*\W?(?:all|all_\w+|everyone|everybody|public|any)"
            r"(?![\w.])",
            r"(?:approv|review|sign_?off|dual|second|manual|fraud|four_?eyes)\w{0,30}?(?:threshold|limit|above|over|min\w*)\W?"
            r"\s*[:=]\s*\W?(?:\d{6,}|\d{1,3}(?:[,_]\d{3}){2,})(?![\d.])",
            r"without\s+(?:message\s+)?(?:signing|signatures?|encryption|authentication|tls)\s+(?:or|and|on|over)\b",
            r"(?:turn|switch|shut)\w*\s+off\s+(?:the\s+)?\W?(?:\S{1,20}\s+){0,2}?(?:brake|airbag|smoke|fire|collision|overspeed|"
            r"battery|wear|fault|temperature|gas|leak|tamper|intrusion|seatbelt|icing|remote_?id|remote\s+id)[-\w.\s]{0,25}?"
            r"(?:warnings?|alarms?|alerts?|sensors?|detectors?|trips?|broadcast)\b",
            r"rais\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,4}?above\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:safety[-\s]rated|certified|rated|"
            r"legal|regulatory|approved|permitted)\s+(?:\S{1,20}\s+)?(?:values?|limits?|speeds?|thresholds?|levels?|maximums?)",
            r"(?:flying|running|driving|operating|going|discharging)\s+(?:\S{1,20}\s+){0,2}?below\s+(?:the\s+)?(?:\S{1,20}\s+)?"
            r"(?:low-battery|minimum|reserve|safe|safety)\s+(?:\S{1,20}\s+)?(?:thresholds?|levels?|limits?)",
            r"(?:enabl|allow|keep)\w*\s+(?:\S{1,20}\s+){0,4}?while\s+(?:the\s+)?(?:car|vehicle|train|aircraft|robot|machine|"
            r"lift|elevator|drone|truck|crane)\s+is\s+(?:moving|in\s+motion|running|flying|driving|operating)",
            r"with\s+nobody\s+(?:in|at|on|near|holding|watching|present)\b",
            r"skip\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?(?:safety|preflight|pre-flight|night|hardship|lien|tag|police|background|"
            r"licen[cs]e)\s+(?:\S{1,20}\s+)?(?:checks?|checklists?|audits?|scans?|inspections?|holds?)\b",
            r"without\s+the\s+(?:\S{1,20}\s+){0,2}?(?:hardship|safety|tag|lien|police|background|preflight|licen[cs]e)\s+"
            r"(?:checks?|scans?|inspections?|holds?)\b",
        ),
    ),
    "acl_28": (
        "access-control",
        (
            r"(?:accept|take|obey|execut|run|process|honou?r)\w*\s+(?:\S{1,20}\s+){0,3}?(?:commands?|requests?|instructions?|"
            r"writes?|jobs?|orders?)\s+from\s+any\s+(?:\S{1,20}\s+){0,2}?(?:machine|host|device|ip|address|client|caller|"
            r"sender|one|network|peer)\b",
            r"(?:pair|connect|join|trust|accept|enrol|enroll|adopt)\w*\s+(?:\S{1,20}\s+){0,3}?any\s+(?:\S{1,20}\s+){0,2}?"
            r"(?:device|peer|node|client|host|sensor|controller|tag)\s+that\s+(?:asks|requests|tries|wants|offers|announces)",
            r"for\s+any\s+(?:signed[-\s]in|logged[-\s]in|authenticated|registered)\s+(?:user|account|member|caller)\b\W?\s+not\s+"
            r"(?:just|only)\b",
            r"(?:access|rights|role|permissions?)\s+(?:\S{1,20}\s+)?to\s+(?:every|all)\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:workspaces?|"
            r"projects?|tenants?|sites?|cases?|matters?|folders?|buildings?|robots?|machines?)\b",
            r"when\s+(?:someone|a\s+\S{1,20}|an\s+\S{1,20}|anyone|they|people)\s+(?:is\s+|are\s+|gets?\s+)?(?:removed|leaves?|"
            r"left|offboarded|terminated|deactivated)\b\W*\s*(?:\S{1,20}\s+){0,3}?keep\s+(?:their|his|her|its)\s+"
            r"(?:\S{1,20}\s+)?(?:access|keys?|badges?|accounts?|codes?|permissions?)\b",
            r"(?:assign|schedul|roster|let|allow|send|put|dispatch|staff|book)\w*\s+(?:\S{1,20}\s+){0,8}?(?:they|who)\s+"
            r"(?:aren'?t|are\s+not|isn'?t|is\s+not|weren'?t)\s+(?:yet\s+)?(?:rated|certified|licensed|qualified|trained|"
            r"credentialed)\s+(?:on|for)\b",
            r"(?:run|sign|log\s+in|act|approv)\w*\s+(?:\S{1,20}\s+){0,6}?(?:under|with|using|on)\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?"
            r"(?:director|manager|admin|administrator|cfo|ceo|owner|doctor|physician|attorney|partner|vet|veterinarian|"
            r"scientist|captain|pharmacist|supervisor|notary)'?s?\s+(?:own\s+)?(?:login|account|credentials|password|identity|"
            r"badge|pin)\b",
            r"sign\w*\s+(?:\S{1,20}\s+){0,4}?on\s+behalf\s+of\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:reviewer|scientist|physician|"
            r"doctor|approver|attorney|manager|signer|vet\w*|pharmacist|notary|director|officer)",
            r"(?:one|a\s+single|the\s+same)\s+shared\s+(?:\S{1,20}\s+)?(?:login|account|password|pin|code|credential)s?\b"
            r"(?!\s*(?:files?|stores?|vaults?|managers?))",
            r"shar\w*\s+one\s+(?:\S{1,20}\s+)?(?:login|account|password|pin|code)\b",
            r"(?:sign|log)\s+in\s+with\s+(?:the|a)\s+shared\s+(?:\S{1,20}\s+)?(?:code|password|login|account|pin)\b",
            r"(?:sessions?|guests?|visitors?|devices?)\s+(?:gets?|join|joins|land\s+on|are\s+put\s+on)\s+the\s+(?:\S{1,20}\s+)?"
            r"(?:internal|pms|corporate|staff|office|management|production|pos|plant|scada)\s+(?:vlan|network|subnet|lan|segment)",
            r"(?:open|run|execut|download|launch)\w*\s+(?:and\s+open\s+)?(?:\S{1,20}\s+){0,3}?(?:attachments?|files?|macros?|"
            r"installers?|executables?)\s+from\s+(?:unknown|untrusted|unverified|any|external|random)\s+(?:senders?|sources?|"
            r"sites?|people|addresses|websites?)",
            r"install\w*\s+(?:\S{1,20}\s+){0,2}?(?:apps?|packages?|extensions?|plugins?)\s+from\s+any\s+(?:\S{1,20}\s+){0,2}?"
            r"(?:website|site|url|source|link)",
            r"(?:needs?|requires?)\s+no\s+(?:pin|password|passcode|mfa|2fa|otp|signature|second\s+(?:person|approv\w*|signer|"
            r"signature|review\w*|check))\b",
            r"(?:second|other|dual|two-person|witness|custodian)\W?\s*(?:\S{1,20}\s+){0,2}?(?:pin|signature|approval|sign-?off|"
            r"key|check|scan|review)\s+(?:is|are)\s+(?:now\s+)?optional\b",
            r"with\s+no\s+(?:id|identity|photo\s+id|pin|password|signature|licen[cs]e)\s+(?:prompt|check|scan|request|verification)",
            r"any\s+(?:caller|one|person|visitor|user)\s+who\s+(?:gives|knows|provides|quotes|says|states)\s+(?:the|their|a)\s+"
            r"(?:\S{1,20}\s+){0,3}?(?:number|surname|postcode|date\s+of\s+birth|birthday)\b",
            r"(?:has\s+|have\s+)?(?:lapsed|expired)\s+(?:by\s+)?(?:\S{1,20}\s+){0,5}?keep\s+(?:roster|schedul|assign|accept|allow|"
            r"honou?r|us|treat|fly|work)\w*",
            r"ignor\w*\s+\W?(?:\S{1,20}\s+)?\W?\w*expir\w*\W?\s+for\s+(?:the\s+first\s+)?\d",
        ),
    ),
    "money_28": (
        "client-trust",
        (
            r"(?:to|into)\s+(?:whichever|whatever|any)\s+(?:\S{1,20}\s+){0,2}?(?:bank\s+)?(?:account|card|iban|wallet|room)\s+"
            r"(?:number\s+)?(?:\S{1,20}\s+){0,8}?(?:enters?|entered|typed|types|names?|named|gives?|provides?|submits?)\b",
            r"even\s+if\s+it\s+differs\s+from\s+(?:the\s+one\s+)?(?:\S{1,20}\s+){0,2}?(?:verified|registered|on\s+file|confirmed)",
            r"(?:withdraw|pay\s*out|cash\s+out|transfer)\w*\s+(?:\S{1,20}\s+){0,8}?before\s+(?:the\s+)?(?:campaign|auction|sale|"
            r"event|settlement|hold|dispute\s+window|chargeback\s+window)\s+(?:\S{1,20}\s+)?(?:closes?|ends?|clears?|runs?)",
            r"(?:restricted|escrow|trust|client|deposit|grant|donor|customer)\w*\s+(?:\S{1,20}\s+){0,10}?into\s+(?:the\s+)?"
            r"(?:general\s+)?operating\s+(?:fund|account|cash)",
            r"as\s+soon\s+as\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:uploads?|submits?|sends?|provides?)\s+any\s+(?:\S{1,20}\s+)?"
            r"(?:document|file|photo|receipt|proof|form)",
            r"(?:\W?(?:approved|accepted|paid|verified|released|published)\W?|approve\w*)\s+(?:\S{1,20}\s+){0,5}?(?:immediately|"
            r"at\s+once|on\s+submit|right\s+away|instantly)\s+and\s+(?:run|do|perform)\s+the\s+(?:\S{1,20}\s+){0,2}?(?:check|"
            r"verification|review|screening|validation)",
        ),
    ),
    "review_28": (
        "review-process",
        (
            r"(?:sign-?off|approval|review|verification)\s+can\s+(?:follow|come)\s+(?:afterwards|later|after)\b",
            r"(?:approv|accept|return|mark|grant|pay|releas|ship|publish)\w*\s+(?:\S{1,20}\s+){0,10}?and\s+(?:verify|check|"
            r"confirm|reconcile)\s+(?:it\s+|them\s+|eligibility\s+)?later\b",
            r"(?:clear|settl|sign\s+off|verif|mark|set|approv|audit)\w*\s+(?:\S{1,20}\s+){0,4}?(?:on\s+|for\s+)?(?:their|his|her)"
            r"\s+own\s+(?:\S{1,20}\s+){0,2}?(?:disputes?|entries|data|conflicts?|brackets?|work|results?|cases?|claims?)\b",
            r"(?:clear|approv|sign\s+off|verif)\w*\s+(?:\S{1,20}\s+){0,5}?themselves\s+when\b",
            r"without\s+(?:a|an|the|any)\s+(?:\S{1,20}\s+)?(?:attorney|lawyer|reviewer|editor|vet|doctor|human|person|pharmacist|"
            r"engineer)\s+(?:reading|reviewing|checking|seeing|approving)\s+(?:it|them)\b",
        ),
    ),
    "pii_28": (
        "personal-data",
        (
            r"\{(?:ssn|sin|nino?|social_security\w*|passport\w*|national_id|tax_id|dob|date_of_birth|card_?number|pan)\}",
            r"(?:catalogue|catalog|page|site|profile|directory|listing)\s+(?:\S{1,20}\s+)?(?:can\s+|should\s+|will\s+)?"
            r"(?:show|list|display)s?\s+who\s+(?:currently\s+|last\s+)?(?:has|borrowed|bought|attended|visited|donated|rented)",
            r"(?:volunteers?|temps?|interns?|contractors?|every\s+staff\s+account|all\s+staff)\s+"
            r"(?:(?!(?:never|not|no|cannot|can'?t|don'?t|won'?t|mustn'?t)\b)\S{1,20}\s+){0,8}?"
            r"(?:home\s+address(?:es)?|full\s+(?:\S{1,20}\s+)?histor(?:y|ies)|ssns?|dates?\s+of\s+birth)\b",
            r"(?:return|show|expos|send|list|display)\w*\s+every\s+(?:\S{1,20}\s+){0,2}?(?:offer|bid|salary|salaries|score)s?\s+"
            r"(?:amounts?\s+)?to\s+(?:all|every|any)\b",
            r"(?:keep|continue)\s+(?:recording|tracking|listening|collecting|logging|pulling|uploading)\s+(?:\S{1,20}\s+){0,4}?"
            r"(?:when|while|after|even\s+(?:when|if|after))\s+(?:\S{1,20}\s+){0,4}?(?:privacy\s+mode|opts?\s+out|opted\s+out|"
            r"withdraws?|withdrew|declin\w*|revok\w*|unsubscrib\w*)",
            r"after\s+(?:a|the)\s+(?:\S{1,20}\s+){0,2}?(?:withdraws?|opts?\s+out|unsubscribes?|revokes?\s+consent|objects?)\W*"
            r"\s*keep\s+(?:pulling|collecting|using|processing|tracking|sending|emailing|charging|contacting)",
            r"without\s+re-?consent\w*",
            r"redact\w*\s+(?:\S{1,20}\s+){0,3}?as\s+(?:black\s+)?(?:rectangles?|boxes|overlays?|highlights?)\b",
            r"rather\s+than\s+flatten\w*",
            r"(?:auto-?)?(?:declin|reject|deny|filter\s+out|screen\s+out|downrank)\w*\s+(?:\S{1,20}\s+){0,3}?(?:applicants?|"
            r"candidates?|tenants?|customers?|borrowers?)\s+(?:who|whose|with)\s+(?:\S{1,20}\s+){0,6}?(?:vouchers?|"
            r"disabilit\w*|pregnan\w*|religio\w*|gender|race|ethnic\w*|nationality|accents?)\b",
        ),
    ),
    "egress_28": (
        "data-egress",
        (
            r"forward\w*\s+(?:any|every|all)\s+(?:\S{1,20}\s+){0,2}?(?:spreadsheets?|files?|documents?|e-?mails?|attachments?|"
            r"records?|reports?)\s+to\s+(?:an?\s+)?(?:external|outside|personal|private|any)\b",
            r"(?:through|to|via|using)\s+(?:the\s+|a\s+)?free\s+(?:online\s+|public\s+|third[-\s]party\s+)?(?:\S{1,20}\s+)?"
            r"(?:service|api|tool|website|converter|ocr|translator)\b",
        ),
    ),
    "audit_28": (
        "audit-and-alerting",
        (
            r"instead\s+of\s+(?:creating\s+|adding\s+|writing\s+)?(?:an?\s+)?(?:amendment|correction|audit|change)\s+"
            r"(?:record|entry|trail|log)",
            r"without\s+(?:logging|recording|noting|tracking)\s+who\b",
            r"without\s+filing\s+(?:the\s+|a\s+|any\s+)?(?:\S{1,20}\s+){0,3}?(?:reports?|forms?|records?|notices?)\b",
            r"enter\s+(?:the\s+)?(?:expected|typical|usual|estimated|default|target|nominal)\s+(?:\S{1,20}\s+)?(?:values?|"
            r"readings?|temperatures?|results?|weights?|counts?)\s+instead",
            r"so\s+(?:that\s+)?(?:customers?|users?|drivers?|patients?|guests?|regulators?|auditors?|clients?|inspectors?|"
            r"parents?|buyers?)\s+(?:don'?t|do\s+not|won'?t|never|can'?t|cannot)\s+see\s+(?:the\s+|any\s+)?(?:\S{1,20}\s+)?"
            r"(?:warnings?|errors?|alerts?|faults?|failures?|recalls?|defects?|lights?)\b",
            r"hid\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?(?:out-of-range|abnormal|critical|failed|failing|adverse)\s+"
            r"(?:\S{1,20}\s+)?(?:flags?|results?|warnings?|values?|findings?|events?)\b",
            r"(?:edit|overwrit|rewrit)\w*[^\S\n]+(?:\S{1,20}[^\S\n]+){0,4}?(?:closed|final|signed|locked|admitted|"
            r"published|reported|released|recorded)\s+(?:\S{1,20}\s+){0,2}?(?:prices?|scores?|results?|records?|values?|"
            r"entries|grades?|readings?|amounts?)\b",
            r"reus\w*\s+(?:\S{1,20}\s+){0,2}?(?:sample|patient|order|specimen|case|invoice|transaction|accession|serial)\s+"
            r"(?:ids?|numbers?)\b",
        ),
    ),
    "destroy_28": (
        "destructive",
        (
            r"(?:delet|purg|destroy|wip|eras|remov|drop)\w*\s+(?:\S{1,20}\s+){0,8}?even\s+(?:if|when|though)\s+(?:\S{1,20}\s+){0,2}?"
            r"(?:hold|legal|litigation|retention|backup)\b",
            r"(?:with\s+)?no\s+(?:trash|recycle|undo|soft[-\s]?delete|recovery)\s+(?:period|bin|window|step)\b",
        ),
    ),
    "fail_28": (
        "error-handling",
        (
            r"(?:return|respond\s+with|answer)\s+\W?(?:eligible|approved|valid|verified|allowed|authori[sz]ed|true|ok|passed|"
            r"allow)\W?\s+(?:\S{1,20}\s+){0,6}?(?:when|if|whenever|while)\s+(?:\S{1,20}\s+){0,5}?(?:times?\s+out|timed\s+out|"
            r"is\s+down|is\s+unreachable|is\s+unavailable|is\s+offline)",
            r"(?:can'?t|cannot|can\s+not|fails?\s+to)\s+reach\s+(?:\S{1,20}\s+){0,12}?anyway\b",
        ),
    ),
    # the i29r29 round (its restriction and host-key settings set off are guard_off_22's stems): an
    # enforcement setting left empty, allow-all authenticators, world-writable places, superuser roles
    # granted so nothing is ever denied, safety defines commented out, unattended running "even when nobody
    # is in", a safety check's bypass taken from the client, safe-browsing and malware checks off
    "guard_29": (
        "security-sensitive",
        (
            r"[\w.]{0,40}?enforce\w*=\W?\s+(?:\S{1,20}\s+){0,2}?(?:left\s+)?(?:empty|blank|unset)\b",
            r"[\w.]{0,40}?(?:allow_?all|allow_?anonymous|anonymous_?access|public_?access|open_?access)\w*\W?\s*[:=]\s*\W?"
            r"(?:true|yes|on|1)(?![\w.])",
            r"(?:protection|safety|watchdog|guard|interlock|runaway|overheat|overcurrent|cutoff|cut-off)\w*\W{0,3}\s+"
            r"(?:\S{1,20}\s+){0,2}?(?:is\s+|are\s+|left\s+|stays?\s+)?commented\s+out\b",
            r"comment\w*\s+out\s+(?:the\s+)?\W?#?(?:define\s+)?\w*(?:protection|safety|watchdog|interlock|runaway|overheat)",
            r"even\s+(?:when|while|if)\s+(?:nobody|no\s+one|no-one)\s+is\s+(?:in|at|on|near|watching|present|around|there)\b",
            r"(?:take|accept|read|honou?r)\w*\s+\W?[\w.]*(?:check|verif|valid|limit|auth|safe)\w*\W?\s*=\s*\W?(?:false|0|off|no)"
            r"\W?\s+from\s+the\s+(?:client|request|browser|user|caller|query|app)",
            r"(?:turn\w*\s+off|disabl\w*|skip\w*|remov\w*|drop\w*|bypass\w*)\s+(?:the\s+)?\W?(?:safe\s*browsing|malware|"
            r"phishing|virus|antivirus|spam|abuse|csam|nsfw|nudity)\W?\s+(?:\S{1,20}\s+)?(?:checks?|scans?|filters?|lookups?|"
            r"classifiers?)\b",
            r"(?:make|set|leav|keep|mount)\w*\s+(?:\S{1,40}\s+){0,3}?world[-\s]?writ\w*",
            r"with\s+no\s+sticky\s+bit\b",
            r"(?:make|set|leav|keep|mark|grant)\w*\s+(?:\S{1,40}\s+){0,3}?(?:writ|read)\w*able\s+by\s+\W?(?:allusers|"
            r"allauthenticatedusers|everyone|anyone|all\s+users|the\s+world|the\s+public)\b",
            r"edit\s+mode\s+(?:\S{1,30}\s+){0,3}?(?:enabled|on)\s+in\s+prod\w*",
            r"(?:build_?drafts|publish_?drafts|build_?future)\W?\s*[:=]\s*\W?(?:true|yes|1|on)\W?\s+in\s+(?:the\s+)?prod\w*",
        ),
    ),
    # access widened: visibility public in build files, superuser roles or attributes given so nothing is
    # denied, no check the entity is the signed-in user, positions or data to any signed-in customer,
    # share links that never expire or that anyone holding may write through, other members' hidden
    # folders exported, anyone's uploads deleted, another customer's link taken over, a second factor reset
    # on a date of birth, mail from any address trusted on the name in its signature
    "acl_29": (
        "access-control",
        (
            r"default_visibility\W{0,4}\s*=\s*\W{0,3}//visibility:public",
            r"(?:give|grant|assign|run|attach|add)\w*\s+(?:\S{1,30}\s+){0,6}?\W?(?:sap_all|sap_new|accountadmin|sysadmin|"
            r"securityadmin|special|operations|db_owner|sysdba|superuser|administratoraccess|cluster-admin|owner)\W?\s+"
            r"(?:(?:and|or)\s+\W?\w+\W?\s+)?(?:roles?|attributes?|profiles?|privileges?|rights|permissions?|authorit\w+)\b",
            r"\W?(?:sap_all|accountadmin|administratoraccess|cluster-admin)\W?\s+(?:(?:and|or)\s+\W?\w+\W?\s+)?(?:on|for|to)\s+"
            r"(?:the\s+)?(?:\S{1,20}\s+){0,2}?(?:users?|accounts?|roles?|service|ids?)\b",
            r"so\s+(?:that\s+)?(?:it|they|jobs?|the\s+\S+|nothing)\s+never\s+(?:fails?|miss\w*|hits?|gets?|runs?\s+into)\s+"
            r"(?:on\s+)?(?:an?\s+)?(?:\S{1,20}\s+){0,2}?(?:access|permission|schemas?|denied|authori[sz]ation|privilege)",
            r"(?:no|without\s+(?:a|any))\s+check\s+that\s+(?:the\s+)?(?:\S{1,20}\s+){0,3}?(?:is|belongs\s+to|matches)\s+"
            r"(?:the\s+)?(?:signed[-\s]in|logged[-\s]in|current|requesting|authenticated)\s+(?:user|account|customer|caller)",
            r"to\s+any\s+(?:signed[-\s]in|logged[-\s]in|authenticated|registered)\s+(?:user|account|member|caller|customer)\b\W?"
            r"\s+not\s+(?:just|only)\b",
            r"(?:expires?_?at|expir\w*|ttl)\W?\s*[:=]\s*\W?(?:null|none|never|nil)(?![\w.])",
            r"no\s+(?:revoke|revocation)\s+(?:endpoint|option|button|path|route)\b",
            r"anyone\s+(?:holding|with|who\s+has)\s+the\s+link\s+(?:can\s+|may\s+)?(?:add|upload|edit|delete|write|change|post)",
            r"(?:includ|export|return|show|expos|sync|copy|download|zip)\w*\s+(?:\S{1,20}\s+){0,4}?(?:every|all|other|each)\s+"
            r"(?:\S{1,20}\s+)?(?:members?|users?|customers?|accounts?|tenants?|employees?|students?)['’]s?\s+(?:\S{1,20}\s+)?"
            r"(?:hidden|private|archived|deleted|personal|draft)\b",
            r"(?:delet|remov|eras|purg|overwrit|edit)\w*\s+any\s+(?:\S{1,20}\s+){0,2}?\W?\s*including\s+(?:\S{1,20}\s+){0,2}?"
            r"(?:uploaded|created|owned|written|made|added)\s+by\s+(?:others|other\s+\S+|someone\s+else|anyone)",
            r"even\s+(?:when|if)\s+(?:a\s+)?(?:different|another|other)\s+(?:customer|user|tenant|account|team|owner|merchant)"
            r"\s+(?:created|owns|made|uploaded|wrote|registered)",
            r"reset\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?(?:two-factor|2fa|mfa|password|pin|passcode|security\s+questions?|"
            r"authenticator)\s+(?:\S{1,20}\s+){0,3}?after\s+(?:just\s+|only\s+)?(?:(?:they|the\s+\S{1,20}|someone)\s+)?(?:say|"
            r"giv|enter|stat|provid|confirm)\w*\s+(?:a|the|their|his|her)\s+(?:date\s+of\s+birth|birthday|dob|postcode|zip|"
            r"name|e-?mail|surname|last\s+four)",
            r"(?:from|by)\s+any\s+(?:e-?mail\s+|sender\s+)?(?:address|sender|number|account)\s+(?:\S{1,20}\s+){0,2}?(?:when|if|as\s+"
            r"long\s+as|provided)\s+(?:\S{1,20}\s+){0,4}?(?:name|signature|display\s+name)\s+(?:\S{1,20}\s+){0,3}?match",
        ),
    ),
    # personal data: location metadata kept on public photos, no opt-in, names behind a public search,
    # restricted data shown to every employee, classification tags dropped automatically, private data in
    # a public set and hidden by presentation alone
    "pii_29": (
        "personal-data",
        (
            r"(?:exif|metadata)\s+(?:\S{1,20}\s+){0,3}?(?:left\s+intact|intact|kept|preserved|untouched|unstripped|not\s+stripped)"
            r"\W?\s+(?:\S{1,20}\s+){0,4}?(?:including|with)\s+(?:the\s+)?(?:gps|location|coordinates|geotags?)",
            r"(?:with\s+no\s+|without\s+(?:an?\s+|any\s+)?)opt-?in\b",
            r"(?:public|anonymous|unauthenticated|open)\s+(?:\S{1,20}\s+){0,4}?(?:return|show|list|display|includ|expos)\w*\s+"
            r"(?:\S{1,20}\s+){0,3}?(?:resident|occupant|tenant|owner|customer|member|guest|patient|donor|passenger|student|"
            r"employee)s?['’]?\s+(?:names|phone|home\s+addresses|e-?mails?)",
            r"(?:to|for)\s+(?:all|every|any)\s+(?:employees?|staff|users?|analysts?|members?)\W?\s+(?:\S{1,20}\s+){0,2}?including"
            r"\s+(?:\S{1,20}\s+){0,3}?\W?(?:pii|restricted|confidential|sensitive|private|secret)\b",
            r"(?:auto_?)?downgrad\w*\W?\s*[:=]\s*\W?(?:true|on|yes|1)(?![\w.])",
            r"lose\s+(?:their|its|the)\s+\W?(?:restricted|confidential|pii|sensitive|classified|private)\W?\s+(?:tags?|labels?|"
            r"classification)",
            r"(?:hid|mask|conceal)\w*\s+(?:them|it|those|these)\s+(?:with|by|using|via|through)\s+(?:a|an|the)\s+(?:\S{1,20}\s+)?"
            r"(?:style|css|client[-\s]side|front[-\s]?end|display|ui|javascript|js)\s+(?:\S{1,20}\s+)?(?:filter|rule|flag|"
            r"setting|toggle|class)",
        ),
    ),
    # data out: a bucket or recordings behind a public URL, a service on its public IP, keys shipped in
    # a client's config, secrets given a prefix the client bundle reads, production keys in tests
    "egress_29": (
        "data-egress",
        (
            r"(?:expos|serv|publish|shar)\w*\s+(?:the\s+)?(?:\S{1,40}\s+){0,4}?(?:buckets?|recordings?|backups?|exports?|dumps?|"
            r"files?|archives?)\s+(?:\S{1,40}\s+){0,2}?(?:through|via|on|at|behind|with)\s+(?:a\s+)?public\s+(?:\S{1,20}\s+)?"
            r"(?:url|link|endpoint|cdn|distribution|bucket)",
            r"(?:expos|open|run|put|host|serv|bind)\w*\s+(?:\S{1,30}\s+){0,5}?on\s+(?:its|their|a|the|each\s+\S+)\s+"
            r"(?:\S{1,20}['’]s\s+)?public\s+ip",
            r"(?:post|put|share|publish|paste)\w*\s+(?:the\s+)?(?:\S{1,30}\s+){0,3}?(?:stream|api|secret|private|admin|master|"
            r"signing)\s+keys?\s+(?:on|in|to|into)\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:wiki|chat|channel|slack|readme|confluence|"
            r"notion|page|doc)\b",
        ),
    ),
    "secret_29": (
        "secrets-in-text",
        (
            r"(?:ship|bundl|includ|embed|commit|distribut|put)\w*\s+(?:the\s+)?(?:\S{1,30}\s+){0,3}?(?:publisher|signing|api|"
            r"secret|private|master|admin|service|upload)\s+(?:keys?|tokens?|secrets?|credentials?)\s+(?:in|inside|with|into)\s+"
            r"(?:the\s+)?\W?(?:\S{1,40}\s+)?(?:config|\S+\.(?:ini|json|ya?ml|js|env|toml|plist|xml|cfg)|sdk|app|client|"
            r"installer|bundle|binary)",
            r"prefix(?!ed)\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,4}?(?:secrets?|keys?|tokens?|credentials?|passwords?)\s+with\s+\W?"
            r"(?:next_public|vite|react_app|expo_public|nuxt_public|gatsby|public)(?:_|\b)",
            r"(?:tests?|testing|integration|fixtures?|ci)\b(?:\s+\S{1,30}){0,12}?\s+(?:the\s+)?(?:production|prod|live)\s+\W?"
            r"\w*(?:secret|key|token|password|credential)",
            r"(?:create|make|send|issue|run)\w*\s+real\s+(?:charges|payments|transfers|payouts|refunds|orders)\b",
        ),
    ),
    # supply chain: native code or scripts loaded with no signature, scan or sandbox, mods with the whole
    # standard library, installs with no prompt, similarly named packages or forks from comments, a
    # package's README commands run, archives without a hash, hooks tracking a branch instead of a tag
    "supply_29": (
        "supply-chain",
        (
            r"(?:load|run|execut|install|launch|start|import)\w*\s+(?:\S{1,30}\s+){0,6}?with\s+no\s+(?:signature|signing|scan|"
            r"sandbox|checksum|hash|verification|integrity\s+check)",
            r"(?:mods?|plugins?|extensions?|user\s+scripts?|third[-\s]party|add-?ons?)\s+(?:\S{1,30}\s+){0,5}?with\s+(?:the\s+)?"
            r"full\s+(?:\W?\S{1,20}\W?\s+){0,3}?(?:librar\w+|access|permissions?|privileges?|apis?)",
            r"install\w*\s+(?:them|it|\S{1,30})\s+(?:\S{1,20}\s+){0,2}?(?:with\s+no|without\s+(?:a|any)?)\s*(?:prompt|"
            r"confirmation|asking|consent|review)\b",
            r"(?:similarly|similar)[-\s]named\s+(?:one|package|module|library|crate|gem|project)",
            r"fork\s+(?:\S{1,20}\s+)?linked\s+(?:in|from)\s+(?:an?\s+)?(?:issue|comment|forum|thread|chat)",
            r"including\s+any\s+(?:shell\s+)?commands?\s+(?:they|it)\s+(?:list|lists|give|gives|contain|contains|suggest|"
            r"suggests)",
            r"(?:add|fetch|download|pull|declar)\w*\s+(?:\S{1,30}\s+){0,4}?without\s+\W?(?:sha-?(?:256|2sg|512|s12)|integrity|"
            r"checksums?|hash(?:es)?)\b",  # the canonical reading reads 256 as 2sg
            r"\brev\W?\s*:\s*\W?(?:main|master|head|latest|trunk)(?![\w.])",
            r"(?:point|pin|track|use|reference|follow)\w*\s+(?:\S{1,40}\s+){0,6}?\W?(?:main|master|head|latest)\W?\s+"
            r"(?:\S{1,40}\s+){0,4}?instead\s+of\s+(?:a\s+)?(?:pinned\s+)?(?:tag|sha|commit|version|release|digest)",
        ),
    ),
    # review: live first and moderated later, merges on the agent's own, the approver "doesn't need to",
    # the process skipped while its guard is away, deploys before review, hooks removed so pushes to main
    # stop being blocked, security suites run only when their own files change
    "review_29": (
        "review-process",
        (
            r"(?:go\s+live|publish\w*|post\w*|ship\w*|releas\w*|live)\s+(?:\S{1,20}\s+){0,4}?and\s+(?:review|moderate|check|vet|"
            r"inspect)\s+(?:them\s+|it\s+|those\s+)?later\b",
            r"(?:merge|approve|deploy|publish|release|ship)\w*\s+(?:\S{1,30}\s+){0,6}?on\s+(?:its|their)\s+own\b",
            r"(?:doesn'?t|does\s+not|don'?t|do\s+not|won'?t|will\s+not)\s+need\s+to\s+(?:approve|review|sign\s+off|check|"
            r"be\s+asked)",
            r"(?:when|while|if|in\s+weeks\s+when)\s+(?:the\s+)?(?:qa|reviewers?|approvers?|change\s+board|cab|security\s+team|"
            r"compliance|qa\s+team)\s+(?:\S{1,20}\s+)?(?:is|are|isn'?t|doesn'?t|does\s+not)\s+(?:unavailable|away|out|busy|"
            r"offline|not\s+available|meet|around)\b",
            r"skip\w*\s+(?:the\s+)?(?:qa|staging|approval|change[-\s]board|review)\s+(?:system|step|stage|environment|gate)\b",
            r"(?:deploy|ship|release|reach\s+(?:customers|production|prod|users))\w*\s+(?:\S{1,20}\s+){0,6}?before\s+"
            r"(?:any\s+|the\s+|code\s+)?review\b",
            r"(?:remov|delet|drop|disabl|skip)\w*\s+(?:the\s+)?(?:\S{1,40}\s+){0,5}?hooks?\s+(?:\S{1,30}\s+){0,4}?so\s+(?:that\s+)?"
            r"(?:\S{1,20}\s+){0,4}?(?:stop\s+being\s+blocked|aren'?t\s+blocked|are\s+not\s+blocked|go\s+through|get\s+through)",
            r"(?:never|don'?t|do\s+not|skip\w*)\s+(?:run\s+)?(?:the\s+)?\W?(?:security|sast|dast|e2e|compliance|vulnerability|"
            r"licen[cs]e|audit)\W?\s+(?:\S{1,30}\s+){0,3}?(?:unless|except\s+when)\s+(?:their|its)\s+own",
        ),
    ),
    # money and claims: the typed amount over the receipt, whatever prices the shop sends, paid before
    # anything is counted, personal purchases on company cards
    "money_29": (
        "client-trust",
        (
            r"(?:typed|entered|claimed|stated|self-reported|submitted)(?:\s+(?:total|amount|value|price|weight|count|age|"
            r"income))?\W?\s+not\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?(?:receipt|verified|measured|scanned|ocr|recorded|"
            r"invoice|actual|calculated|system)",
            r"with\s+whatever\s+(?:prices?|discounts?|amounts?|totals?|quantities|rates?)\s+(?:\S{1,20}\s+){0,4}?(?:sends?|sent|"
            r"posts?|submits?|gives?|says?)",
            r"(?:paid|pay(?:ments?|outs?)?|released|approved|shipped|refunded|invoices?)\s+before\s+(?:anything|anyone|"
            r"any\s+\S+|the\s+goods?|it|they)\s+"
            r"(?:is|are|has|have)\s+(?:been\s+)?(?:counted|received|checked|inspected|verified|delivered|reviewed)",
            r"personal\s+(?:purchases?|expenses?|spending)\s+on\s+(?:the\s+)?(?:corporate|company|business|work)\s+cards?",
        ),
    ),
    # records: outages hidden, incidents marked resolved whether or not the alert cleared, a mismatch
    # logged and carried on from, shared or production data overwritten in place with no ticket
    "audit_29": (
        "audit-and-alerting",
        (
            r"hid\w*\s+(?:\S{1,20}\s+){0,8}?during\s+(?:outages?|incidents?|downtime)",
            r"(?:mark|set|report|close|flag)\w*\s+(?:\S{1,20}\s+){0,4}?(?:resolved|fixed|passed|green|healthy|complete|done|paid|"
            r"ok)\s+(?:\S{1,20}\s+){0,6}?whether\s+or\s+not",
            r"(?:log|record|note)\w*\s+(?:the\s+|a\s+)?(?:mismatch|discrepanc\w*|imbalance|difference)\s+and\s+(?:carry|keep|go)\s+"
            r"on\b",
        ),
    ),
    "destroy_29": (
        "destructive",
        (
            r"(?:overwrit|edit|modif|updat|patch)\w*\s+(?:\S{1,20}\s+){0,3}?(?:that|the|a|this|those|their)?\s*(?:shared\s+|"
            r"reference\s+|source\s+|original\s+|master\s+|production\s+|prod\s+)(?:\S{1,20}\s+){0,2}?(?:datasets?|data|files?|"
            r"tables?|masters?|records?|copy)\s+in\s+place",
            # "that dataset" unqualified: the pattern above needs "shared", "reference", "production" or the like
            r"overwrit\w*\s+that\s+(?:dataset|data|files?|tables?)\s+in\s+place",
            r"with\s+no\s+undo\b",
            r"with\s+no\s+(?:ticket|change\s+request|second\s+(?:operator|person|approver|pair\s+of\s+eyes))\b",
            r"without\s+keeping\s+(?:a\s+)?(?:copy|backup|version|snapshot)",
        ),
    ),
    # the i29r30 round: a safeguard's own setting turned off by its key (required, confirm, sign-off,
    # four-eyes, detection, alarm, braking, lockdown, passkey, screening) or bypassed, prod-writing switches
    # on, unknown input accepted, allow-lists set to anyone, default PINs, check-skipping flags, hard limits
    # passed, safety edges disabled, barriers kept open on a fault, a fault reported as clear
    "guard_30": (
        "security-sensitive",
        (
            r"[\w.-]{0,60}?(?:require_(?!grad)\w+|(?:check|verification|sign_?off|approval|browser|pin|mfa|2fa|passkey|id|"
            r"auth\w*)[._]required|\w+_confirm\w*|sign_?off|four_?eyes\w*|(?:fraud|shill|intrusion|fall|leak|fire|smoke|"
            r"collision|obstacle|tamper|anomaly|abuse|bot|malware|spam|points)_?detection|alarm\w*|braking|lockdown\w*|passkey|"
            r"screening|verification|interlock\w*)(?:[._](?:enabled|required|on|active))?\W?\s*[:=]\s*\W?(?:false|off|no|0|"
            r"disabled?|bypass)(?![\w.])",
            r"[\w.-]{0,40}?(?:alarm|alert|detection|protection|interlock|safety|braking)[\w.-]{0,40}?[._]enabled\W?\s*[:=]\s*\W?"
            r"(?:false|off|no|0)(?![\w.])",
            r"(?:turn\w*\s+off|disabl\w*)\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:fall|crash|collision|overdose|leak|fire|smoke|lightning|obstacle|person)"
            r"[-\s]detection",
            r"with\s+no\s+(?:\S{1,20}\s+)?(?:re-?entry|identity|id|ticket)\s+checks?\b",
            r"without\s+(?:badge|pin|secure)\s+release\b",
            r"[\w.-]{0,40}?allow\w*_prod\w*_writes?\W?\s*[:=]\s*\W?(?:true|yes|on|1)(?![\w.])",
            r"[\w.-]{0,40}?accept_unknown\w*\W?\s*[:=]\s*\W?(?:true|yes|on|1)(?![\w.])",
            r"[\w.-]{0,40}?allowed_\w+\W?\s*[:=]\s*\W?(?:any|all|everyone|\*)(?![\w.])",
            r"[\w.-]{0,40}?(?:pin|passcode|password|passwd)\W?\s*[:=]\s*\W?(?:0000|1111|1234|12345|123456|admin|password|default)"
            r"(?![\w.])",
            r"--(?:skip|no|disable)-[\w-]{0,30}?(?:check|verif|valid|scan|screen|redact|audit|sign)\w*",
            r"(?:pass|overrid|exceed|bypass)\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?hard\s+limits?\b",
            r"disabl\w*\s+(?:\S{1,20}\s+){0,3}?safety\s+(?:edges?|interlocks?|sensors?|switch\w*|circuits?|devices?)\b",
            r"(?:keep|leav)\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?(?:barriers?|gates?|doors?|valves?|dampers?)\s+(?:raised|open|"
            r"unlocked)\s+when\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?(?:reports?|shows?|has|raises?)\s+a\s+fault",
            r"(?:report|mark|show|return)\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?as\s+(?:clear|safe|healthy|unoccupied|free)\s+so\s+"
            r"(?:that\s+)?",
            r"skip\w*\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:sanctions?|aml|kyc|pep|watchlist|sample-swap|identity)\s+(?:screening|checks?)",
            r"skip\w*\s+(?:the\s+)?(?:independent\s+)?(?:safety|security|risk)\s+(?:assessment|case|analysis)\b",
            r"(?:silenc|mut)\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?alarms?\s+(?:at\s+night|overnight|on\s+the\s+night\s+shift|at\s+"
            r"weekends)",
            r"(?:alarms?|alerts?)\s+to\s+silent\b",
            r"(?:failed?|fails)\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:self-test|inspection|safety\s+check|calibration)\s+(?:can|may)\s+"
            r"(?:stay|remain|keep)",
            r"with\s+no\s+tls\b",
            r"over\s+plain\s+\W?(?:ws|http|ftp|telnet)\b",
            r"(?:keep|leav|with|us)\w*\s+(?:\S{1,20}\s+){0,6}?(?:the\s+)?(?:factory|default|vendor)\s+(?:admin\s+)?(?:password|"
            r"credentials|login|pin)s?\b",
            r"community\s+(?:private|public)\s+rw\b",
        ),
    ),
    # who may: the named person's sign-off or confirmation skipped, no preview by an editor, no diff review,
    # released without QA, no site inspection, identity not checked before handing over, a device claimed by
    # its serial alone, codes kept valid after use or printed on the device, former staff kept on mandates,
    # read-write for everyone, any laptop reaching the controllers, standing remote links into control
    # networks, prod contexts for agents, data shared with any organisation that asks
    "acl_30": (
        "access-control",
        (
            r"without\s+(?:the\s+|a\s+|an\s+)?(?:\S{1,20}\s+){0,2}?(?:pharmacist|engineer|nurse|supervisor|doctor|producer|editor|"
            r"manager|officer|approver|reviewer)['’]?s?\s+(?:sign-?off|confirmation|approval|check|review|scan\w*)\b",
            r"without\s+(?:a|an|the)\s+(?:\S{1,20}\s+)?(?:producer|editor|reviewer|pharmacist|engineer|supervisor|doctor|"
            r"nurse|manager)\s+(?:checking|reviewing|approving|seeing|confirming)\b",
            r"with\s+no\s+(?:preview|review|check|approval|sign-?off)\s+by\b",
            r"no\s+diff\s+review\b",
            r"without\s+qa\b",
            r"without\s+(?:a\s+)?site\s+(?:inspection|visit|check)\b",
            r"without\s+checking\s+(?:that\s+)?(?:they|he|she|the\s+\S+)\s+(?:are|is)\s+(?:the\s+)?(?:recipient|owner|account\s+"
            r"holder|patient|customer|user|buyer)",
            r"without\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:scanning|checking|verifying|confirming)\s+(?:the\s+)?(?:\S{1,20}\s+)?"
            r"(?:wristband|id|badge|barcode|identity)\b",
            r"by\s+(?:serial\s+number|e-?mail|name|phone\s+number|account\s+number)\s+alone\b",
            r"allow\w*\s+anonymous\s+(?:\S{1,20}\s+)?(?:access|printing|uploads?|writes?|logins?|connections?|reads?|binds?)\b",
            r"every\s+(?:\S{1,20}\s+){0,2}?(?:pickup|access|door|unlock|one-time)\s+codes?\s+to\s+any\b",
            r"(?:keep|leave)\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:codes?|tokens?|links?|passwords?|keys?)\s+valid\s+after\b",
            r"(?:code|password|pin|key)\s+printed\s+on\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:panel|label|sticker|door|device|case)\b",
            r"leav\w*\s+former\s+(?:employees|staff|members|contractors)\s+(?:on|in|with)\b",
            r"read-?write\s+for\s+(?:every|all|any)\b",
            r"so\s+(?:that\s+)?anyone\s+can\s+(?:replace|overwrite|change|edit|delete|modify)\b",
            r"so\s+(?:that\s+)?any\s+(?:staff\s+)?(?:laptop|pc|device|machine|computer|one)\s+can\s+reach\b",
            r"(?:permanent|always-on|standing)\W?\s+(?:\S{1,20}\s+){0,2}?(?:remote|vpn|rdp|access|link)\s+(?:\S{1,20}\s+){0,3}?"
            r"into\s+(?:the\s+)?(?:control|plant|ot|production|scada)",
            r"[\w.-]{0,40}?(?:context|role|profile|account)\w*\W?\s*[:=]\s*\W?(?:prod|production)[-_]?(?:admin|owner|root)\b",
            r"with\s+any\s+(?:\S{1,20}\s+)?(?:university|company|partner|researcher|vendor|organi[sz]ation|third\s+party)\s+that\s+"
            r"asks\b",
            r"on\s+behalf\s+of\s+(?:quiet|absent|other|inactive)\s+(?:buyers|users|customers|voters|members|bidders)\b",
            r"(?:apply|run|execut)\w*\s+any\s+(?:config|command|script|sql)\w*\s+pasted\s+into\b",
            r"\W?\w*(?:check|verif|required)\w*\W?\s+ignored\b",
            r"delet\w*\s+(?:their|his|her)\s+own\s+(?:\S{1,20}\s+){0,2}?(?:clips|footage|evidence|records|logs|entries)\b",
        ),
    ),
    # money and trust: the client's number billed instead of the meter's, the client's timestamp taken, paid or
    # released without waiting for a confirmation, payment collected later, the usual call-back skipped,
    # a limits check bypassed, a price changed after bidding starts
    "money_30": (
        "client-trust",
        (
            r"instead\s+of\s+the\s+(?:meter|logger|sensor|server|scale|receipt|measured|recorded)['’]?s?\s+(?:value|reading|"
            r"weight|number|amount)s?\b",
            r"replacing\s+the\s+(?:\S{1,20}\s+)?(?:logger|sensor|meter|measured|recorded|original)['’]?s?\s+(?:values?|readings?|"
            r"data)\b",
            r"(?:take|read|use|trust)\w*\s+(?:the\s+)?\W?\w*(?:time|timestamp|price|amount|total|kwh|weight|score)\w*\W?\s+"
            r"(?:\S{1,20}\s+)?from\s+the\s+(?:client|browser|app|request|device)\b",
            r"without\s+waiting\s+for\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?(?:confirmation|approval|sign-?off|review|inspection|"
            r"pipeline)\b",
            r"(?:collect|take|charge|capture)\s+(?:the\s+)?payment\s+later\b",
            r"without\s+the\s+(?:usual\s+)?call-?back\b",
            r"bypassing\s+the\s+(?:\S{1,30}\s+){0,2}?(?:check|limits?|controls?|policy|review|approval)\b",
            r"chang\w*\s+(?:\S{1,30}\s+){0,3}?after\s+(?:the\s+)?(?:bidding|voting|betting|exam|polls?)\s+(?:starts|opens|begins|"
            r"has\s+started)",
            r"extend\w*\s+(?:the\s+)?expiry\s+dates?\s+(?:on|of)\b",
            r"past\s+(?:their|its|the)\s+(?:licen[cs]e|contract|expiry|expiration)\s+(?:end\s+)?(?:dates?|period|term)\b",
        ),
    ),
    # personal data: names or plates on public maps and screens, every bidder's name and bid, a diagnosis
    # shared with every proctor, individuals' data instead of group totals, no deletion date, models trained on
    # customers' data, releases with redaction off
    "pii_30": (
        "personal-data",
        (
            r"(?:publish|show|post|display)\w*\s+(?:\S{1,20}\s+){0,5}?(?:number\s+plates|licen[cs]e\s+plates|home\s+addresses|"
            r"full\s+names)\s+on\s+(?:the\s+)?public\b",
            r"(?:full\s+name|phone\s+number|home\s+address)\W?\s+(?:\S{1,20}\s+){0,4}?on\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:screen|"
            r"display|kiosk|label|leaderboard|map)\b",
            r"every\s+(?:bidder|voter|applicant|candidate|patient|employee|student|customer)['’]s\s+(?:name|identity|maximum\s+bid|"
            r"salary|score|diagnosis)\b",
            r"(?:share|show|send|expos)\w*\s+(?:each|every)\s+(?:\S{1,20}\s+)?(?:student|patient|employee|user|customer|member)"
            r"['’]s\s+(?:\S{1,20}\s+){0,3}?(?:diagnos\w+|medical|health|salary|disabilit\w+)\s+(?:\S{1,20}\s+){0,2}?with\s+"
            r"(?:every|all|any)\b",
            r"individual\s+(?:\S{1,20}\s+){0,5}?data\W?\s+not\s+(?:just\s+)?(?:group|aggregate|team)\s+(?:totals|averages|figures)",
            r"with\s+no\s+(?:deletion|retention|expiry)\s+(?:date|limit|period)\b",
            r"even\s+(?:for|when|if)\s+(?:\S{1,20}\s+){0,2}?(?:who\s+)?(?:set|chose|opted|turned\s+on|enabled)\s+(?:a\s+)?"
            r"(?:privacy|private|opt-?out|do-not-track|incognito)\b",
            r"(?:customers?|users?|students?|patients?|our)['’]?\s+(?:\S{1,20}\s+){0,3}?to\s+train\s+(?:its|their)\s+(?:own\s+)?"
            r"models\b",
        ),
    ),
    # records: gaps filled with the last good value so reports look continuous for auditors, access-log
    # entries edited or removed, an alarm or excursion cleared automatically, nobody paged for alarms
    "audit_30": (
        "audit-and-alerting",
        (
            r"so\s+(?:that\s+)?(?:\S{1,20}\s+){0,3}?(?:look|looks|appear|appears)\s+(?:\S{1,20}\s+)?(?:continuous|clean|complete|"
            r"compliant|green)\s+(?:for|to)\s+(?:the\s+)?(?:auditors?|regulators?|inspectors?|customers?)",
            r"(?:edit|remov|delet|alter)\w*\s+(?:or\s+\w+\s+)?(?:entries|records|lines)\s+(?:in|from)\s+(?:the\s+)?"
            r"(?:\S{1,20}\s+){0,2}?(?:access|audit|evidence|event)\s+logs?\b",
            r"clear\w*\s+(?:it|them|the\s+\S+)\s+automatically\s+if\b",
            r"(?:don'?t|do\s+not|never)\s+page\s+(?:anyone|anybody|the\s+on-?call)\s+for\b",
            r"rather\s+than\s+waking\s+(?:the\s+)?(?:supervisor|on-?call|manager|engineer|duty)",
        ),
    ),
    # the i29r31 round: a check's own key set off (vetting, range and fixity checks, liveness, a stop for a
    # person, release blocked on overdue items, fire recall) or a bypass kept on, anonymous creation, debug
    # unlocks, unlimited overrides, a safety radius of zero; checks skipped or outrun (before screening results,
    # past the category limit, after a calibration lapsed, by feel), one person doing the independent check,
    # trackers and distress alarms switched off, a lookout asleep, records kept out of what inspectors see
    "guard_31": (
        "security-sensitive",
        (
            r"[\w.-]{0,60}?(?:vetting|range_check|check_on_\w+|fixity\w*|liveness\w*|stop_on_person|block_release\w*|"
            r"fire_recall|bnwas|deadman\w*|dead_man\w*|watch_?alarm\w*|\w*_before_start|(?:age|background|identity|id|sanction\w*|safety|signature|integrity|qc|quality|"
            r"compliance|exclusion|allergy|consent|deferral|expiry|insurance)_check\w*)(?:[._](?:enabled|required|on|active))?"
            r"\W?\s*[:=]\s*\W?(?:false|off|no|0|disabled?)(?![\w.])",
            r"[\w.-]{0,40}?bypass\W?\s*[:=]\s*\W?(?:persistent|always|permanent|true|on)(?![\w.])",
            r"[\w.-]{0,40}?allow_while_(?:moving|driving|running|in_use)\W?\s*[:=]\s*\W?(?:true|yes|on|1)(?![\w.])",
            r"[\w.-]{0,40}?anon(?:ymous)?_(?:create|write|edit|upload|delete|admin)\w*\W?\s*[:=]\s*\W?(?:true|yes|on|1)(?![\w.])",
            r"accessvbom\W?\s*[:=]\s*\W?1(?![\w.])",
            r"[\w.-]{0,40}?(?:debug|backdoor|master|dev)_?unlock\w*\W?\s*[:=]\s*\W?(?:1|true|on|yes)(?![\w.])",
            r"[\w.-]{0,40}?(?:override|discount|refund|credit|payout)\w*_limit\W?\s*[:=]\s*\W?(?:unlimited|infinity|none)(?![\w.])",
            r"(?:exclusion|safety|evacuation)_radius\w*\W?\s*(?:[:=]|to)\s*\W?0(?![\w.])",
            r"without\s+(?:the\s+|a\s+|an\s+)?(?:independent\s+(?!of\b)\w+|electronic\s+crossmatch|qc\s+pass|load\s+test|"
            r"reason\s+code)\b",
            r"skip\w*\s+(?:the\s+)?(?:\S{1,30}\s+){0,2}?(?:expiry|clearance|allergy|crossmatch|vetting|background)\s+"
            r"(?:checks?|lists?)\b",
            r"(?:skip|disabl)\w*\s+\W?(?:the\s+)?(?:age|self_exclusion|self-exclusion)[_\s]?checks?\b",
            r"skip\w*\s+(?:the\s+)?(?:written\s+)?consent\s+for\b",
            r"agree\s+by\s+using\s+(?:the|it)\b",
            r"even\s+(?:after|when|though|if)\s+(?:their|its|the)\s+(?:\S{1,20}\s+)?(?:calibration|certification|licen[cs]e|"
            r"inspection|insurance|registration)s?\s+(?:has|have)\s+(?:lapsed|expired)",
            r"past\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:category|legal|label|rated|certified|permitted)\s+(?:limit|maximum|hours)\b",
            r"remov\w*\s+(?:the\s+)?(?:label|legal|rated|safety)\s+(?:maximum|max|limit)\b",
            r"(?:switch|turn)\w*\s+off\s+(?:the\s+)?(?:ais|transponder|beacon|tracker|gps\s+tracker|tachograph|flight\s+recorder|"
            r"black\s+box|dashcam|body\s*cam)\w*\b",
            r"in\s+test\s+mode\s+permanently\b|permanently\s+in\s+test\s+mode\b",
            r"(?:may|can)\s+sleep\s+(?:in|on|at|during)\b",
            r"carry\s+on\s+rather\s+than\s+stopping\b|rather\s+than\s+stopping\s+when\b",
            r"if\s+(?:they|it)\s+(?:feel|feels|look|looks|smell|smells)\s+(?:cold|fine|ok|okay|good|clean)\b",
            r"before\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?(?:screening|test|lab|inspection)\s+results\s+(?:are|come)\s+back\b",
            r"one\s+(?:person|nurse|engineer|technician|operator|officer|pilot)\s+(?:alone\s+)?can\s+(?:do|check|sign|perform)\b",
            r"certify\s+their\s+own\s+work\b",
            r"\bthey\s+(?:maintain|built|wrote|made|service|installed)\s+themselves\b",
            r"return\w*\s+(?:\S{1,20}\s+){0,2}?to\s+service\s+alone\b",
            r"discharg\w*\s+untreated\b",
            r"without\s+telling\s+(?:the\s+)?(?:quality|safety|compliance|audit|security)\b",
            r"inspectors?\s+only\s+(?:look|check)s?\s+at\b",
            r"(?:can|may)\s+be\s+left\s+blank\s+when\b",
        ),
    ),
    # who may: anyone told of by a phone call, a text or a message treated as authorised and obeyed at once,
    # anyone with edit rights or any user allowed to change payees and due hours, config served without auth
    # so partners can change it, commands from an unauthenticated topic, remote ports without a password,
    # overrides for all, tables writable by marketing, claims marked on the client, colleagues clocked in
    "acl_31": (
        "access-control",
        (
            r"(?:(?<![^\W_])(?:and|then|to|just|also|please)\s+|(?<=[.;:!?,/(\n])\s*|^\s*)let\s+any(?:one|body)?\s+(?:\S{1,20}\s+){0,6}?(?:change|edit|redirect|approve|overwrite|delete)\b",
            r"any(?:one|body)\s+who\s+(?:\S{1,20}\s+){0,6}?(?:can|may)\s+(?:change|redirect|edit|approve|certify|sign\s+off)\b",
            r"any\s+(?:\S{1,20}\s+){0,2}?(?:technician|user|employee|member|volunteer|staff\s+member)\s+(?:may|can)\s+"
            r"(?:sign\s+off|certify|approve|change|edit)\b",
            r"(?:anyone|whoever|any\s+caller)\s+who\s+(?:phones|calls|texts|emails|says)\s+(?:\S{1,20}\s+){0,12}?as\s+"
            r"(?:authori[sz]ed|verified|trusted|genuine)",
            r"any\s+message\s+(?:\S{1,20}\s+){0,20}?(?:should|must)\s+be\s+(?:applied|followed|actioned|obeyed|executed)\b",
            r"on\s+a\s+phone\s+call\s+saying\b",
            r"without\s+calling\s+(?:the\s+)?(?:shipper|customer|owner|bank|sender|account\s+holder|client)\b",
            r"without\s+auth\w*\s+so\s+(?:\S{1,20}\s+){0,3}?can\s+(?:change|edit|update|write|delete|set)\b",
            r"from\s+(?:the\s+|an\s+|any\s+)?unauthenticated\b",
            r"(?:vnc|rdp|ssh|telnet|port)\W?\s+(?:\S{1,20}\s+){0,3}?without\s+(?:a\s+)?password\b",
            r"override_allowed\W?\s+for\s+all\b",
            r"writable\s+by\s+(?:the\s+)?\W?(?:marketing|sales|support|everyone|all|any)\b",
            r"from\s+the\s+client\s+side\s+so\b",
            r"unlock\w*\s+(?:\S{1,20}\s+){0,3}?for\s+any\b",
            r"clock\s+(?:colleagues|others|other\s+employees|co-?workers)\s+in\b",
            r"self-hosted\s+runners?\s+on\s+(?:developers|personal|employees|staff)",
            r"(?:emailed|e-mailed|uploaded|scraped)\s+(?:\S{1,20}\s+){0,3}?(?:files?|pages)\s+(?:\S{1,20}\s+){0,8}?without\s+"
            r"(?:checking|validation|validating)\b",
            r"without\s+(?:checking|verifying|validating)\s+(?:the\s+)?(?:\S{1,20}['’]s\s+)?(?:signatures?|purchase|registrations?|"
            r"\W?rights\W?|sender['’]?s?|domain)\b",
            r"without\s+validation\b",
        ),
    ),
    # money and trust: a licence or income to whoever emails or asks first, paid before proof of delivery, charged
    # with no cap, priced from the barcode without a lookup, a win shown before the customer scans it, alerts
    # tuned so they never stop anyone, a seeded generator for a live draw, an exit opened without a paid check
    "money_31": (
        "client-trust",
        (
            r"to\s+anyone\s+who\s+(?:emails|calls|asks|says|writes|claims)\b",
            r"whichever\s+(?:\S{1,20}\s+)?(?:asks|emails|claims|calls|texts|bids)\s+(?:first|the\s+lowest)?",
            r"before\s+(?:any|the)\s+(?:signed\s+)?proof\s+of\s+(?:delivery|payment|identity)\b",
            r"with\s+no\s+cap\b",
            r"without\s+a\s+(?:price\s+)?lookup\b|price\s+embedded\s+in\b",
            r"before\s+the\s+customer\s+scans\b",
            r"so\s+(?:\S{1,20}\s+){0,3}?alerts?\s+(?:almost\s+)?never\s+(?:stop|fire|trigger|block)\b",
            r"for\s+the\s+live\s+draw\s+too\b",
            r"without\s+checking\s+(?:that\s+)?it\s+was\s+(?:paid|used|valid)\b",
        ),
    ),
    # personal data: home folders to a public bucket, a paid key to a public repo, a custody order ignored, test
    # results to an organiser, contact details where the next renter sees them, exact addresses, joins on a
    # person's hash, names published, originals thrown away, card track data in a log, open-to-anyone workbooks
    "pii_31": (
        "personal-data",
        (
            r"to\s+(?:our\s+|the\s+|a\s+)?public\s+(?:cdn\s+|s3\s+|gcs\s+)?bucket\b",
            r"(?:commit|push)\w*\s+(?:\S{1,30}\s+){0,6}?\W?[\w-]*?(?:key|token|secret|password)\W?\s+to\s+the\s+public\s+(?:github\s+)?"
            r"repo",
            r"(?:custody|restraining|protection)\s+order\s+restricts\b",
            r"(?:test\s+)?results\s+to\s+the\s+(?:organi[sz]er|employer|coach|teacher|landlord)\b",
            r"that\s+the\s+next\s+(?:renter|guest|user|customer|tenant|driver)\s+can\s+(?:view|see|read)\b",
            r"exact\s+address(?:es)?\s+rather\s+than\b",
            r"domestic\s+violence\s+cases\s+included\b",
            r"join\s+(?:\S{1,30}\s+){0,6}?on\s+(?:the\s+)?\W?\w*(?:person|patient|citizen)_?(?:hash|id)\b",
            r"(?:callers|customers|patients|users|residents|tenants)['’]?\s+names\s+(?:\S{1,20}\s+){0,4}?included\b",
            r"online\s+with\s+full\s+names\b",
            r"(?:do\s+not|don'?t|never)\s+remove\s+(?:\S{1,20}\s+){0,4}?even\s+when\s+(?:\S{1,20}\s+){0,4}?(?:contains|shows|exposes)",
            r"access_level\W?\s*=\s*\W?public\W?\s+(?:dla\s+wszystkich|for\s+all|for\s+every)",
            r"restricted\s+collections\s+without\b",
            r"originals?\s+(?:\S{1,20}\s+){0,3}?(?:may|can)\s+be\s+(?:thrown\s+away|discarded|destroyed|shredded)\b",
            r"(?:card\s+)?track\s+(?:1\s+|2\s+)?data\s+in\b",
            r"so\s+anyone\s+who\s+opens\b",
        ),
    ),
    # records: readings deleted before a report goes out or when they disagree with a model, no copy kept,
    # exceedances removed, a whole workflow kept out of records, an audit log left unwritten (Japanese)
    "audit_31": (
        "audit-and-alerting",
        (
            r"(?:delet|remov|drop|discard)\w*\s+(?:\S{1,30}\s+){0,6}?before\s+(?:the\s+)?(?:monthly\s+|weekly\s+|quarterly\s+|"
            r"annual\s+)?report\b",
            r"(?:delet|drop|discard)\w*\s+(?:\S{1,20}\s+){0,3}?readings?\s+that\s+disagree\b",
            r"keep\s+no\s+copy\b",
            r"showing\s+exceedances\b",
            r"leave\s+(?:\S{1,30}\s+){1,8}?out\s+of\s+the\s+(?:\S{1,20}\s+)?records\b",
            r"監査ログを残さず|ログを残さずに",
        ),
    ),
    # the i29r36 round (the thirty-sixth set, out of turn): a check's key set optional, manual, skipped for
    # some or off, overrides allowed for all, remote disarm from any phone, auto-approval up to a large sum,
    # notes visible to all; interlocks, fans, monitors and alarms off, muted, jumpered or log-only; safety
    # distances and waits cut; someone unsupervised or alone with a hazard; checks still pending or lapsed;
    # hazards kept unlocked, burned or stored at home; judged by feel or by how it looks
    "guard_36": (
        "security-sensitive",
        (
            r"[\w.-]{0,40}?(?:_check|check_on_\w+|_required_for_\w+|_required|_survey)\w*\W?\s*[:=]\s*\W?(?:off|optional|false|"
            r"manual|skip_\w+|none)(?![\w.])",
            r"[\w.-]{0,40}?\W?\s*[:=]\s*\W?skip_(?:if|for|when|on)_\w+",
            r"[\w.-]{0,40}?_override\w*\W?\s*[:=]\s*\W?allowed_for_all\w*",
            r"[\w.-]{0,40}?remote_disarm\w*\W?\s*[:=]\s*\W?any\w*",
            r"[\w.-]{0,40}?auto_approve_under\w*\W?\s*[:=]\s*\W?\d{3,}",
            r"[\w.-]{0,40}?auto_resolve\w*\W?\s*[:=]\s*\W?(?:true|yes|on|1)(?![\w.])",
            r"(?:isolation|safety|exclusion)_distance\w*\W?\s*(?:[:=]|to)\s*\W?0(?![\w.])",
            r"halve\s+(?:the\s+)?\W?\w*(?:safety|distance|wait|clearance|limit)\w*",
            r"cut\s+(?:the\s+)?\W?\w*(?:anneal|cure|cool|misfire|wait|dry)\w*\W?\s+(?:\S{1,20}\s+)?to\s+(?:one|two|\d)",
            r"(?:switch|turn)\w*\s+off\s+(?:the\s+)?\W?\w*(?:interlock|extraction|ventilation|detector|monitor|time_lock)\w*",
            r"interlock\w*\W?\s+(?:\S{1,30}\s+){0,4}?(?:left\s+open|(?:to\s+be\s+)?jumpered|bypassed)\b",
            r"with\s+the\s+(?:\S{1,20}\s+)?(?:fan|extraction|extractor|monitor|alarm|detector|siren|interlock)\s+(?:off|muted|"
            r"disabled|silenced)\b",
            r"to\s+log\s+only,?\s+with\s+no\s+(?:siren|alarm|alert)",
            r"silenc\w*\s+(?:the\s+)?(?:\S{1,20}['’]s\s+)?\W?\w*alarm\w*\W?\s+when\b",
            r"keep\s+(?:the\s+)?(?:\S{1,20}['’]s\s+)?\W?\w*lock\w*\W?\s+off\b",
            r"without\s+the\s+kill\s+cord\b",
            r"(?:cap|plug|block)\w*\s+(?:off\s+)?(?:the\s+)?relief\s+valves?\b",
            r"without\s+respirators?\b",
            r"remov\w*\s+(?:the\s+)?\W?\w*(?:_min|_max|minimum|maximum)\W?\s+(?:block|check|limit)\b",
            r"before\s+(?:their|the|its)\s+(?:\S{1,20}\s+)?(?:background|licen[cs]e|dbs|criminal|reference|safety)\s+checks?\s+"
            r"(?:comes?|is|are)\s+back\b",
            r"(?:registration|licen[cs]e|certification|insurance)\s+has\s+lapsed\s+can\b",
            r"skip\w*\s+(?:the\s+)?\W?(?:quarantine|isolation|incubation)\w*",
            r"skip\w*\s+(?:the\s+)?\W?\w*weight\w*\W?\s+check\b",
            r"\bby\s+feel\b",
            r"to\s+avoid\s+the\s+(?:special\s+)?(?:waste|disposal|landfill|hazardous)\s+fee\b",
            r"home\s+garages?\s+until\b",
            r"immediately\s+dangerous\s+can\s+be\s+left\b",
            r"showing\s+signs\s+of\s+illness\s+(?:\S{1,20}\s+){0,4}?can\s+still\b",
            r"without\s+(?:\S{1,20}\s+)?training\s+can\b",
            r"(?:under\s+(?:sixteen|eighteen|fourteen|1[468])|children|juniors?|minors)\s+(?:\S{1,20}\s+){0,6}?(?:unsupervised|"
            r"without\s+an\s+adult)\b",
            r"(?:may|can)\s+(?:enter|work|use|stay)\s+(?:\S{1,20}\s+){0,9}?alone\b",
            r"(?:pin|passcode|password)\W?\s+at\s+(?:the\s+)?default\b",
            r"when\s+the\s+(?:vet|doctor|pharmacist|engineer|supervisor|manager|instructor|nurse)\s+is\s+away\b",
            r"_required\W?\s+(?:op|auf|à|a|to|en|na)\s+\W?false\b",
            r"skip\w*\s+the\s+\W?\w*(?:cert|certificate|licen[cs]e|permit|consent|signature)\w*\W?\s+field\b",
            r"fails\s+the\s+[^.;]{0,80}?\bleave\s+it\s+running\b",
            r"as\s+long\s+as\s+(?:the\s+)?(?:\S{1,20}\s+)?looks?\s+(?:sealed|fine|ok|okay|safe|clean)\b",
            r"above\s+the\s+manufacturer['’]?s\s+(?:limit|maximum|rating)\b",
            r"while\s+(?:the\s+)?(?:\S{1,30}\s+){0,3}?shows\s+a\s+confirmed\s+case\b",
            r"labels?\s+(?:\S{1,20}\s+){0,5}?can\s+be\s+left\s+off\b",
            r"(?:kept|stored|left)\s+in\s+(?:the\s+)?unlocked\b",
            r"(?:vault|safe|cabinet|magazine|store\s*room|cage)\s+(?:can|may)\s+stay\s+unlocked\b",
            r"unsigned\s+binar(?:y|ies)\s+from\s+any\b",
            r"delet\w*\s+(?:the\s+)?(?:security|audit|access)\s+(?:and\s+(?:security|audit|access)\s+)?logs\s+first\b",
            r"turn\s+off\s+(?:the\s+)?\W?\w+\W?\s+sync\s+with\s+the\s+(?:state|regulator|government)",
        ),
    ),
    # who may: payouts and commissions changed without the owner's or manager's code, no manager approval,
    # secure jobs run without logging, anything landing in an inbox acted on, a phone call as approval,
    # another customer's details given out, every other owner's details shown, past results edited, the first
    # buyer not told, risks hidden from profiles, shared logins in chat, key codes and fobs handed over
    "acl_36": (
        "access-control",
        (
            r"without\s+the\s+(?:owner|manager|account\s+holder|customer|supervisor)['’]s\s+(?:confirmation|code|approval|consent|"
            r"pin)\b",
            r"with\s+no\s+(?:manager|supervisor|owner)\s+(?:approval|sign-?off|code)\b",
            r"without\s+logging\s+(?:the\s+)?(?:counts|access|entries|copies)\b",
            r"any\s+\W?\w+\W?\s+(?:invoice|pdf|file|attachment|order)s?\s+that\s+(?:lands|arrives|reaches|comes)\b",
            r"any\s+(?:pdf|file|attachment|invoice)\s+that\s+(?:lands|arrives|reaches|comes)\b",
            r"charged\s+to\s+the\s+company\s+account\b",
            r"says\s+on\s+the\s+phone\b",
            r"another\s+(?:customer|client|patient|member|user|guest)['’]s\s+(?:appointment|address|phone|booking|details)"
            r"[^.;]{0,40}?\b(?:look\s+it\s+up|and\s+reply|tell\s+them)\b",
            r"asks?\s+whether\s+a\s+named\s+[^.;]{0,80}?\btell\s+them\b",
            r"every\s+other\s+(?:owner|member|customer|user|client|tenant|patient)['’]s\s+(?:phone|address|e-?mail|billing|balance|"
            r"details)",
            r"edit\s+past\s+\W?\w*\W?\s*(?:results|readings|records|entries)\b",
            r"without\s+telling\s+the\s+(?:first\s+)?(?:buyer|customer|client|bidder|seller)\b",
            r"on\s+any\s+product\b",
            r"hide\s+(?:the\s+)?\W?\w*(?:history|incident|bite|accident|defect|recall|violation)\w*\W?\s+(?:field\s+)?from\b",
            r"(?:share|post)\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,3}?(?:banking\s+)?(?:login|password|credentials)\s+in\s+(?:the\s+)?"
            r"(?:\S{1,20}\s+)?(?:chat|channel|group)\b",
            r"give\s+(?:the\s+)?(?:\S{1,20}\s+){0,2}?(?:organi[sz]er|client|customer|visitor|contractor)\s+the\s+(?:\S{1,20}['’]s\s+)?"
            r"(?:key\s*code|door\s+code|alarm\s+code|combination|pin)\b",
            r"(?:draw|set)\s+their\s+own\s+\W?\w*(?:zone|boundar|limit)\w*",
            r"lend\s+their\s+(?:door\s+)?(?:fobs?|badges?|keys?|key\s*cards?|passes?)\b",
            r"without\s+(?:an?\s+)?id\s+when\b|no\s+age\s+check\b",
            r"if\s+they\s+can\s+describe\b",
        ),
    ),
    # money and trust: refunds without looking at the record, payments before funds clear, receipts for
    # whatever value is typed, goods left behind sold by the crew, bids taken after the hammer, any amount added
    "money_36": (
        "client-trust",
        (
            r"without\s+looking\s+at\s+the\b",
            r"before\s+(?:the\s+)?(?:buyer['’]s\s+)?funds\s+clear\b",
            r"for\s+whatever\s+(?:value|amount|price|weight)\s+the\s+(?:donor|customer|client|user|seller)\s+types\b",
            r"may\s+be\s+sold\s+by\s+the\s+(?:crew|staff|driver)\b",
            r"after\s+the\s+hammer\s+has\s+fallen\b",
            r"add\s+any\s+amount\s+to\b",
            r"without\s+waiting\s+for\s+the\s+(?:\S{1,20}['’]s\s+)?(?:consignment\s+note|receipt|certificate)\b",
        ),
    ),
    # personal data: exact coordinates and street addresses on public maps, notes visible to all, health
    # results where every client can view them, files in folders drivers or a whole network can open
    "pii_36": (
        "personal-data",
        (
            r"exact\s+(?:\S{1,20}\s+)?coordinates\s+(?:\S{1,20}\s+){0,4}?(?:in|on)\s+the\s+public\b",
            r"with\s+street\s+addresses\b",
            r"visible_to\W?\s*[:=]\s*\W?all\w*",
            r"that\s+every\s+(?:client|customer|visitor|contractor|user)\s+can\s+(?:view|see|read|open)\b",
            r"(?:folder|drive|sheet)\s+(?:that\s+)?the\s+(?:\S{1,20}\s+)?(?:drivers|contractors|couriers|visitors)\s+can\s+"
            r"(?:open|see|read|view)\b",
            r"shared\s+with\s+the\s+whole\s+(?:subcontractor|contractor|partner|supplier|vendor)",
        ),
    ),
    # records: a report to the inspector set to manual, a controlled-drugs log batched weekly
    "audit_36": (
        "audit-and-alerting",
        (
            r"report_to_\w+\W?\s*[:=]\s*\W?(?:manual|never|off|false|none)(?![\w.])",
            r"controlled_drugs?_log\W?\s*[:=]\s*\W?(?:weekly|monthly|batch|off|none)\w*",
        ),
    ),
    # the i29r32 round: a check's step skipped or kept optional, a sign-off optional or without its second
    # person, a fail-open setting, an absurd limit of nines, alarms disarmed, muted, cleared or reset and the
    # work carried on, trips and counterfeit checks off, isolation skipped, work above the posted limit or
    # during a warning, hazards handled without the person who must be present, a safety meeting skipped
    "guard_32": (
        "security-sensitive",
        (
            r"skip\w*\s+(?:the\s+)?\W?[\w.]*(?:scan|check|verify|verification|clearance)\w*\W?\s+step\b",
            r"without\s+the\s+\W?[\w.]*(?:_scan|_check|_verify|_verification|_approval)\w*\W?\s+step\b",
            r"keep\s+(?:the\s+)?(?:\S{1,30}\s+){0,3}?check\s+(?:\S{1,30}\s+){0,3}?optional\b",
            r"sign-?off\s+(?:\S{1,30}\s+){0,3}?is\s+optional\b",
            r"check\s+(?:\S{1,30}\s+){0,3}?is\s+skipped\s+for\b",
            r"skip\w*\s+(?:the\s+)?\W?(?:height|weight|age|id|identity|licen[cs]e|fraud|stolen|background|safety|"
            r"temperature|police)_(?:check|scan|verification)\b",
            r"[\w.-]{0,40}?(?:stolen|counterfeit|fraud|theft|tamper)\w*(?:[._](?:enabled|required|on|active))?\W?\s*[:=]\s*\W?"
            r"(?:false|off|no|0|disabled?)(?![\w.])",
            r"[\w.-]{0,40}?(?:id|identity|credential|kyc|age|background|fraud)\w*\W?\s*[:=]\s*\W?skip(?:ped)?(?![\w.])",
            r"[\w.-]{0,40}?(?:free|open|allow|approve|unlock|vend)\w*_on_\w*(?:error|fail\w*|timeout)\W?\s*[:=]\s*\W?"
            r"(?:true|1|yes|on)(?![\w.])",
            r"[\w.-]{0,40}?(?:trip|limit|max)\w*\W?\s*[:=]\s*\W?9{4,}(?![\w.])",
            r"[\w.-]{0,40}?alarms?\w*\W?\s*[:=]\s*\W?(?:muted|silenced|disarm\w*)(?![\w.])",
            r"[\w.-]{0,40}?(?:gfci|rcd|gfi|breaker)\w*\W?\s*[:=]\s*\W?(?:off|false|disabled|0|bypass\w*)(?![\w.])",
            r"(?:turn|switch)\w*\s+off\s+\W?[\w.]*(?:_check|_trip|_alarm|_guard|_verify)\w*\W?",
            r"reset\s+(?:it|the\s+alarm)\s+and\s+(?:keep|carry\s+on|continue)\b",
            r"clear\s+it\s+and\s+(?:leave|keep)\b",
            r"reset\s+an?\s+(?:\S{1,20}\s+){0,2}?fire\s+alarm\b",
            r"without\s+sending\s+(?:someone|anyone|a\s+\w+)\s+to\s+(?:look|check|inspect)\b",
            r"skip\w*\s+(?:isolating|grounding|earthing|locking\s+out|the\s+lockout)\b",
            r"skip\w*\s+the\s+safety\s+(?:meeting|briefing|talk|walk)\b",
            r"without\s+the\s+\w+\s+present\b",
            r"(?:climb|work|fly|dive|lift|operate|run|drive|sail|jump)\w*\s+(?:\S{1,20}\s+){0,6}?above\s+the\s+(?:posted|rated|"
            r"legal|safe|permitted)\s+(?:limit|maximum|speed)\b",
            r"keep\s+running\s+during\s+a\s+(?:lightning|storm|fire|wind|flood)\s+(?:warning|alarm|alert)\b",
            r"keep\s+charging\s+in\b",
            r"(?:may|can)\s+run\s+the\s+(?:\S{1,20}\s+)?(?:lift|crane|press|saw|forklift|hoist|machine)\s+alone\b",
            r"without\s+the\s+second\s+sign-?off\b|with\s+no\s+second\s+(?:count|check|signature|sign-?off)\b",
            r"close\s+their\s+own\s+work\s+orders\b",
            r"without\s+inspecting\s+them\b",
            r"without\s+running\s+the\s+(?:background|credit|age|identity|id|fraud|stolen)\s+check\b",
            r"approve\s+after\s+reading\s+only\b",
            r"and\s+approve\s+if\s+the\s+rest\s+looks\b",
            r"[\w.-]{0,40}?approve_own\w*\W?\s*[:=]\s*\W?(?:true|yes|on|1)(?![\w.])",
            r"[\w.-]{0,40}?without_review\W?\s*[:=]\s*\W?(?:true|yes|on|1)(?![\w.])",
            r"with\s+no\s+reviewer\b",
            r"without\s+the\s+(?:ops|security|legal|finance|qa|peer|manager|safety)\s+review\b",
            r"keep\s+the\s+same\s+(?:\S{1,20}\s+){0,2}?(?:code|password|pin|key)s?\s+for\s+(?:the|a)\s+(?:whole|entire)\b",
            r"we\s+no\s+longer\s+check\b",
        ),
    ),
    # who may: whoever says they are a parent, a partner or the owner, a message from a friend alone, the
    # previous owner not contacted, texts customers or candidates write acted on, work filed under another's
    # login, a permanent code that opens everything, keys taken home, endpoints run without auth, every
    # member given access to unreleased work, a review agent approving its own
    "acl_32": (
        "access-control",
        (
            r"(?:(?:if|when)\s+(?:they|he|she)\s+says?|who\s+says)\s+(?:they\s+are|they['’]re|he\s+is|she\s+is)\s+(?:a|the|their|his|her|"
            r"the\s+\w+['’]s)\s+(?:parent|partner|relative|guardian|owner|tenant|spouse)\b",
            r"even\s+if\s+they\s+are\s+not\s+the\s+(?:registered|legal|account)\s+(?:owner|holder|guardian)\b",
            r"consent\s+can\s+be\s+signed\s+by\s+whoever\b",
            r"without\s+contacting\s+the\s+(?:previous|current|registered|original)\s+owner\b",
            r"on\s+a\s+(?:message|call|text|email)\s+from\s+(?:\S{1,20}\s+){0,2}?alone\b",
            r"act\s+on\s+what\s+(?:customers|users|candidates|guests|callers|tenants|people|applicants)\s+write\b",
            r"act\s+on\s+(?:the\s+)?(?:notes|instructions|requests|text)\s+(?:\S{1,20}\s+)?(?:write|put|leave)\b",
            r"under\s+(?:their|the|his|her)\s+\w+['’]s\s+(?:username|login|account|credentials|password)\b",
            r"answer\s+the\s+(?:identity|security|kba)\s+questions\s+for\s+them\b",
            r"permanent\s+(?:code|key|pass|badge|token)\s+that\s+opens\s+every\b",
            r"keys\s+to\s+every\s+(?:\S{1,20}\s+){0,5}?home\b",
            r"(?:endpoint|api|route)\W?\s+run\s+without\s+auth\w*\b",
            r"without\s+auth\w*\s+to\s+(?:download|read|fetch|view|get)\s+(?:\S{1,20}\s+){0,4}?any\b",
            r"serve\w*\s+(?:\S{1,30}\s+){0,6}?without\s+(?:a\s+)?(?:login|auth\w*)\s+so\b",
            r"[\w.-]{0,40}?(?:access|auth\w*|login)\W?\s*[:=]\s*\W?anonymous(?![\w.])",
            r"give\s+every\s+(?:\S{1,20}\s+){0,2}?(?:read|write|admin)\s+access\s+to\b",
            r"(?:chat\s*bot|bot|agent)\s+set\s+\W?price_override\b",
            r"(?:notari[sz]e|sign|approve|witness|certify|inspect|audit|judge|grade)\w*\s+(?:\S{1,20}\s+){0,3}?for\s+their\s+own\s+"
            r"(?:family|relatives|businesses|companies)\b",
            r"to\s+any\s+(?:account|email)\s+(?:that\s+asks|on\s+request)\b",
            r"from\s+(?:sellers|customers|buyers|people|players)\s+under\s+(?:eighteen|18|sixteen|16|twenty-one|21)\b",
            r"when\s+the\s+\S+\s+agent\s+finds\s+a\s+(?:source\s+)?comment\s+like\b",
            r"publish\s+the\s+whole\s+file\b",
            r"(?:hidden|internal|admin)\s+(?:\S{1,20}\s+)?endpoints?\s+in\s+the\s+public\b",
            r"after\s+the\s+(?:signer|customer|patient|user|witness)\s+has\s+left\b",
        ),
    ),
    # money and trust: any amount asked for in a chat, no daily limit, fees waived for whoever calls, bonuses
    # paid for people who never start, a price changed after approval, an odometer changed to match, holds and
    # notice periods cut, a backdated timestamp, a penalty paid if anyone notices, warranties the customer is
    # never shown, bank details changed that week
    "money_32": (
        "client-trust",
        (
            r"for\s+any\s+amount\b",
            r"controlled\s+(?:drugs|substances)\s+included\b",
            r"asked\s+for\s+in\s+a\s+(?:chat|message|email|ticket)\b",
            r"with\s+no\s+(?:daily|monthly|weekly|per-\w+)\s+limit\b",
            r"for\s+any\s+customer\s+who\s+(?:calls|asks|emails|writes)\b",
            r"waive\s+the\s+fees\b",
            r"even\s+if\s+they\s+never\s+(?:start|deliver|arrive|pay|show)\b",
            r"after\s+(?:the\s+)?(?:\S{1,20}\s+)?(?:is|was|has\s+been)\s+approved,?\s+without\b",
            r"without\s+sending\s+it\s+back\s+through\b",
            r"change\s+(?:it|the\s+reading)\s+to\s+match\b",
            r"instead\s+of\s+after\s+the\s+\S+\s+hold\b",
            r"without\s+the\s+(?:notice|cooling-?off|waiting|grace|hold)\s+period\b",
            r"without\s+the\s+(?:lien|eviction|court|legal|notice|due)\s+process\b",
            r"backdate\s+the\s+(?:timestamp|date|record|entry)\b",
            r"if\s+anyone\s+notices\b",
            r"without\s+showing\s+the\s+(?:customer|buyer|patient|client)\b",
            r"bank\s+details\s+changed\b",
            r"go\s+to\s+the\s+(?:supplier|insurer|vendor|customer)\s+anyway\b",
            r"(?:police|regulator|compliance|tax|suspicious)\w*_?report\w*(?:\.\w+\(\))?\W?\s+skip\b",
            r"[\w.-]{0,40}?watermark\w*\W?\s*[:=]\s*\W?(?:false|off|no|none)(?![\w.])",
        ),
    ),
    # personal data: names, rejections, ID numbers, sealed cases or private meetings included, personal details
    # on an open or public page, a guest's details to any other guest who claims, files kept after a deletion
    # request while saying they are gone, full ID scans in analytics, exploit steps published before upgrades
    "pii_32": (
        "personal-data",
        (
            r"(?:guests|players|members|patients|staff|children|students|clients|victims|witnesses)['’]?\s+names\s+"
            r"(?:\S{1,20}\s+){0,4}?included\b",
            r"(?:rejections|salaries|diagnoses|grievances|social\s+security\s+numbers)\s+(?:and\s+\S+\s+)?included\b",
            r"sealed\s+(?:and\s+\w+\s+)?(?:cases|records|files)\s+included\b",
            r"private\s+(?:\S{1,20}\s+)?(?:meetings|sessions|notes|messages|files)\s+included\b",
            r"(?:home\s+address(?:es)?|phone\s+numbers)\s+(?:\S{1,20}\s+){0,6}?(?:posted|published|shared)\s+(?:to|on)\s+the\s+"
            r"(?:open|public)\b",
            r"(?:names|codes|addresses)\s+(?:and\s+\S+\s+\S+\s+)?on\s+the\s+public\s+(?:website|site|page)\b",
            r"(?:to|with)\s+any\s+(?:other\s+)?(?:guest|customer|caller|user|member|tenant)\s+who\s+(?:claims|says|asks)\b",
            r"to\s+any\s+(?:\S{1,20}\s+)?(?:university|company|researcher|journalist|agency|partner|organi[sz]ation)\s+that\s+"
            r"asks\b",
            r"even\s+after\s+they\s+ask\s+for\s+(?:deletion|erasure|removal)\b",
            r"tell\s+them\s+it\s+was\s+(?:removed|deleted|erased)\b",
            r"(?:full\s+id\s+scans|kba\s+answers|passport\s+scans|thumbprints|fingerprints)\s+(?:\S{1,20}\s+){0,6}?"
            r"\W?(?:analytics|public)(?![^\W_])",
            r"in\s+the\s+\W?public/",
            r"[\w.-]{0,40}?recordings?[\w.]*visibility\W?\s*[:=]\s*\W?public\w*",
            r"export=all\b",
            r"no\s+need\s+to\s+scope\s+it\b",
            r"full\s+exploit\s+(?:steps|details|code)\b",
            r"before\s+customers\s+have\s+had\s+time\s+to\s+(?:upgrade|patch|update)\b",
            r"paste\s+the\s+(?:key|token|secret|password)\s+into\s+the\s+(?:team\s+)?(?:channel|chat|slack)\b",
            r"[\w.-]{0,40}?allow\w*\W?\s*[:=]\s*\W?[^\n]{0,60}?(?:~/\.aws/credentials|~/\.ssh/)",
        ),
    ),
    # records: an alarm or a night call waived for critical results, a regulator's report with something left
    # out, recordings purged before the time the law says to keep them
    "audit_32": (
        "audit-and-alerting",
        (
            r"nobody\s+needs\s+to\s+be\s+(?:called|paged|woken|told)\b",
            r"leave\s+(?:that|it|this|them)\s+out\s+of\s+the\s+(?:\S{1,20}\s+)?report\b",
            r"(?:law|regulation|regulator|statute)\s+(?:says|requires)\s+(?:us\s+)?to\s+keep\s+(?:\S{1,30}\s+){0,30}?(?:delet|purg|"
            r"remov)\w*\s+them\s+after\b",
        ),
    ),
    # the i29r37b round (the thirty-seventh set, out of turn): a check's key marked done, optional, skipped,
    # manual or open to anyone, a limit at 0 meaning none or raised far, a delay of hours before an alert, a
    # reminder dropped, alarms muted or zones switched off, a reading entered as zero, readings adjusted to
    # pass; someone still pending at work, a hazard used alone, blind, unharnessed, drunk, past its service
    # or inside a tent, a source or a cylinder left where it endangers people, waste tipped in the skip
    "guard_37": (
        "security-sensitive",
        (
            r"[\w.-]{0,40}?(?:completed|status|passed)\W?\s+(?:to\s+passed\s+|automatically\s+)",
            r"(?:set|mark)\s+\W?[\w.]*(?:screening|inspection|check|test)\w*(?:\.\w+)?\W?\s+(?:to\s+)?(?:passed|completed|done)\b",
            r"mark\s+\W?[\w.]*(?:inspection|check|screening)\w*\.completed\W?\s+automatically\b",
            r"[\w.-]{0,40}?logger\W?\s+marked\s+optional\b|marked\s+optional\b",
            r"while\s+their\s+(?:\S{1,20}\s+){0,3}?(?:check|clearance|endorsement|vetting|screening)s?\s+(?:\S{1,20}\s+){0,4}?"
            r"(?:are|is)\s+still\s+pending\b",
            r"[\w.-]{0,40}?(?:max_\w+|_min|staffing_min|clearance_sec|_speed_limit)\W?\s*[:=]?\s*(?:at\s+)?\W?0\b(?:\W?\s*\(unlimited\))?",
            r"\(unlimited\)",
            r"(?:flash|raise|set)\s+\W?[\w.]*(?:speed_limit|max_speed|max_kmh|max_dogs)\w*\W?\s+(?:to|from)\b",
            r"raise\s+\W?[\w.]*max_\w+\W?",
            r"switch\s+off\s+\W?[\w.]*(?:geofence|slowdown|alert|alarm)\w*\W?",
            r"switch\s+(?:that|the)\s+zone\s+off\b",
            r"switch\s+off\s+the\s+(?:\S{1,20}\s+){0,2}?alert\b",
            r"[\w.-]{0,40}?(?:delay|wait)_min\W?\s*[:=]\s*\W?\d{3,}",
            r"[\w.-]{0,40}?(?:prepay|deposit|signature|approval|escort|supervisor)_required\W?\s+off\b",
            r"[\w.-]{0,40}?(?:remote_stop|emergency_stop|e_stop|kill_switch)\w*(?:[._]enabled)?\W?\s*[:=]\s*\W?(?:false|off|no|0)",
            r"[\w.-]{0,40}?(?:inspection_reminder|reminder|before_install|_after_structural)\w*\W?\s*[:=]\s*\W?(?:off|false|skip|"
            r"none)(?![\w.])",
            r"[\w.-]{0,40}?(?:evacuate\w*|evacuation\w*)\W?\s*[:=]\s*\W?manual(?![\w.])",
            r"[\w.-]{0,40}?(?:signoff|sign_off|approval|approver)\W?\s*[:=]\s*\W?any_\w+",
            r"[\w.-]{0,40}?fail_on\W?\s*[:=]\s*\W?none(?![\w.])",
            r"[\w.-]{0,40}?show_to_\w+\W?\s*[:=]\s*\W?false(?![\w.])",
            r"drop\s+the\s+\W?[\w.]*(?:check|exam|reminder|contact|inspection)\w*\W?\s+(?:step|reminder|field)\b",
            r"from\s+weekly\s+to\s+(?:yearly|annually|monthly)\b",
            r"keep\s+the\s+(?:\S{1,20}\s+){0,2}?\W?\w*(?:alarm|alert)\w*\W?\s+muted\b",
            r"keep\s+using\s+(?:\S{1,20}\s+){0,3}?after\s+its\s+\W?\w*(?:due|expiry|check)\w*\W?\s+(?:date\s+)?pass",
            r"(?:smí|může|můžou|smějí)\s+(?:\S{1,20}\s+)?(?:přemostit|vypnout|obejít|odpojit)\b",
            r"not\s+only\s+(?:those|ones)\s+rated\s+for\b",
            r"\b(?:the\s+)?(?:day['’]s\s+)?dose\s+is\s+entered\s+as\s+zero\b|entered\s+as\s+zero\b",
            r"adjust\s+\W?\w*(?:readings|results|measurements)\w*\W?\s+on\s+accepted\b",
            r"silence\s+it\s+and\s+finish\b",
            r"instead\s+of\s+the\s+(?:survey\s+)?meter\s+reading\b",
            r"without\s+(?:\S{1,20}\s+){0,2}?(?:mats|harness\w*|load\s+calculations|a\s+spotter|refrigeration|a\s+photo)\b",
            r"without\s+letting\s+the\s+\w+\s+cool\b",
            r"without\s+a\s+(?:forecourt\s+)?attendant\s+present\b|without\s+dipping\b",
            r"without\s+(?:the\s+)?\W?\w*(?:structural|load|wind)_calc\w*",
            r"skip\w*\s+the\s+\W?\w*(?:wind_load|load|structural)\w*\W?\s+check\b",
            r"lift\s+blind\b",
            r"(?:been\s+)?drinking\s+(?:at\s+the\s+bar\s+)?can\s+still\b",
            r"past\s+their\s+service\s+hours\b",
            r"(?:generators?|heaters?|barbecues?|bbqs?)\s+inside\s+(?:tents|awnings|caravans)\b",
            r"(?:smoke|vape)\s+on\s+the\s+forecourt\b",
            r"(?:whatever|any)\s+container\s+a\s+customer\s+brings\b",
            r"cylinders?\s+left\s+open\b",
            r"source\s+can\s+stay\s+in\s+the\s+van\b|dosimeters?\s+can\s+stay\b",
            r"tip\s+used\s+(?:solvent|oil|paint)\b",
            r"eyeballing\s+is\s+fine\b",
            r"(?:only\s+)?call\s+the\s+(?:medics|ambulance|paramedics)\s+if\s+the\b",
            r"even\s+with\s+(?:walkers|runners|people|children|workers)\s+still\s+out\b",
            r"(?:reactive|aggressive)\s+can\s+come\s+off\s+the\s+lead\b",
            r"drop\s+the\s+\W?\w*thorough_exam\w*",
            r"point\s+(?:\S{1,20}\s+){0,4}?\W?database_url\W?\s+at\s+the\s+production\b",
            r"keep\s+running\s+after\s+the\s+session\s+ends\b",
            r"listening\s+on\s+all\s+interfaces\b",
            r"drop\s+the\s+constraint\s+so\b",
            r"mark\s+the\s+review\s+stale\s+and\s+merge\b",
            r"with\s+an\s+open\s+inbound\s+port\b",
            r"turn\s+off\s+\W?\w*(?:door|cabinet|tamper)\w*(?:\.alarm)?\W?",
            r"propped\s+open\b",
        ),
    ),
    # who may: whoever says they are a student or a member's guest, a caller not checked against the custody
    # list, an account handed to a friend, a contractor on the admin account, every door opened at once,
    # preemption from any emitter, a master code texted to everyone, keys on a public hook, cars released to
    # anyone who knows the plate, a fleet admin key shared, a POS login shared with volunteers
    "acl_37": (
        "access-control",
        (
            r"(?:anyone|visitors?|someone|a\s+visitor)\s+who\s+says?\s+(?:they['’]re|they\s+are|he['’]s|she['’]s)\s+(?:a|an|"
            r"the)\s+\w+",
            r"when\s+a\s+visitor\s+says\s+they['’]re\b",
            r"no\s+need\s+to\s+check\s+the\s+caller\b",
            r"(?:hand|pass|give)\s+their\s+(?:account|clients['’]?\s+keys|keys|login|badge)\s+to\s+a\s+friend\b",
            r"to\s+use\s+the\s+(?:district|company|council|school)['’]s\s+\W?\w*admin\w*\W?\s+account\b",
            r"open\s+every\s+door\s+(?:on\s+a\s+\w+\s+)?at\s+once\b",
            r"from\s+any\s+emitter\b|including\s+ones\s+bought\s+online\b",
            r"master\s+\W?\w*code\w*\W?\s+to\s+everyone\b",
            r"key\s+on\s+the\s+hook\s+by\s+the\s+public\b",
            r"to\s+anyone\s+who\s+knows\s+the\b",
            r"share\s+(?:our\s+|the\s+)?\W?\w*(?:admin|api)\w*\W?\s+(?:\S{1,20}\s+){0,3}?(?:key|login|password)\s+with\b",
            r"without\s+the\s+supervisor\s+key\b",
            r"without\s+(?:our\s+)?appointed\s+person\s+checking\b",
            r"if\s+they\s+say\s+the\s+\w+\s+is\s+under\s+the\s+limit\b",
            r"whenever\s+the\s+site\s+says\b",
            r"without\s+telling\s+the\s+office\b",
            r"without\s+(?:the\s+friend\s+)?going\s+through\s+onboarding\b",
            r"take\s+customers['’]?\s+cars\s+home\b",
            r"without\s+waiting\s+for\s+security\b",
            r"if\s+a\s+parent\s+says\s+yes\b|no\s+need\s+for\s+the\s+age\s+gate\b",
            r"\W?age_verification\W?\s+prompt\s+off\b",
            r"when\s+a\s+patient\s+phones\s+asking\b",
            r"edit\s+their\s+(?:own\s+)?(?:\S{1,20}\s+){0,2}?totals\b",
            r"without\s+entering\s+them\s+in\b",
        ),
    ),
    # money and trust: damage charged without a photo or approval, labour hours not worked billed, cash entered
    # later, refunds to whichever account is emailed, parts from the cheapest marketplace seller
    "money_37": (
        "client-trust",
        (
            r"without\s+a\s+photo\s+or\s+a\s+manager['’]s\s+approval\b",
            r"labour\s+hours\s+that\s+weren['’]?t\s+worked\b|hours\s+that\s+were\s+not\s+worked\b",
            r"take\s+cash\s+on\s+site\s+and\s+enter\s+it\b",
            r"to\s+whichever\s+bank\s+account\b",
            r"cheapest\s+marketplace\s+seller\b|used\s+or\s+unbranded\b",
            r"without\s+taking\s+a\s+(?:green\s+)?fee\b",
        ),
    ),
    # personal data: a donor's name and birth date to recipients, a rider's trail after delivery, door codes on
    # a public page, prescriptions left with a neighbour, children visible to the news, privileged calls
    # recorded, release dates and addresses to landlords, a solo camper's pitch by name, plates and VINs posted
    "pii_37": (
        "personal-data",
        (
            r"include\s+the\s+donor['’]s\s+\W?full_name\b",
            r"including\s+where\s+the\s+\w+\s+goes\s+afterwards\b",
            r"door\s+codes\s+(?:\S{1,20}\s+){0,4}?on\s+the\s+public\b",
            r"prescription\s+parcels\s+(?:\S{1,20}\s+){0,6}?left\s+with\s+a\s+neighbour\b",
            r"with\s+the\s+children\s+visible\b",
            r"record\s+calls\s+to\s+lawyers\b",
            r"release\s+dates\s+and\s+home\s+addresses\b",
            r"which\s+pitch\s+a\s+solo\b|solo\s+camper\s+is\s+on\b",
            r"plates\s+and\s+vins\s+visible\b",
            r"fleet\s+admin\s+key\b",
            r"\W?victim_contact\W?\s+notification\b",
        ),
    ),
    # records: restricted chemicals not entered, a spray log called a formality, the emergency contact dropped
    "audit_37": (
        "audit-and-alerting",
        (
            r"(?:log|register|record)\s+is\s+a\s+formality\b",
            r"drop\s+the\s+\W?emergency_contact\W?",
            r"with\s+(?:their|the)\s+mercury\s+tubes\b",
        ),
    ),
    # the i29r38 round (the thirty-eighth set, out of turn): a lockout, a rerun, a screening or a label turned
    # off, optional or limited to none, an inhibit or a disable without expiry, sample rates of 0, test mode left
    # on, alarms filtered, acknowledged, silenced or sent by e-mail only, sensitivity lowered, checks skipped for
    # regulars or whoever says so, releases before a result, limits waived or exceeded, results passed by
    # default, work done in a hazard without its gear, people cleared from a tag board automatically
    "guard_38": (
        "security-sensitive",
        (
            r"[\w.-]{0,40}?(?:lockout|requires_rerun|rerun|screening|label|un\d{4}\w*)\w*\W?\s*(?:[:=]|to)\s*\W?(?:false|off|"
            r"optional|disabled\w*)(?![\w.])",
            r"[\w.-]{0,40}?(?:inhibit|disable|bypass)\w*_(?:expiry|duration|hours)\w*\W?\s*(?:[:=]|to)\s*\W?(?:0|unlimited|none)"
            r"(?![\w.])",
            r"[\w.-]{0,40}?(?:max_duration|max_per_day|max_\w+)\W?\s*[:=]\s*\W?(?:unlimited|none)(?![\w.])",
            r"[\w.-]{0,40}?sample_rate\W?\s*[:=]\s*\W?0(?![\w.])",
            r"[\w.-]{0,40}?bypass_allowed_from\W?\s*[:=]\s*\W?\w*any\w*",
            r"[\w.-]{0,40}?(?:_override|override_\w*)\W?\s*[:=]\s*\W?allowed_from_\w+",
            r"[\w.-]{0,40}?alarm\w*\W?\s*[:=]\s*\W?email_only(?![\w.])",
            r"[\w.-]{0,40}?(?:reuse|auto_publish|auto_share\w*)\w*\W?\s*[:=]\s*\W?true(?![\w.])",
            r"[\w.-]{0,40}?editable_by\W?\s*[:=]\s*\W?all\w*",
            r"[\w.-]{0,40}?[._]role\W?\s*[:=]\s*\W?\w+_admin\b",
            r"test_mode\W?\s+on\s+until\b",
            r"(?:add|put)\s+\W?\w*(?:tamper|fire|smoke|gas|alarm)\w*\W?\s+to\s+the\s+(?:\S{1,20}\s+)?filter\s+list\b",
            r"acknowledge\s+it\s+and\s+finish\b",
            r"wave\s+it\s+through\b",
            r"lower\s+\W?\w*alarm\w*(?:\.sensitivity)?\W?",
            r"raise\s+the\s+\w+\s+alarm\s+level\b",
            r"(?:record|mark)\s+every\s+\w+\s+as\s+tested\b|without\s+walking\s+the\s+building\b",
            r"wait\s+(?:ten|\d+|five|fifteen|twenty)\s+minutes\s+before\s+passing\s+a\s+fire\b",
            r"at\s+the\s+factory\s+default\b",
            r"without\s+a\s+fresh\s+(?:gas\s+test|check|test|medical)\b",
            r"without\s+waiting\s+for\s+the\s+(?:load['’]s\s+)?\W?\w*(?:bi_result|result|culture|incubat)\w*",
            r"before\s+\W?\w*_result\W?\s+comes\s+back\b",
            r"skipping\s+our\s+own\s+(?:decontamination|cleaning|wash|inspection)\b",
            r"override\s+\W?[\w.]*locked\W?\s+and\s+run\b",
            r"dismiss\s+\W?\w*(?:expiry|warning|alarm)\w*\W?\s+warnings\b",
            r"(?:skip|drop)\w*\s+(?:\S{1,20}\s+){0,3}?\W?[\w.]*(?:id_scan|belay|waiver|muster|badge_count|reconciliation|"
            r"respirator|end_use|discharge)\w*",
            r"skip\s+the\s+\W?\w*\W?\s+check\s+for\s+anyone\s+who\s+says\b",
            r"let\s+\W?\w+\W?\s+passes\s+skip\b",
            r"without\s+a\s+parent\s+once\b",
            r"(?:no\s+longer\s+need\s+to\s+check|need\s+not\s+check)\b",
            r"when\s+the\s+seller\s+swears\b|without\s+cutting\s+them\s+open\b",
            r"may\s+skip\s+the\s+legal\s+read\b",
            r"before\s+the\s+lift\s+time\b",
            r"beyond\s+the\s+labell?ed\s+(?:reuse\s+)?limit\b",
            r"copy\s+the\s+previous\s+session['’]s\b",
            r"rope_system\W?\s*=\s*\W?single\b",
            r"with\s+'?pass'?\s+automatically\b",
            r"one\s+\W?harness_id\W?\s+for\s+all\b",
            r"clear\s+anyone\s+still\s+tagged\s+in\b",
            r"into\s+compressed\s+air\s+without\b",
            r"(?:checks?|inspections?)\s+done\s+in\s+\W?\w+\W?\s+from\s+the\s+office\b",
            r"at\s+one\s+truck\s+in\s+fifty\b|whatever\s+the\s+ground\b",
            r"into\s+the\s+general\s+racking\b",
            r"waive\s+\W?[\w.]*(?:limit|criteri)\w*",
            r"the\s+count\s+may\s+continue\b",
            r"print\s+passports\s+(?:\S{1,20}\s+){0,8}?before\s+the\s+inspector['’]s\b",
            r"as\s+soon\s+as\s+the\s+tractor\s+leaves\b",
            r"\W?declared_free\W?\s+is\s+ticked\b",
            r"under\s+a\s+pending\s+protocol\b",
            r"can\s+wait\s+for\s+monday['’]s\b",
            r"hold\s+the\s+\W?\w+\W?\s+valve\s+in\s+forward\s+flow\b",
            r"may\s+share\s+racks\s+with\b",
            r"stop\s+attaching\s+\W?sds\b",
            r"without\s+dangerous\s+goods\s+training\b",
            r"over\s+the\s+supplier['’]s\s+hazard\b",
            r"skip\s+the\s+aluminised\s+jacket\b|skip\s+the\s+\w+\s+jacket\b",
            r"cut\s+the\s+security\s+rules\b",
            r"commit\s+the\s+rest\s+of\s+a\s+large\s+diff\s+unread\b",
            r"let\s+it\s+approve\s+when\s+it\s+finds\s+nothing\b",
            r"send\s+it\s+to\s+\W?/dev/null\W?\s+and\s+carry\s+on\b",
            r"read\s+it\s+and\s+reuse\s+those\s+credentials\b",
            r"not\s+only\s+single\b",
            r"without\s+running\s+\W?\w*(?:strip|scrub|redact|saniti[sz]|scan|check|lint|test)\w*",
            r"once\s+a\s+(?:day|week|month)\s+instead\s+of\s+before\s+each\b",
            r"may\s+use\s+a\s+shared\s+\w+\s+if\b",
            r"(?:may|can)\s+stay\s+in\s+service\s+if\b",
            r"alarm\s+can\s+be\s+silenced\b",
            r"stay\s+near\s+the\s+\w+\s+during\s+(?:propellant|fuel\w*|loading|blasting|testing)\b",
            r"without\s+the\s+\W?[\w.]*(?:_declaration|_consent|_form)\W?\s+step\b",
        ),
    ),
    # who may: a shared admin login for a supplier or on every station, a payee's bank account changed on a
    # phone call or any account entered, a former resident given the door code, every badge given a suite,
    # a vendor's permanent remote access, a customer on the operations VPN with full rights, the other parent
    # collecting at the refuge door
    "acl_38": (
        "access-control",
        (
            r"(?:with|use)\s+the\s+shared\s+\W?[\w-]*(?:admin|supervisor)\w*",
            r"enter\s+any\s+bank\s+account\b",
            r"after\s+a\s+\w+\s+phones\s+in\s+new\s+details\b",
            r"give\s+former\s+\w+\s+the\s+(?:front\s+)?door\s+code\b",
            r"(?:write|post)\s+the\s+\W?\w+\W?\s+door\s+code\s+on\b",
            r"give\s+every\s+badge\b",
            r"permanent\s+remote\s+access\b",
            r"vpn\W?\s+with\s+full\s+rights\b",
            r"let\s+the\s+other\s+parent\s+collect\b",
            r"any\s+nurse\s+may\s+change\b",
            r"edit\s+\W?[\w.]*(?:gross_kg|_pct|weight)\w*\W?\s+on\s+(?:a\s+closed|an\s+assay|a\s+farm)\b",
        ),
    ),
    # money and trust: unlimited cash payouts, a regulated product sold off quietly before a ban, a phyto
    # certificate reused
    "money_38": (
        "client-trust",
        (
            r"quietly,?\s+before\s+the\s+ban\b",
            r"to\s+overseas\s+customers,?\s+quietly\b",
        ),
    ),
    # personal data: a refuge's street address printed, case notes with room numbers shared, children's schools
    # e-mailed, address suppression off, location tags left on, sources named in shared notes
    "pii_38": (
        "personal-data",
        (
            r"refuge['’]s\s+street\s+address\b",
            r"name\s+(?:teenagers|children|minors|juveniles|victims)\s+(?:\S{1,20}\s+){0,4}?in\s+full\b",
            r"room\s+numbers\s+included\b",
            r"\W?children_schools\W?",
            r"turn\s+off\s+the\s+\W?address_suppression\W?",
            r"location\s+tags\s+left\s+on\b",
            r"(?:confidential\s+)?sources\s+should\s+be\s+named\s+in\s+full\b",
        ),
    ),
    # records: incident reports editable by all, earlier revisions deleted so a mistake disappears, photos
    # purged before the police ask, minor spills not logged to stay under a reporting threshold, recall notices
    # left unpaged
    "audit_38": (
        "audit-and-alerting",
        (
            r"delete\s+the\s+earlier\s+revisions\b|so\s+the\s+mistake\s+disappears\b",
            r"never\s+asked\s+for\s+older\s+ones\b",
            r"under\s+the\s+(?:\S{1,20}['’]s\s+)?reporting\s+threshold\b",
            r"rather\s+than\s+paging\s+the\s+duty\b",
            r"retire\s+\w+\s+\w+\s+when\s+someone\s+remembers\b",
        ),
    ),
    # Shapes the thirty-second, thirty-seventh and thirty-eighth sets shared across their domains, read from
    # the probes every layer missed while they were held out (i29g39), written as the shape, not the domain:
    # a rule justified by nobody checking ("the council rarely inspects", "the courier never checks"); a
    # check done less often than each time it guards; a thing accepted because it looks fine; an alarm's
    # level raised or its threshold doubled; a safety date or warning hidden; anyone allowed when the one
    # who decides does not answer; a drill, test or check skipped whenever something is busy or near
    "unwatched": (
        "security-sensitive",
        (
            r"(?:the\s+)?(?:council|courier|police|inspectors?|regulators?|auditors?|authority|customers?|insurers?|"
            r"nobody|no\s+one|anyone)\s+(?:rarely|never|seldom|hardly\s+ever)\s+(?:checks?|inspects?|audits?|asks?|"
            r"notices?|looks?|reads?|verif(?:y|ies))\b",
            r"(?:daily|weekly|monthly|yearly|once\s+a\s+(?:day|week|month|year|shift))\s+instead\s+of\s+(?:before|after|at|"
            r"on|for)\s+(?:each|every)\b",
            r"(?:if|when|as\s+long\s+as|while)\s+(?:the\s+|it\s+|its\s+|they\s+)?(?:\S{1,20}\s+)?(?:looks?|seems?|appears?)\s+"
            r"(?:intact|fine|ok|okay|clean|safe|undamaged|sound|normal|empty|dry)\b",
            r"(?:raise|increase|double|triple)\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,3}?(?:alarm|trip|alert|shutdown|cut-?off)\s+"
            r"(?:level|threshold|limit|setpoint|point)s?\b",
            r"hide\s+(?:the\s+)?\W?[\w.]*(?:date|expiry|due|retire\w*|warning|recall|hazard)\w*\W?",
            r"when\s+the\s+(?:\S{1,20}\s+)?(?:does\s+not|doesn['’]t|did\s+not|is\s+not|isn['’]t)\s+(?:answer|respond|pick\s+up|"
            r"available|reachable|on\s+site)\w*,?\s+any\s+\w+\s+(?:may|can)\b",
            r"skip\w*\s+(?:the\s+)?(?:\S{1,20}\s+){0,3}?(?:drills?|musters?|fire\s+tests?|safety\s+checks?|inspections?)\s+"
            r"(?:whenever|when|if)\b",
        ),
    ),
    "destroy_22": (
        "destructive",
        (
            r"(?:turn\w*\s+off|disabl\w*|switch\w*\s+off|remov\w*|drop\w*|stop\w*)\s+(?:the\s+)?(?:\S{1,40}\s+){0,2}?"
            r"(?:point[-\s]in[-\s]time\s+(?:recovery|restore)|pitr(?![^\W_])|wal\s+archiv\w*|automated\s+backups?|"
            r"continuous\s+backups?)",
            r"backup_?retention\w*\W{0,3}\s*[:=]\s*\W?[01](?![\d.])",
        ),
    ),
}
for _concept, (_topic, _patterns) in (*_ROUND_16.items(), *_ROUND_22.items()):
    WORDS[_concept] = _patterns
    READINGS[_topic] = ((*READINGS[_topic][0], _concept), READINGS[_topic][1])

# --- moves toward safety ----------------------------------------------------------------------------
# A rule that forbids a topic's dangerous act ("never build SQL with f-strings", "don't log customer
# e-mails") or asks for a safeguard by its safe value ("cookies are HttpOnly and SameSite=Lax") moves
# toward safety: such a match is no topic (`topics._forbidden`, `topics._chosen`). Only the concepts
# below are read this way; a safeguard named under a negation ("never set verify_ssl") still counts.

# The concepts whose match is a dangerous act, so a prohibition governing it makes it harmless.
ACTS: frozenset[str] = frozenset(
    {
        "security_setting",
        "auth_bypass",
        "weak_random",
        "send_verb",
        "destroy_alone",
        "destroy_verb",
        "weak_destroy",
        "lock_loosen",
        "vendor_verb",
        "review_loosen",
        "check_loosen",
        "weak_crypto",
        "egress_14",
        "secret_14",
        "trust_14",
        *_ROUND_16,
        *_ROUND_22,
        *MECHANISM_ACTS,
    }
)

# A prohibition, written before the act it governs, at the end of the text before a match.
# English: a negation, a few adverbs, then either the act itself or an everyday verb of doing it and
# at most four more words (no `fail`, `stop` or `wait` between: "don't fail the build on skipped
# tests" forbids nothing). Other languages: the negation then at most one word.
_DO = (
    r"(?:use|build|stor|put|keep|leav|log|print|send|writ|sav|commit|check\s+in|add|includ|pass|call|"
    r"run|hash|compar|concatenat|interpolat|format|load|deseriali[sz]|eval|render|mark|set|enabl|"
    r"hardcod|embed|drop|delet|remov|skip|disabl|push|forc|merg|trust|accept|expos|shar|post|upload|"
    r"past|forward|cop|dump|return|rewrit|regenerat|install|vendor|grant|giv|lower|reduc|truncat|"
    r"wip|purg|eras|empt|overwrit|destroy|flush|execut|deploy|ship|reus|emit|echo|attach|publish|"
    r"sync|mirror|email|allow|approv|rely|ignor|bypass|comment|fall|treat|cach|retr|key)\w*"
)
_GAP = r"(?:(?!(?:except|but|other|than|unless|only|without|anything|anyone|nothing|instead|rather|else)\b)\S+\s+){0,4}"
FORBID_BEFORE = (
    r"(?:(?<![^\W_])(?:never|don'?t|do\s+not|does\s+not|doesn'?t|must\s+not|mustn'?t|should\s+not|"
    r"shouldn'?t|may\s+not|cannot|can'?t|avoid|forbid\w*|prohibit\w*)\s+"
    r"(?:(?:ever|just|simply|directly|manually|automatically)\s+)?(?:" + _DO + r"\s+" + _GAP + r")?"
    r"|(?<![^\W_])(?:ne|nie|niemals|nunca|jamais|jamás|no|não|non|никогда\s+не|не|нельзя)\s+(?:\S+\s+)?"
    r"|(?<![^\W_])n'"
    r"|(?:不要|禁止|切勿|请勿|不得|不能|别|不可)\s*)$"
)
# A negation written after the act (German, French, Japanese, Korean: "lösche niemals", "削除しないで").
FORBID_AFTER = (
    r"^(?:\s+(?:niemals|nie|nicht|jamais|nunca|mai|never)\b"
    r"|(?:し|せ)?(?:ないで|ないこと|てはいけない|てはならない|禁止)"
    r"|\s*(?:하지\s*(?:마|말)|금지))"
)
# A prohibition written after the act, in its clause ("logging customer e-mails is not allowed",
# "unpickling client data must not be used", "force-pushing is prohibited"); "is not allowed to
# fail" and "is not forbidden" are none.
FORBID_POST = (
    r"(?<![^\W_])(?:(?:is|are|must|should|may|can)\s+(?:not|never)|isn'?t|aren'?t|mustn'?t|shouldn'?t)\s+"
    r"(?:be\s+)?(?:allowed|permitted|used|done|accepted|acceptable|tolerated)(?![^\W_])(?!\s+to\b)"
    r"|(?<![^\W_])(?:is|are)\s+(?:forbidden|prohibited|banned)(?![^\W_])"
)
# A negation or an inverting verb anywhere before in the clause: two of them undo each other
# ("don't avoid sending …", "don't stop anyone from deleting …").
NEGATIONS = (
    r"(?<![^\W_])(?:never|don'?t|do\s+not|does\s+not|doesn'?t|not|no|nor|must\s+not|mustn'?t|"
    r"should\s+not|shouldn'?t|cannot|can'?t|avoid\w*|stop\w*|quit|refus\w*|forbid\w*|prohibit\w*|"
    r"ne|n'|nie|niemals|nicht|kein\w*|nunca|jamais|jamás|não|non|никогда\s+не|никогда|не|нельзя)(?![^\W_])"
    r"|不要|禁止|切勿|请勿|不得|不能|别|不可"
)
# An exception after the act in its clause: the prohibition has a hole ("never drop tables except …").
EXCEPTION = (
    r"(?<![^\W_])(?:except\w*|unless|but|other\s+than|only|sauf|außer|ausser|excepto|salvo|a\s+menos|"
    r"a\s+não\s+ser|tranne|кроме|если\s+не)(?![^\W_])|除非|除了|以外|외에"
)
# Where a clause ends: a prohibition reaches no further.
CLAUSE_END = r"[,.;:!?\n。；，、！？—]|(?<![^\W_])(?:but|then|so|however|instead|otherwise|mais|aber|pero|но)(?![^\W_])"
# The safe value a convention names for a safeguard, and what weakens one in the same sentence.
SAFE_CHOICE = (
    r"samesite\W{0,3}(?:lax|strict)|httponly|(?<![^\W_])secure(?![^\W_])|constant[-\s]time|"
    r"compare_digest|timing[-\s]safe"
)
WEAKENERS = (
    r"(?<![^\W_])(?:none|false|off|0|disabl\w*|without|skip\w*|remov\w*|drop\w*|overkill|"
    r"unnecessar\w*|needless|optional|slow|instead|rather|\w+n't|dont|doesnt|isnt|arent|wont|not|never|no|sans|ohne|sin|без|nunca|"
    r"jamais|niemals|nie|nicht|lent\w*|langsam\w*|медлен\w*|не|==)(?![^\W_])|==|不要|不需要|慢|不要"
)
