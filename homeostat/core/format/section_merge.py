"""Three-way merge of KB files section by section, for rebuilding a review PR on a newer base.

Review PRs that add sections to one topic file conflict for git once one of them merges, though
nothing they say disagrees: git merges lines, and both PRs added lines at the same place. The KB's
unit is the section (a rule in a topic file, a `## Heading {#id}` in a document), so `review
merge` merges those instead:

- a section only one side changed (added, rewritten, removed) takes that side's text;
- new sections from both sides are all kept (topic files in id order, documents after the section
  that precedes them in the PR);
- in a document, two additions to one section (each side appended to the same body) are combined;
  two rewrites are not;
- anything else two sides changed differently is a `Conflict`: a rule changed on both sides, a
  document section rewritten on both, a whole-file rule or any other file changed by both.

The result keeps the base side's bytes wherever the PR changed nothing, so a rebuilt PR's diff is
the PR's own change. Pure: texts in, a text (or None for a deleted file) and conflicts out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from homeostat.core.format.markdown import headings, split_frontmatter
from homeostat.core.format.parse import is_topic_file, parse_provenance
from homeostat.core.kb import classify

Text = str | None  # a file's text on one side; None where that side has no such file

_UPDATED = re.compile(r"^updated:[ \t]*(\S.*?)[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Conflict:
    """Something both sides changed differently; `rule` names the rule when it is one."""

    path: str
    why: str
    rule: str = ""
    section: str = ""


@dataclass(frozen=True)
class FileMerge:
    text: Text
    conflicts: tuple[Conflict, ...] = ()


@dataclass(frozen=True)
class Rebuild:
    """The rebuilt PR's files (path to text, None to delete) and what stops it."""

    files: Mapping[str, Text]
    conflicts: tuple[Conflict, ...]


def rebuild(
    paths: set[str] | frozenset[str],
    fork: Mapping[str, Text],
    ours: Mapping[str, Text],
    theirs: Mapping[str, Text],
) -> Rebuild:
    """The PR's `paths` (what it changed since `fork`, where it left the base) merged onto `ours`
    (the base now). Each map gives every path's text on that side (None or absent: no file)."""
    files: dict[str, Text] = {}
    conflicts: list[Conflict] = []
    for path in sorted(paths):
        merged = merge_file(path, fork.get(path), ours.get(path), theirs.get(path))
        conflicts += merged.conflicts
        if not merged.conflicts and merged.text != ours.get(path):
            files[path] = merged.text
    return Rebuild(files, tuple(conflicts))


def merge_file(path: str, base: Text, ours: Text, theirs: Text) -> FileMerge:
    """One file's three-way merge: `base` where the PR started, `ours` the base now, `theirs` the PR."""
    if theirs == base or ours == theirs:
        return FileMerge(ours)
    if ours == base:
        return FileMerge(theirs)
    sides = [text for text in (base, ours, theirs) if text is not None]
    kind = classify(path)
    if ours is None or theirs is None:
        return FileMerge(ours, (_whole(path, kind, "one side removed the file and the other changed it"),))
    if kind is not None and kind[0] == "document":
        return _merge_sections(path, base, ours, theirs, document=True)
    if kind is not None and all(is_topic_file(text) for text in sides):
        return _merge_sections(path, base, ours, theirs, document=False)
    return FileMerge(ours, (_whole(path, kind, "both sides changed it"),))


def _whole(path: str, kind: tuple[str, str] | None, why: str) -> Conflict:
    """A conflict over a whole file: for a one-rule file, its rule (named by the file)."""
    if kind is not None and kind[0] == "rule":
        rule = path.rsplit("/", 1)[-1].removesuffix(".md")
        return Conflict(path, f"rule {rule} was changed on both sides: {why}", rule=rule)
    return Conflict(path, f"{path}: {why}")


# --- sections -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Piece:
    key: str  # the section's {#id}, or "## <heading>" for one without an id
    start: int
    end: int  # through the blank lines after it, up to the next section
    text: str  # heading line to the last non-blank line, with one final newline


@dataclass(frozen=True)
class _Split:
    head: str  # frontmatter and anything before the first section
    pieces: tuple[_Piece, ...]

    def get(self, key: str) -> str | None:
        return next((piece.text for piece in self.pieces if piece.key == key), None)

    @property
    def keys(self) -> list[str]:
        return [piece.key for piece in self.pieces]


def _split(text: str) -> _Split:
    front = split_frontmatter(text)
    offset = front.body_offset if front is not None else 0
    body = text[offset:]
    marks = [h for h in headings(body) if h.level == 2]
    pieces = []
    for index, mark in enumerate(marks):
        end = marks[index + 1].start if index + 1 < len(marks) else len(body)
        raw = body[mark.start : end]
        key = mark.anchor or f"## {mark.title}"
        pieces.append(_Piece(key, offset + mark.start, offset + end, raw.rstrip("\n") + "\n"))
    head_end = offset + (marks[0].start if marks else len(body))
    return _Split(text[:head_end], tuple(pieces))


def _merge_sections(path: str, base: Text, ours: str, theirs: str, *, document: bool) -> FileMerge:
    b, o, t = _split(base or ""), _split(ours), _split(theirs)
    conflicts: list[Conflict] = []
    head = _merge_head(b.head if base is not None else None, o.head, t.head, document=document)
    if head is None:
        conflicts.append(Conflict(path, f"{path}: both sides changed its frontmatter"))
        head = o.head
    text = head + ours[len(o.head) :]
    for key in _keys(b, o, t):
        was, mine, pr = b.get(key), o.get(key), t.get(key)
        if pr == was or mine == pr:
            continue
        if mine == was:
            text = _put(text, key, pr, t, document=document)
            continue
        combined = _combine_additions(was, mine, pr) if document else None
        if combined is not None:
            text = _put(text, key, combined, t, document=document)
        else:
            conflicts.append(_section_conflict(path, key, was, mine, pr, document=document))
    return FileMerge(ours if conflicts else text, tuple(conflicts))


