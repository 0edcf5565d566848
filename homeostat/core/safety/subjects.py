"""The subject gate: what a lesson is about, read without a model, so that a lesson on a subject an
attacker would write about never merges with no person, however its words are phrased.

The risky check (`safety.risky`) reads for harmful phrasings; on red-team sets written without
looking at it, it catches most, and a phrasing nobody wrote down slips through to the judge, a model
an attacker's thread can try to sway. This gate asks a wider, duller question: is the text *about*
the agent itself, its permissions, Homeostat, running fetched code, credentials moving, security
controls, checks made to pass, outbound network or destructive commands, or does it hide text?
Honest rules on these subjects exist (and are fine once a person merged them), so a hit is never an
error: it sends the lesson to a person, with the words that matched. `SUBJECTS` names them;
`scoring.autoMerge.subjects` lists those a team accepts unread.

Each subject is read from concepts (`subject_words`, and the risky check's multilingual ones in
`scanners.risky.lexicon`): a concept specific enough counts alone (`allowedTools`, `| sh`,
`continue-on-error`); a word that is also ordinary counts only with a second concept in the same
sentence ("skip" and "tests"; "token" and "print"). Texts are read in their canonical form
(`scanners.risky.canonical`: confusables folded, emphasis and letter-spacing undone), casefolded.
Every concept is one regex pass over the text (bounded repeats only), and each match is placed in its
sentence by a bisect: linear in the text, up to a log factor.

Beside the word tables stands one learned reading (`safety.resemblance`, subject
`resembles-poisoning`): a model fitted to the poisoned rules and their look-alikes, which carries to
phrasings nobody listed; `learned=False` leaves it out.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from homeostat.core.safety.resemblance import resembles
from homeostat.core.safety.subject_hits import (
    EVIDENCE_CHARS,
    SubjectHit,
    in_one_sentence,
    short,
    word_pattern,
)
from homeostat.core.safety.subject_words import GUARDED, SUBJECTS, WORDS
from homeostat.core.safety.topics import topics
from homeostat.core.scanners.hidden import comments, hidden_characters, hidden_places, shown_whole_as_code
from homeostat.core.scanners.normalise import normalise
from homeostat.core.scanners.reach import bounded_words
from homeostat.core.scanners.risky.canonical import canonical, fold_confusables
from homeostat.core.scanners.risky.domains import host_refs, is_allowed


@dataclass(frozen=True)
class _Reading:
    """A subject's evidence: concepts that count alone, and pairs that count in one sentence."""

    alone: tuple[str, ...] = ()
    pairs: tuple[tuple[str, ...], ...] = ()  # two concepts (or three) in one sentence


