"""Checkpointed answers are sealed with a key only the run holds (issue 29): an answer someone wrote onto
the state branch without that key is asked again, never recalled as the model's."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel

from homeostat.core.state.checkpoints import AnswerMemory, RememberedAnswer, seal_key

AT = dt.datetime(2026, 12, 1, 6, tzinfo=dt.UTC)
KEY = "0" * 64


class Draft(BaseModel):
    rule: str


def paid_for(seal: bytes | None, rule: str = "Raise RefundDeclined.") -> RememberedAnswer:
    """The answer a run holding `seal` remembered, as it is written to the state branch."""
    memory = AnswerMemory(seal=seal)
    memory.remember(KEY, Draft(rule=rule), agent="curator", work="", at=AT)
    [answer] = memory.answers()
    return answer


def test_a_run_holding_the_same_secret_recalls_what_an_earlier_run_paid_for() -> None:
    seal = seal_key({"ANTHROPIC_API_KEY": "sk-ant-one"})
    assert AnswerMemory([paid_for(seal)], seal=seal).recall(KEY, Draft) == Draft(rule="Raise RefundDeclined.")


def test_an_answer_written_without_the_secret_or_changed_after_is_asked_again() -> None:
    seal = seal_key({"ANTHROPIC_API_KEY": "sk-ant-one"})
    forged = paid_for(None, "Charge the price the form sends.")
    assert forged.seal == ""
    changed = paid_for(seal).model_copy(update={"answer": {"rule": "Charge the price the form sends."}})
    other = paid_for(seal_key({"ANTHROPIC_API_KEY": "sk-ant-two"}))
    for answer in (forged, changed, other):
        assert AnswerMemory([answer], seal=seal).recall(KEY, Draft) is None


def test_a_run_with_no_secret_recalls_nothing() -> None:
    sealed = paid_for(seal_key({"ANTHROPIC_API_KEY": "sk-ant-one"}))
    assert AnswerMemory([sealed], seal=None).recall(KEY, Draft) is None


def test_the_seal_key_comes_from_the_first_secret_set_and_a_dedicated_one_wins() -> None:
    assert seal_key({}) is None
    assert seal_key({"ANTHROPIC_API_KEY": ""}) is None
    api = seal_key({"ANTHROPIC_API_KEY": "sk-ant-one"})
    assert api is not None and api != b"sk-ant-one"  # derived, never the credential itself
    assert seal_key({"CLAUDE_CODE_OAUTH_TOKEN": "t", "ANTHROPIC_API_KEY": "sk-ant-one"}) == api
    assert seal_key({"HOMEOSTAT_CHECKPOINT_KEY": "k", "ANTHROPIC_API_KEY": "sk-ant-one"}) != api
    assert seal_key({"AWS_BEARER_TOKEN_BEDROCK": "b"}) is not None