def _keys(*splits: _Split) -> list[str]:
    seen: dict[str, None] = {}
    for split in splits:
        seen.update(dict.fromkeys(split.keys))
    return list(seen)


def _section_conflict(
    path: str, key: str, was: str | None, mine: str | None, pr: str | None, *, document: bool
) -> Conflict:
    if was is None:
        what = "both sides added it, differently"
    elif mine is None or pr is None:
        what = "one side removed it and the other changed it"
    else:
        what = "both sides rewrote it" if document else "both sides changed it"
    if document:
        return Conflict(path, f"section {{#{key}}} of {path}: {what}", section=key)
    return Conflict(path, f"rule {key} in {path}: {what}", rule=key)


def _put(text: str, key: str, section: str | None, theirs: _Split, *, document: bool) -> str:
    """`text` with section `key` replaced by `section` (None removes it, a new key inserts it)."""
    split = _split(text)
    current = next((piece for piece in split.pieces if piece.key == key), None)
    if current is not None:
        raw = text[current.start : current.end]
        if section is None:
            rest = text[: current.start] + text[current.end :]
            return rest.rstrip("\n") + "\n" if current.end >= len(text) else rest
        trailing = raw[len(raw.rstrip("\n")) :] or "\n"
        return text[: current.start] + section.rstrip("\n") + trailing + text[current.end :]
    if section is None:
        return text
    before = _insert_before(split, key, theirs, document=document)
    if before is not None:
        return text[: before.start] + section + "\n" + text[before.start :]
    if not split.pieces:
        return text.rstrip("\n") + "\n" + section if text.strip() else section
    return text.rstrip("\n") + "\n\n" + section


def _insert_before(split: _Split, key: str, theirs: _Split, *, document: bool) -> _Piece | None:
    """Where a new section goes: topic files keep sections in id order; a document places it right
    after the section that precedes it in the PR (first, when nothing does)."""
    if not document:
        return next((piece for piece in split.pieces if piece.key > key), None)
    order = theirs.keys
    here = split.keys
    at = order.index(key)
    earlier = [k for k in order[:at] if k in here]
    if earlier:
        following = here.index(earlier[-1]) + 1
        return split.pieces[following] if following < len(split.pieces) else None
    return split.pieces[0] if split.pieces else None


# --- documents: combining additions ---------------------------------------------------------------


@dataclass(frozen=True)
class _DocSection:
    heading: str
    provenance: str  # the `<!-- homeostat: … -->` line, or ""
    body: str


def _parts(section: str) -> _DocSection:
    heading, _, rest = section.partition("\n")
    first, _, after = rest.lstrip("\n").partition("\n")
    if parse_provenance(first) is not None:
        return _DocSection(heading, first, after.strip("\n"))
    return _DocSection(heading, "", rest.strip("\n"))


def _combine_additions(was: str | None, mine: str | None, pr: str | None) -> str | None:
    """Both sides appended to the same section: its body, then our addition, then the PR's. None
    when either side did anything else (a rewrite, a new heading, a removal)."""
    if was is None or mine is None or pr is None:
        return None
    b, o, t = _parts(was), _parts(mine), _parts(pr)
    if not (o.heading == t.heading == b.heading):
        return None
    start = b.body.rstrip()
    if not (o.body.startswith(start) and t.body.startswith(start)) or not start:
        return None
    added_o, added_t = o.body[len(start) :], t.body[len(start) :]
    if not added_o.strip() or not added_t.strip():
        return None
    if added_t.strip() in added_o:
        body = o.body
    elif added_o.strip() in added_t:
        body = t.body
    else:
        body = start + added_o.rstrip() + added_t
    provenance = _later_provenance(o.provenance, t.provenance)
    lines = [b.heading] + ([provenance] if provenance else []) + [body.strip("\n")]
    return "\n".join(lines) + "\n"


def _later_provenance(mine: str, pr: str) -> str:
    """The provenance with the later `updated` date; the PR's on a tie (it is the newer change)."""
    ours_at = parse_provenance(mine) if mine else None
    theirs_at = parse_provenance(pr) if pr else None
    if theirs_at is None:
        return mine
    if ours_at is not None and ours_at.updated > theirs_at.updated:
        return mine
    return pr


# --- the head: frontmatter ------------------------------------------------------------------------


def _merge_head(base: str | None, ours: str, theirs: str, *, document: bool) -> str | None:
    """The merged frontmatter, or None when both sides changed it differently. A document's
    `updated:` date, which every section patch moves, is the later of the two, not a conflict."""
    if theirs == base or ours == theirs:
        return ours
    if ours == base:
        return theirs
    if not document or base is None:
        return None
    rest = [_UPDATED.sub("updated: -", text) for text in (base, ours, theirs)]
    dates = [found.group(1) for text in (ours, theirs) if (found := _UPDATED.search(text))]
    if rest[2] == rest[0] or rest[1] == rest[2]:
        chosen = ours
    elif rest[1] == rest[0]:
        chosen = theirs
    else:
        return None
    if not dates:
        return chosen
    return _UPDATED.sub(f"updated: {max(dates)}", chosen, count=1)
