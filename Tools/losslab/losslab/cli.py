"""`Tools/losslab/lab`: the loss lab from a shell, for suites in any language and for benches.

Every subcommand answers --help. `up`, `stats` and `down` print JSON on standard output;
messages go to standard error. Probabilities are percentages here (--loss 2 is 2%), as netem
spells them; the Python API takes fractions.
"""
import argparse
import json
import os
import sys

from . import lab as labs
from .impairment import GilbertElliott, Impairment
from .scheduler import DEFAULT_QUEUE_LIMIT

# Flag name → (Impairment field, scale from the flag's unit to the field's).
SETTINGS = {"delay": ("delay_ms", 1.0), "jitter": ("jitter_ms", 1.0), "loss": ("loss", 0.01),
            "reorder": ("reorder", 0.01), "reorder-ms": ("reorder_ms", 1.0), "duplicate": ("duplicate", 0.01)}
BURST = {"ge-p": ("p_good_to_bad", 0.01), "ge-r": ("p_bad_to_good", 0.01), "ge-loss-good": ("loss_good", 0.01),
         "ge-loss-bad": ("loss_bad", 0.01)}


def add_impairment_options(parser):
    group = parser.add_argument_group("impairment (both directions; --a-to-b/--b-to-a override one)")
    group.add_argument("--rtt", type=float, metavar="MS", help="round-trip delay: each direction gets RTT/2 (default 0)")
    group.add_argument("--delay", type=float, metavar="MS", help="one-way delay of each direction (default 0)")
    group.add_argument("--jitter", type=float, metavar="MS", default=0.0,
                       help="uniform jitter ±MS around the delay, never reordering (default 0)")
    group.add_argument("--loss", type=float, metavar="PCT", default=0.0, help="random loss, percent (default 0)")
    group.add_argument("--ge-p", type=float, metavar="PCT", help="Gilbert–Elliott: good→bad per packet, percent (off by default)")
    group.add_argument("--ge-r", type=float, metavar="PCT", help="Gilbert–Elliott: bad→good per packet, percent (mean burst 100/r)")
    group.add_argument("--ge-loss-good", type=float, metavar="PCT", default=0.0, help="loss in the good state, percent (default 0)")
    group.add_argument("--ge-loss-bad", type=float, metavar="PCT", default=100.0, help="loss in the bad state, percent (default 100)")
    group.add_argument("--reorder", type=float, metavar="PCT", default=0.0,
                       help="packets held back so that later ones overtake them, percent (default 0)")
    group.add_argument("--reorder-ms", type=float, metavar="MS", default=10.0, help="how long a reordered packet is held (default 10)")
    group.add_argument("--duplicate", type=float, metavar="PCT", default=0.0, help="packets sent twice, percent (default 0)")
    group.add_argument("--seed", type=int, default=1, help="seed of a→b; b→a uses SEED+1 (default 1)")
    group.add_argument("--a-to-b", metavar="K=V,…", default="",
                       help="overrides for a→b only, flag names without dashes: delay=30,loss=5,ge-p=1,seed=9")
    group.add_argument("--b-to-a", metavar="K=V,…", default="", help="overrides for b→a only, as --a-to-b")


def impairments_from(arguments):
    if arguments.rtt is not None and arguments.delay is not None:
        raise labs.LabError("give --rtt or --delay, not both")
    base = {"delay": arguments.rtt / 2 if arguments.rtt is not None else (arguments.delay or 0.0),
            "jitter": arguments.jitter, "loss": arguments.loss, "reorder": arguments.reorder,
            "reorder-ms": arguments.reorder_ms, "duplicate": arguments.duplicate, "ge-p": arguments.ge_p,
            "ge-r": arguments.ge_r, "ge-loss-good": arguments.ge_loss_good, "ge-loss-bad": arguments.ge_loss_bad}
    result = {}
    for direction, overrides, seed in (("a_to_b", arguments.a_to_b, arguments.seed),
                                       ("b_to_a", arguments.b_to_a, arguments.seed + 1)):
        values = dict(base, seed=seed)
        for pair in filter(None, overrides.split(",")):
            key, _, value = pair.partition("=")
            key = key.strip()
            if key not in SETTINGS and key not in BURST and key != "seed":
                raise labs.LabError("--%s: unknown setting %r (known: %s, seed)" % (
                    direction.replace("_", "-"), key, ", ".join(list(SETTINGS) + list(BURST))))
            try:
                values[key] = int(value) if key == "seed" else float(value)
            except ValueError:
                raise labs.LabError("--%s: %s=%r is not a number" % (direction.replace("_", "-"), key, value))
        where = "" if not overrides else " (after --%s)" % direction.replace("_", "-")
        for key, (_, scale) in list(SETTINGS.items()) + list(BURST.items()):
            value = values[key]
            if value is None:
                continue
            high = 100.0 if scale == 0.01 else 60_000.0
            if not 0.0 <= value <= high:
                raise labs.LabError("--%s %g%s: must be %s in 0…%g" % (
                    key, value, where, "a percentage" if scale == 0.01 else "milliseconds", high))
        fields = {SETTINGS[k][0]: values[k] * SETTINGS[k][1] for k in SETTINGS}
        try:
            if values["ge-p"] is not None or values["ge-r"] is not None:
                if values["ge-p"] is None or values["ge-r"] is None:
                    raise labs.LabError("Gilbert–Elliott needs both --ge-p and --ge-r")
                if values["ge-r"] == 0 and values["ge-p"] > 0:
                    raise labs.LabError("--ge-r 0%s: a bad spell would never end; give --ge-r above 0" % where)
                fields["burst"] = GilbertElliott(**{BURST[k][0]: values[k] * BURST[k][1] for k in BURST})
            result[direction] = Impairment(seed=values["seed"], **fields)
        except ValueError as error:
            raise labs.LabError("%s: %s" % (direction, error))
    return result


