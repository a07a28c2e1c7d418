"""The playbooks pass ansible-lint's production profile with no waivers, and parse."""

import json
import shutil
import subprocess

from playbooks.tests.support import LOCAL_INVENTORY, PLAYBOOKS, ansible_env, run_tool, tool


def lint(path, *files):
    """ansible-lint as `make lint` runs it, on the playbooks at ``path`` (or only ``files`` there)."""
    return subprocess.run(
        [tool("ansible-lint"), "--offline", "--profile", "production", "--nocolor", *files],
        cwd=path,
        env=ansible_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_production_profile_passes():
    result = lint(PLAYBOOKS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Profile 'production' was required, and it passed" in result.stdout + result.stderr


def test_no_waivers():
    for name in (".ansible-lint", ".ansible-lint-ignore", ".config/ansible-lint.yml"):
        assert not (PLAYBOOKS / name).exists(), f"{name} would waive rules"
    for path in PLAYBOOKS.rglob("*.yml"):
        assert "noqa" not in path.read_text(), f"{path} waives a rule with noqa"


def test_lint_catches_a_violation(tmp_path):
    """The lint test can fail: a free-form, unnamed command in a copy of the roles is reported (linting the
    changed file alone, with the same profile: the whole tree takes ten times as long)."""
    copy = tmp_path / "playbooks"
    shutil.copytree(PLAYBOOKS, copy, ignore=shutil.ignore_patterns("tests", "__pycache__"))
    tasks = copy / "roles" / "engine_server" / "tasks" / "stop.yml"
    tasks.write_text(tasks.read_text() + "\n- command: echo hi\n")
    result = lint(copy, "roles/engine_server/tasks/stop.yml")
    assert result.returncode != 0
    assert "no-free-form" in result.stdout + result.stderr or "name[missing]" in result.stdout + result.stderr


def test_syntax_check():
    result = run_tool("ansible-playbook", "--syntax-check", "-i", LOCAL_INVENTORY, PLAYBOOKS / "variant.yml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_local_inventory_groups():
    result = run_tool("ansible-inventory", "-i", LOCAL_INVENTORY, "--list", timeout=60, check=True)
    inventory = json.loads(result.stdout)
    assert inventory["regionservers"]["hosts"] == ["localhost"]
    assert inventory["clients"]["hosts"] == ["localhost"]
    assert inventory["_meta"]["hostvars"]["localhost"]["ansible_connection"] == "local"
