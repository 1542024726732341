"""The offline Terraform gate of `make test`: `terraform validate` and `terraform test` (0032).

    python -m devtools.tfprovider.gate [DIR]    # DIR defaults to terraform/

Builds the schemas first when they are missing (`schema.py`: downloads the cdktf packages from
PyPI once). Starts one `devtools.tfprovider.server` per provider and hands them to both commands
with TF_REATTACH_PROVIDERS. Also writes, under .local/terraform/, one launcher per provider
(`terraform-provider-NAME`) and a CLI configuration whose `dev_overrides` point
hashicorp/google, hashicorp/google-beta and hashicorp/archive at them, so Terraform runs without
`terraform init` and without a registry, also by hand:

    TF_CLI_CONFIG_FILE=$PWD/.local/terraform/terraformrc terraform -chdir=terraform test

Exits non-zero when either command fails. Never deployed.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from devtools.tfprovider import schema, server

ROOT = schema.ROOT
TERRAFORM_DIR = ROOT / "terraform"
WORK_DIR = ROOT / ".local" / "terraform"
# Provider source address -> schema name (schema.PACKAGES).
PROVIDERS = {
    "hashicorp/google": "google",
    "hashicorp/google-beta": "google-beta",
    "hashicorp/archive": "archive",
}


def ensure_schemas(schema_dir: Path = schema.SCHEMA_DIR) -> None:
    """Generate the schemas unless those of the pinned package versions are there."""
    versions = schema_dir / "versions.json"
    current = versions.exists() and json.loads(versions.read_text()) == {
        k: list(v) for k, v in schema.PACKAGES.items()
    }
    if not current or any(not (schema_dir / f"{n}.pb").exists() for n in schema.PACKAGES):
        schema.generate(schema_dir)


def write_cli_config(work_dir: Path = WORK_DIR, schema_dir: Path = schema.SCHEMA_DIR) -> Path:
    """Write the provider launchers and the CLI configuration; return the configuration's path."""
    overrides = []
    for address, name in PROVIDERS.items():
        plugin_dir = work_dir / "providers" / name
        plugin_dir.mkdir(parents=True, exist_ok=True)
        launcher = plugin_dir / f"terraform-provider-{name}"
        launcher.write_text(
            "#!/bin/sh\n"
            f"PYTHONPATH='{ROOT}' exec '{sys.executable}' -m devtools.tfprovider.server"
            f" '{schema_dir / (name + '.pb')}'\n"
        )
        launcher.chmod(0o755)
        overrides.append(f'    "{address}" = "{plugin_dir}"')
    config = work_dir / "terraformrc"
    config.write_text(
        "provider_installation {\n  dev_overrides {\n"
        + "\n".join(overrides)
        + "\n  }\n  direct {}\n}\n"
    )
    return config


@contextlib.contextmanager
def shared_providers(schema_dir: Path = schema.SCHEMA_DIR) -> Iterator[str]:
    """Start one server per provider for several Terraform commands; yield the value of
    TF_REATTACH_PROVIDERS. Without it Terraform starts each provider again for every phase of
    every command (some twenty times for `terraform test`, about a second each when busy)."""
    env = dict(os.environ, TFPROVIDER_SHARED="1", PYTHONPATH=str(ROOT))
    env[server.MAGIC_COOKIE_KEY] = server.MAGIC_COOKIE_VALUE
    env.pop("PLUGIN_CLIENT_CERT", None)  # reattached providers speak plain gRPC on loopback
    processes: list[subprocess.Popen[str]] = []
    reattach = {}
    try:
        for name in PROVIDERS.values():  # started together, then each handshake read
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "devtools.tfprovider.server", schema_dir / f"{name}.pb"],
                    env=env,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        for address, process in zip(PROVIDERS, processes, strict=True):
            assert process.stdout is not None
            handshake = process.stdout.readline().strip().split("|")
            if len(handshake) < 5:
                raise RuntimeError(f"the {address} schema server did not start: {handshake}")
            _core, version, network, addr = handshake[:4]
            reattach[f"registry.terraform.io/{address}"] = {
                "Protocol": "grpc",
                "ProtocolVersion": int(version),
                "Pid": process.pid,
                "Test": True,
                "Addr": {"Network": network, "String": addr},
            }
        yield json.dumps(reattach)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def terraform_env(config: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        TF_CLI_CONFIG_FILE=str(config),
        TF_IN_AUTOMATION="1",
        TF_INPUT="0",
        CHECKPOINT_DISABLE="1",
    )
    env.pop("TF_LOG", None)
    return env


def terraform(
    directory: Path, *args: str, config: Path, reattach: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = terraform_env(config)
    if reattach:
        env["TF_REATTACH_PROVIDERS"] = reattach
    return subprocess.run(
        ["terraform", f"-chdir={directory}", *args, "-no-color"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def main(argv: list[str]) -> int:
    directory = Path(argv[0]).resolve() if argv else TERRAFORM_DIR
    started = time.monotonic()
    ensure_schemas()
    config = write_cli_config()
    with shared_providers() as reattach:
        status = run_commands(directory, config, reattach)
    print(f"Terraform gate: {time.monotonic() - started:.1f}s")
    return status


def run_commands(directory: Path, config: Path, reattach: str) -> int:
    status = 0
    for args in (("validate",), ("test",)):
        step = time.monotonic()
        result = terraform(directory, *args, config=config, reattach=reattach)
        output = (result.stdout + result.stderr).strip()
        if result.returncode != 0:
            print(output)
            status = 1
        else:
            # Keep the summary lines; drop the dev_overrides warning box.
            summary = [
                ln for ln in output.splitlines() if ln.startswith(("Success", "pass", "run"))
            ]
            print("\n".join(summary) if summary else output)
        print(f"terraform {args[0]}: exit {result.returncode} in {time.monotonic() - step:.1f}s")
        if status:
            break
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