def emit(value):
    print(json.dumps(value, indent=1), flush=True)


def command_up(arguments):
    impairments = impairments_from(arguments)
    lab = labs.Lab(name=arguments.name, a_to_b=impairments["a_to_b"], b_to_a=impairments["b_to_a"],
                   subnet=arguments.subnet, queue_limit=arguments.queue_limit, owner_pid=arguments.owner_pid)
    if arguments.replace and labs.relay_pid_of(lab.name) is not None:
        labs.remove(lab.name)
    lab.up()
    emit(lab.describe())


def command_down(arguments):
    if arguments.name not in labs.known_names():
        raise labs.LabError("no lab named %s (`lab list` shows them)" % arguments.name)
    counters = labs.remove(arguments.name)
    emit(counters or {"name": arguments.name, "counters": None})


def command_stats(arguments):
    answer = labs.request(arguments.name, {"cmd": "stats"})
    answer.pop("ok", None)
    emit(answer)


def command_set(arguments):
    impairments = impairments_from(arguments)
    labs.request(arguments.name, {"cmd": "configure", **{d: i.to_json() for d, i in impairments.items()}})
    emit({d: i.to_json() for d, i in impairments.items()})


def command_exec(arguments):
    words = arguments.command[1:] if arguments.command[:1] == ["--"] else arguments.command
    if not words:
        raise labs.LabError("exec: give the command after --: lab exec --name N --side a -- CMD …")
    namespace = labs.namespaces_of(arguments.name)[arguments.side]
    if labs.relay_pid_of(arguments.name) is None:
        raise labs.LabError("no running lab named %s (`lab list` shows them)" % arguments.name)
    os.execvp("ip", ["ip", "netns", "exec", namespace] + words)


def command_list(_arguments):
    for name in labs.known_names():
        pid = labs.relay_pid_of(name)
        print("%s\t%s" % (name, "up, relay pid %d" % pid if pid else "stale (`lab clean` removes it)"))


def command_clean(_arguments):
    for name in labs.clean_stale():
        print("removed stale lab %s" % name, file=sys.stderr)


def parser():
    top = argparse.ArgumentParser(prog="lab", description="The loss lab: two network namespaces joined by an impairing relay "
                                  "of TUN devices (needs root and /dev/net/tun). Probabilities are percentages.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    up = commands.add_parser("up", help="make a lab and print its description as JSON",
                             description="Makes namespaces twlab-NAME-a and -b, a TUN device twlab0 in each with "
                             "addresses of SUBNET (a: first host, b: second), and the relay; prints JSON.")
    up.add_argument("--name", default=str(os.getpid()), help="the lab's name, 1–24 of a-z 0-9 - (default: this pid)")
    up.add_argument("--subnet", default=labs.DEFAULT_SUBNET, help="the lab's own IPv4 network (default %(default)s)")
    up.add_argument("--queue-limit", type=int, default=DEFAULT_QUEUE_LIMIT, metavar="PACKETS",
                    help="packets held per direction; more are dropped as overflow (default %(default)s)")
    up.add_argument("--owner-pid", type=int, default=None, metavar="PID",
                    help="take the lab down when process PID exits (default: the lab stays until `lab down`)")
    up.add_argument("--replace", action="store_true", help="take down a running lab of the same name first")
    add_impairment_options(up)
    up.set_defaults(run=command_up)

    down = commands.add_parser("down", help="take a lab down and print its final counters as JSON",
                               description="Stops the relay and every process in the lab's namespaces, deletes "
                               "them, and prints the final counters.")
    down.add_argument("--name", required=True)
    down.set_defaults(run=command_down)

    stats = commands.add_parser("stats", help="print the relay's counters as JSON")
    stats.add_argument("--name", required=True)
    stats.set_defaults(run=command_stats)

    configure = commands.add_parser("set", help="replace a running lab's impairment (both directions)",
                                    description="Replaces both directions' impairment with the one these options "
                                    "describe (options left out take their defaults, not their current values).")
    configure.add_argument("--name", required=True)
    add_impairment_options(configure)
    configure.set_defaults(run=command_set)

    run = commands.add_parser("exec", help="run a command inside one of the lab's namespaces",
                              description="Runs COMMAND in namespace twlab-NAME-SIDE (ip netns exec), as this process.")
    run.add_argument("--name", required=True)
    run.add_argument("--side", required=True, choices=("a", "b"))
    run.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGUMENTS…")
    run.set_defaults(run=command_exec)

    listing = commands.add_parser("list", help="list labs, running or stale")
    listing.set_defaults(run=command_list)
    clean = commands.add_parser("clean", help="remove every stale lab (whose relay is gone)")
    clean.set_defaults(run=command_clean)
    return top


def main(argv=None):
    arguments = parser().parse_args(argv)
    try:
        arguments.run(arguments)
    except labs.LabError as error:
        print("lab: %s" % error, file=sys.stderr)
        return 1
    return 0
