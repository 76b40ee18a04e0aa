"""The impairment model: what one direction of the lab does to each packet, seeded.

Pure and clock-free: `Channel.admit(now)` takes the arrival time of one packet (seconds, any
monotonic origin) and returns a `Fate`: dropped (and why), or the times at which its copies
leave (one, or two when duplicated). The relay (relay.py) calls it for every packet; the unit
tests (tests/test_impairment.py) call it on a virtual clock.

Every packet draws the same seven variates from the channel's own `random.Random(seed)`,
whatever the outcome, so one setting never shifts the draws another setting sees: the same
seed loses the same packets with or without jitter, duplication or reordering.

Per packet, in this order:
  1. Gilbert–Elliott: the chain moves (good→bad with `p_good_to_bad`, bad→good with
     `p_bad_to_good`), then the packet is lost with the new state's loss probability.
  2. Random loss: lost with probability `loss`, independently of the chain.
  3. Delay: `delay_ms` plus jitter drawn uniformly from [-jitter_ms, +jitter_ms] (at least 0).
     Jitter never reorders: a packet leaves no earlier than the one admitted before it (a
     FIFO line, as a real link without reordering), which keeps every packet's delay within
     [delay - jitter, delay + jitter].
  4. Reordering: with probability `reorder` the packet is held `reorder_ms` longer and steps out
     of the FIFO line, so that packets admitted within `reorder_ms` after it overtake it.
  5. Duplication: with probability `duplicate` a second copy leaves right after the first.
"""
import math
import random
from dataclasses import dataclass, field, asdict

DRAWS_PER_PACKET = 7


def _check_probability(name, value):
    if not (isinstance(value, (int, float)) and 0.0 <= value <= 1.0 and not math.isnan(value)):
        raise ValueError("%s must be a probability in [0, 1], got %r" % (name, value))


def _check_milliseconds(name, value, maximum=60_000):
    if not (isinstance(value, (int, float)) and 0.0 <= value <= maximum):
        raise ValueError("%s must be milliseconds in [0, %d], got %r" % (name, maximum, value))


@dataclass(frozen=True)
class GilbertElliott:
    """A two-state Markov chain of loss bursts (a bad state loses `loss_bad` of its packets).

    The chain moves once per packet. A bad spell lasts 1/p_bad_to_good packets on average, and
    the chain spends p_good_to_bad / (p_good_to_bad + p_bad_to_good) of the packets in it.
    """
    p_good_to_bad: float
    p_bad_to_good: float
    loss_good: float = 0.0
    loss_bad: float = 1.0

    def __post_init__(self):
        for name in ("p_good_to_bad", "p_bad_to_good", "loss_good", "loss_bad"):
            _check_probability(name, getattr(self, name))
        if self.p_bad_to_good == 0.0 and self.p_good_to_bad > 0.0:
            raise ValueError("p_bad_to_good is 0: once bad, the chain would stay bad for ever")

    @property
    def bad_fraction(self):
        total = self.p_good_to_bad + self.p_bad_to_good
        return self.p_good_to_bad / total if total else 0.0

    @property
    def mean_bad_spell(self):
        """Packets per bad spell on average (1 / p_bad_to_good)."""
        return 1.0 / self.p_bad_to_good if self.p_bad_to_good else math.inf

    @property
    def mean_loss(self):
        bad = self.bad_fraction
        return (1.0 - bad) * self.loss_good + bad * self.loss_bad


@dataclass(frozen=True)
class Impairment:
    """What one direction does to its packets; probabilities are fractions (0.02 is 2%)."""
    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    loss: float = 0.0
    burst: GilbertElliott = None
    reorder: float = 0.0
    reorder_ms: float = 10.0
    duplicate: float = 0.0
    seed: int = 1

    def __post_init__(self):
        _check_milliseconds("delay_ms", self.delay_ms)
        _check_milliseconds("jitter_ms", self.jitter_ms)
        _check_milliseconds("reorder_ms", self.reorder_ms)
        for name in ("loss", "reorder", "duplicate"):
            _check_probability(name, getattr(self, name))
        if self.burst is not None and not isinstance(self.burst, GilbertElliott):
            raise ValueError("burst must be a GilbertElliott or None, got %r" % (self.burst,))
        if not isinstance(self.seed, int):
            raise ValueError("seed must be an integer, got %r" % (self.seed,))

    @property
    def expected_loss(self):
        """The long-run fraction of packets lost (random and burst loss together)."""
        burst = self.burst.mean_loss if self.burst else 0.0
        return 1.0 - (1.0 - self.loss) * (1.0 - burst)

    def to_json(self):
        return asdict(self)

    @classmethod
    def from_json(cls, value):
        value = dict(value)
        unknown = set(value) - {f for f in cls.__dataclass_fields__}
        if unknown:
            raise ValueError("unknown impairment settings: %s" % ", ".join(sorted(unknown)))
        if value.get("burst") is not None:
            value["burst"] = GilbertElliott(**value["burst"])
        return cls(**value)


@dataclass
class Fate:
    """What happens to one packet: `departures` (seconds; empty when dropped), why it was dropped
    ("random" or "burst"), and whether it was picked for reordering or duplication."""
    departures: list = field(default_factory=list)
    dropped: str = None
    reordered: bool = False
    duplicated: bool = False


class Channel:
    """One direction's state: its generator, the Gilbert–Elliott state and the FIFO line.

    Not thread-safe; the relay drives each channel from its one thread.
    """

    def __init__(self, impairment):
        self.impairment = impairment
        self.random = random.Random(impairment.seed)
        self.is_bad = False
        self.line_free_at = -math.inf

    def reconfigure(self, impairment):
        """Takes new settings; the generator and the chain's state go on (no reseeding), so a
        change in the middle of a run does not replay the draws of its start."""
        self.impairment = impairment

    def admit(self, now):
        imp = self.impairment
        draw = self.random.random  # DRAWS_PER_PACKET draws, always, in this order
        u_move, u_burst, u_loss, u_jitter, u_reorder, u_duplicate, _spare = (
            draw(), draw(), draw(), draw(), draw(), draw(), draw())
        burst = imp.burst
        if burst is not None:
            if self.is_bad:
                self.is_bad = u_move >= burst.p_bad_to_good
            else:
                self.is_bad = u_move < burst.p_good_to_bad
            if u_burst < (burst.loss_bad if self.is_bad else burst.loss_good):
                return Fate(dropped="burst")
        if u_loss < imp.loss:
            return Fate(dropped="random")
        delay = max(0.0, imp.delay_ms + imp.jitter_ms * (2.0 * u_jitter - 1.0)) / 1000.0
        fate = Fate()
        if u_reorder < imp.reorder:
            fate.reordered = True
            departure = now + delay + imp.reorder_ms / 1000.0
        else:
            departure = max(now + delay, self.line_free_at)
            self.line_free_at = departure
        fate.departures.append(departure)
        if u_duplicate < imp.duplicate:
            fate.duplicated = True
            fate.departures.append(departure)
        return fate
