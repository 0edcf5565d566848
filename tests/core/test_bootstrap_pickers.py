"""What each seed topic reads, and what is never read, decided from paths (and a little scanned text).

Pure functions, no checkout: the end-to-end file-open audit is in test_seed.py.
"""

from __future__ import annotations

import pytest

from homeostat.core.bootstrap.pickers import pick, scan_targets
from homeostat.core.bootstrap.sources import excerpt, never_read, readable, refuse_content


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("infra/terraform.tfstate", "Terraform state"),
        ("infra/terraform.tfstate.backup", "Terraform state"),
        ("envs/prod.tfvars.json", "Terraform variables"),
        (".env.local", "env file"),
        ("services/api/.envrc", "env file"),
        ("deploy/ca.PEM", "key or certificate"),
        ("home/.ssh/id_ed25519", "key or certificate"),
        ("ops/kubeconfig", "credentials file"),
        (".npmrc", "credentials file"),
        ("gcp/service-account-prod.json", "credentials file"),
        ("config/Secrets/api.yaml", "secrets folder"),
        ("charts/api/templates/client-secret.yaml", "secrets file"),
        ("web/src/__tests__/Button.tsx", "test"),
        ("web/src/Button.test.tsx", "test"),
        ("pkg/store/store_test.go", "test"),
        ("app/src/test/java/FooTest.java", "test"),
        ("spec/models/user_spec.rb", "test"),
        ("conftest.py", "test"),
    ],
)
def test_the_never_read_list_is_decided_from_the_path(path: str, why: str) -> None:
    assert never_read(path) == why


@pytest.mark.parametrize(
    "path",
    ["src/app/settings.py", "README.md", "charts/api/values.yaml", "src/environment.ts", "docs/testing.md"],
)
def test_ordinary_files_may_be_read(path: str) -> None:
    assert never_read(path) is None


def test_exclude_paths_are_never_read_and_noise_is_left_out_silently() -> None:
    allowed, refused = readable(
        ["src/app.py", "vendor/lib.py", "node_modules/x/index.js", "legacy/old.py", "package-lock.json"],
        exclude=["legacy/**"],
    )
    assert allowed == ["src/app.py"]
    assert refused == {"legacy/old.py": "excluded by sources.excludePaths"}


def test_a_secret_manifest_or_three_findings_refuse_a_file_after_reading() -> None:
    manifest = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n"
    assert refuse_content("deploy/db.yaml", manifest) == "Kubernetes Secret manifest"
    assert refuse_content("deploy/db.yaml", manifest.replace("Secret", "ConfigMap")) is None
    creds = f'A = "ghp_{"Q7w9" * 9}"\nB = "AKIA{"Z7Q2M4XKP8RTW3NB"}"\nC = "sk_live_{"9fK2xQ7mP4vR8tW1zB6nC3hL"}"\n'
    assert refuse_content("src/keys.py", creds) == "holds 3 possible secrets"


def test_an_excerpt_is_cut_at_a_line_end_and_redacted() -> None:
    token = "ghp_" + "Zr5m" * 9
    text = f'TOKEN = "{token}"\n' + "x = 1\n" * 3000
    got = excerpt("src/conf.py", text, limit=1000)
    assert token not in got.render() and got.redactions == 1
    assert got.cut > 0 and got.text.endswith("x = 1") and len(got.text) <= 1000
    assert "more characters not shown]" in got.render()


def test_data_reads_schema_dumps_orm_files_by_their_text_and_the_newest_migrations_of_every_history() -> None:
    paths = [
        "db/schema.sql",
        "src/orders/models.py",
        "src/orders/views.py",
        *(f"services/billing/migrations/{n:04d}_step.sql" for n in range(1, 9)),
        *(f"services/ledger/db/migrate/2024010{n}_step.rb" for n in range(1, 6)),
        "services/search/alembic/versions/ab12_first.py",
        "services/search/alembic/versions/9f00_second.py",
        "services/search/alembic/versions/c3d4_third.py",
    ]
    texts = {
        "src/orders/models.py": "class Order(Base):\n    __tablename__ = 'orders'\n",
        "src/orders/views.py": "def index():\n    return []\n",
        # hash-named: age is the down_revision chain, not the name
        "services/search/alembic/versions/ab12_first.py": 'revision = "ab12"\ndown_revision = None\n',
        "services/search/alembic/versions/c3d4_third.py": 'revision = "c3d4"\ndown_revision = "9f00"\n',
        "services/search/alembic/versions/9f00_second.py": 'revision = "9f00"\ndown_revision = "ab12"\n',
    }
    assert set(scan_targets(paths)) >= set(texts)  # what pick needs to look inside is scanned first
    picked = pick("data", paths, texts)
    assert picked[:2] == ["db/schema.sql", "src/orders/models.py"]
    assert "src/orders/views.py" not in picked
    assert "services/billing/migrations/0008_step.sql" in picked
    assert "services/billing/migrations/0001_step.sql" not in picked
    assert "services/ledger/db/migrate/20240105_step.rb" in picked
    assert "services/search/alembic/versions/c3d4_third.py" in picked  # the chain's head
    assert "services/search/alembic/versions/ab12_first.py" not in picked  # the oldest of three, cut


def test_infrastructure_reads_a_bit_of_every_kind() -> None:
    paths = [
        "charts/api/Chart.yaml",
        "charts/api/values.yaml",
        "charts/api/templates/deployment.yaml",
        "charts/api/templates/_helpers.tpl",
        *(f"infra/modules/m{n}/main.tf" for n in range(12)),
        "deploy/worker.yaml",
        "deploy/notes.yaml",
        "Dockerfile",
        ".github/workflows/ci.yml",
    ]
    texts = {"deploy/worker.yaml": "apiVersion: apps/v1\nkind: Deployment\n", "deploy/notes.yaml": "a: 1\n"}
    picked = pick("infrastructure", paths, texts)
    assert len(picked) == 10
    for path in ("charts/api/Chart.yaml", "infra/modules/m0/main.tf", "deploy/worker.yaml", "Dockerfile"):
        assert path in picked, path
    assert ".github/workflows/ci.yml" in picked and "deploy/notes.yaml" not in picked
