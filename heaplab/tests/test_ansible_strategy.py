"""heaplab/ansible_strategy.py: `heaplab run` asks for Mitogen's linear strategy from the installed package
(a pinned dependency), and HEAPLAB_ANSIBLE_STRATEGY=linear gives ansible's own. The end-to-end lab tests run
every variant through it."""

from pathlib import Path

from heaplab.ansible_strategy import ENV, MITOGEN, strategy_env


def test_mitogen_by_default_from_the_installed_package() -> None:
    env = strategy_env({})
    assert env["ANSIBLE_STRATEGY"] == MITOGEN
    plugins = Path(env["ANSIBLE_STRATEGY_PLUGINS"])
    assert (plugins / f"{MITOGEN}.py").is_file(), plugins


def test_linear_asks_for_ansibles_own_strategy() -> None:
    assert strategy_env({ENV: "linear"}) == {}
