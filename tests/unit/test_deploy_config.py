"""The deployment and the code agree: every entry point Terraform deploys exists in main.py,
and every entry point main.py defines is deployed."""

import ast
import re

from tests.conftest import ROOT


def entry_points_in_main() -> set[str]:
    tree = ast.parse((ROOT / "main.py").read_text())
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any(ast.unparse(d) == "functions_framework.http" for d in node.decorator_list)
    }


def test_terraform_deploys_exactly_the_entry_points_main_defines():
    functions_tf = (ROOT / "terraform" / "functions.tf").read_text()
    implemented = re.search(r"implemented\s*=\s*\[([^\]]*)\]", functions_tf)
    assert implemented is not None
    deployed = set(re.findall(r'"([a-z_]+)"', implemented.group(1)))
    assert deployed == entry_points_in_main()


def test_every_group_routed_by_the_gateway_has_its_function_declared():
    gateway_tf = (ROOT / "terraform" / "gateway.tf").read_text()
    functions_tf = (ROOT / "terraform" / "functions.tf").read_text()
    declared = set(re.findall(r"^\s{4}([a-z_]+)\s+=\s+\{ public", functions_tf, re.MULTILINE))
    routed = set(re.findall(r'function = "([a-z_]+)"', gateway_tf))
    assert {"health", "chat", "tracking", "task_worker"} <= declared
    assert routed
    assert routed <= declared
