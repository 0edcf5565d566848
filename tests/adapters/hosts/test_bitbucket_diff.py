"""Reading the lines a change added and removed per file from Bitbucket's raw git-style diff (pure)."""

from __future__ import annotations

import pytest

from homeostat.adapters.hosts.bitbucket_diff import header_path, read_diff

DIFF = """diff --git a/billing/charge.py b/billing/charge.py
index 1111111..2222222 100644
--- a/billing/charge.py
+++ b/billing/charge.py
@@ -2 +2,3 @@ def charge(amount):
-    return gateway.pay(amount)
+    return with_retry(gateway.pay(amount))
+++counter
+
diff --git a/old.py b/old.py
deleted file mode 100644
index 3333333..0000000
--- a/old.py
+++ /dev/null
@@ -1,2 +0,0 @@
-gone
-+++ also gone
diff --git a/logo.png b/logo.png
new file mode 100644
index 0000000..4444444
Binary files /dev/null and b/logo.png differ
diff --git a/notes.md b/notes.md
new file mode 100644
index 0000000..5555555
--- /dev/null
+++ b/notes.md
@@ -0,0 +1 @@
+no newline
\\ No newline at end of file
"""


def test_added_lines_by_file_count_hunks_so_a_plus_plus_line_is_content() -> None:
    assert read_diff(DIFF).added == {
        "billing/charge.py": ["    return with_retry(gateway.pay(amount))", "++counter", ""],
        "notes.md": ["no newline"],
    }


def test_removed_lines_by_file_a_deleted_file_under_its_old_path() -> None:
    assert read_diff(DIFF).removed == {
        "billing/charge.py": ["    return gateway.pay(amount)"],
        "old.py": ["gone", "+++ also gone"],
        "notes.md": [],
    }


def test_context_lines_are_not_added() -> None:
    diff = "--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,4 @@\n keep\n+new\n keep\n-old\n+newer\n"
    assert read_diff(diff).added == {"a.py": ["new", "newer"]}


@pytest.mark.parametrize(
    ("header", "path"),
    [
        ("b/src/a.py", "src/a.py"),
        ("a/a/b.py", "a/b.py"),
        ("b/with space.py\t", "with space.py"),
        ('"b/caf\\303\\251 \\"quoted\\".py"', 'café "quoted".py'),
        ("/dev/null", ""),
    ],
)
def test_header_path_undoes_gits_quoting(header: str, path: str) -> None:
    assert header_path(header) == path


def test_touched_paths_and_a_section_no_header_names() -> None:
    found = read_diff(DIFF)
    assert found.touched == {"billing/charge.py", "old.py", "notes.md"}
    assert found.unnamed  # logo.png: binary, so only the diffstat says which file it is
    assert not read_diff(DIFF.split("diff --git a/logo.png")[0]).unnamed
