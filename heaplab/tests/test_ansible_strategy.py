"""heaplab/run/ansible_strategy.py: `heaplab run` asks for Mitogen's linear strategy without its CPU pinning
(a pinned dependency), and HEAPLAB_ANSIBLE_STRATEGY=linear gives ansible's own. The end-to-end lab tests
run every variant through it; here, a real ansible-playbook shows that a task's command may use every
core the machine lets this process use (Mitogen's own pinning would confine it to one)."""

import os
import subprocess
import sys
from pathlib import Path

from heaplab.run.ansible_strategy import ENV, MITOGEN, strategy_env

PLAY = """- hosts: localhost
  gather_facts: false
  tasks:
    - name: Read the command's CPU mask
      ansible.builtin.command: grep Cpus_allowed_list /proc/self/status
      register: mask
    - name: Print it
      ansible.builtin.debug: {msg: "MASK={{ mask.stdout.split()[-1] }}"}
"""


def test_mitogen_by_default_from_the_installed_package() -> None:
    env = strategy_env({})
    assert env["ANSIBLE_STRATEGY"] == MITOGEN
    assert (Path(env["ANSIBLE_STRATEGY_PLUGINS"]) / f"{MITOGEN}.py").is_file()


def test_linear_asks_for_ansibles_own_strategy() -> None:
    assert strategy_env({ENV: "linear"}) == {}


def test_a_tasks_command_runs_on_every_core(tmp_path: Path) -> None:
    play = tmp_path / "play.yml"
    play.write_text(PLAY)
    playbook = Path(sys.executable).with_name("ansible-playbook")
    python = "ansible_python_interpreter=/usr/bin/python3"
    cmd = [str(playbook), "-i", "localhost,", "-c", "local", "-e", python, str(play)]
    env = {**os.environ, **strategy_env({})}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    status = Path("/proc/self/status").read_text().splitlines()
    mine = next(line for line in status if line.startswith("Cpus_allowed_list"))
    assert f"MASK={mine.split()[-1]}" in done.stdout, done.stdout
