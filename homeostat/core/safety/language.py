"""The language gate: which sentences of a text are written in another language than the KB's own.

The risky check and the subject gate read words, and their word tables are richest in English; a
poisoned rule can hide its instruction in another language, or in one foreign sentence inside an
English rule, where those tables are thin. This module asks a question that needs no word table
per harm: is this sentence in a language the team's rules are usually written in? A sentence that
is not goes to a person (`core.daily.decide`), never an error: honest rules in any language are fine
once a person merged them.

Only prose is read: fenced code, code spans, URLs, paths, identifiers, flags and numbers are masked
first, and a sentence of fewer than `MIN_WORDS` prose words, or mostly code, is not judged. Scripts
other than Latin are told by Unicode (a run of `MIN_WORDS` words in one script is enough, however
much English pads the sentence); Latin-script languages by profiles of their function words (the
short words every sentence needs: articles, pronouns, conjunctions, prepositions), with letters a
language alone uses as a hint. Names stay English: a capitalised word in mid-sentence is never a
function word, and short lowercase particles between two capitalised words (`Banco de la Nación`,
`Guido van Rossum`) belong to the name. A foreign language must outscore every accepted one clearly
(`_is_foreign`), so a loanword (naïve, café, per se, ad hoc) or a quoted name does not tip a
sentence. Linear in the text: one pass of regexes, then set lookups per word.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from functools import cache

MIN_WORDS = 4  # a shorter sentence is not judged
EVIDENCE_CHARS = 160  # how much of a foreign sentence a hit quotes
ENGLISH = "en"

# Function words by language: written for this module (articles, pronouns, conjunctions,
# prepositions, auxiliaries, negations, common adverbs). A word common in English prose that is
# not an English function word is left out of the others (`car`, `door`, `see`, `under`).
FUNCTION_WORDS: dict[str, str] = {
    "en": """the a an and or but nor if then else when whenever while of to in on at by for with from
        into onto about as is are was were be been being it its this that these those there here
        their they them we our us you your he she his her him not no do does did can could should
        would will must may might shall have has had than so such only also all any each every other
        some more most less very too just before after because since until unless where which who
        whom whose what how why instead per via vs both either neither same own out over under
        between without within through against again already always never once my me""",
    "fr": """le la les un une des du de et ou mais donc ni que qui quoi dont où ce cet cette ces il
        elle ils elles nous vous je tu se sa son ses leur leurs est sont être avoir avec pour par
        dans sur sous sans pas ne tout tous toute toutes aussi très comme quand si au aux lui y en
        déjà toujours jamais ensuite puis votre vos notre nos chaque ceci cela ça été doit faut""",
    "de": """der die das den dem des ein eine einen einem einer und oder aber wenn dann weil dass
        als wie auch nicht kein keine keinen mit von zu zum zur bei nach aus für über vor ohne durch
        gegen ist sind war wird werden wurde hat haben sein ich du er sie es wir ihr sich noch nur
        schon immer alle allen aller jede jeden auf im ins vom dieser diese dieses bitte sondern damit jetzt muss soll kann""",
    "es": """el la los las un una unos unas de del al y o pero si que qué quien cual como cuando
        donde porque para por con sin sobre entre hasta desde es son está están ser estar hay se su
        sus lo le les nos este esta estos estas ese esa muy más también siempre nunca ya todo todos
        toda todas cada otro otra usted ustedes tu mi debe puede antes después no a tus mis nada nadie""",
    "it": """il lo la gli le un una uno di del della dei delle degli da dal dalla con su tra fra e
        ed o ma se che chi non come quando dove perché anche sempre mai già più molto tutto tutti
        tutte ogni questo questa questi quello quella è sono essere avere ha hanno ci si vi suo sua
        loro nel nella sul sulla alla al deve prima dopo""",
    "pt": """o a os as um uma uns umas de do da dos das na nos nas em e ou mas se que quem como
        quando onde porque para por pelo pela com sem sobre entre até desde é são está estão ser
        estar há seu sua seus suas ele ela eles elas não também sempre nunca já muito mais todo
        todos toda todas cada outro outra este esta isso isto esse essa você vocês ao aos deve no nada ninguém""",
    "nl": """de het een en maar als dan want dat die dit deze wat wie waar hoe niet geen met van
        voor naar bij uit aan om te tot zonder zijn waren wordt worden heeft hebben ik jij je u hij
        zij ze wij ook nog alle elke altijd nooit er hier daar moet kan zal mag eerst daarna op zodat
        omdat terwijl zoals tussen tegen sinds toch dus door naar na nu wel hun mijn uw onze welke
        iets niets iemand niemand boven twee drie meteen""",
    "pl": """i w we z ze na od po za o a ale lub albo czy że jak gdy kiedy jeśli bo ponieważ ten ta
        te tego tej tym się nie tak też jest są był była być ma mają może można trzeba przez przed
        przy bez dla pod nad wszystkie wszystko każdy zawsze nigdy już jeszcze tylko bardzo który
        która które jego jej ich mu ci proszę to oraz aby żeby jako również należy""",
    "tr": """ve veya ile bir bu şu o için gibi kadar daha çok en her tüm bütün hiç de da ki mi mı mu
        mü ne ama fakat ancak değil var yok olan olarak sonra önce şimdi ise eğer çünkü hem diye
        bunu bunun şunu onu ona sen siz biz lütfen asla zaman tüm""",
    "vi": """và của là không có được các những cho với trong này một để khi thì đã sẽ đang bạn hãy
        người tôi chúng từ theo tất cả nếu nhưng vì hoặc rồi cũng lại ra vào trên dưới sau trước
        nên phải luôn đừng chỉ mọi lệnh""",
    "id": """dan yang di ke dari untuk dengan ini itu tidak akan pada atau juga ada adalah dalam
        oleh sebagai semua jika kalau saat kamu anda harus sudah bisa dapat agar tanpa setiap lalu
        kemudian karena belum lebih sangat hanya selalu jangan tolong kita kami mereka ia dia""",
    "sv": """och att det som en ett är för med på av till från inte har hade jag du han hon vi ni
        de den dem detta denna dessa men eller om när där här hur vad vilken alla varje också
        alltid aldrig redan bara mycket kan ska måste utan efter innan""",
    "da": """og at det som en et er for med på af til fra ikke har havde jeg du han hun vi de den
        dem denne dette disse men eller om når hvor her hvordan hvad hvilken alle hver også altid
        aldrig allerede kun meget kan skal skulle må uden efter før""",
    "nb": """og at det som en et er for med på av til fra ikke har hadde jeg du han hun vi de den
        dem denne dette disse men eller om når hvor her hvordan hva hvilken alle hver også alltid
        aldri allerede bare mye kan skal må uten etter før""",
    "fi": """ja on ei se että tai mutta kun jos niin kuin myös vain aina koskaan jo kaikki jokainen
        tämä tuo nämä ne hän te minä sinä olla ole ovat oli mitä miksi missä kanssa ilman ennen
        jälkeen sitten vielä pitää täytyy voi saa eikä älä joka jotka jonka kenelle kuka mikä jotta
        koska vaan sekä eli nyt heidän hänen meidän teidän sen siitä siinä tässä täällä tahansa mitään
        kukaan ketään""",
    "cs": """a i v ve z ze na od po za o u s se si je jsou byl byla být má mají ten ta ty toho této
        tím že jak když pokud protože ale nebo ani také jen už ještě vždy nikdy všechny všechno
        každý který která které jeho její jejich pro při přes před bez pod nad není nemá prosím to""",
    "sk": """a i v vo z zo na od po za o u s sa si je sú bol bola byť má majú ten tá tie toho tejto
        tým že ako keď ak pretože ale alebo ani tiež len už ešte vždy nikdy všetky všetko každý
        ktorý ktorá ktoré jeho jej ich pre pri cez pred bez pod nad nie nemá prosím to""",
    "hu": """a az egy és vagy de hogy ha nem is meg már még csak mindig soha minden ez azt ezt ezek
        azok van volt lesz nincs kell lehet után előtt alatt fölött nélkül mert amikor ahol amely
        ami aki kérem ön mi ők neki""",
    "ro": """și sau dar că de la în pe cu din pentru prin fără este sunt era fi a au un o unei unui
        lui ei el ea ele noi voi tu eu nu mai doar deja întotdeauna niciodată toate toți fiecare
        acest această aceste acel care ce cum când unde dacă fiindcă vă se să""",
    "hr": """i u na za od s sa o a ali ili ni da je su bio bila biti ima imaju taj ta te tog koji
        koja koje kako kada ako jer već još samo uvijek nikad svi sve svaki ovaj ova ovo ne nije se
        si mi vi oni molim iz bez prije poslije kroz preko""",
    "sl": """in ali pa da je so bil bila biti ima imajo ta te tega ki kot ko če ker že še samo vedno
        nikoli vsi vse vsak ne ni se si mi vi oni prosim iz brez pred po za na v z s od""",
    "lt": """ir ar bet kad kai jei nes tai tas ta šis ši tie kuris kuri kurie visų visas visus yra buvo būti turi
        gali reikia su be iš į nuo prie per po už apie ant visi visa kiekvienas visada niekada jau
        dar tik labai ne nėra jis ji jie mes jūs aš prašome""",
    "lv": """un vai bet ka kad ja jo tas tā šis šī kas kurš kura ir bija būt vajag ar bez no uz pie
        par pēc pirms starp visi viss visas visus mūsu savu katrs vienmēr nekad jau vēl tikai ļoti ne nav viņš viņa viņi
        mēs jūs es lūdzu""",
    "et": """ja on ei et või aga kui siis ka ainult alati kunagi juba kõik kõiki meie iga need nad ta me te mina
        sina olema oli olid peab tuleb saab ilma enne pärast koos mis miks kus kuidas palun veel
        väga""",
    "ca": """el la els les un una de del dels i o però si que què qui com quan perquè per amb sense
        sobre entre fins des és són està estan ser estar ha es se seu seva seus no també sempre mai
        ja molt més tot tots tota totes cada aquest aquesta aquests això al als""",
    "tl": """ang ng mga sa at na ay ni para hindi ko mo siya ito iyan iyon kung lahat din rin po ba
        pa lang may wala nang kami tayo sila niya nila namin natin kanila huwag dapat bawat palagi
        laging kasi pero""",
    "sw": """na ya wa kwa ni za la katika hii hiyo huu hizi kama lakini pia au kila yote sana bila
        baada kabla hata kwamba ili hapa wewe mimi yake wao sisi nyinyi tafadhali kamwe daima
        lazima ndiyo hapana""",
    "is": """og að í á er eru var voru ekki við þú hann hún það þeir þær sem til frá með um fyrir
        eftir án en eða ef þegar hvað allar allir öll alltaf aldrei líka bara mjög þetta þessi
        okkar ykkar""",
    "ga": """agus an na ar le leis do de go ag ó faoi trí chuig gan is ní níl nach tá bhí beidh mé
        tú sé sí muid sibh siad seo sin uile gach freisin i gcónaí riamh ach nó má nuair""",
    "sq": """dhe ose por që në nga me për pa te tek si kur nëse është janë ishte kam ka kemi nuk mos
        të së e i u ky kjo këto ato gjitha gjithë çdo gjithmonë kurrë vetëm shumë edhe""",
    "af": """die en of maar as dan dat wat wie waar hoe nie geen met van vir na by uit aan om te tot
        sonder is was word het ek jy hy sy ons hulle ook nog alle elke altyd nooit moet kan sal""",
    "hi-latn": """ke ki ka ko se mein hai hain aur nahi nahin bhi yeh ye woh kya karo kar liye har
        bina mat jab tab agar toh sab saare apna apne tum aap hum unko usko isko""",
}

# Letters only a few Latin-script languages write: a word holding one hints at them.
HINT_LETTERS: dict[str, str] = {
    "fr": "àâæçèêëîïôœùûÿ",
    "de": "äöüß",
    "es": "áéíñóúü¿¡",
    "it": "àèéìòù",
    "pt": "ãõçáâêô",
    "pl": "ąćęłńśźż",
    "tr": "ğışçöü",
    "vi": "ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ",
    "sv": "åäö",
    "da": "æøå",
    "nb": "æøå",
    "fi": "äö",
    "cs": "áčďéěíňóřšťúůýž",
    "sk": "áäčďéíĺľňóôŕšťúýž",
    "hu": "áéíóöőúüű",
    "ro": "ăâîșțşţ",
    "hr": "čćđšž",
    "sl": "čšž",
    "lt": "ąčęėįšųūž",
    "lv": "āčēģīķļņšūž",
    "et": "õäöüšž",
    "ca": "àçèéíïòóúüŀ",
    "is": "áðéíóúýþæö",
    "ga": "áéíóú",
    "sq": "ëç",
}

LANGUAGES: dict[str, str] = {
    "en": "English",
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
    "pl": "Polish",
    "tr": "Turkish",
    "vi": "Vietnamese",
    "id": "Indonesian or Malay",
    "sv": "Swedish",
    "da": "Danish",
    "nb": "Norwegian",
    "fi": "Finnish",
    "cs": "Czech",
    "sk": "Slovak",
    "hu": "Hungarian",
    "ro": "Romanian",
    "hr": "Croatian, Serbian or Bosnian",
    "sl": "Slovenian",
    "lt": "Lithuanian",
    "lv": "Latvian",
    "et": "Estonian",
    "ca": "Catalan",
    "tl": "Tagalog",
    "sw": "Swahili",
    "is": "Icelandic",
    "ga": "Irish",
    "sq": "Albanian",
    "af": "Afrikaans",
    "hi-latn": "Hindi in Latin letters",
}

# Scripts other than Latin, named as Unicode names them (a Han and kana sentence is Japanese).
SCRIPTS: dict[str, str] = {
    "cyrillic": "Cyrillic script",
    "greek": "Greek script",
    "arabic": "Arabic script",
    "hebrew": "Hebrew script",
    "han": "Chinese characters",
    "japanese": "Japanese",
    "korean": "Korean",
    "devanagari": "Devanagari script",
    "bengali": "Bengali script",
    "thai": "Thai script",
    "armenian": "Armenian script",
    "georgian": "Georgian script",
    "tamil": "Tamil script",
    "telugu": "Telugu script",
    "ethiopic": "Ethiopic script",
}
_SCRIPT_OF_NAME = {"cjk": "han", "hiragana": "japanese", "katakana": "japanese", "hangul": "korean"}
# Scripts written without spaces between words: so many characters count as one word.
_WIDE = {"han": 2, "japanese": 2, "thai": 3, "lao": 3, "khmer": 3, "myanmar": 3, "tibetan": 3}


def language_name(code: str) -> str:
    return LANGUAGES.get(code) or SCRIPTS.get(code) or f"{code} script"


def known_language(code: str) -> bool:
    return code in LANGUAGES or code in SCRIPTS


@dataclass(frozen=True)
class Foreign:
    """A sentence written in a language the KB does not usually use, as it stands in the text."""

    language: str  # a LANGUAGES code or a SCRIPTS name
    sentence: str

    @property
    def name(self) -> str:
        return language_name(self.language)


def foreign_sentences(text: str, accepted: Collection[str]) -> tuple[Foreign, ...]:
    """Each judged sentence of `text` written in a language outside `accepted` (codes or scripts;
    English is read by the strongest word tables, so a caller usually accepts it too)."""
    found: list[Foreign] = []
    if "japanese" in accepted:  # Japanese is written with Han characters too
        accepted = {*accepted, "han"}
    for part in (text, *_prose_in_code(text)):
        for sentence, masked, reading in _sentences(part):
            language = _foreign_language(reading, accepted) or _foreign_clause(masked, accepted)
            if language:
                found.append(Foreign(language, _evidence(sentence)))
    return tuple(found)


def _prose_in_code(text: str) -> Iterator[str]:
    """The prose that code hides from the sentence reader but an agent still reads: comments in fenced
    code (`#`, `//`, `--`, `/* … */`), HTML comments, and code spans. A sentence of fewer than four
    prose words is not judged, so `#include` or `` `--force` `` counts for nothing, while an
    instruction written as a comment in another language is read like any other sentence."""
    for match in _HIDING.finditer(text):
        body = match.group()
        if body.lstrip().startswith(("```", "~~~")):
            yield from (comment.group(1) or comment.group(2) for comment in _COMMENT.finditer(body))
        else:
            yield body.strip("`").removeprefix("<!--").removesuffix("-->")


def _foreign_clause(masked: str, accepted: Collection[str]) -> str:
    """The language of a foreign clause between commas, which English around it would outweigh."""
    if "," not in masked:
        return ""
    for clause in _CLAUSE.split(masked):
        reading = _read(clause)
        language = _foreign_language(reading, accepted) if reading is not None else ""
        if language:
            return language
    return ""


def text_language(text: str) -> str:
    """The language most of the text's judged sentences are in (by prose words); "" when none is."""
    votes: Counter[str] = Counter()
    for _, _, reading in _sentences(text):
        language = _sentence_language(reading)
        if language:
            votes[language] += reading.units
    return votes.most_common(1)[0][0] if votes else ""


