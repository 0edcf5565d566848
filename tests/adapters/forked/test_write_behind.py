"""A cold `context` answers before its cache files are written, and the next session finds them.

The writes run in a detached grandchild holding `writing.lock` (adapters/forked/write_behind.py); a
process that finds no cached corpus waits for that lock before it builds one. Held here with real
processes: the answer and the files are those of writing in-process, a rebuild waits for a writer
at work and loads what it wrote, and the writer holds none of its caller's streams, leaves its
session, and when killed leaves the lock free.
"""

from __future__ import annotations

import fcntl
import marshal
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from kit import REPO

from homeostat.adapters.cache.corpus_cache import INDEX_DIR, load_corpus
from homeostat.adapters.cache.corpus_part import read_part
from homeostat.adapters.forked.write_behind import (
    BEHIND_MIN_RECORDS,
    LOCK_FILE,
    wait_for_writer,
    write_behind,
)

pytestmark = pytest.mark.usefixtures("lone_thread")  # these tests expect forked children

EXAMPLE = REPO / "examples" / "kb"
META = "status: accepted\nsource:\n  type: manual\n  author: ana\ncreated: 2026-01-01\nlastConfirmed: 2026-01-01\n"
RULES = 1_100  # above BEHIND_MIN_RECORDS with the example's own


# Enough text for the parse split (parse_worker.PARSE_MIN_BYTES), with more than BEHIND_MIN_RECORDS
# rules outside the child's share: the cold session counts its part first, the writer the rest
SPLIT_RULES = 1_700
WHY = "Idempotency retries " * 30  # under the 100 words a Why may hold


def _big_kb(root: Path, rules: int = RULES, why: str = "It was slow.") -> Path:
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".homeostat"))
    ui = root / "knowledge/storefront/ui"
    for n in range(rules):
        (ui / f"ui-rule-{n:04}.md").write_text(
            f"---\nid: ui-rule-{n:04}\ntitle: Rule {n}\narea: storefront/ui\nscope: ['src/ui/r{n}/**']\n{META}"
            f"---\n## Rule\nCall `refund_{n}()` in `src/ui/r{n}/app.py`.\n\n## Why\n{why}\n",
            "utf-8",
        )
    return root


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("HOMEOSTAT_")}


def _context(kb: Path) -> list[str]:
    command = [sys.executable, "-m", "homeostat", "-v", "context", "--kb", str(kb), "--repo", "storefront"]
    return [*command, "--files", "src/ui/r7/app.py"]


def _cache(kb: Path) -> dict[str, object]:
    """Each cache file's values: a corpus, a part, the repos, the token counts. Not the stat key
    (stat.json): it names this folder's files by inode and time, and is only written once the newest
    file is two seconds old, which on a loaded machine one of two KBs made a moment apart is and the
    other is not."""
    found: dict[str, object] = {}
    for path in sorted((kb / INDEX_DIR).iterdir()):
        if path.name == "stat.json":
            continue
        if path.name.endswith(".marshal"):
            found[path.name] = marshal.loads(path.read_bytes())
        elif ".part-" in path.name:
            found[path.name] = read_part(str(path))
        elif path.name != LOCK_FILE:
            found[path.name] = path.read_bytes()
    return found


@pytest.mark.parametrize("rules", [RULES, SPLIT_RULES])
def test_a_cold_context_answers_first_and_writes_the_files_written_in_process(
    tmp_path: Path, rules: int
) -> None:
    """Also where the answer counted only the session's part (the larger KB): the writer counts
    billing's rules before it writes."""
    why = WHY if rules == SPLIT_RULES else "It was slow."
    behind, here = _big_kb(tmp_path / "behind", rules, why), _big_kb(tmp_path / "here", rules, why)
    first = subprocess.run(_context(behind), capture_output=True, text=True, env=_env(), check=True)
    assert "search index rebuilt" in first.stderr and "ui-rule-0007" in first.stdout
    wait_for_writer(str(behind / INDEX_DIR))  # the writer is done after this, whether it was before or not
    assert (behind / INDEX_DIR / LOCK_FILE).is_file()  # it was written behind
    load_corpus(here, repo_of=lambda _repos: "storefront")  # written in this process, as before
    assert _cache(behind) == _cache(here)  # the same values (marshal marks which strings a process interned)
    assert any(name.startswith("corpus-") and ".part-" in name for name in _cache(behind))
    second = subprocess.run(_context(behind), capture_output=True, text=True, env=_env(), check=True)
    assert "search index rebuilt" not in second.stderr  # it found the files
    assert second.stdout == first.stdout