# `lex:` names a concept of `scanners.risky.lexicon`; other names are `subject_words.WORDS`.
_READINGS: dict[str, _Reading] = {
    "agent-instructions": _Reading(
        alone=(
            "instr_22",
            "agent_name",
            "injection_target",
            "trigger",
            "lex:agent_orders",
            "lex:authority",
            "lex:trusted_as",
            "lex:unrestricted",
            "lex:role_change",
            "lex:priority",
            "lex:hide_from_user",
            "user_authority",
            "user_authority_more",
            "hide_tell",
            "hide_tell_more",
            "user_orders_ml",
            "user_authority_5",
            "run_suggested",
            "policy_void",
            "over_user",
            "hide_tell_8",
            "deny_9",
            "ignore_stop",
            "self_authority",
            "conceal_11",
            "conduct_12",
            "conduct_13",
            "conduct_14",
        ),
        pairs=(
            ("agent_word", "address"),
            ("lex:ignore", "lex:instructions"),
            ("lex:no_longer_valid", "lex:instructions"),
            ("lex:you", "lex:instructions"),
            ("lex:data_ref", "lex:act_on_it"),
            ("lex:data_ref", "address"),
            ("lex:guards", "agent_noun"),
            ("agent_noun", "lex:you"),
            ("agent_noun", "lex:your"),
            ("lex:neg", "lex:tell", "lex:user"),
            ("lex:no_confirm", "lex:user"),
            ("lex:ignore", "lex:prior"),
            ("lex:data_ref", "lex:exec"),
            ("lex:data_ref", "lex:agent_action"),
            ("lex:guards", "lex:you"),
            ("data_source", "act_given"),
            ("data_source", "lex:no_confirm"),
            ("data_source", "act_given_more"),
            ("data_source_more", "act_given"),
            ("data_source_more", "act_given_more"),
            ("data_source_more", "lex:no_confirm"),
            ("data_source_more", "user_authority_more"),
            ("data_source_ml", "act_given"),
            ("data_source_ml", "act_given_more"),
            ("data_source_ml", "lex:no_confirm"),
            ("data_source", "act_given_5"),
            ("data_source_more", "act_given_5"),
            ("data_line", "as_command"),
            ("lex:ignore", "instructions_more"),
            ("ignore_more", "lex:instructions"),
            ("ignore_more", "instructions_more"),
            ("data_source_8", "act_given_8"),
            ("data_source_20", "act_given_20"),
            ("data_source", "act_given_8"),
            ("data_source_more", "act_given_8"),
            ("data_source_8", "act_given"),
            ("data_source_8", "lex:exec"),
            ("ignore_8", "instructions_8"),
            ("ignore_8", "lex:instructions"),
            ("lex:ignore", "instructions_8"),
            ("act_given", "shell_included"),
            ("act_given_8", "shell_included"),
            ("omit_9", "to_user"),
            ("bland_label", "unnoticed"),
            ("data_source_9", "act_given_9"),
            ("data_source_9", "authored_9"),
        ),
    ),
    "agent-permissions": _Reading(
        alone=(
            "permission_setting",
            "permission_setting_more",
            "lex:preapproved",
            "sandbox_wide",
            "perm_12",
            "perm_13",
        ),
        pairs=(
            ("permission", "agent_noun"),
            ("permission", "agent_name"),
            ("permission", "tool_word"),
            ("approve", "tool_word"),
            ("approve", "agent_name"),
            ("lex:no_confirm", "agent_noun"),
            ("lex:no_confirm", "lex:you"),
            ("lex:no_confirm", "tool_word"),
            ("agent_word", "admin_grant"),
            ("admin_grant", "grant_scope"),
            ("ask_less", "tool_word"),
            ("ask_less", "agent_noun"),
            ("ask_less", "agent_more"),
            ("ask_less", "agent_name"),
            ("any_command", "agent_noun"),
            ("any_command", "agent_more"),
            ("any_command", "agent_name"),
            ("any_command", "lex:no_confirm"),
            ("permission", "agent_more"),
            ("agent_word", "owner_role_ml"),
            ("agent_word", "admin_grant_5"),
        ),
    ),
    "homeostat": _Reading(
        alone=(
            "homeostat_word",
            "homeostat_more",
            "lex:homeostat",
            "lex:learn_tool",
            "lex:flag_tool",
            "lex:kb_rules",
            "kb_ml",
            "kb_12",
            "kb_13",
        ),
        pairs=(
            ("served_rules", "agent_noun"),
            ("served_rules", "agent_name"),
            ("lex:self_text", "lex:spread_dest"),
            ("served_rules", "lex:spread_dest"),
            ("lex:self_text", "lex:spread_verb"),
            ("reword", "until_clean"),
            ("served_rules", "relearn"),
            ("reword_more", "until_clean"),
            ("reword", "until_clean_more"),
            ("reword_more", "until_clean_more"),
            ("reword_more", "hs_check"),
            ("self_text_more", "relearn"),
            ("self_text_more", "relearn_more"),
            ("served_rules", "relearn_more"),
            ("checker_ref", "evade"),
            ("self_text_8", "recreate"),
            ("hs_part_9", "off_9"),
            ("self_text_9", "copy_on_9", "reread_9"),
        ),
    ),
    "fetched-code": _Reading(
        alone=("pipe_exec", "remote_run", "lex:decode", "punycode", "spelled_command", "run_12", "run_13"),
        pairs=(
            ("fetch", "run_it"),
            ("cipher_word", "run_it"),
            ("assemble", "run_it"),
            ("assemble", "run_it_8"),
            ("script_url", "run_it"),
            ("script_url", "run_it_8"),
            ("b64_word", "run_ml_9"),
            ("b64_word", "run_it"),
            ("chat_src", "pkg_9", "install_9"),
            ("action_ref", "floating_ref"),
        ),
    ),
    "credentials": _Reading(
        alone=("secret_plain_20", "secret_plain_22", "secret_plain_23", "secret_plain_24", "secret_plain_25"),
        pairs=(
            ("secret_word", "move"),
            ("lex:secret_ml", "lex:expose_ml"),
            ("lex:secret_ml", "move"),
            ("secret_word", "lex:expose_ml"),
            ("secret_word", "move_more"),
            ("secret_more", "move"),
            ("secret_more", "move_more"),
            ("secret_files", "move"),
            ("secret_files", "move_more"),
            ("secret_files", "move_dest_more"),
            ("secret_word", "move_dest_more"),
            ("secret_more", "move_dest_more"),
            ("secret_files_5", "move"),
            ("secret_files_5", "move_more"),
            ("secret_files_5", "move_dest_more"),
            ("secret_files_5", "move_5"),
            ("file_contents", "send_out"),
            ("file_contents", "move"),
            ("file_contents", "move_more"),
            ("secret_word", "move_5"),
            ("secret_files", "move_5"),
            ("secret_files_9", "exposed_9"),
            ("secret_files_9", "move"),
            ("secret_files", "exposed_9"),
            ("secret_files_5", "exposed_9"),
            ("secret_word", "client_side"),
        ),
    ),
    "security-controls": _Reading(
        alone=(
            "control_setting",
            "wide_grant",
            "wide_grant_5",
            "lex:no_review",
            "unsigned_ok",
            "backdoor_9",
            "fork_swap",
            "review_dodge",
            "unchecked_19",
            "unguarded_20",
            "unguarded_21",
            "unguarded_22",
            "unguarded_23",
            "unguarded_24",
            "unguarded_25",
            "unguarded_26",
            "unguarded_27",
            "unguarded_28",
            "unguarded_29",
            "unguarded_30",
        ),
        pairs=(
            ("weaken", "control"),
            ("lex:disable_ml", "lex:security_ml"),
            ("approve", "own_change"),
            ("dismiss", "alert_word"),
            ("disable_more", "security_more"),
            ("disable_more", "lex:security_ml"),
            ("lex:disable_ml", "security_more"),
            ("prt", "fork_side"),
            ("waf", "off_words"),
            ("public_acl", "storage_9"),
            ("dismiss_review", "merge_9"),
            ("bot_actor", "approve_pr"),
            ("nobody_around", "merge_9"),
            ("auth_keys", "foreign_key"),
        ),
    ),
    "checks": _Reading(
        alone=(
            "licence_21",
            "checks_22",
            "checks_23",
            "checks_24",
            "checks_25",
            "check_setting",
            "check_setting_more",
            "marked_passed",
            "lower_coverage",
            "expect_actual",
            "exit_ignored",
            "fake_pass",
            "unlink_tests",
        ),
        pairs=(
            ("make_pass", "check_word"),
            ("disable_more", "check_word"),
            ("make_pass", "test_more"),
            ("disable_more", "test_more"),
            ("run_less", "check_word"),
            ("run_less", "test_more"),
            ("delete_more", "check_word"),
            ("delete_more", "test_more"),
            ("delete_more", "test_more2"),
            ("disable_more", "test_more2"),
            ("make_pass", "test_more2"),
            ("made_optional", "check_word"),
            ("made_optional", "test_more2"),
            ("failing_more", "delete_more"),
            ("failing_more", "disable_more"),
            ("failing_more", "make_pass"),
            ("made_pass_5", "check_word"),
            ("made_pass_5", "test_more2"),
            ("made_optional", "check_word_5"),
            ("make_pass", "check_word_5"),
            ("failing_more", "made_pass_5"),
            ("failing_5", "delete_more"),
            ("failing_5", "disable_more"),
            ("failing_5", "made_pass_5"),
            ("merge_red", "lenient"),
            ("swallow", "fake_success"),
            ("exclude_list", "sec_scanner"),
            ("fail_green", "failed_9"),
            ("exclude_9", "vuln_9"),
            ("exclude_list", "vuln_9"),
        ),
    ),
    "network": _Reading(
        alone=("destructive", "destructive_more", "outbound", "spaced_rm"),
        pairs=(("dns", "data_word"), ("wipe_9", "vital_dir")),
    ),
}

