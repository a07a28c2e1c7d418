"""The systemd supervisor's unit, rendered by the engine_systemd role's own template from the engine_server
and engine_master roles' own variables, checked key by key and with `systemd-analyze verify`.

systemd is not PID 1 on this machine (nor in CI), so `systemctl start heaplab-regionserver` itself never
runs here: this test proves the unit file a cloud node receives is valid and starts exactly what the
process supervisor starts (engine-daemon with the same environment and pid file), nothing more.
"""

import json
import os
import shutil
import subprocess

import pytest

from playbooks.tests.support import PLAYBOOKS, REPO, run_tool

ROLES = PLAYBOOKS / "roles"
DAEMON_SCRIPT = REPO / "engine" / "dist" / "src" / "bin" / "engine-daemon"


def render(tmp_path, role, service):
    """Render heaplab-<service>.service locally; returns (path, the role's variables used)."""
    prefix = role
    home = tmp_path / "engine" / "heaplab-engine-0.1.0"
    (home / "bin").mkdir(parents=True)
    daemon = home / "bin" / "engine-daemon"
    daemon.write_text("#!/bin/sh\nexit 0\n")
    daemon.chmod(0o755)
    work = tmp_path / "current"
    unit = tmp_path / f"heaplab-{service}.service"
    role_vars = {
        "ansible_user": "ubuntu",
        f"{prefix}_home": str(home),
        f"{prefix}_conf_dir": f"{work}/conf",
        f"{prefix}_log_dir": f"{work}/logs",
        f"{prefix}_java_home": "/usr/lib/jvm/java-17-openjdk-amd64",
        f"{prefix}_profile": "cpu,alloc",
    }
    playbook = tmp_path / "render.yml"
    playbook.write_text(
        json.dumps(
            [
                {
                    "name": "Render the unit",
                    "hosts": "localhost",
                    "gather_facts": False,
                    "vars_files": [
                        str(ROLES / role / "defaults" / "main.yml"),
                        str(ROLES / role / "vars" / "main.yml"),
                        str(ROLES / "engine_systemd" / "defaults" / "main.yml"),
                    ],
                    "tasks": [
                        {
                            "name": "Render the role's template",
                            "ansible.builtin.template": {
                                "src": str(ROLES / "engine_systemd" / "templates" / "heaplab.service.j2"),
                                "dest": str(unit),
                                "mode": "0644",
                            },
                            "vars": {
                                "engine_systemd_service": service,
                                "engine_systemd_daemon": f"{{{{ {prefix}_daemon }}}}",
                                "engine_systemd_environment": f"{{{{ {prefix}_environment }}}}",
                                "engine_systemd_pid_file": f"{{{{ {prefix}_pid_file }}}}",
                                "engine_systemd_user": f"{{{{ {prefix}_user }}}}",
                            },
                        }
                    ],
                }
            ]
        )
    )
    local = ("-i", "localhost,", "-c", "local")
    done = run_tool("ansible-playbook", *local, playbook, "-e", json.dumps(role_vars))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return unit, role_vars


def unit_keys(text):
    """[Service] (and other sections) as section -> key -> list of values, comments skipped."""
    sections, current = {}, None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key, []).append(value)
    return sections


@pytest.mark.parametrize(
    ("role", "service"), [("engine_server", "regionserver"), ("engine_master", "master")]
)
def test_the_unit_runs_engine_daemon_with_the_roles_environment(tmp_path, role, service):
    unit, role_vars = render(tmp_path, role, service)
    svc = unit_keys(unit.read_text())["Service"]
    home, log_dir = role_vars[f"{role}_home"], role_vars[f"{role}_log_dir"]
    assert svc["Type"] == ["forking"]
    assert svc["ExecStart"] == [f"{home}/bin/engine-daemon start {service}"]
    assert svc["ExecStop"] == [f"{home}/bin/engine-daemon stop {service}"]
    environment = dict(value.strip('"').split("=", 1) for value in svc["Environment"])
    assert environment == {
        "ENGINE_CONF_DIR": role_vars[f"{role}_conf_dir"],
        "ENGINE_LOG_DIR": log_dir,
        "ENGINE_PID_DIR": log_dir,
        "JAVA_HOME": role_vars[f"{role}_java_home"],
        "ENGINE_PROFILE": "cpu,alloc",
    }
    # engine-daemon writes $ENGINE_PID_DIR/<service>.pid: the unit's PIDFile must be that file.
    assert 'pid_file="$ENGINE_PID_DIR/$service.pid"' in DAEMON_SCRIPT.read_text()
    assert svc["PIDFile"] == [f"{environment['ENGINE_PID_DIR']}/{service}.pid"]
    assert svc["User"] == ["ubuntu"], "User defaults to ansible_user"
    assert svc["LimitNOFILE"] == ["65536"]
    assert svc["Restart"] == ["no"], "a killed server must stay dead during an experiment"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze on this machine")
def test_systemd_analyze_verifies_the_unit(tmp_path):
    unit, _ = render(tmp_path, "engine_server", "regionserver")
    done = subprocess.run(
        ["systemd-analyze", "verify", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "SYSTEMD_LOG_LEVEL": "warning"},
    )
    assert done.returncode == 0, done.stderr
    # verify only warns (exit 0) on unknown keys or bad values: any line about our file is a failure.
    assert str(unit) not in done.stdout + done.stderr, done.stdout + done.stderr


def test_systemd_analyze_would_catch_a_bad_unit(tmp_path):
    """The check above can fail: a broken key in a copy of the unit is reported."""
    if shutil.which("systemd-analyze") is None:
        pytest.skip("no systemd-analyze on this machine")
    unit, _ = render(tmp_path, "engine_server", "regionserver")
    unit.write_text(unit.read_text().replace("LimitNOFILE=65536", "LimitNOFILE=lots"))
    done = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, check=False
    )
    assert str(unit) in done.stdout + done.stderr
