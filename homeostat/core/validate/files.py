"""The errors `validate` finds in single files of a KB being edited, kept section by section.

The daily run checks each lesson by the files it touches, each with only homeostat.yaml beside it,
and each member's daily PR by the whole KB with the change in it. On a KB whose topic files hold a
thousand sections, checking a whole file (let alone the KB) per lesson was most of the run. So a
file's errors are kept per topic-file section (`TopicPart`): an edit that changes a few sections is
checked by those sections alone, cut out with the file's frontmatter, and every other section keeps
its errors, moved by the lines the edit added. Where reading the sections alone could differ from
reading the file (a private key or a merge-conflict marker can reach across sections; a section id
used twice in the file shares one text), the whole file is checked, as before.

The cross-file checks (an id used twice, a contradiction naming an unknown rule) read the KB's id
index instead (`check_rule_ids`), so a daily PR is checked by the files it changes, not the KB.
"""

from __future__ import annotations

import datetime as dt
from bisect import bisect_right
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from homeostat.core.findings import Finding
from homeostat.core.format.parse import TopicParse, TopicWindow, topic_window
from homeostat.core.kb import CONFIG_FILE, KB, load_kb
from homeostat.core.validate import validate_kb
from homeostat.core.validate.structure_checks import check_rule_ids

# Text that one section's checks may read past its end: a private key's body, merge-conflict markers.
_REACHING = ("PRIVATE KEY", "PuTTY-User-Key-File", "<<<<<<<", ">>>>>>>")
_KEPT = 8  # versions of one file kept to check the next edit against


def _sort_key(f: Finding) -> tuple[str, int, str, str, str]:
    return (f.file, f.line, f.severity, f.check, f.message)


@dataclass(frozen=True)
class _Checked:
    """One version of a file and its errors: `head` (before the first section, or all of a file
    that is not a topic file) and one tuple per part of `topic`."""

    text: str
    topic: TopicParse | None
    head: tuple[Finding, ...]
    parts: tuple[tuple[Finding, ...], ...] = ()

    @property
    def errors(self) -> tuple[Finding, ...]:
        return self.head + tuple(f for part in self.parts for f in part)


class FileErrors:
    """`of(kb, path)`: the errors `validate` reports in `path` checked with only the KB's
    homeostat.yaml beside it, leaving out the cross-file conflict checks; `in_kb(kb, paths)`: the
    errors the whole KB's validation reports in `paths`."""

    def __init__(self, today: dt.date) -> None:
        self.today = today
        self._known: dict[str, list[_Checked]] = {}

    def in_kb(self, kb: KB, paths: Collection[str]) -> list[Finding]:
        """What `validate_kb(kb).errors` holds for `paths`, in the same order. A document's checks
        read the other documents (citation loops, citations of KB documents), so an edited document
        is checked beside every document."""
        documents = {d.file for d in kb.documents}
        found = {f for path in paths if path not in documents for f in self.of(kb, path)}
        if documents & set(paths):
            result = validate_kb(kb.only(documents), self.today, errors_only=True)
            found |= {f for f in result.errors if f.file in paths and f.check != "conflict"}
        found |= {f for f in check_rule_ids(kb, paths) if f.severity == "error"}
        return sorted(found, key=_sort_key)

    def of(self, kb: KB, path: str) -> tuple[Finding, ...]:
        text = kb.files.get(path)
        if text is None:
            return ()
        known = self._known.setdefault(path, [])
        for seen in known:
            if seen.text == text:
                return seen.errors
        topic = kb.topic_parse(path)
        checked: _Checked | None = None
        if topic is not None and not _reaches(text):
            for old in _candidates(known):
                checked = self._edited(kb, path, old, topic)
                if checked is not None:
                    break
        if checked is None:
            checked = self._whole(kb, path, topic)
        if len(known) >= _KEPT:
            del known[1]  # the first version (the base the run started from) stays
        known.append(checked)
        return checked.errors

    def _whole(self, kb: KB, path: str, topic: TopicParse | None) -> _Checked:
        text = kb.files[path]
        result = validate_kb(kb.only([path]), self.today, errors_only=True)
        errors = [f for f in result.errors if f.file == path and f.check != "conflict"]
        if topic is None:
            return _Checked(text, None, tuple(errors))
        starts = [part.line for part in topic.parts]
        return _Checked(text, topic, *_by_part(errors, starts))

    def _edited(self, kb: KB, path: str, old: _Checked, topic: TopicParse) -> _Checked | None:
        """The new version's errors from `old`'s, checking only the sections the edit changed."""
        if old.topic is None or _reaches(old.text):
            return None
        text = kb.files[path]
        window = topic_window(old.topic, old.text, text)
        if window is None or not _ids_alone(old.topic, topic, window):
            return None
        head_end = topic.parts[0].start
        first_line = topic.parts[0].line
        line = old.topic.parts[window.first].line
        cut = self._errors(kb, path, text[:head_end] + window.text)
        inside = [
            Finding(f.file, f.line - first_line + line, f.severity, f.check, f.message)
            for f in cut
            if f.line >= first_line
        ]
        count = len(topic.parts) - len(old.topic.parts) + window.last - window.first + 1
        starts = [part.line for part in topic.parts[window.first : window.first + count]]
        _, middle = _by_part(inside, starts, head=False)
        after = tuple(
            tuple(Finding(f.file, f.line + window.lines, f.severity, f.check, f.message) for f in part)
            for part in old.parts[window.last + 1 :]
        )
        return _Checked(text, topic, old.head, old.parts[: window.first] + middle + after)

    def _errors(self, kb: KB, path: str, text: str) -> list[Finding]:
        """`path` holding `text`, validated beside homeostat.yaml alone."""
        alone = load_kb({CONFIG_FILE: kb.files.get(CONFIG_FILE, ""), "knowledge/": "", path: text})
        result = validate_kb(alone, self.today, errors_only=True)
        return [f for f in result.errors if f.file == path and f.check != "conflict"]


def _candidates(known: Sequence[_Checked]) -> list[_Checked]:
    """The base version first, then the latest."""
    return [*known[:1], *reversed(known[1:])]


def _reaches(text: str) -> bool:
    return any(marker in text for marker in _REACHING)


def _ids_alone(old: TopicParse, new: TopicParse, window: TopicWindow) -> bool:
    """No section the edit touched shares its id with another section of the file (a rule's text is
    its id's first section, so a shared id ties two sections' checks together)."""
    count = len(new.parts) - len(old.parts) + window.last - window.first + 1
    for parse, parts in (
        (old, old.parts[window.first : window.last + 1]),
        (new, new.parts[window.first : window.first + count]),
    ):
        ids = Counter(part.section.id for part in parse.parts if part.section is not None)
        if any(part.section is not None and ids[part.section.id] > 1 for part in parts):
            return False
    return True


def _by_part(
    errors: Sequence[Finding], starts: Sequence[int], *, head: bool = True
) -> tuple[tuple[Finding, ...], tuple[tuple[Finding, ...], ...]]:
    """Errors sorted by line, split at each part's first line: those before the first, and one
    tuple per part."""
    before: list[Finding] = []
    parts: list[list[Finding]] = [[] for _ in starts]
    for finding in sorted(errors, key=_sort_key):
        at = bisect_right(starts, finding.line) - 1
        if at >= 0:
            parts[at].append(finding)
        elif head:
            before.append(finding)
    return tuple(before), tuple(tuple(part) for part in parts)
