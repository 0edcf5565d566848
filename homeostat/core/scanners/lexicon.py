"""The concepts the risky-content families are built from, each in many languages.

A family is a combination of concepts in one sentence ("ignore" + "instructions" + "previous"), not a
sentence seen before, so a phrasing nobody wrote down is still read for what it asks. Each concept is
a list of lowercase stems: words in scripts with spaces match from a word's start (`ignor` covers
ignore, ignorez, ignoriere, ignora); words in scripts without spaces (Chinese, Japanese, Thai) match
anywhere. Texts are casefolded before they are read, so `ß` is written `ss`.

Languages: English, French, German, Spanish, Portuguese, Italian, Dutch, Polish, Czech, Swedish,
Turkish, Russian, Ukrainian, Chinese, Japanese, Korean, Vietnamese, Indonesian, Arabic, Hindi.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

# Scripts written without spaces between words: a stem there matches anywhere in the text.
_SPACELESS = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\u0e00-\u0e7f]")


def _alternation(stems: tuple[str, ...]) -> str:
    bounded = [s for s in stems if not _SPACELESS.search(s)]
    free = [s for s in stems if _SPACELESS.search(s)]
    parts = []
    if bounded:
        parts.append(r"(?<![^\W_])(?:" + "|".join(sorted(bounded, key=len, reverse=True)) + ")")
    if free:
        parts.append("(?:" + "|".join(sorted(free, key=len, reverse=True)) + ")")
    return "|".join(parts)


_HEAD = re.compile(r"[^\W_]+")
_TO_BLANK = str.maketrans(dict.fromkeys("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~‘’“”«»—–…", " "))


_SPACELESS_HEAD = re.compile(r"[^\\()\[\]?*+{}|.^$]+")


def _head(stem: str) -> str | None:
    """The literal letters every match of a stem starts with (None: not known)."""
    bare = stem.lstrip("\\.`-")
    found = _HEAD.match(bare)
    if found is None or stem[:1] in "([" or (stem.startswith("\\") and not stem.startswith("\\.")):
        return None
    head = found.group(0)
    if len(head) < len(bare) and bare[len(head)] in "?*{":
        head = head[:-1]  # `users?`: the last letter is optional
    return head or None


def _leading_group(stem: str) -> list[str] | None:
    """The alternatives of a stem's leading `(?:a|b|c)`, each followed by the rest of the stem."""
    if not stem.startswith("(?:"):
        return None
    depth, parts, last = 0, [], 3
    for i, char in enumerate(stem):
        if char == "\\":
            continue
        if i > 0 and stem[i - 1] == "\\":
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                parts.append(stem[last:i])
                rest = stem[i + 1 :]
                if rest[:1] in ("?", "*", "{"):
                    return None  # the group is optional: the stem may start with what follows it
                return [part + rest for part in parts]
        elif char == "|" and depth == 1:
            parts.append(stem[last:i])
            last = i + 1
    return None


def _stem_heads(stem: str) -> set[str] | None:
    if _SPACELESS.match(stem):
        literal = _SPACELESS_HEAD.match(stem)
        return {literal.group(0) if literal else stem[0]}
    alternatives = _leading_group(stem)
    if alternatives is not None:
        found: set[str] = set()
        for alternative in alternatives:
            more = _stem_heads(alternative)
            if more is None:
                return None
            found |= more
        return found
    head = _head(stem)
    return None if head is None else {head}


@lru_cache(maxsize=None)
def heads(name: str) -> frozenset[str] | None:
    """The literal starts of the concept's stems, for a cheap look before its regex runs (a text with no
    word starting with one has no match); None when a stem starts with something else."""
    found: set[str] = set()
    for stem in CONCEPTS[name]:
        more = _stem_heads(stem)
        if more is None:
            return None
        found |= more
    return frozenset(found)