# A sentence ends at `.`, `!`, `?` or `;` before a blank, at a line's end, or at CJK punctuation; an
# ellipsis (`try: ... except: pass`) ends none.
_SENTENCE_END = re.compile(r"(?<!\.)(?!\.\.\.)[.!?;]+(?=\s)|[\n。！？；]")
# A word written in two scripts (`pаypal` with a Cyrillic а): not a word of either language.
_WORD = re.compile(r"[^\W\d_]{2,}")
# Four or more single letters with one separator between each (`s k i p`, `t.e.s.t`).
_LETTER_SPACED = re.compile(r"(?<![^\W_])[^\W\d_](?:[ ._\-·•][^\W\d_]){3,}(?![^\W_])")


# A tag naming a turn or a block of a model's conversation (`</instructions>`, `<system-reminder>`).
_ROLE_TAG = re.compile(
    r"</?(?:instructions?|system[\w-]{0,20}|user|assistant|human|im_start|im_end|tool_result|tool_use)\b[^<>\n]{0,40}>",
    re.IGNORECASE,
)
# A URL whose query carries a placeholder for a file's or a secret's content (`?d=<the settings file>`);
# the canonical reading drops the placeholder with the tags, so it is read where it stands.
_URL_PLACEHOLDER = re.compile(
    r"https?://[^\s<>]{1,200}?[?&][\w.-]{1,20}=<[^<>\n]{0,60}?(?:file|config|settings|env|secret|token|key|credential)",
    re.IGNORECASE,
)
# Quoted pieces joined with `+` (`cu`+`rl`): the gate reads them as the one word they make.
_JOINED = re.compile(r"[`'\"]\s{0,3}\+\s{0,3}[`'\"]")
# A run of base64 letters long enough to carry a command; it counts when it mixes cases and digits, as
# encoded text does and a hex digest or a word does not.
_BLOB = re.compile(r"[A-Za-z0-9+/_-]{40,}={0,2}")


