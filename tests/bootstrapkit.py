"""A sample monorepo checkout for seed and bootstrap tests, and a model that drafts from what it is shown.

The checkout holds what a real service repo holds, including everything that must never be read:
Terraform state and variables, an `.env`, a `secrets/` folder, a private key, a Kubernetes `Secret`
manifest under an innocent name, a settings file with three credentials, and tests. Credentials are
built at run time (never literals in this repository). `OpenAudit` records every file the Python
process opens, through the interpreter's own audit hook, so a test can assert what was never opened.
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gitfixtures import git

GITHUB_TOKEN = "ghp_" + "Q7w9" * 9
AWS_KEY = "AKIA" + "Z7Q2" + "M4XK" + "P8RT" + "W3NB"
STRIPE_KEY = "sk_live_" + "9fK2xQ7mP4vR8tW1zB6nC3hL"
DB_URL = "postgres://billing:" + "Xq9" + "vT4mZ8" + "@db.internal:5432/billing"
PLANTED = [GITHUB_TOKEN, AWS_KEY, STRIPE_KEY, "Xq9vT4mZ8"]

NEVER_READ = [
    ".env",
    ".env.production",
    "infra/terraform/terraform.tfstate",
    "infra/terraform/prod.tfvars",
    "secrets/stripe.txt",
    "config/tls/server.key",
    "tests/test_app.py",
    "src/billing/api/test_handlers.py",
]
REFUSED_AFTER_READING = ["deploy/k8s/db-credentials.yaml", "src/billing/settings.py"]


def files() -> dict[str, str]:
    private_key = (
        "-----BEGIN " + "PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END " + "PRIVATE KEY-----\n"
    )
    return {
        "README.md": "# Billing\n\nThe billing service issues invoices and takes payments.\n\n"
        "Run it with `make run`; the API listens on port 8000.\n",
        "pyproject.toml": '[project]\nname = "billing"\nversion = "1.4.0"\ndependencies = ["fastapi", "sqlalchemy"]\n'
        "\n[tool.ruff]\nline-length = 100\n",
        "Makefile": "run:\n\tuvicorn billing.app:app --port 8000\n",
        "src/billing/__init__.py": "",
        "src/billing/app.py": "from fastapi import FastAPI\n\nfrom billing.api.handlers import router\n\n"
        "app = FastAPI()\napp.include_router(router)\n",
        "src/billing/api/handlers.py": "from fastapi import APIRouter\n\nfrom billing.errors import ApiError\n\n"
        'router = APIRouter()\n\n\n@router.post("/invoices")\ndef create_invoice(body: dict) -> dict:\n'
        '    if not body.get("amount"):\n        raise ApiError(400, "amount-missing")\n    return {"ok": True}\n',
        "src/billing/errors.py": "class ApiError(Exception):\n    def __init__(self, status: int, code: str) -> None:\n"
        "        super().__init__(code)\n        self.status = status\n        self.code = code\n",
        "src/billing/db/models.py": "from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column\n\n\n"
        "class Base(DeclarativeBase):\n    pass\n\n\nclass Invoice(Base):\n    __tablename__ = 'invoices'\n"
        "    id: Mapped[int] = mapped_column(primary_key=True)\n    amount_cents: Mapped[int]\n",
        "src/billing/settings.py": f'GITHUB_TOKEN = "{GITHUB_TOKEN}"\nAWS_ACCESS_KEY_ID = "{AWS_KEY}"\n'
        f'STRIPE_KEY = "{STRIPE_KEY}"\n',
        "migrations/0001_create_invoices.sql": "CREATE TABLE invoices (id serial primary key);\n",
        "migrations/0002_add_amount.sql": "ALTER TABLE invoices ADD COLUMN amount_cents integer;\n",
        "migrations/0003_add_customer.sql": "ALTER TABLE invoices ADD COLUMN customer_id integer;\n",
        "migrations/0004_add_status.sql": "ALTER TABLE invoices ADD COLUMN status text;\n",
        "infra/terraform/main.tf": 'resource "aws_db_instance" "billing" {\n  engine = "postgres"\n}\n',
        "infra/terraform/variables.tf": 'variable "region" {\n  default = "eu-west-1"\n}\n',
        "infra/terraform/terraform.tfstate": '{"resources": [{"password": "' + DB_URL + '"}]}\n',
        "infra/terraform/prod.tfvars": f'stripe_key = "{STRIPE_KEY}"\n',
        "charts/billing/Chart.yaml": "apiVersion: v2\nname: billing\nversion: 0.3.0\n",
        "charts/billing/values.yaml": "replicaCount: 2\nimage:\n  repository: example/billing\n",
        "charts/billing/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
        "  name: {{ .Release.Name }}\n",
        "deploy/k8s/worker.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: billing-worker\n",
        "deploy/k8s/db-credentials.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n"
        f"  url: {DB_URL}\n",
        "Dockerfile": 'FROM python:3.12-slim\nCOPY . /app\nCMD ["make", "run"]\n',
        ".github/workflows/ci.yml": "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - run: make test\n",
        ".env": f"DATABASE_URL={DB_URL}\nSTRIPE_KEY={STRIPE_KEY}\n",
        ".env.production": f"STRIPE_KEY={STRIPE_KEY}\n",
        "secrets/stripe.txt": STRIPE_KEY + "\n",
        "config/tls/server.key": private_key,
        "tests/test_app.py": f"TOKEN = '{GITHUB_TOKEN}'\n\ndef test_app():\n    assert True\n",
        "src/billing/api/test_handlers.py": "def test_create():\n    assert True\n",
        "docs/runbook.md": "# Billing runbook\n\nWhat to do when invoices stop.\n\n## Restarting the worker\n\n"
        "Scale `billing-worker` to zero and back; see [the chart](../charts/billing/values.yaml).\n\n"
        "## Paging\n\nPage the payments on-call through the incident tool.\n",
    }


def monorepo(root: Path, origin: str = "https://github.com/example/billing.git") -> Path:
    """The sample checkout, committed, with an `origin` that names the KB's billing repo."""
    for rel, text in files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "assets").mkdir()
    (root / "assets/logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    git(root, "init", "--quiet", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "billing")
    git(root, "remote", "add", "origin", origin)
    return root


class OpenAudit:
    """Every path the process opens while `watching()`, from `sys.addaudithook` (installed once)."""

    _installed = False
    _current: list[str] | None = None
    _lock = threading.Lock()

    @classmethod
    def _hook(cls, event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and cls._current is not None and args and isinstance(args[0], (str, bytes, Path)):
            name = args[0].decode() if isinstance(args[0], bytes) else str(args[0])
            with cls._lock:
                if cls._current is not None:
                    cls._current.append(name)

    @classmethod
    @contextmanager
    def watching(cls) -> Iterator[list[str]]:
        if not cls._installed:
            sys.addaudithook(cls._hook)
            cls._installed = True
        opened: list[str] = []
        cls._current = opened
        try:
            yield opened
        finally:
            cls._current = None


def opened_in(opened: list[str], root: Path) -> set[str]:
    """The checkout-relative paths among `opened`."""
    top = str(root.resolve())
    out: set[str] = set()
    for name in opened:
        resolved = str(Path(name).resolve()) if not name.startswith(top) else name
        if resolved.startswith(top + "/"):
            out.add(resolved[len(top) + 1 :])
    return out


class Drafter:
    """Answers a seed prompt with sections naming the first files it was shown; `version` changes
    the wording, as a fresh draft after a source change would."""

    def __init__(self) -> None:
        self.version = 1
        self.calls: list[str] = []

    def __call__(self, system: str, user: str) -> dict[str, Any]:
        topic = re.search(r"^Document: .* \(([\w-]+)\)\.", user, re.MULTILINE)
        assert topic is not None, user[:200]
        name = topic.group(1)
        self.calls.append(name)
        paths = re.findall(r'<file path="([^"]+)">', user)
        first = paths[0] if paths else "README.md"
        return {
            "sections": [
                {
                    "id": "overview",
                    "heading": "Overview",
                    "body": f"The {name} of billing, as `{first}` shows it (draft {self.version}).",
                },
                {
                    "id": "files",
                    "heading": "Files",
                    "body": "\n".join(f"- `{p}`" for p in paths[:4]),
                },
            ]
        }
