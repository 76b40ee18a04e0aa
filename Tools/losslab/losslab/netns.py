"""Thin wrappers over the Linux calls the lab needs: setns(2) into a named network namespace
(`ip netns` keeps them as /run/netns/NAME), a TUN device opened with the TUNSETIFF ioctl, and
`ip netns` itself for adding, listing, emptying and deleting namespaces.
"""
import contextlib
import ctypes
import fcntl
import os
import signal
import struct
import subprocess
import time

NETNS_DIR = "/run/netns"
CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
IFNAMSIZ = 16

_libc = ctypes.CDLL(None, use_errno=True)


def ip(*arguments, timeout=10):
    """Runs `ip ARGUMENTS…`; returns the CompletedProcess (text, output captured, never raises
    for a non-zero status: callers decide what a failure means)."""
    return subprocess.run(["ip"] + list(arguments), capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def setns(fd):
    """setns(2) with CLONE_NEWNET: moves the calling thread into the namespace fd refers to."""
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        code = ctypes.get_errno()
        raise OSError(code, "setns: " + os.strerror(code))


@contextlib.contextmanager
def inside(namespace):
    """Runs the block with the calling thread in the named namespace, and moves it back after."""
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    target = os.open(os.path.join(NETNS_DIR, namespace), os.O_RDONLY | os.O_CLOEXEC)
    try:
        setns(target)
        try:
            yield
        finally:
            setns(home)
    finally:
        os.close(target)
        os.close(home)


def open_tun(device):
    """Opens /dev/net/tun and attaches it to a new TUN device DEVICE (IFF_TUN | IFF_NO_PI: raw IP
    packets, no packet-information header) in the calling thread's namespace. The device lives
    as long as the returned non-blocking descriptor stays open."""
    if len(device.encode()) >= IFNAMSIZ:
        raise ValueError("device name %r is longer than %d bytes" % (device, IFNAMSIZ - 1))
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", device.encode(), IFF_TUN | IFF_NO_PI))
    except OSError:
        os.close(fd)
        raise
    return fd


def disable_ipv6():
    """Turns IPv6 off in the calling thread's namespace (for devices made after this), so that
    no router solicitation or MLD report crosses the relay and the counters hold only the
    traffic a test sends. Writes /proc/sys/net, which shows the opener's namespace; absent when
    the kernel has no IPv6, which is as good."""
    for key in ("all", "default"):
        path = "/proc/sys/net/ipv6/conf/%s/disable_ipv6" % key
        if os.path.exists(path):
            with open(path, "w") as f:
                f.write("1")


def exists(namespace):
    return os.path.exists(os.path.join(NETNS_DIR, namespace))


def listed():
    """The names of every namespace `ip netns` knows."""
    if not os.path.isdir(NETNS_DIR):
        return []
    return sorted(os.listdir(NETNS_DIR))


def pids_in(namespace):
    result = ip("netns", "pids", namespace)
    if result.returncode != 0:
        return []
    return [int(word) for word in result.stdout.split() if word.isdigit()]


def is_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _is_zombie(pid)


def _is_zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def stop_pids(pids, grace=2.0):
    """SIGTERM to each pid, then SIGKILL to those still alive after `grace` seconds. Returns the
    pids that had to be killed."""
    pids = [pid for pid in pids if pid != os.getpid()]
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(is_alive(pid) for pid in pids):
        time.sleep(0.02)
    killed = [pid for pid in pids if is_alive(pid)]
    for pid in killed:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return killed


def empty_and_delete(namespace, grace=2.0):
    """Stops every process inside the namespace (by the pids `ip netns pids` names), then
    deletes it. Returns an error message, or None when the namespace is gone."""
    if not exists(namespace):
        return None
    stop_pids(pids_in(namespace), grace)
    result = ip("netns", "del", namespace)
    if result.returncode != 0 and exists(namespace):
        return "ip netns del %s: %s" % (namespace, result.stderr.strip())
    return None
