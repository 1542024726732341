"""The offline Terraform gate (decision 0032) rejects mistakes that used to surface only at an
operator's `terraform apply`: each seeded into a copy of terraform/, checked with the real
`terraform validate` / `terraform test` against the google, google-beta and archive schemas."""

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools.tfprovider import gate
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(
    shutil.which("terraform") is None, reason="the terraform CLI is not installed"
)

# Each mistake, as a file added to the copy, and the error `terraform validate` must report.
SEEDS = {
    "unknown attribute": (
        'resource "google_cloud_tasks_queue" "seed_unknown" {\n'
        '  name     = "q"\n'
        '  location = "europe-west1"\n'
        "  max_attempts = 3\n"
        "}\n",
        'An argument named "max_attempts" is not expected here.',
    ),
    "unknown attribute in a nested block": (
        'resource "google_cloudfunctions2_function" "seed_nested" {\n'
        '  name     = "f"\n'
        '  location = "europe-west1"\n'
        "  service_config {\n"
        '    ingress = "ALLOW_ALL"\n'
        "  }\n"
        "}\n",
        'An argument named "ingress" is not expected here.',
    ),
    "unknown attribute, beta provider": (
        'resource "google_api_gateway_api" "seed_beta" {\n'
        "  provider = google-beta\n"
        '  api_id   = "a"\n'
        '  title    = "t"\n'
        "}\n",
        'An argument named "title" is not expected here.',
    ),
    "missing required argument": (
        'resource "google_service_account" "seed_missing" {\n  display_name = "x"\n}\n',
        'The argument "account_id" is required, but no definition was found.',
    ),
    "wrong type": (
        'resource "google_cloud_tasks_queue" "seed_type" {\n'
        '  name     = "q"\n'
        '  location = "europe-west1"\n'
        "  rate_limits {\n"
        '    max_concurrent_dispatches = "many"\n'
        "  }\n"
        "}\n",
        'Inappropriate value for attribute "max_concurrent_dispatches": a number is required.',
    ),
    "block written as an attribute": (
        'resource "google_cloud_scheduler_job" "seed_block" {\n'
        '  name = "j"\n'
        "  retry_config = { retry_count = 1 }\n"
        "}\n",
        'An argument named "retry_config" is not expected here. Did you mean to define a block',
    ),
    "unknown resource type": (
        'resource "google_cloudfunction2_function" "seed_type_name" {}\n',
        "The provider hashicorp/google does not support resource type"
        ' "google_cloudfunction2_function".',
    ),
    "undeclared variable": (
        "locals {\n  seed_undeclared = var.undeclared_seed\n}\n",
        "Reference to undeclared input variable",
    ),
}


@pytest.fixture(scope="module")
def providers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The CLI configuration and TF_REATTACH_PROVIDERS of the gate, as `make test` uses them."""
    gate.ensure_schemas()
    config = gate.write_cli_config(tmp_path_factory.mktemp("terraform-gate"))
    with gate.shared_providers() as reattach:
        yield config, reattach


def copy_terraform(dest: Path, *, with_tests: bool = False) -> Path:
    ignored = [".terraform", ".build", "*.tfstate*", "*.tfvars"]
    if not with_tests:
        ignored.append("tests")
    shutil.copytree(ROOT / "terraform", dest, ignore=shutil.ignore_patterns(*ignored))
    return dest


def run(
    directory: Path, command: str, providers: tuple[Path, str]
) -> subprocess.CompletedProcess[str]:
    config, reattach = providers
    result = gate.terraform(directory, command, config=config, reattach=reattach)
    # Terraform wraps long messages; compare them unwrapped.
    result.stdout = " ".join((result.stdout + result.stderr).split())
    return result


def test_the_configuration_as_committed_validates(
    tmp_path: Path, providers: tuple[Path, str]
) -> None:
    result = run(copy_terraform(tmp_path / "tf"), "validate", providers)
    assert result.returncode == 0, result.stdout
    assert "Success! The configuration is valid" in result.stdout


def test_each_seeded_mistake_fails_validate(tmp_path: Path, providers: tuple[Path, str]) -> None:
    directory = copy_terraform(tmp_path / "tf")
    (directory / "seeded_mistakes.tf").write_text("\n".join(seed for seed, _ in SEEDS.values()))
    result = run(directory, "validate", providers)
    assert result.returncode == 1
    missing = {name: msg for name, (_, msg) in SEEDS.items() if msg not in result.stdout}
    assert not missing, f"not reported: {missing}\n{result.stdout}"
    # Every error is about a seed (the committed files add none, see the test above).
    assert result.stdout.count("Error: ") == len(SEEDS), result.stdout


def test_a_wiring_mistake_fails_terraform_test(tmp_path: Path, providers: tuple[Path, str]) -> None:
    """The plan assertions of terraform/tests/ run: the Scheduler's token audience no longer
    matches tracking_dispatch's URL (an override file, so the committed files stay as they are)."""
    directory = copy_terraform(tmp_path / "tf", with_tests=True)
    (directory / "seed_override.tf").write_text(
        'locals {\n  tracking_dispatch_url = "https://wrong.example"\n}\n'
    )
    result = run(directory, "test", providers)
    assert result.returncode == 1, result.stdout
    assert "The Scheduler's token audience must be tracking_dispatch's URL" in result.stdout
