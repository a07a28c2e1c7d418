"""Size a phase by time on the host it runs on (heaplab/lab/phase_time.py).

A phase sized by time names an earlier phase of the same PE command. Just before the phase runs, that
phase's interval log (one histogram per second, <phase>-<host>.hlog) tells how this machine ran it: how long
its client took to level off (heaplab.analysis.steady's rule, which the report applies too) and the rows per
second from there on. The phase's --rows is then raised so that, at that rate, it runs its
warm-up (the floor, or the earlier phase's own, if longer) plus measure_s, and a fifth more; never lowered
below what its args state, never raised above CAP times that.

    {{ hlog_text | heaplab_phase_size(phase, source_args) }}   -> {"args": ..., "value": ..., "why": ..., ...}

source_args: the args the earlier phase ran with on this host, when they are not those it states (it ran
again, below). A warm-up with `level_off` (phase["again"]) whose client never levelled off runs once more,
sized the same way from its own interval log:

    {{ hlog_text | heaplab_phase_again(phase) }}   -> {"again": true, "args": ..., ...} or {"again": false}

The controller runs this filter in heaplab's own Python (ansible-playbook from its venv), which has hdrh;
the rule is imported from this checkout's heaplab, the one the run started from.
"""

import math
import sys
from pathlib import Path

from ansible.errors import AnsibleFilterError
from hdrh.histogram import HdrHistogram

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's heaplab, not another's
from heaplab.analysis.steady import levelled_from

MARGIN = 1.2  # a fifth more than the seconds asked: the rate of a later, fuller table may be lower
CAP = 20  # never more than 20x the stated value: a rate read wrong must not run a phase for hours
PE_DEFAULT_ROWS = 1048576  # HBase PE's --rows when none is given


def _words(args):
    return str(args or "").split()


def flag_value(args, flag, default=None):
    """The integer value of ``--flag=N`` in a PE command line, or ``default``."""
    for w in _words(args):
        if w.startswith(flag + "="):
            return int(w.split("=", 1)[1])
    return default


def threads(args):
    """PE's thread count: its last word."""
    words = _words(args)
    try:
        return int(words[-1])
    except (IndexError, ValueError):
        raise AnsibleFilterError(f"no thread count at the end of the PE command line {args!r}") from None


def with_flag(args, flag, value):
    """The command line with ``flag`` set to ``value`` (put before the command word when absent)."""
    words = _words(args)
    for i, w in enumerate(words):
        if w.startswith(flag + "="):
            words[i] = f"{flag}={value}"
            return " ".join(words)
    return " ".join([*words[:-2], f"{flag}={value}", *words[-2:]])


def intervals(hlog_text):
    """[(start_s, length_s, operations)] of an HdrHistogram interval log (its data lines)."""
    out = []
    for line in str(hlog_text).splitlines():
        if not line or line.startswith(("#", '"')):
            continue
        parts = line.split(",")
        if parts[0].startswith("Tag="):
            parts = parts[1:]
        if len(parts) < 4:
            continue
        count = HdrHistogram.decode(parts[3]).get_total_count()
        out.append((float(parts[0]), float(parts[1]), count))
    return out


def steady_rate(hlog_text):
    """(seconds the log's client took to level off, its operations per second from there on, operations
    in the log, whether it levelled off). A client still climbing at its log's end never levelled off: its
    whole length counts as warm-up and its fastest whole second as its rate, a lower bound of the rate it
    would have reached. (0, 0, 0, False) for a log without intervals."""
    found = intervals(hlog_text)
    if not found:
        return 0.0, 0.0, 0, False
    step = sorted(length for _, length, _ in found)[len(found) // 2]
    whole = [i for i in found if i[1] >= 0.9 * step] or found  # a log's last, partial interval reads low
    rates = [n / length for _, length, n in whole]
    ops = sum(n for _, _, n in found)
    k = levelled_from(rates, 0)
    if k is None:
        return sum(length for _, length, _ in whole), max(rates), ops, False
    kept = whole[k:]
    seconds = sum(length for _, length, _ in kept)
    return k * step, sum(n for _, _, n in kept) / seconds, ops, True


def phase_size(hlog_text, phase, source_args=None, sized=None):
    """The phase's sizing: its args with the flag raised, and why (see the module's docstring).
    ``sized``: the sizing's terms when not the phase's own ``sized`` (its ``again``)."""
    sized = sized or phase["sized"]
    args, flag = phase["args"], "--rows"
    warm_s, ops_per_s, source_ops, levelled = steady_rate(hlog_text)
    want = float(sized["measure_s"])
    seconds = max(float(sized["floor_s"]), warm_s) + want
    source_args = source_args or sized["from_args"]
    source_rows = flag_value(source_args, "--rows", PE_DEFAULT_ROWS) * threads(source_args)
    rows_per_op = source_rows / source_ops if source_ops else 1.0
    rate = ops_per_s * rows_per_op  # rows per second this machine reached in the earlier phase
    n = threads(args)
    stated = flag_value(args, flag, PE_DEFAULT_ROWS)
    per_unit = n  # PE's --rows is per thread
    wanted = math.ceil(rate * seconds * MARGIN / per_unit) if rate > 0 else stated
    most = min(stated * CAP, int(sized.get("max") or stated * CAP))
    value = min(max(stated, wanted), most)
    how = (
        f"levelled off after {warm_s:.0f} s at"
        if levelled
        else f"was still climbing after {warm_s:.0f} s, at best"
    )
    why = (
        f"{sized['from']} {how} {rate:,.0f} rows/s here: {flag}={value} runs "
        f"about {value * per_unit / rate:.0f} s at that rate, for {seconds:.0f} s "
        f"(warm-up {seconds - want:.0f} + measure_s {want:g}) and a fifth more"
        if rate > 0
        else f"{sized['from']} left no interval to read a rate from: {flag}={stated} as stated"
    )
    if value < wanted:
        why += f"; capped at {most} (the rate asked for {wanted}): the phase may keep less than measure_s"
    elif value == stated and rate > 0:
        why += f"; the stated {stated} is already enough"
    return {
        "phase": phase["name"],
        "from": sized["from"],
        "flag": flag,
        "stated": stated,
        "value": value,
        "rate_rows_per_s": round(rate, 1),
        "warm_s": round(warm_s, 1),
        "levelled": levelled,
        "seconds": seconds,
        "margin": MARGIN,
        "args": with_flag(args, flag, value),
        "why": why,
    }


def phase_again(hlog_text, phase):
    """A warm-up's second run, when its first never levelled off: its sizing (``again``: true), from its
    own first run's log; else ``{"again": false}``."""
    record = phase_size(hlog_text, phase, sized=phase["again"])
    if record["levelled"]:
        return {"again": False}
    record["why"] = f"never levelled off, so it ran again: {record['why']}"
    return {**record, "again": True}


class FilterModule:
    def filters(self):
        return {"heaplab_phase_size": phase_size, "heaplab_phase_again": phase_again}