def test_a_rebuild_waits_for_a_writer_at_work_and_loads_what_it_wrote(tmp_path: Path) -> None:
    made, waiting = _big_kb(tmp_path / "made"), _big_kb(tmp_path / "waiting")
    subprocess.run(_context(made), capture_output=True, env=_env(), check=True)
    wait_for_writer(str(made / INDEX_DIR))
    folder = waiting / INDEX_DIR
    folder.mkdir(parents=True)
    lock = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT)
    fcntl.flock(lock, fcntl.LOCK_EX)  # a writer at work, as far as anyone can tell
    try:
        started = subprocess.Popen(
            _context(waiting), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env()
        )
        time.sleep(1.5)  # it has found no corpus by now and waits for the lock
        assert started.poll() is None
        for path in (made / INDEX_DIR).iterdir():  # what the writer writes (the key is the content's)
            if path.name != LOCK_FILE:
                shutil.copyfile(path, folder / path.name)
    finally:
        os.close(lock)
    out, err = started.communicate(timeout=60)
    assert started.returncode == 0
    assert b"search index rebuilt" not in err and b"ui-rule-0007" in out


WRITER = """
import os, signal, sys, time
from homeostat.adapters.forked.write_behind import BEHIND_MIN_RECORDS, wait_for_writer, write_behind
folder, fifo, how = sys.argv[1:]
pid_file, done_file = os.path.join(folder, "pid"), os.path.join(folder, "done")

def writes():
    with open(pid_file, "w") as out:
        out.write(str(os.getpid()))
    os.write(1, b"the writer says this to nobody")
    with open(fifo) as go:
        go.read()
    with open(done_file, "w") as out:
        out.write(str(os.getsid(0)))

write_behind(folder, writes, BEHIND_MIN_RECORDS)
print("answered", flush=True)
try:
    os.waitpid(-1, os.WNOHANG)
    print("a child is left")
except ChildProcessError:
    print("no child left")
while not os.path.exists(pid_file):
    time.sleep(0.01)
print("not held" if wait_for_writer(folder, 0.3) else "gave up")
if how == "kill":
    with open(pid_file) as pid:
        os.kill(int(pid.read()), signal.SIGKILL)
else:
    with open(fifo, "w") as go:
        go.write("go")
print("waited" if wait_for_writer(folder, 10) else "free")
if os.path.exists(done_file):
    with open(done_file) as done:
        print("own session" if done.read() != str(os.getsid(0)) else "caller's session")
else:
    print("not done")
"""


@pytest.mark.parametrize("how", ["finish", "kill"])
def test_the_writer_holds_the_lock_apart_from_its_caller_until_it_ends(tmp_path: Path, how: str) -> None:
    """In a fresh process (no thread of a test's server to stop the fork): the caller goes on at
    once with no child of its own left, the writer's output reaches none of the caller's streams,
    the lock is held while it writes, and freed when it finishes or is killed."""
    folder, fifo = tmp_path / "index", tmp_path / "go"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-c", WRITER, str(folder), str(fifo), how],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = done.stdout.split("\n")
    assert lines[:3] == ["answered", "no child left", "gave up"]
    if how == "finish":
        assert lines[3] in ("waited", "free") and lines[4] == "own session"  # it may end before the wait
    else:  # killed while it waits on the fifo: the lock goes with it
        assert lines[3:5] in (["waited", "not done"], ["free", "not done"])
    assert "nobody" not in done.stdout + done.stderr


def test_small_corpora_and_threaded_callers_write_in_process(tmp_path: Path) -> None:
    written: list[int] = []
    write_behind(str(tmp_path / "a"), lambda: written.append(os.getpid()), BEHIND_MIN_RECORDS - 1)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        write_behind(str(tmp_path / "b"), lambda: written.append(os.getpid()), BEHIND_MIN_RECORDS)
    finally:
        stop.set()
        thread.join()
    assert written == [os.getpid(), os.getpid()]
    assert not (tmp_path / "b" / LOCK_FILE).exists()


def test_no_lock_no_wait(tmp_path: Path) -> None:
    assert wait_for_writer(str(tmp_path / "none")) is False
    folder = tmp_path / "index"
    folder.mkdir()
    (folder / LOCK_FILE).write_bytes(b"")
    started = time.monotonic()
    assert wait_for_writer(str(folder)) is False  # a lock no one holds
    assert time.monotonic() - started < 5