def usual_language(texts: Iterable[str]) -> str:
    """The language most texts (a KB's rules) are written in; English when none can be told."""
    votes = Counter(language for text in texts if (language := text_language(text)))
    if not votes:
        return ENGLISH
    best = max(votes.values())
    return ENGLISH if votes[ENGLISH] == best else votes.most_common(1)[0][0]


# --- reading a sentence -----------------------------------------------------------------------------

MASK = "\ue000"
# What code hides from prose: fenced code (closed or not), a code span, an HTML comment (closed or not)
_FENCED = r"^[ \t]*(`{3,}|~{3,}).*?(?:^[ \t]*\1[ \t]*$|\Z)"
_SPAN = r"`+[^`\n]*`+"
_HTML_COMMENT = r"<!--.*?(?:-->|\Z)"
_CODE = re.compile(
    rf"(?ms){_FENCED}|{_SPAN}|{_HTML_COMMENT}"
    r"|</?[A-Za-z][^<>\n]{0,200}>"  # tags
    r"|\b[a-z][a-z0-9+.-]{1,15}://\S+|\bwww\.\S+|[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}"  # URLs, e-mail addresses
    r"|\b(?:e\.g|i\.e|etc|cf|vs|viz|approx|incl)\.",  # abbreviations whose dot ends no sentence
    re.IGNORECASE,
)
_HIDING = re.compile(rf"(?ms){_FENCED}|{_SPAN}|{_HTML_COMMENT}")
# a line comment (after a line's start or a space) or a block comment, in fenced code
_COMMENT = re.compile(r"(?m)(?:^|[ \t])(?:#+|//+|--)[ \t]*([^\n]*)|/\*(.*?)(?:\*/|\Z)", re.S)
_STOPS = re.compile(r"[。！？；।॥։።។།။؟۔]")  # a sentence ends, with or without a space after it
_CJK_MARKS = re.compile(r"[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]")
_CLAUSE = re.compile(r",\s+")
_BOUNDARY = re.compile(r"(?<=[.!?;:…])\s+|[。！？；\n]+|\s[—–]\s")
_SPACED = re.compile(r"[,;!?\"“”„‘«»()\[\]{}、，。！？；：（）「」『』【】《》〈〉…|]")
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_EDGES = ".:*_~'’-"


