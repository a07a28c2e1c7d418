"""The result a tool marks as its own on stdout: the last line ``HEAPLAB-RESULT: <one-line JSON>``.

Anything else a host prints around it (a pyenv shim's complaints, a motd, a deprecation warning) is
ignored: machine-readable results never depend on a command's stdout being only the tool's
(docs/contracts.md section 5, "Results of the hosts' tools").

    {{ packed.stdout | heaplab_result }}         the parsed JSON of the last marked line
"""

import json

from ansible.errors import AnsibleFilterError

MARK = "HEAPLAB-RESULT: "


def heaplab_result(stdout):
    """The JSON of the last line that starts with MARK; an AnsibleFilterError naming what came instead."""
    lines = str(stdout or "").splitlines()
    for line in reversed(lines):
        if line.startswith(MARK):
            try:
                return json.loads(line[len(MARK) :])
            except ValueError as e:
                why = f"the tool's {MARK.strip()} line is not JSON ({e}): {line[:200]}"
                raise AnsibleFilterError(why) from e
    tail = " | ".join(lines[-3:]) or "no output"
    raise AnsibleFilterError(f"the tool printed no {MARK.strip()} line (its last lines: {tail[:300]})")


class FilterModule:
    """heaplab_result."""

    def filters(self):
        return {"heaplab_result": heaplab_result}