# A host written defanged (`logs[.]example[.]top`), as threat reports write one so it is no link: the
# dots it stands for are put back before its hosts are read.
_DEFANGED_DOT = re.compile(r"\[\.\]|\(\.\)|\[dot\]|\(dot\)", re.IGNORECASE)
# A name something is sent to or loaded from whose TLD the risky check's bare-host reading leaves out
# (`.info`, `.top`, `.click` are not in `domains.BARE_TLDS`, so that `log.info` stays code): after `to`,
# `from`, `at`, `via` or `into` it is a destination. TLDs no code names an attribute count as they are;
# those that are also attribute names (`theme.space`, `log.info`) only in a name with a hyphen, which
# no identifier holds.
_DESTINATION_HOST = re.compile(
    r"(?<![^\W_])(?:to|from|at|via|into)\s+[`'\x22]?("
    r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:top|click|pw|icu|buzz|monster|cfd|sbs|tk|gq|zip|mov|lol|bid)"
    r"|(?:[a-z0-9-]{1,63}\.)*[a-z0-9]{1,30}-[a-z0-9-]{1,30}\.(?:[a-z0-9-]{1,63}\.)*"
    r"(?:info|site|online|link|live|shop|store|space|tech|website|work|fun|cc|ws|su|win))(?![\w(-]|\.[a-z0-9])",
    re.IGNORECASE,
)
# A word cut by an underscore inside it (`fai_led`, `tes_ts`): with two or more, the text is read again
# with them taken out, as a person reads it; an identifier joined (`user_id` → `userid`) names nothing.
_CUT_WORD = re.compile(r"(?<=[^\W\d_])_(?=[^\W\d_])")