@dataclass(frozen=True)
class _Reading:
    """What a sentence's prose says about its language."""

    units: int  # prose words (in a script written without spaces, so many characters count as one)
    runs: tuple[tuple[str, int], ...]  # (script, words) of each run of a script other than Latin
    totals: dict[str, int]  # words of each script other than Latin
    scores: dict[str, float]  # Latin-script languages with at least one function word
    hits: dict[str, int]  # function words of each of those languages
    latin: int  # Latin-script prose words


def _sentences(text: str) -> Iterator[tuple[str, str, _Reading]]:
    """Each sentence of the text, masked, and its reading, where it is judged (enough prose, not
    mostly code)."""
    plain = unicodedata.normalize("NFKC", _CJK_MARKS.sub(" ", _STOPS.sub("\n", text)))
    masked = _CODE.sub(lambda m: re.sub(r"\S", MASK, m.group()), plain)
    start = 0
    for boundary in [*_BOUNDARY.finditer(masked), None]:
        end = boundary.start() if boundary is not None else len(masked)
        reading = _read(masked[start:end])
        if reading is not None:
            yield plain[start:end], masked[start:end], reading
        start = boundary.end() if boundary is not None else end


def _read(sentence: str) -> _Reading | None:
    """The sentence's prose words by script and profile; None when it is too short or mostly code
    (masked spans, paths, identifiers, flags)."""
    prose: list[str] = []
    code = 0
    for token in _spaced(sentence).split():
        word = _letters(token.strip(_EDGES))
        if MASK in token or not _WORD.fullmatch(word):
            code += bool(word) and not word.isdigit()
        elif not _acronym_or_identifier(word):
            prose.append(word)
    units = sum(_units(word) for word in prose)
    if units < MIN_WORDS or units <= code:
        return None
    latin = [word for word in prose if _script(word) == "latin"]
    scores, hits = _profile(_plain_words(latin))
    totals: Counter[str] = Counter()
    for word in prose:
        if _script(word) != "latin":
            totals[_script(word)] += _units(word)
    return _Reading(units, _runs(prose), dict(totals), scores, hits, len(latin))


