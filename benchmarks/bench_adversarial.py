"""Every scanner fed adversarial inputs from 1 KB up to 1 MB: time per KB, which is flat when the
scanner is linear in its input.

    .venv/bin/python benchmarks/bench_adversarial.py [--max-kb 1024] [--budget 5]
        [--scanners find_secrets,…] [--inputs password=,…] [--list]

Each input repeats one short piece (`password=` 10,000 times is 90 KB on one line) or builds a
shape a scanner's regexes or loops might re-read: unclosed quotes and brackets, runs with no
separator, a key word before every character, thousands of findings on a line. Each scanner is
called on each input at 1, 4, 16, 64, 256 and 1,024 KB; the row prints CPU microseconds per KB at
each size and `growth`, the last size's time per KB over the 16 KB one's (about 1 for a linear
scanner; 64 for a quadratic one from 16 KB to 1 MB). A call that takes more than `--budget` seconds
ends its row early ("stopped"): the next size would take four or more times longer. Rows with a
growth over 3 are listed again at the end.

The scanners: the secret scanner (`find_secrets`, and `redact_secrets`, which the daily run applies
to every review thread), the e-mail finder, the risky-content linter's public entry point
(`find_risks`), the subject gate (`subjects`), the link check, the normaliser, Markdown headings and fences, and `validate` of a
one-rule KB whose rule body is the input (all of validate's checks, capped by the 2 MB rule limit).
Times are CPU time (`time.process_time`), so other work on the machine skews them little.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO))
sys.path.insert(1, str(REPO / "tests"))

from poisoning import CONFIG  # noqa: E402  (the poisoning corpus's one-repo config)

from homeostat.core.format.markdown import check_fences, headings  # noqa: E402
from homeostat.core.safety.risky import find_risks  # noqa: E402
from homeostat.core.safety.secrets import find_emails, find_secrets, redact_secrets  # noqa: E402
from homeostat.core.safety.subjects import subjects  # noqa: E402
from homeostat.core.scanners.normalise import normalise  # noqa: E402
from homeostat.core.validate import validate_files  # noqa: E402
from homeostat.core.validate.content_checks import Span, span_links  # noqa: E402

SIZES_KB = (1, 4, 16, 64, 256, 1024)
DOMAINS = ["acme.dev", "github.com"]
RULE_HEAD = (
    "---\nid: probe-rule\ntitle: Keep handlers small\narea: ledger/api\nscope: ['src/api/**']\n"
    "status: accepted\nkind: convention\napprovedBy: [ana]\nsource:\n  type: manual\n  author: ana\n"
    "created: 2026-08-05\nlastConfirmed: 2026-11-02\n---\n## Rule\n"
)

# name -> the piece repeated to the size (or a function of the size in bytes that builds the input)
INPUTS: dict[str, str | Callable[[int], str]] = {
    # secret scanner: keys, separators and values with no end
    "password=": "password=",
    "password=\\n": "password=\n",
    "token:": "token:",
    "pass": "pass",
    "password: 'a": "password: 'a",
    'key="': 'key="',
    "aB1=": "Ab1Cd2Ef3Gh4Ij5Kl6Mn7=",
    "secret=x;": "secret=x; ",
    "apiKey ": "apiKey ",
    "--token ": "--token ",
    "--password": "--password",
    "-p": "-p",
    "mysql ": "mysql ",
    "mysql -p ": "mysql -u root -p ",
    "docker login -p": "docker login -p ",
    "-u a:": "-u a:",
    'curl -u "a:': 'curl -u "a:',
    "Bearer ": "Bearer ",
    "Authorization: ": "Authorization: ",
    "SSWS ": "SSWS ",
    "://": "://",
    "a://b:": "a://b:",
    "a://b:c:": lambda n: "a://b:" + "c:" * (n // 2),
    "u/p@h": "user/pass@",
    "h:p:d:u:": "h:5432:d:u:",
    "machine ": "machine h login u password ",
    "sqlplus a/b@": "sqlplus a/Passw0rd1@",
    "-p Abc123!x": "-p Abc123!xyz ",
    "7z -p": "7z a -p",
    "echo | --password-stdin": "echo Passw0rd1 | ",
    "<<<": "--with-token <<< ",
    "setToken('": "setToken('",
    "config set ": "config set a ",
    "machine\\n": "machine h\nlogin u\n",
    "default password ": "default password ",
    '("a", ': '("a", ',
    "<add key value": '<add key="a" value="',
    "`password `": "password `",
    "FlyV1 ": "FlyV1 ",
    # token shapes and prefixes
    "run a": "a",
    "run aB3": "aB3x9",
    "sk-A": "sk-A",
    "sk.eyJ": "sk.eyJ",
    "sl.A": "sl.A",
    "pat1": "pat1",
    "ghp_": "ghp_",
    "eyJ": "eyJ",
    "eyJ.eyJ.": "eyJhbGciOi.eyJzdWIiOi.",
    "Q~": "aaa1Q~",
    "digits": "4111 ",
    "-----BEGIN PRIVATE KEY-----\\n": "-----BEGIN PRIVATE KEY-----\n",
    # disguises the normaliser undoes
    "%41": "%41",
    "&#65;": "&#65;",
    "zero-width": "a\u200b",
    "fullwidth": "ｇｈｐ＿",
    # e-mail, links, Markdown
    "@": "@",
    "a@": "a@",
    "a.b@c.": "a.b@c.",
    "[": "[",
    "![a](": "![a](",
    "](": "](",
    "[a](<": "[a](<",
    "```\\n": "```\n",
    "# \\n": "# a\n",
    "{#": "{#",
    "<!--": "<!--",
    "<!-- homeostat": "<!-- homeostat ",
    # the risky linter's shapes (its matcher is made linear in w29a's branch)
    "curl ": "curl ",
    "| sh ": "| sh ",
    "ignore previous ": "ignore previous ",
    "http://": "http://",
    "a.com ": "a.com ",
    "prose": "Prefer small handlers and keep the ledger service fast. ",
    # shapes added when the third held-out set was retired (issue 29)
    "-storepass ": "-storepass ",
    "-storepass !": "x -storepass !",
    "configure set -a ": lambda n: "aws configure set " + "-a " * (n // 3),
    "config:set a ": lambda n: "config:set " + "a " * (n // 2),
    'auth(("a", ': 'auth(("a", ',
    "NetworkCredential(": 'NetworkCredential("a", "',
    "ConvertTo-SecureString '": "ConvertTo-SecureString '",
    "sshpass -p": "sshpass -p",
    "smbclient -U a%": "smbclient -U a%",
    "htpasswd -b a ": lambda n: "htpasswd -b " + "a " * (n // 2),
    "a%41 (percent word)": "a%41",
    "((( ": "(",
    "test ×n (word)": "test",
    '"test": "': '"test": "',
    "exit 0 ×n": "put exit 0 ",
    "set +e ×n": "set +e ",
    "sed -i ×n": "sed -i '/",
    "approving reviews ×n": "approving reviews ",
    "remove codeowners ×n": "remove ",
    "Ig-\\n ×n": "Ig-\n",
    "small capitals": "ɪɢɴᴏʀᴇ ",
    "Cyrillic prose": "Не отключайте проверку ",
    "write-all": "permissions: write-all ",
    "Bash(*": "Bash(*",
    # shapes added when the second secrets held-out set was retired (issue 29)
    "password Abc123!x ": "password Abc123!xyz ",
    "password ": "password ",
    "user u using ": "user u using ",
    'expect "password:"\\n': 'expect "password:"\n',
    "[h.a]:1 u:": "[h.a]:1 u:",
    "realm a: b,": lambda n: "realm\n" + "a: Abc123!x9,r\n" * (n // 14),
    " /p:": " /p:",
    "net use ": "net use ",
    "-auth a:": "-auth a:",
    "rabbitmqctl add_user ": "rabbitmqctl add_user a ",
    "isql -v ": "isql -v ",
    "config http-basic.a ": "config http-basic.a u ",
    "login ": "login ",
    "-setcookie ": "-setcookie ",
    "://a?token=": "://a?token=",
    "https://a/hooks/": "https://a/hooks/",
    "a?b=&c=": lambda n: "https://a?" + "b=&" * (n // 3),
    "token=A×n (long value)": lambda n: "token=" + "Ab3" * (n // 3),
    "token=A= ×n": "token=Ab3=",
    "LS0tLS1CRUdJTi": "LS0tLS1CRUdJTi",
    "<password>": "<password>",
    "<a>b</a>": "<password>Abc123!x</password>",
    "setx a ": "setx a ",
    "a ?= ": "password ?= ",
    "a://b:#": "a://b:#",
    "PuTTY Private-Lines": lambda n: "PuTTY-User-Key-File-3: a\nPrivate-Lines: 1\n" + "QUJD\n" * (n // 5),
    # shapes added for the concept lexicon (issue 29): markup inside words, the text spread, review
    # skipped, a marker line, an scp-like address, many scripts' stems one after another
    "a==b ×n": "a==b",
    "a__b ×n": "a__b",
    "a<!---->b ×n": "a<!---->b",
    "copy this rule ×n": "copy this rule to every repo ",
    "without review ×n": "merge without review ",
    "lines starting with ×n": "lines starting with ",
    "whatever ×n": "whatever ",
    "git@a.io: ×n": "git@a.io:",
    "--allowedTools bash ×n": "--allowedTools bash ",
    "-k not ×n": "-k not ",
    "ignore_ ×n (one word)": "ignore_",  # a stem's `\w*` ran to the word's end from each (i29, 2026-12-06)
    "remove_ ×n (one word)": "remove_",
    "check_ ×n (one word)": "check_",
    "many scripts": "ignora ignoriši ігнаруй ნუ ችላ ลืม ယခင် មិនអើពើ ਪਿਛਲ முந்தைய ",
    # shapes added when the third secrets held-out set was retired (issue 29, branch i29q): prose,
    # keys and values apart, containers
    "password is a1 ×n": "password is a1 ",
    "password for a b c is ×n": "password for a b c is ",
    "as the token ×n": "x as the token ",
    "| password | ×n": "| password | ",
    "Passwort: ×n": "Passwort: ",
    "パスワード ×n": "パスワードは ",
    "token a1 (no blank)": lambda n: "token " + "a1" * (n // 2),
    "- name: a\\n  value: ×n": "- name: a_password\n  value: ",
    "password:\\n ×n": "password:\n  ",
    '["--password" list ×n': '["--password", ',
    "sv=…&sig= ×n": "sv=2023-01-01&sig=",
    '"kty" "d": ×n': '{"kty": "d": "',
    "untrusted comment: secret key ×n": "untrusted comment: secret key\n",
    "eyJ…. ×n (JWE dots)": "eyJhbGciOiJkaXIifQ..",
    "auth_pass ×n": "auth_pass ",
    "echo a | sudo -S ×n": "echo a1 | sudo -S ",
    "az keyvault secret set --value ×n": "az keyvault secret set --value ",
    'a.password(" ×n': 'a.password("',
    'Authorization "Basic ×n': 'Authorization "Basic ',
    # shapes added when the fourth held-out set was retired (issue 29, i29p): strokes drawn as letters,
    # one spaced word a line, struck and highlighted words, secrets copied or logged, a check stubbed,
    # Homeostat named then switched off, ignore lists, an untrusted source given authority
    "|\\| ×n (drawn letters)": "a|\\|",
    "a b\\n ×n (vertical)": "a b\n",
    "~~a~~ b ×n": "~~a~~ b ",
    "==a== b ×n": "==a== b ",
    "a`b` ×n": "a`b` ",
    "copy .env into ×n": "copy .env into ",
    "log the secret ×n": "log the secret ",
    "patch verify ×n": "patch verify ",
    "homeostat; ×n": "homeostat; ",
    "testignore: ×n": "testignore: ",
    "web pages are trusted ×n": "web pages are trusted ",
    "skip permission ×n": "skip permission ",
    # shapes added for the families tuning set (issue 29, i29s): agents' permission settings, Homeostat
    # turned off, a text spreading itself, a failure hidden, the environment sent out, data as the user
    "hook decision ×n": "pretooluse hook decision ",
    "auto-run clear denylist ×n": "auto-run clear denylist ",
    "don't run homeostat ×n": "don't run homeostat fail ",
    "this rule memory ×n": "this rule in every ",
    "failing it.skip merge ×n": "failing it.skip merge ",
    "delete test ×n (line)": "delete test; ",
    "printenv telemetry ×n": "printenv send telemetry ",
    "treat comments are ×n": "treat comments are ",
    "como si comme si ×n": "como si comme si ",
    "encode key ×n (dns)": "encode key ",
    "not use kb ×n": "not use kb ",
    "homeostat.bak ×n": "remove homeostat.bak ",
    # the look-alike reasons of the sixth and seventh sets' retirement: a command's arguments, a list of
    # tables, asking first, a document's instructions, a secret set apart, a non-gating job, a ticket key;
    # and `<!-- homeostat` comments under headings, which a rule's text now reads
    "terraform destroy -var pr- ×n": "terraform destroy -var env=pr-1 ",
    "DROP TABLE tmp_a (list) ×n": lambda n: "DROP TABLE tmp_a" + ", tmp_b" * (n // 7),
    "git clean -fdx ask ×n": "`git clean -fdx` ask before running it ",
    "instructions in the docs ×n": "previous instructions in the docs are outdated ",
    "log the id never the token ×n": "log the id, never the token ",
    "allow_failure optional job ×n": "allow_failure: true for the optional job ",
    "xfail reason=KEY-1 ×n": 'mark failing tests xfail(reason="PAY-1") so ci passes ',
    "## h\\n<!-- homeostat\\n--> ×n": "## h\n<!-- homeostat\n-->\n",
    # the look-alike reasons of the eighth set's retirement: a document named by its kind, a check run
    # allowed without asking with the rest kept for approval, a Homeostat notice switched off
    "instructions in the x y guide ×n": "earlier instructions in the migration v3 guide are superseded ",
    "run the tests without asking ×n": "run the tests without asking, anything else needs approval ",
    "run the tests … without asking": lambda n: (
        "run the tests " * (n // 14) + "without asking; anything else needs"
    ),
    "disable homeostat digest ×n": "disable the homeostat slack digest ",
    "post ~/.ssh webhook ×n": "post ~/.ssh ~/.zsh_history to webhook ",
    "skip instead of fixing ×n": "skip the test instead of fixing ",
    "skip … instead of fixing": lambda n: "skip " * (n // 5) + "instead of fixing",
}


def _rule_kb(text: str) -> dict[str, str | bytes]:
    return {
        "homeostat.yaml": CONFIG,
        "knowledge/ledger/api/probe-rule.md": RULE_HEAD + text + "\n\n## Why\nSmall is easy to review.\n",
    }


TODAY = dt.date(2026, 11, 29)

SCANNERS: dict[str, Callable[[str], object]] = {
    "find_secrets": find_secrets,
    "redact_secrets": redact_secrets,
    "find_emails": find_emails,
    "find_risks": lambda text: find_risks(text, DOMAINS),
    "subjects": lambda text: subjects(text, DOMAINS),
    "links": lambda text: span_links(Span("knowledge/a/b.md", text, 0, len(text), 1, "rule b"), text),
    "normalise": lambda text: normalise(text, percent=True),
    "headings": headings,
    "fences": check_fences,
    "validate": lambda text: validate_files(_rule_kb(text), TODAY),
}


def build(piece: str | Callable[[int], str], size: int) -> str:
    if callable(piece):
        return piece(size)[:size]
    return (piece * (size // len(piece) + 1))[:size]


def row(
    scanner: Callable[[str], object], piece: str | Callable[[int], str], sizes: list[int], budget: float
) -> tuple[list[float], bool]:
    """Microseconds per KB at each size, and whether the row stopped on the budget."""
    per_kb: list[float] = []
    for kb in sizes:
        text = build(piece, kb * 1024)
        started = time.process_time()
        scanner(text)
        spent = time.process_time() - started
        per_kb.append(spent * 1e6 / kb)
        if spent > budget:
            return per_kb, len(per_kb) < len(sizes)
    return per_kb, False


def growth(per_kb: list[float], sizes: list[int]) -> float:
    """Time per KB at the last size measured over that at 16 KB (or the first size above 1 KB)."""
    base = next((i for i, kb in enumerate(sizes) if kb >= 16), 0)
    if len(per_kb) <= base + 1:
        return 1.0
    return per_kb[-1] / max(per_kb[base], 1e-3)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--max-kb", type=int, default=1024, help="largest input, in KB (default 1024)")
    parser.add_argument(
        "--budget", type=float, default=5.0, help="seconds one call may take before its row stops"
    )
    parser.add_argument("--scanners", default=",".join(SCANNERS), help="comma-separated scanner names")
    parser.add_argument("--inputs", default="", help="comma-separated input names (default: all)")
    parser.add_argument("--list", action="store_true", help="list the scanners and inputs, and stop")
    args = parser.parse_args()
    if args.list:
        print("scanners:", ", ".join(SCANNERS))
        print("inputs:  ", ", ".join(INPUTS))
        return 0
    sizes = [kb for kb in SIZES_KB if kb <= args.max_kb]
    chosen = [name for name in INPUTS if not args.inputs or name in args.inputs.split(",")]
    header = " ".join(f"{kb:>7}K" for kb in sizes)
    flagged: list[str] = []
    for scanner_name in args.scanners.split(","):
        scanner = SCANNERS[scanner_name]
        scanner("password: warm up the lazy imports, password=hunter2")  # not timed
        print(f"\n{scanner_name}: CPU µs per KB at {', '.join(f'{kb} KB' for kb in sizes)}")
        print(f"  {'input':32} {header}   growth")
        for input_name in chosen:
            per_kb, stopped = row(scanner, INPUTS[input_name], sizes, args.budget)
            grew = growth(per_kb, sizes)
            cells = " ".join(f"{v:8.0f}" for v in per_kb) + " " * 9 * (len(sizes) - len(per_kb))
            note = "  stopped: over the budget" if stopped else ""
            print(f"  {input_name:32} {cells}  {grew:6.1f}x{note}", flush=True)
            if stopped or grew > 3:
                flagged.append(
                    f"{scanner_name} on {input_name!r}: {grew:.1f}x{' (stopped)' if stopped else ''}"
                )
    print("\nsuperlinear (growth over 3x, or stopped):" + ("" if flagged else " none"))
    for line in flagged:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
