"""A lab: two network namespaces (twlab-NAME-a and twlab-NAME-b), a TUN device in each with an
address of the lab's own /30 (10.201.0.1 in a, 10.201.0.2 in b by default), and the relay
process between them.

    with Lab(a_to_b=Impairment(delay_ms=50, loss=0.02, seed=1)) as lab:
        server = lab.popen("b", ["arena", "serve", "--host", lab.addresses["b"]])
        lab.run("a", ["python3", "probe.py", lab.addresses["b"]], timeout=30)
        print(lab.stats()["counters"]["a_to_b"]["dropped"])

Everything a lab starts is stopped by pid and by name: `down()` (and leaving the `with` block,
and SIGTERM or SIGHUP to the process in the block) stops the processes `popen` started, asks
the relay to stop (it empties and deletes the namespaces), and then removes by name whatever is
left. The relay also watches its owner (the process that made the lab, unless told otherwise):
when the owner dies, even by SIGKILL, the relay takes the lab down by itself. A lab left by a
killed run is found by name: `Lab(name).up()` removes a stale lab of that name first, and
`clean_stale()` removes every stale one.
"""
import contextlib
import ipaddress
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

from . import netns
from .impairment import Impairment
from .scheduler import DEFAULT_QUEUE_LIMIT, DIRECTIONS

PREFIX = "twlab-"
STATE_ROOT = "/run/twlab"
DEVICE = "twlab0"
DEFAULT_SUBNET = "10.201.0.0/30"
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,23}$")
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START_TIMEOUT = 5.0     # seconds for the relay to open its devices and answer
STOP_TIMEOUT = 5.0      # seconds for the relay to take the lab down after SIGTERM
CONTROL_TIMEOUT = 3.0   # seconds for one control request
STALE_AFTER = 2 * START_TIMEOUT  # seconds: a lab without a relay younger than this may be starting


class LabError(Exception):
    """A lab could not be made, reached or taken down; the message says what to do."""


def availability():
    """(True, None) when labs can run here, else (False, why): root, /dev/net/tun, `ip netns`."""
    if os.geteuid() != 0:
        return False, "not root (network namespaces and TUN devices need CAP_NET_ADMIN)"
    if not os.path.exists("/dev/net/tun"):
        return False, "no /dev/net/tun"
    if shutil.which("ip") is None:
        return False, "no `ip` command (Debian package iproute2)"
    probe = netns.ip("netns", "list")
    if probe.returncode != 0:
        return False, "`ip netns list` failed: %s" % probe.stderr.strip()
    return True, None


def namespaces_of(name):
    return {"a": PREFIX + name + "-a", "b": PREFIX + name + "-b"}


def state_dir_of(name):
    return os.path.join(STATE_ROOT, name)


def relay_pid_of(name):
    """The pid of the named lab's relay when it is alive (checked against its command line,
    so that a reused pid is not taken for it), else None."""
    try:
        with open(os.path.join(state_dir_of(name), "relay.pid")) as f:
            pid = int(f.read().strip())
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            words = f.read().split(b"\0")
    except (OSError, ValueError):
        return None
    spec = os.path.join(state_dir_of(name), "spec.json").encode()
    if b"losslab.relay" in words and spec in words and netns.is_alive(pid):
        return pid
    return None


def known_names():
    """Every lab name found in `ip netns` or in the state directory."""
    names = set()
    for namespace in netns.listed():
        match = re.match(r"^%s(.+)-[ab]$" % re.escape(PREFIX), namespace)
        if match:
            names.add(match.group(1))
    if os.path.isdir(STATE_ROOT):
        names.update(os.listdir(STATE_ROOT))
    return sorted(names)


def remove(name):
    """Takes the named lab down by pid and by name, whatever state it is in; returns the final
    counters when the relay wrote them, else None."""
    pid = relay_pid_of(name)
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        while time.monotonic() < deadline and netns.is_alive(pid):
            time.sleep(0.02)
        if netns.is_alive(pid):
            netns.stop_pids([pid], grace=0)
    problems = [netns.empty_and_delete(namespace) for namespace in namespaces_of(name).values()]
    counters = None
    directory = state_dir_of(name)
    with contextlib.suppress(OSError, ValueError):
        with open(os.path.join(directory, "counters.json")) as f:
            counters = json.load(f)
    shutil.rmtree(directory, ignore_errors=True)
    problems = [p for p in problems if p]
    if problems:
        raise LabError("; ".join(problems))
    return counters


def is_stale(name):
    """A lab whose relay is not running: it had one (relay.pid) that is gone, or it never got
    one and is older than STALE_AFTER seconds (younger, it may be being made right now)."""
    if relay_pid_of(name) is not None:
        return False
    directory = state_dir_of(name)
    if os.path.exists(os.path.join(directory, "relay.pid")):
        return True
    try:
        age = time.time() - os.stat(directory).st_mtime
    except FileNotFoundError:
        return True
    return age > STALE_AFTER