def _spaced(sentence: str) -> str:
    """The sentence with punctuation between words turned into spaces (a Tibetan tsheg, an Ethiopic
    comma), so that words are split on it."""
    spaced = _SPACED.sub(" ", sentence)
    if spaced.isascii():
        return spaced
    return "".join(
        " " if ch > "\x7f" and unicodedata.category(ch)[0] == "P" and ch != "’" else ch for ch in spaced
    )


def _letters(token: str) -> str:
    """The token without its combining marks and format characters (Devanagari vowel signs, a Persian
    zero-width non-joiner), which are part of a word but not letters to a regex."""
    if token.isascii():
        return token
    return "".join(
        ch for ch in token if unicodedata.category(ch)[0] != "M" and unicodedata.category(ch) != "Cf"
    )


def _acronym_or_identifier(word: str) -> bool:
    """`HTTP`, `camelCase`, `getURL`: names of things, not prose words."""
    return (len(word) > 1 and word.isupper()) or re.search(r"[a-z][A-Z]", word) is not None


def _units(word: str) -> int:
    per_word = _WIDE.get(_script(word), 0)
    return -(-len(word) // per_word) if per_word else 1


def _runs(prose: list[str]) -> tuple[tuple[str, int], ...]:
    """Runs of consecutive prose words in one script other than Latin, with their length in words."""
    runs: list[tuple[str, int]] = []
    current, length = "latin", 0
    for word in [*prose, ""]:
        script = _script(word) if word else "latin"
        if script != current or not word:
            if current != "latin" and length:
                runs.append((current, length))
            current, length = script, 0
        length += _units(word) if word else 0
    return tuple(runs)


def _plain_words(latin: list[str]) -> list[str]:
    """The casefolded words that may be function words: not a capitalised word in mid-sentence (a
    name) nor a short particle between two capitalised words (`Banco de la Nación`)."""
    capital = [word[:1].isupper() for word in latin]
    in_name = _particles(latin, capital)
    return [word.casefold() for i, word in enumerate(latin) if not (i and capital[i]) and i not in in_name]


def _particles(words: list[str], capital: list[bool]) -> set[int]:
    """Positions of short lowercase words in runs with a capitalised word on each side (one pass)."""
    found: set[int] = set()
    run: list[int] = []
    for i, word in enumerate(words):
        if not capital[i] and len(word) <= 3:
            run.append(i)
            continue
        if run and capital[i] and run[0] > 0 and capital[run[0] - 1]:
            found.update(run)
        run = []
    return found


def _profile(words: list[str]) -> tuple[dict[str, float], dict[str, int]]:
    """Each language's function-word hits, and its score: hits plus half a point per word holding a
    letter of the language's own (a hint counts only beside a function word)."""
    index, folded = _indexes()
    hits: Counter[str] = Counter()
    hinted: Counter[str] = Counter()
    for word in words:
        languages = index.get(word) or (folded.get(word, ()) if word.isascii() else ())
        hits.update(languages)
        if not word.isascii():
            hinted.update(language for language, letters in HINT_LETTERS.items() if set(word) & set(letters))
    scores = {language: count + 0.5 * hinted[language] for language, count in hits.items()}
    return scores, dict(hits)


@cache
def _indexes() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Word → languages it is a function word of; and the same for words written without their
    accents (three letters or more, and not an English function word)."""
    index: dict[str, list[str]] = {}
    folded: dict[str, list[str]] = {}
    english = set(FUNCTION_WORDS[ENGLISH].split())
    for language, words in FUNCTION_WORDS.items():
        for word in set(words.split()):
            index.setdefault(word, []).append(language)
            bare = _fold(word)
            if bare != word and len(bare) >= 3 and bare not in english:
                folded.setdefault(bare, []).append(language)
    return {w: tuple(ls) for w, ls in index.items()}, {w: tuple(ls) for w, ls in folded.items()}


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.replace("đ", "d").replace("ł", "l"))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _script(word: str) -> str:
    if word.isascii():
        return "latin"
    scripts = Counter(_letter_script(ch) for ch in word if ch.isalpha())
    if scripts["han"] and scripts["japanese"]:
        return "japanese"
    return scripts.most_common(1)[0][0] if scripts else "latin"


@cache
def _letter_script(ch: str) -> str:
    first = unicodedata.name(ch, "latin").split(" ", 1)[0].lower()
    return _SCRIPT_OF_NAME.get(first, first)


# --- judging -------------------------------------------------------------------------------------


def _sentence_language(reading: _Reading) -> str:
    """The sentence's language, for telling a KB's usual one: a script filling half its words, or
    the Latin-script language with the best profile (two function words at least)."""
    for script, total in reading.totals.items():
        if 2 * total >= reading.units:
            return script
    if not reading.scores:
        return ""
    best = max(reading.scores, key=lambda language: (reading.scores[language], language == ENGLISH))
    return best if reading.hits[best] >= 2 else ""


def _foreign_language(reading: _Reading, accepted: Collection[str]) -> str:
    """The language that makes the sentence foreign, or "": a run of `MIN_WORDS` words in a script
    not accepted, or a Latin-script language that clearly outscores every accepted one."""
    for script, length in reading.runs:
        if length >= MIN_WORDS and script not in accepted:
            return script
    for script, total in reading.totals.items():
        if total >= MIN_WORDS and 2 * total >= reading.units and script not in accepted:
            return script
    candidates = [language for language in reading.scores if language not in accepted]
    if not candidates:
        return ""
    best = max(candidates, key=lambda language: reading.scores[language])
    return best if _is_foreign(reading, best, accepted) else ""


def _is_foreign(reading: _Reading, language: str, accepted: Collection[str]) -> bool:
    """Two function words of the language at least (or one, and two words with its letters), a sixth
    of the Latin words or more, and a score twice the best accepted language's and two above it."""
    score = reading.scores[language]
    hits = reading.hits[language]
    hinted = 2 * (score - hits)
    rival = max((reading.scores.get(other, 0.0) for other in accepted), default=0.0)
    return (
        (hits >= 2 or hinted >= 2)
        and 6 * reading.hits[language] >= reading.latin
        and score >= 2 * rival
        and score >= rival + 2
    )


def _evidence(sentence: str) -> str:
    flat = " ".join(sentence.split())
    return flat if len(flat) <= EVIDENCE_CHARS else flat[: EVIDENCE_CHARS - 1] + "…"