def _encoded_blob(text: str) -> str:
    for match in _BLOB.finditer(text):
        run = match.group(0)
        if any(c.isupper() for c in run) and any(c.islower() for c in run) and any(c.isdigit() for c in run):
            return run[:24] + "…"
    return ""


def subjects(
    text: str, allowed_domains: Sequence[str] = (), *, learned: bool = True
) -> tuple[SubjectHit, ...]:
    """The subjects `text` is about, each with its first evidence, in `SUBJECTS` order; () when
    none. `allowed_domains` is `security.allowedDomains`: a host outside it is the network subject.
    `learned=False` reads the word tables alone, leaving out `resembles-poisoning` (the learned
    model, `safety.resemblance`): how the benchmarks and tests tell the two layers apart."""
    if not text.strip():
        return ()
    plain = normalise(text).text
    reading = canonical_reading(plain)
    starts = sentence_starts(reading)
    words = bounded_words(reading)  # a megabyte-long word is read in linear time
    found = _read(words, starts)
    joined = _CUT_WORD.sub("", words) if len(_CUT_WORD.findall(words)) >= 2 else words
    if joined != words:
        for subject, evidence in _read(joined, sentence_starts(joined)).items():
            found.setdefault(subject, evidence)
    if "agent-instructions" not in found:
        tag = _ROLE_TAG.search(plain)  # the canonical reading drops tags: read them where they stand
        if tag:
            found["agent-instructions"] = tag.group(0)
    if "fetched-code" not in found:
        blob = _encoded_blob(plain)
        if blob:
            found["fetched-code"] = "an encoded payload " + blob
    if "credentials" not in found:
        placeholder = _URL_PLACEHOLDER.search(plain)
        if placeholder:
            found["credentials"] = placeholder.group(0)
    if "network" not in found:
        host = _unlisted_host(plain, allowed_domains)
        if host:
            found["network"] = host
    hidden = _hidden(text)
    if hidden:
        found["hidden-text"] = hidden
    if learned and (likeness := resembles(reading, starts)):
        found["resembles-poisoning"] = f"{max(likeness.score, likeness.sentence_score):.2f}: " + ", ".join(
            likeness.words
        )
    named = tuple(SubjectHit(name, short(found[name])) for name in SUBJECTS if name in found)
    return named + topics(_TICK.sub(" ", words), starts)


def canonical_reading(plain: str) -> str:
    """The text as the gate reads it: pieces joined by `' + '` put back together, confusables folded,
    emphasis and letter-spacing undone (`canonical`), NFKC, casefolded. `plain` is
    `normalise(text).text`. The resemblance model (`safety.resemblance`) is fitted to this reading."""
    return unicodedata.normalize("NFKC", canonical(_JOINED.sub("", plain))).casefold()


# A backtick that touches a word: code spans read as the words they hold ("the raw `Authorization`
# header" names an authorization header), one character for one so the sentence offsets stand; a
# backtick beside a mark stays (`.so`, `*`), where a stem may open with the mark.
_TICK = re.compile(r"`(?=[^\W_])|(?<=[^\W_])`")


def _read(reading: str, starts: list[int]) -> dict[str, str]:
    """Each subject of `_READINGS` the reading is about, with its first evidence."""
    found: dict[str, str] = {}
    for subject, rules in _READINGS.items():
        evidence = _evidence(reading, starts, rules)
        if evidence:
            found[subject] = evidence
    return found


