"""An entry's page is `homeostat explain`'s own answer (`commands.explain.explain`), seen as the KB's
keeper sees it: whoever opens the dashboard reads the KB repo itself, so the rule's repo and owning
team are taken as the audience instead of the checkout's (which would hide other repos' rules)."""

from __future__ import annotations

from pathlib import Path

from homeostat.core.kb import KB
from homeostat.core.selection.audience import Audience
from homeostat.core.served import served_rule
from homeostat.runs.explain import explain
from homeostat.runs.session import open_session


def explain_rule(root: Path, kb: KB | None, rule_id: str) -> tuple[bool, dict[str, object], str]:
    """(found, explain's facts, the rule's text)."""
    if kb is None:
        return False, {"hint": "The KB could not be read; run homeostat validate."}, ""
    session = open_session(str(root), root, say_scope=False)
    rule = kb.rule(rule_id)
    if rule is not None:
        repo = rule.area.split("/", 1)[0] if session.corpus.multi_repo and "/" in rule.area else None
        teams = frozenset(team.name for team in kb.require_config().team.teams)
        session = session._replace(audience=Audience(repo=repo, member=None, teams=teams))
    result = explain(kb, session, rule_id, None, flag_reasons=True)  # a person's page: the reasons too
    shown = None if rule is None else served_rule(rule)  # its text as every surface shows it
    text = (
        ""
        if shown is None
        else "\n\n".join(part for part in (shown.rule, shown.why, shown.example or "") if part)
    )
    return result.found, result.facts, text