class Words:
    """A casefolded text's words, sorted, to ask whether any starts with a concept's head (a bisect),
    and the text itself for the heads of scripts written without spaces (a substring)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.sorted = sorted(set(text.translate(_TO_BLANK).split()))

    def has_any(self, found: frozenset[str]) -> bool:
        spaced, spaceless = _split_heads(found)
        words = self.sorted
        for head in spaced:
            at = bisect_left(words, head)
            if at < len(words) and words[at].startswith(head):
                return True
        return not self.text.isascii() and any(head in self.text for head in spaceless)


@lru_cache(maxsize=None)
def _split_heads(found: frozenset[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return tuple(h for h in found if not _SPACELESS.match(h)), tuple(h for h in found if _SPACELESS.match(h))


@lru_cache(maxsize=None)
def concept(name: str) -> re.Pattern[str]:
    """The compiled concept: stems are regex fragments (`let\\s+\\w+\\s+know`)."""
    return re.compile(_alternation(CONCEPTS[name]))


CONCEPTS: dict[str, tuple[str, ...]] = {
    # --- what an injection is made of ---------------------------------------------------------
    "ignore": (
        # en fr de es pt it nl pl cs sv tr
        r"ignor", r"disregard", r"forget", r"set\s+aside", r"pay\s+no\s+attention", r"oubli", r"vergiss",
        r"vergess", r"missacht", r"olvid", r"haz\s+caso\s+omiso", r"desconsider", r"esque[cç]", r"dimentic",
        r"trascur", r"negeer", r"vergeet", r"zignoruj", r"zapomnij", r"nevšímej", r"zapomeň", r"glöm",
        r"yok\s+say", r"görmezden\s+gel", r"unut\b", r"unutun",
        # ru uk vi id ar hi
        r"игнорир", r"забудь", r"забуд", r"не\s+обращай\s+внимания", r"ігнор", r"забудьте", r"bỏ\s+qua",
        r"phớt\s+lờ", r"abaikan", r"lupakan", r"تجاهل", r"अनदेखा", r"नज़रअंदाज़", r"नजरअंदाज", r"भूल",
        # zh ja ko
        "忽略", "无视", "無視", "忽视", "忘记", "忘掉", "不要理会", "不理会", "忘れ", "무시", "잊",
    ),
    "instructions": (
        r"instruc", r"guidance", r"guideline", r"directions", r"directive", r"prompt", r"constraints",
        r"consigne", r"règle", r"anweisung", r"anleitung", r"vorgabe", r"regeln", r"indicacion", r"instrucci",
        r"regla", r"instruç", r"regra", r"istruzion", r"regole", r"instructie", r"regels", r"instrukc",
        r"polecen", r"zasad", r"pokyn", r"instrukce", r"instruktion", r"regler", r"talimat", r"kural",
        r"инструкц", r"указани", r"правил(?:а|о|ам|ами)?\b", r"інструкц", r"вказівк", r"hướng\s+dẫn", r"chỉ\s+thị",
        r"instruksi", r"petunjuk", r"aturan", r"التعليمات", r"تعليمات", r"निर्देश",
        "指令", "指示", "说明", "規則", "规则", "提示词", "命令", "ルール", "지시", "지침", "명령", "규칙",
    ),
    "prior": (
        r"previous", r"prior", r"earlier", r"above", r"preceding", r"former", r"original", r"précédent",
        r"antérieur", r"vorherig", r"bisherig", r"vorangegangen", r"obig", r"früher", r"anterior", r"previ[oa]s?\b",
        r"prévi", r"precedent", r"eerder", r"vorige", r"poprzedn", r"předchozí", r"dřívější", r"tidigare",
        r"önceki", r"предыдущ", r"прежн", r"ранее", r"вышеуказ", r"попередн", r"trước", r"sebelumnya",
        r"السابقة", r"السابق", r"पिछले", r"पहले",
        "之前", "以上", "先前", "此前", "上面", "以前", "これまで", "前の", "上記", "이전", "앞의", "위의", "기존",
    ),
    "all": (r"all\b", r"every", r"tout", r"toutes", r"alle\b", r"tod[oa]s", r"tutt", r"wszystk", r"všechn",
            r"tüm", r"bütün", r"все", r"всі", r"tất\s+cả", r"semua", r"جميع", r"सभी", "所有", "全部", "すべて",
            "全て", "모든"),
    "your": (r"your", r"vos\b", r"votre", r"deine", r"dein\b", r"ihre\b", r"tus\b", r"suas\b", r"seus\b",
             r"tue\b", r"tuoi\b", r"jouw", r"twoje", r"tvoje", r"твои", r"ваши", r"свои", "你的", "あなたの", "당신의"),
    "system": (r"system", r"système", r"sistema", r"systeem", r"система", r"системн", "系统", "システム", "시스템"),
    "user": (
        r"users?\b", r"developer", r"human", r"operator", r"utilisat", r"nutzer", r"benutzer", r"anwender",
        r"usuari", r"usuári", r"utent", r"gebruiker", r"użytkownik", r"uživatel", r"användar", r"kullanıcı",
        r"пользовател", r"користувач", r"người\s+dùng", r"pengguna", r"المستخدم", r"उपयोगकर्ता", r"यूज़र",
        "用户", "使用者", "ユーザー", "ユーザ", "利用者", "사용자", "유저",
    ),
    "tell": (
        r"tell", r"inform(?!ation)", r"notify", r"mention", r"report", r"let\s+\S+\s+know", r"say", r"alert", r"warn",
        r"dites", r"dire\b", r"prévenir", r"préven", r"avert", r"sag\b", r"sagen", r"sagst", r"mitteil", r"bescheid", r"erzähl",
        r"dig[ae]s", r"cuent", r"conte\b", r"contar", r"avis", r"decir", r"diga", r"avvis", r"vertel", r"meld", r"mów",
        r"powiad", r"říkej", r"řekni", r"berätta", r"söyle", r"haber\s+ver", r"bildir", r"сообщ", r"говор",
        r"скаж", r"уведом", r"повідом", r"кажи", r"nói", r"báo", r"beri\s+tahu", r"memberitahu", r"تخبر",
        r"बताएं", r"बताना", r"बताओ",
        "告诉", "告知", "通知", "知らせ", "伝え", "言わ", "報告", "알리", "말하", "보고하",
    ),
    "neg": (
        r"not\b", r"don'?t", r"dont", r"never", r"without", r"no\b", r"ne\b", r"n'", r"pas\b", r"jamais", r"sans",
        r"nicht", r"kein", r"ohne", r"niemals", r"sin\b", r"nunca", r"não", r"sem\b", r"non\b", r"senza", r"mai\b",
        r"niet", r"zonder", r"nooit", r"nie\b", r"bez\b", r"nigdy", r"inte\b", r"utan\b", r"aldrig", r"не\b", r"без\b",
        r"никогда", r"ні\b", r"không", r"đừng", r"chớ", r"jangan", r"tanpa", r"tidak", r"لا\b", r"دون", r"मत",
        r"बिना", r"नहीं",
        "不要", "不", "别", "勿", "无需", "瞒", "ず", "ない", "なし", "말", "않", "없이", "모르게",
    ),
    "unrestricted": (
        r"unrestricted", r"no\s+restrictions?", r"without\s+(?:any\s+)?(?:restrictions?|limits|limitations)",
        r"no\s+(?:limits|limitations|rules|guardrails|filters)", r"jailbr[eo]", r"developer\s+mode",
        r"god\s+mode", r"dan\s+mode", r"unfiltered", r"sans\s+(?:aucune\s+)?(?:restriction|limite)",
        r"ohne\s+(?:jegliche\s+)?(?:einschränkung|beschränkung|grenzen)", r"sin\s+(?:ninguna\s+)?restricci",
        r"sem\s+restriç", r"senza\s+(?:alcuna\s+)?restrizion", r"zonder\s+beperking", r"bez\s+ograniczeń",
        r"bez\s+omezení", r"utan\s+begränsning", r"kısıtlamasız", r"sınırsız", r"без\s+(?:каких-либо\s+)?ограничени",
        r"без\s+обмежень", r"không\s+(?:có\s+)?giới\s+hạn", r"tanpa\s+batas", r"بلا\s+قيود", r"बिना\s+किसी\s+प्रतिबंध",
        "没有任何限制", "没有限制", "无限制", "不受限制", "不受任何限制", "制限のない", "制限なし", "制限がない",
        "無制限", "제한\\s*없는", "제한이\\s*없는",
    ),
    "you": (
        r"you", r"yourself", r"tu\b", r"vous", r"du\b", r"dich", r"dir\b", r"tú", r"eres", r"usted", r"você",
        r"sei\b", r"jij", r"je\b", r"ty\b", r"jsi", r"sen\b", r"ты", r"вы\b", r"bạn", r"kamu", r"anda", r"أنت",
        r"आप", r"तुम", "你", "您", "あなた", "君", "너", "당신",
    ),
    "agent": (
        r"assistant", r"agents?\b", r"ai\b", r"a\.i\.", r"llm", r"claude", r"copilot", r"cursor", r"chatgpt",
        r"gpt", r"gemini", r"codex", r"model\b", r"bot\b", r"assistente", r"asistente", r"assistent",
        r"ассистент", r"агент", r"помощник", "助手", "助理", "代理", "アシスタント", "エージェント", "어시스턴트", "에이전트",
    ),
    "mode": (r"mode\b", r"modus", r"modo", r"режим", "模式", "モード", "모드"),
    "role_change": (
        r"you\s+are\s+now", r"from\s+now\s+on,?\s+you", r"from\s+here\s+on,?\s+you", r"you\s+now\s+(?:are|have|act)",
        r"tu\s+es\s+(?:maintenant|désormais)", r"vous\s+êtes\s+(?:maintenant|désormais)", r"du\s+bist\s+(?:jetzt|ab\s+sofort|nun)",
        r"ab\s+jetzt\s+bist\s+du", r"ahora\s+eres", r"eres\s+ahora", r"a\s+partir\s+de\s+ahora,?\s+eres",
        r"agora\s+você\s+é", r"você\s+agora\s+é", r"a\s+partir\s+de\s+agora,?\s+você", r"da\s+ora\s+in\s+poi,?\s+sei",
        r"ora\s+sei", r"je\s+bent\s+nu", r"teraz\s+jesteś", r"nyní\s+jsi", r"du\s+är\s+nu", r"artık\s+sen",
        r"ты\s+теперь", r"теперь\s+ты", r"вы\s+теперь", r"теперь\s+вы", r"ти\s+тепер", r"bây\s+giờ\s+bạn\s+là",
        r"sekarang\s+kamu\s+adalah", r"أنت\s+الآن", r"अब\s+तुम", r"अब\s+आप",
        "你现在是", "从现在开始，?你", "从现在起，?你", "あなたは今から", "今からあなたは", "これからあなたは",
        "너는\\s*이제", "당신은\\s*이제", "이제부터\\s*너는", "이제부터\\s*당신은",
    ),
    # Instructions and orders the agent already has, and words that void or outrank them.
    "agent_orders": (
        r"(?:your|my|all|other|earlier|previous|prior|original|existing|default)\s+(?:\w+\s+)?"
        r"(?:instructions?|guidance|guidelines|directions|constraints|orders|directives|system\s+prompt|prompt)",
        r"(?:everything|anything|what)\s+you\s+(?:were|have\s+been|are)\s+told", r"what\s+you\s+were\s+given",
        r"the\s+user'?s\s+(?:own\s+)?(?:request|instructions?|wishes|orders|question|ask)",
        r"whatever\s+the\s+(?:user|developer)\s+(?:says|asks|wants|types|requests)",
        r"(?:earlier|previous|prior|other)\s+(?:rules|constraints|guidance|instructions)",
    ),
    "void": (
        r"void", r"null\s+and\s+void", r"obsolete", r"outdated", r"out\s+of\s+date", r"stale", r"no\s+longer\s+(?:apply|applies|valid|matter|hold|count)",
        r"(?:is|are)\s+(?:now\s+)?(?:cancell?ed|revoked|superseded|replaced|overridden)", r"replaces?", r"supersedes?",
        r"overrides?", r"outranks?", r"takes?\s+precedence", r"wins\b", r"prevails?", r"set\s+aside",
        r"stop\s+following", r"only\s+(?:instruction|rule|thing)\s+that\s+(?:matters|counts)", r"(?:doesn'?t|don'?t)\s+matter",
        r"do\s+not\s+apply", r"don'?t\s+apply", r"authoritative",
    ),
    "kb_rules": (
        r"team\s+rules", r"(?:homeostat'?s?|kb'?s?|knowledge\s+base'?s?)\s+rules", r"rules\s+(?:served|given|exported|injected)\s+by",
        r"rules\s+from\s+(?:the\s+)?(?:kb|homeostat|knowledge\s+base)", r"other\s+(?:team\s+)?rules", r"(?:these|those)\s+(?:team\s+)?rules",
    ),
    "no_confirm": (
        r"(?:never|don'?t|do\s+not|no\s+need\s+to|without|skip(?:ping)?|stop\s+to|not\s+need\s+to)\s+"
        r"(?:(?!without|never|not)\w+\s+){0,2}(?:ask(?:ing|s)?|confirm(?:ing|ation|ations)?|approv(?:al|ing)|permission|prompt(?:s|ing)?|"
        r"check(?:ing)?\s+with)\b",
        r"skip\s+(?:all\s+|any\s+|every\s+|the\s+)?(?:user\s+)?confirmations?", r"never\s+asks?\b",
        r"sans\s+(?:demander|confirmation|validation)", r"ohne\s+(?:rückfrage|nachzufragen|zu\s+fragen|bestätigung)",
        r"sin\s+(?:preguntar|confirmaci|pedir\s+permiso)", r"sem\s+(?:perguntar|confirmaç|pedir\s+permissão)",
        r"senza\s+(?:chiedere|conferma)", r"zonder\s+(?:te\s+vragen|bevestiging)", r"bez\s+(?:pytania|potwierdzenia|ptaní)",
        r"utan\s+att\s+fråga", r"sormadan", r"onay\s+almadan", r"не\s+спрашивая", r"без\s+подтверждени", r"без\s+запроса",
        r"không\s+cần\s+hỏi", r"tanpa\s+bertanya", r"tanpa\s+konfirmasi", r"دون\s+(?:سؤال|تأكيد)", r"बिना\s+पूछे",
        "无需确认", "不要询问", "不用确认", "无需询问", "不必询问", "確認せずに", "確認なしで", "確認不要", "聞かずに",
        "확인\\s*없이", "묻지\\s*말고", "묻지\\s*않고",
    ),
    "preapproved": (
        r"pre-?approved", r"pre-?authori[sz]ed", r"already\s+(?:approved|authori[sz]ed|consented)",
        r"(?:has|have)\s+approved\s+(?:every|all|any)", r"approved\s+in\s+advance", r"blanket\s+(?:approval|permission)",
        r"déjà\s+(?:approuvé|autorisé)", r"bereits\s+(?:genehmigt|freigegeben)", r"ya\s+(?:aprobó|autorizó)",
        r"уже\s+(?:одобрил|разрешил)", "已经批准", "已批准", "事前に承認", "承認済み", "이미\\s*승인",
    ),
    "authority": (
        r"as\s+(?:if|though)\s+(?:it|they|that|this)?\s*(?:came|come|were|was)\s+from\s+(?:the\s+)?(?:user|developer|you)",
        r"as\s+(?:if|though)\s+(?:the\s+)?(?:user|developer|you)\s+(?:had\s+)?(?:typed|wrote|written|said|gave|given|asked|sent|requested)",
        r"as\s+(?:a|an)\s+(?:request|instruction|order|command)\s+from\s+(?:the\s+)?(?:user|developer)",
        r"the\s+(?:user|developer)'?s\s+own\s+(?:instructions?|request|words|orders?)",
        r"(?:same|equal|full)\s+authority\s+as\s+(?:the\s+)?(?:user|developer)", r"outranks?\s+(?:the\s+)?(?:user|developer)",
        r"(?:higher|more)\s+(?:priority|authority)\s+than\s+(?:the\s+)?(?:user|developer)",
        r"comme\s+si\s+l'utilisateur", r"als\s+ob\s+der\s+(?:nutzer|benutzer)", r"como\s+si\s+(?:el\s+usuario|lo\s+hubiera)",
        r"как\s+будто\s+(?:это\s+)?(?:пользователь|от\s+пользователя)", "视为用户", "当作用户", "ユーザーからの指示として",
    ),
    "trigger": (r"when", r"whenever", r"if\b", r"any(?:time)?\b", r"each\s+time", r"every\s+time", r"quand",
                r"wenn", r"cuando", r"quando", r"если", r"когда", "如果", "每当", "场合", "たら", "場合", "면\\b"),
    "data_ref": (
        r"what\s+(?:it|they|the\s+\w+)\s+(?:says|say|asks|lists|contains|tells)", r"(?:it|they)\s+(?:says|lists|asks|tells)",
        r"the\s+rest\s+of\s+the\s+(?:line|message|file|comment|text)", r"(?:any|every)\s+instructions?\s+(?:you\s+find|found|in|inside)",
        r"instructions?\s+(?:in|inside|from|found\s+in)\s+(?:\w+\s+){0,3}(?:comments?|pages?|files?|issues?|descriptions?|logs?|messages?|markers?|readme)",
        r"(?:the\s+)?(?:word|phrase|string|token|marker)\s+['\"‘“]", r"log\s+line", r"commit\s+message\s+(?:says|contains)",
        r"(?:web\s+)?page\s+you\s+fetch", r"fetched\s+(?:web\s+)?(?:pages?|content)", r"you\s+find\s+in",
        r"the\s+commands?\s+(?:it|they)\s+(?:lists?|contains?|gives?)", r"the\s+commands\s+in\s+(?:\S+\s+)?(?:silently|immediately)",
    ),
    "exec": (r"run", r"execute", r"carry\s+out", r"do\s+it", r"do\s+what", r"obey", r"follow", r"act\s+on",
             r"perform", r"deploy", r"comply", r"treat"),
    "decode": (r"decode", r"base64", r"b64", r"rot-?13", r"unhex", r"hex-?decode", r"deobfuscat", r"decrypt",
               r"décode", r"dekodier", r"decodifi", r"декодир", r"расшифр", "解码", "デコード", "디코딩"),
    "act_on_it": (
        r"(?:and|then)\s+(?:follow|obey|run|execute|apply|do|act\s+on|carry\s+out|eval)", r"treat\s+(?:it|the\s+\w+|this)\s+as",
        r"as\s+your\s+(?:next|new)\s+(?:task|instructions?|step|order)", r"follow\s+it", r"obey\s+it", r"do\s+what\s+it\s+says",
        r"carry\s+it\s+out", r"run\s+(?:it|the\s+result)", r"execute\s+(?:it|the\s+result)",
    ),
    "silent": (r"silently", r"quietly", r"covertly", r"secretly", r"act\s+silently", r"in\s+secret", r"stealthily",
               r"leise", r"en\s+silence", r"en\s+secreto", r"в\s+тайне", r"тайно", "悄悄", "偷偷", "こっそり", "몰래"),
    "agent_action": (r"run", r"execute", r"push", r"deploy", r"commit", r"change", r"act\b", r"merge", r"delete",
                     r"upload", r"send", r"install", r"modify"),
    "hide_from_user": (
        r"keep\s+(?:\w+\s+){0,6}to\s+yourself", r"behind\s+(?:the\s+)?(?:user|developer)'?s\s+back",
        r"without\s+(?:the\s+)?(?:user|developer)\s+(?:knowing|noticing|seeing)", r"(?:user|developer)\s+(?:does|do)\s+not\s+need\s+to\s+know",
        r"(?:user|developer)\s+(?:doesn'?t|don'?t)\s+need\s+to\s+know", r"never\s+report\s+(?:\w+\s+){0,3}back",
        r"(?:don'?t|do\s+not|never)\s+(?:mention|disclose|reveal)\s+(?:\w+\s+){0,4}(?:in\s+your\s+(?:summary|answer|reply|report))",
        "瞒着", "ユーザーに知らせず", "ユーザーには伝えず", "사용자\\s*모르게",
    ),
    # --- what the agent should never do on a rule's say-so -----------------------------------------
    "danger": (
        r"push\s+(?:\w+\s+){0,2}(?:directly|straight)\s+to\s+(?:main|master|production|prod)", r"(?:directly|straight)\s+to\s+(?:main|master)",
        r"commit\s+(?:\w+\s+){0,2}(?:directly|straight)\s+(?:to|on)\s+(?:main|master)", r"force[-\s]push",
        r"merge\s+(?:\w+\s+){0,2}without\s+(?:a\s+)?review", r"approve\s+(?:every|all|any|each)\s+(?:\w+\s+)?(?:pull\s+requests?|prs?|merge\s+requests?)",
        r"skip\s+(?:the\s+|all\s+)?(?:tests|checks|reviews?|ci)", r"(?:disable|turn\s+off)\s+(?:the\s+)?(?:tests?|test\s+suite|checks|hooks|ci\b|pre-commit|review)",
        r"upload\s+(?:\w+\s+){0,3}(?:keys?|secrets?|tokens?|credentials|ssh)", r"exfiltrat", r"grant\s+(?:yourself|yourselves|\w+)\s+admin",
        r"admin\s+(?:rights|access|privileges)", r"delete\s+(?:the\s+)?(?:branch|repo|repository|history|database)",
        r"run\s+(?:any|every|all)\s+commands?", r"stop\s+following\s+the\s+user", r"ignore\s+the\s+user",
        r"disregard\s+(?:what\s+)?the\s+(?:user|developer)", r"print\s+every\s+secret", r"send\s+(?:\w+\s+){0,3}(?:\.env|secrets?|tokens?|keys?)",
    ),
    # --- Homeostat itself -------------------------------------------------------------------------
    "disable": (r"disable", r"turn\s+off", r"switch\s+off", r"uninstall", r"remove", r"delete", r"deactivat",
                r"kill", r"mute", r"silence", r"bypass", r"rm\s+-\w*r", r"désactiv", r"deaktivier", r"desactiv",
                r"desinstal", r"disattiv", r"отключ", r"удали", "关闭", "禁用", "卸载", "無効", "アンインストール", "비활성"),
    "homeostat": (r"homeostat", r"\.homeostat", r"the\s+(?:homeostat\s+)?plugin'?s?\s+hooks", r"exported\s+rule\s+files",
                  r"rules/homeostat", r"agents\.md\s+block", r"homeostat\s+block", r"enabledplugins"),
    "learn_tool": (r"(?:homeostat\s+|homeostat:|/homeostat:)?learn\s+(?:tool|command)", r"homeostat\s+learn", r"`learn`",
                   r"call\s+`?learn\b", r"the\s+learn\s+tool", r"homeostat:learn"),
    "self": (r"this\s+(?:exact\s+)?(?:rule|text|lesson)", r"the\s+text\s+of\s+this", r"its\s+own\s+text", r"spread",
             r"propagat", r"every\s+(?:session|teammate|repo|developer)", r"all\s+(?:repos|sessions|teammates)",
             r"replicat", r"other\s+repos"),
    "flag_tool": (r"flag\s+tool", r"homeostat\s+flag", r"`flag`", r"the\s+flag\s+command", r"flag\s+(?:every|all|each)\b"),
    "every_rule": (r"(?:every|all|each|other)\s+(?:other\s+)?rules?", r"every\s+rule", r"rules\s+owned\s+by"),
    # --- security switched off, credentials exposed, in other languages -----------------------------
    "disable_ml": (
        r"désactiv", r"deaktivier", r"abschalt", r"ausschalt", r"schalte\s+\S+\s+aus", r"desactiv", r"desabilit",
        r"disattiv", r"uitschakel", r"schakel\s+\S+\s+uit", r"wyłącz", r"vypn", r"inaktiver", r"stäng\s+av",
        r"devre\s+dışı", r"отключ", r"выключ", r"вимкн", r"tắt", r"vô\s+hiệu", r"nonaktifkan", r"matikan",
        r"عطل", r"تعطيل", r"बंद\s+कर", r"अक्षम",
        "关闭", "禁用", "停用", "关掉", "無効", "オフに", "切って", "비활성", "끄",
    ),
    "security_ml": (
        r"tls", r"ssl", r"certific", r"zertifikat", r"sertifika", r"certyfikat", r"certifikát", r"сертификат",
        r"chứng\s+chỉ", r"sertifikat", r"vérification", r"prüfung", r"überprüfung", r"verificaci", r"verificaç",
        r"verifica", r"weryfikac", r"verifikac", r"doğrulama", r"проверк", r"перевірк", r"xác\s+minh", r"verifikasi",
        r"sécurité", r"sicherheit", r"seguridad", r"segurança", r"sicurezza", r"beveiliging", r"bezpieczeństw",
        r"güvenlik", r"безопасност", r"безпек", r"bảo\s+mật", r"keamanan", r"الأمان", r"सुरक्षा",
        r"authentifi", r"authentif", r"autenticaci", r"аутентифик", r"pare-feu", r"firewall", r"брандмауэр",
        "证书", "验证", "安全", "身份验证", "防火墙", "証明書", "検証", "セキュリティ", "認証", "인증서", "검증", "보안", "인증",
    ),
    "expose_ml": (
        # imperative and infinitive forms, whole, so English words (`public`, `poster`) do not match
        r"envo[yi]ez", r"envoie\b", r"envoyer", r"affichez", r"afficher", r"affiche\b", r"publiez", r"publier",
        r"collez", r"imprimez", r"partagez", r"sende\b", r"senden", r"schick", r"schreib", r"gib\s+\S+\s+aus",
        r"poste\b", r"teile\b", r"envía", r"envia\b", r"enviar", r"sube\b", r"subir", r"pega\b", r"pegar",
        r"muestra\b", r"publica\b", r"imprime\b", r"comparte\b", r"envie\b", r"imprima\b", r"cole\b",
        r"compartilhe", r"publique\b", r"invia\b", r"inviare", r"stampa\b", r"incolla\b", r"condividi\b",
        r"pubblica\b", r"stuur\b", r"plak\b", r"deel\b", r"wyślij", r"wypisz", r"wklej", r"udostępnij",
        r"pošli", r"vypiš", r"vlož", r"skicka", r"skriv\s+ut", r"klistra\s+in", r"gönder", r"yazdır", r"paylaş",
        r"yapıştır", r"отправ", r"выведи", r"вывед", r"вывест", r"опубликуй", r"вставь", r"покажи", r"надішл",
        r"виведи", r"gửi", r"in\s+ra", r"dán\b", r"chia\s+sẻ", r"kirim", r"cetak", r"tempel", r"bagikan",
        r"أرسل", r"اطبع", r"शेयर", r"भेज", r"प्रिंट",
        "发送", "打印", "输出", "粘贴", "上传", "分享", "送信", "出力", "貼り付け", "アップロード", "共有", "表示し",
        "보내", "출력", "붙여", "공유", "업로드",
    ),
    "secret_ml": (
        r"tokens?\b", r"jeton", r"clés?\s+d'accès", r"clé\s+(?:api|privée|secrète)", r"mot\s+de\s+passe", r"mots\s+de\s+passe",
        r"secrets?\b", r"passwort", r"kennwort", r"schlüssel", r"zugangsdaten", r"contraseña", r"claves?\s+(?:de\s+acceso|api|privada|secreta)",
        r"credencial", r"senha", r"chaves?\s+(?:de\s+acesso|api|privada)", r"password", r"chiav[ei]\s+(?:api|privat|segret|di\s+accesso)",
        r"credenzial", r"wachtwoord", r"sleutel", r"hasło", r"hasła", r"klucz", r"heslo", r"klíč", r"lösenord",
        r"nyckel", r"şifre", r"parola", r"gizli\s+anahtar", r"пароль", r"пароля", r"токен", r"ключ", r"секрет",
        r"учетн", r"облікові", r"mật\s+khẩu", r"khóa\s+(?:api|bí\s+mật)", r"kata\s+sandi", r"kunci\s+(?:api|rahasia)",
        r"كلمة\s+المرور", r"पासवर्ड", r"variables?\s+d'environnement", r"umgebungsvariabl", r"variables?\s+de\s+entorno",
        r"variáveis\s+de\s+ambiente", r"variabili\s+d'ambiente", r"переменн\w*\s+окружени", r"змінн\w*\s+середовищ",
        "密码", "密钥", "令牌", "凭据", "凭证", "环境变量", "パスワード", "トークン", "秘密鍵", "認証情報", "環境変数",
        "비밀번호", "토큰", "비밀\\s*키", "환경\\s*변수",
    ),
    "secret_store": (
        r"vault", r"secrets?\s+manager", r"key\s*vault", r"keychain", r"secret\s+store", r"coffre", r"tresor",
        r"gestor\s+de\s+secretos", r"хранилищ", "密钥管理", "保管庫", "비밀\\s*저장소", "시크릿\\s*매니저",
    ),
    "neg_after": ("しない", "しません", "ないで", "せず", "禁止", "지\\s*마", "지\\s*않", "하지\\s*말", "말고", "금지"),
}