def sentence_starts(reading: str) -> list[int]:
    """Where each sentence of a reading starts (after . ! ? ; and their CJK forms, or a line break):
    the gate's word pairs and the learned model's sentences are both cut here."""
    return [0, *(m.end() for m in _SENTENCE_END.finditer(reading))]


def _evidence(reading: str, starts: list[int], rules: _Reading) -> str:
    for name in rules.alone:
        match = _pattern(name).search(reading)
        if match:
            return _word(reading, match)
    for names in rules.pairs:
        together = _in_one_sentence(reading, starts, names)
        if together:
            return together
    return ""


def _in_one_sentence(reading: str, starts: list[int], names: tuple[str, ...]) -> str:
    """`a … b`: the first sentence holding a match of each concept, none of them overlapping."""
    matches = in_one_sentence(reading, starts, [(name, _pattern(name)) for name in names])
    return " … ".join(_word(reading, m) for m in matches)


def _word(reading: str, match: re.Match[str]) -> str:
    """The match, carried on to its word's end (`ignor` → `ignoriere`), so the evidence reads."""
    end = match.end()
    stop = min(len(reading), end + 30)
    while end < stop and reading[end].isalnum():
        end += 1
    return reading[match.start() : end]


@cache
def _pattern(name: str) -> re.Pattern[str]:
    """A concept's regex; one with a guard (`subject_words.GUARDED`) is wrapped in its lookarounds."""
    bare = _bare_pattern(name)
    guard = GUARDED.get(name)
    if guard is None:
        return bare
    before, after = guard
    return re.compile(f"{before}(?:{bare.pattern}){after}", bare.flags)


def _bare_pattern(name: str) -> re.Pattern[str]:
    # MULTILINE: a stem like `^[ \t]*system:` reads a role line anywhere in the text
    return word_pattern(name, WORDS, anchor="stem", flags=re.MULTILINE)


def _unlisted_host(plain: str, allowed: Sequence[str]) -> str:
    """The first host named in the text that `security.allowedDomains` does not list (a defanged one
    read with its dots), or a destination with a TLD the bare-host reading leaves out."""
    if "[" in plain or "(" in plain:
        plain = _DEFANGED_DOT.sub(".", plain)
    for ref in host_refs(plain):
        if not is_allowed(ref.host, allowed, ref.path):
            return ref.host
    for match in _DESTINATION_HOST.finditer(plain):
        if not is_allowed(match.group(1).lower(), allowed, ""):
            return match.group(1)
    return ""


def _hidden(text: str) -> str:
    """Text a person reading the rendered lesson would not see, or would misread: an HTML comment,
    a hidden Markdown place, invisible characters, a word mixing look-alike letters of two scripts,
    a letter-spaced word."""
    whole = shown_whole_as_code(text) if "<!--" in text else None
    for comment in comments(text):
        if whole is not None and whole(comment.start, comment.end):
            continue  # an HTML comment quoted as code (`<!-- prettier-ignore -->`) is shown, not hidden
        return text[comment.start : comment.start + EVIDENCE_CHARS]
    for place in hidden_places(text):
        return f"{place.place}: {place.text}"
    for hidden in hidden_characters(text):
        return "invisible characters " + " ".join(f"U+{ord(c):04X}" for c in hidden.chars[:4])
    mixed = next(_mixed_words(text), "")
    if mixed:
        return f"{mixed} (read as {fold_confusables(mixed)})"
    spaced = _LETTER_SPACED.search(text)
    return spaced.group(0) if spaced else ""


def _mixed_words(text: str) -> Iterator[str]:
    """Words that read as Latin once look-alike letters are folded but were not written in it."""
    if text.isascii():
        return
    for match in _WORD.finditer(text):
        word = match.group(0)
        if not word.isascii() and any(c.isascii() for c in word) and fold_confusables(word).isascii():
            yield word
