"""CPU seconds of the processes a WebView runs in, read from /proc (Linux).

Wall-clock time inside a page swings by 2x on a shared machine; the CPU a WebKit web process
spends on the same work moves far less. page_cost.py attributes each configuration's web process
(the one that appears when its WebView first loads) and reads its user+system time around each
measurement."""
import os

TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid):
    with open("/proc/%d/stat" % pid, "rb") as handle:
        data = handle.read().decode("ascii", "replace")
    # comm may contain spaces: fields start after the last ')'.
    comm = data[data.index("(") + 1:data.rindex(")")]
    fields = data[data.rindex(")") + 2:].split()
    return comm, int(fields[1]), int(fields[11]) + int(fields[12])  # ppid, utime + stime


def descendants(root=None):
    """{pid: comm} of every live process below `root` (default: this process)."""
    root = root or os.getpid()
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                comm, ppid, _ = _stat(int(entry))
            except (OSError, ValueError, IndexError):
                continue
            parents[int(entry)] = (ppid, comm)
    found, frontier = {}, {root}
    while frontier:
        frontier = {pid for pid, (ppid, _) in parents.items() if ppid in frontier and pid not in found}
        for pid in frontier:
            found[pid] = parents[pid][1]
    return found


def cpu_seconds(pids):
    """Summed user+system CPU seconds of `pids` (a process that has exited counts 0)."""
    total = 0
    for pid in pids:
        try:
            total += _stat(pid)[2]
        except (OSError, ValueError, IndexError):
            pass
    return total / TICKS