def clean_stale():
    """Removes every stale lab (left by a killed run); returns their names."""
    stale = [name for name in known_names() if is_stale(name)]
    for name in stale:
        remove(name)
    return stale


def request(name, message, timeout=CONTROL_TIMEOUT):
    """Sends one control request to the named lab's relay and returns its JSON reply."""
    path = os.path.join(state_dir_of(name), "control.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        try:
            s.connect(path)
            s.sendall(json.dumps(message).encode() + b"\n")
            reply = b""
            while not reply.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                reply += chunk
        except OSError as error:
            raise LabError("lab %s: its relay does not answer on %s (%s); is it up? (`lab list`)" % (name, path, error))
    answer = json.loads(reply)
    if not answer.get("ok"):
        raise LabError("lab %s: the relay refused %s: %s" % (name, message.get("cmd"), answer.get("error")))
    return answer


class Lab:
    """Two namespaces, a TUN device in each, and the relay between them (see the module doc).

    - Parameters: `name` (default: this process's pid), `a_to_b` and `b_to_a` (`Impairment`s;
      `b_to_a` defaults to `a_to_b` with the seed plus one), `subnet` (a /30 or larger; a gets
      its first host address, b its second), `queue_limit` (packets held per direction, beyond
      which arrivals are dropped and counted as `dropped_overflow`), `owner_pid` (the relay
      takes the lab down when that process exits; default this process, None for none).
    Not thread-safe: one thread drives a lab.
    """

    def __init__(self, name=None, a_to_b=None, b_to_a=None, subnet=DEFAULT_SUBNET,
                 queue_limit=DEFAULT_QUEUE_LIMIT, owner_pid=-1, python=None):
        self.name = name if name is not None else str(os.getpid())
        if not NAME_PATTERN.match(self.name):
            raise LabError("lab name %r: use 1 to 24 of a-z, 0-9 and '-', starting with a letter or digit" % self.name)
        a_to_b = a_to_b or Impairment()
        if b_to_a is None:
            b_to_a = Impairment.from_json(dict(a_to_b.to_json(), seed=a_to_b.seed + 1))
        self.impairments = {"a_to_b": a_to_b, "b_to_a": b_to_a}
        network = ipaddress.ip_network(subnet)
        if network.version != 4 or network.num_addresses < 4:
            raise LabError("subnet %s: the lab needs an IPv4 network of at least a /30" % subnet)
        hosts = list(network.hosts())[:2] if network.num_addresses <= 256 else [network[1], network[2]]
        self.prefix_length = network.prefixlen
        self.addresses = {"a": str(hosts[0]), "b": str(hosts[1])}
        self.namespaces = namespaces_of(self.name)
        self.state_dir = state_dir_of(self.name)
        self.queue_limit = queue_limit
        self.owner_pid = os.getpid() if owner_pid == -1 else owner_pid
        self.python = python or sys.executable
        self.relay = None
        self.processes = []
        self._saved_handlers = {}

    # -- life ------------------------------------------------------------------------------

    def up(self):
        """Makes the namespaces, starts the relay and gives the devices their addresses.

        - Throws: `LabError` when labs cannot run here, when a live lab has this name, or when
          a step fails (everything made so far is removed first).
        """
        ok, why = availability()
        if not ok:
            raise LabError("the loss lab cannot run here: %s" % why)
        if relay_pid_of(self.name) is not None:
            raise LabError("lab %s is up (relay pid %d): `Tools/losslab/lab down --name %s` first"
                           % (self.name, relay_pid_of(self.name), self.name))
        if any(netns.exists(n) for n in self.namespaces.values()) or os.path.exists(self.state_dir):
            print("lab %s: removing a stale lab of this name" % self.name, file=sys.stderr, flush=True)
            remove(self.name)
        try:
            self._make()
        except BaseException:
            self.down()
            raise
        return self

    def _make(self):
        os.makedirs(self.state_dir, mode=0o700)
        spec = {"name": self.name, "namespaces": self.namespaces, "device": DEVICE,
                "impairments": {d: self.impairments[d].to_json() for d in DIRECTIONS},
                "queue_limit": self.queue_limit, "owner_pid": self.owner_pid}
        spec_path = os.path.join(self.state_dir, "spec.json")
        with open(spec_path, "w") as f:
            json.dump(spec, f, indent=1)
        for namespace in self.namespaces.values():
            self._ip("netns", "add", namespace)
        env = dict(os.environ, PYTHONPATH=PACKAGE_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
        with open(os.path.join(self.state_dir, "relay.log"), "w") as log:
            self.relay = subprocess.Popen([self.python, "-m", "losslab.relay", spec_path], stdin=subprocess.DEVNULL,
                                          stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        with open(os.path.join(self.state_dir, "relay.pid"), "w") as f:
            f.write("%d\n" % self.relay.pid)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.relay.poll() is not None:
                raise LabError("lab %s: the relay exited with status %d:\n%s" % (self.name, self.relay.returncode, self.log()))
            try:
                request(self.name, {"cmd": "ping"}, timeout=0.5)
                break
            except LabError:
                if time.monotonic() > deadline:
                    raise LabError("lab %s: the relay did not answer within %.0f s:\n%s" % (self.name, START_TIMEOUT, self.log()))
                time.sleep(0.05)
        for side, namespace in self.namespaces.items():
            self._ip("-n", namespace, "addr", "add", "%s/%d" % (self.addresses[side], self.prefix_length), "dev", DEVICE)
            self._ip("-n", namespace, "link", "set", DEVICE, "up")
            self._ip("-n", namespace, "link", "set", "lo", "up")

    def _ip(self, *arguments):
        result = netns.ip(*arguments)
        if result.returncode != 0:
            raise LabError("lab %s: `ip %s` failed: %s" % (self.name, " ".join(arguments), result.stderr.strip()))

    def log(self):
        with contextlib.suppress(OSError):
            with open(os.path.join(self.state_dir, "relay.log")) as f:
                return f.read()[-4000:]
        return ""

    def down(self):
        """Stops the processes `popen` started, then the relay, then removes by name whatever
        is left. Returns the relay's final counters (as `stats()`), or None when it wrote none."""
        netns.stop_pids([p.pid for p in self.processes if p.poll() is None])
        for process in self.processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=1)
        self.processes.clear()
        counters = remove(self.name)
        if self.relay is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.relay.wait(timeout=1)
            self.relay = None
        return counters

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGHUP):
                if signal.getsignal(sig) == signal.SIG_DFL:
                    self._saved_handlers[sig] = signal.signal(sig, _exit_on_signal)
        try:
            return self.up()
        except BaseException:
            self._restore_handlers()
            raise

    def __exit__(self, *_):
        try:
            self.down()
        finally:
            self._restore_handlers()

    def _restore_handlers(self):
        for sig, handler in self._saved_handlers.items():
            signal.signal(sig, handler)
        self._saved_handlers.clear()

    # -- use -------------------------------------------------------------------------------

    def command(self, side, argv):
        """The argument vector that runs argv inside the side's namespace (`ip netns exec`, which
        execs argv: the process's pid is the program's own)."""
        if side not in self.namespaces:
            raise LabError("side must be 'a' or 'b', got %r" % (side,))
        return ["ip", "netns", "exec", self.namespaces[side]] + list(argv)

    def popen(self, side, argv, **options):
        """Starts argv inside the side's namespace (in a session of its own) and keeps its pid
        for `down()`. Options go to `subprocess.Popen`."""
        options.setdefault("stdin", subprocess.DEVNULL)
        process = subprocess.Popen(self.command(side, argv), start_new_session=True, **options)
        self.processes.append(process)
        return process

    def run(self, side, argv, timeout, **options):
        """Runs argv inside the side's namespace to its end (bounded by timeout seconds)."""
        options.setdefault("stdin", subprocess.DEVNULL)
        return subprocess.run(self.command(side, argv), timeout=timeout, **options)

    def stats(self):
        """The relay's counters now: {"name", "uptime_s", "counters": {"a_to_b": {…}, "b_to_a":
        {…}}, "impairments": {…}}; each direction counts in, out, dropped (random, burst,
        overflow), duplicated, reordered, bytes, queued, write errors, and in/dropped by protocol."""
        answer = request(self.name, {"cmd": "stats"})
        answer.pop("ok", None)
        return answer

    def configure(self, a_to_b=None, b_to_a=None):
        """Replaces one direction's impairment or both while the lab runs (the generators go on)."""
        message = {"cmd": "configure"}
        for direction, impairment in (("a_to_b", a_to_b), ("b_to_a", b_to_a)):
            if impairment is not None:
                message[direction] = impairment.to_json()
                self.impairments[direction] = impairment
        request(self.name, message)

    def describe(self):
        return {"name": self.name, "namespaces": self.namespaces, "addresses": self.addresses,
                "device": DEVICE, "prefix_length": self.prefix_length,
                "relay_pid": self.relay.pid if self.relay else relay_pid_of(self.name),
                "state_dir": self.state_dir, "control_socket": os.path.join(self.state_dir, "control.sock"),
                "owner_pid": self.owner_pid,
                "impairments": {d: self.impairments[d].to_json() for d in DIRECTIONS}}


def _exit_on_signal(number, _frame):
    raise SystemExit(128 + number)
