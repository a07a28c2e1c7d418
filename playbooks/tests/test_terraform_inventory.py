"""The example of the inventory terraform writes (contract A) gives every host what the roles need.

ansible-inventory parses it as ansible will; every host of masters/regionservers/clients must have an
address to reach, a private rpc address, a base directory below the data mount, a data device, and the
cloud choices (systemd supervisor, applied OS settings). provision.yml and variant.yml must accept it
(syntax check and the host-var assertion of provision.yml are exercised by listing its tasks).
"""

import ipaddress
import json

from playbooks.tests.support import PLAYBOOKS, run_tool

EXAMPLE = PLAYBOOKS / "inventories" / "terraform" / "example.yml"
DOCUMENTATION_NETS = [ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")]
PRIVATE_NET = ipaddress.ip_network("10.0.0.0/8")


def inventory():
    done = run_tool("ansible-inventory", "-i", EXAMPLE, "--list", timeout=60, check=True)
    return json.loads(done.stdout)


def test_every_host_has_the_vars_the_roles_need():
    inv = inventory()
    hostvars = inv["_meta"]["hostvars"]
    hosts = {h for group in ("masters", "regionservers", "clients") for h in inv[group]["hosts"]}
    assert len(inv["masters"]["hosts"]) == 1
    assert inv["regionservers"]["hosts"] and inv["clients"]["hosts"]
    assert hosts == set(hostvars)
    for host in hosts:
        hv = hostvars[host]
        public = ipaddress.ip_address(hv["ansible_host"])
        private = ipaddress.ip_address(hv["heaplab_rpc_host"])
        assert any(public in net for net in DOCUMENTATION_NETS), f"{host}: only documentation addresses"
        assert private in PRIVATE_NET, f"{host}: servers bind the private address"
        assert hv["heaplab_base_dir"].startswith(hv["heaplab_data_mount"] + "/"), host
        assert hv["heaplab_data_device"].startswith("/dev/disk/by-id/nvme-Amazon_"), host
        assert hv["heaplab_supervisor"] == "systemd"
        assert hv["heaplab_os_tuning"] == "apply"
        assert hv["ansible_user"] == "ubuntu"
        # A key PATH, never key material; no password of any kind.
        assert hv["ansible_ssh_private_key_file"].startswith("~/")
        assert not any("password" in key or key == "ansible_ssh_pass" for key in hv), host


def test_the_playbooks_accept_it():
    for playbook in ("provision.yml", "variant.yml"):
        done = run_tool("ansible-playbook", "-i", EXAMPLE, "--list-hosts", PLAYBOOKS / playbook)
        assert done.returncode == 0, done.stdout + done.stderr
        for host in ("master", "rs1", "rs2", "rs3", "client1"):
            assert host in done.stdout.split(), f"{playbook} does not target {host}"
