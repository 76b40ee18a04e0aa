#!/usr/bin/env python3
"""The receiving side of Tickwire's UDP packet layer (PROTOCOL.md 1A.3-1A.5), written from
PROTOCOL.md alone, beside packet_codec.py (which decodes one packet, 1A.2 and 1A.6).

A Receiver takes the packets one peer sent, in the order they arrive, and returns the messages
each delivers, or refuses a packet: for its format (1A.6, through packet_codec.decode) or for
breaking a channel's rules (1A.4 and 1A.5: messageTooLarge, fragmentCountMismatch,
reliableProtocolViolation). Stale and duplicate packets, fragments of completed or dropped
messages and duplicate reliable messages are dropped without error, as 1A.3-1A.5 say. Time does
not pass: no reassembly times out (the vectors of vectors/packet/ that hold a sequence of packets
are all received at one instant). The conformance adapter answers `receive` requests with it.
"""
from packet_codec import FRAGMENT, FRAGMENT_TYPE, MAX_FRAGMENTS, MESSAGE, PacketError, decode

RELIABLE = 1
LIMITS = {"maximumMessageBytes": 262144, "maximumFragmentsPerMessage": MAX_FRAGMENTS, "maximumUnreliableReassemblies": 16,
          "maximumReassemblyBytes": 1 << 20, "reliableReceiveWindow": 256, "receivedPacketHistory": 256}


def newer(a, b):
    """Sequence or message id `a` is newer than `b` (1A.3): 0 < (a - b) mod 2^16 < 32768."""
    return 0 < (a - b) % 65536 < 32768


class Reassembly:
    """One fragmented message: its count and the fragments held, by index."""

    def __init__(self, message_id, count):
        self.message_id, self.count, self.fragments = message_id, count, {}

    def store(self, index, data):
        """False when the index is already held (the fragment is dropped)."""
        if index in self.fragments:
            return False
        self.fragments[index] = data
        return True

    def message(self):
        return b"".join(self.fragments[i] for i in range(self.count)) if len(self.fragments) == self.count else None


class Receiver:
    """One endpoint's receiving state, from its first packet on."""

    def __init__(self, limits=None):
        self.limits = dict(LIMITS, **(limits or {}))
        self.newest, self.slots = None, {}
        self.due, self.held, self.reliable = 0, {}, None
        self.unreliable, self.newest_completed = [], None

    def is_stale(self, sequence):
        history = self.limits["receivedPacketHistory"]
        return self.newest is not None and not newer(sequence, self.newest) and (self.newest - sequence) % 65536 >= history

    def record(self, sequence):
        history = self.limits["receivedPacketHistory"]
        if self.newest is None or newer(sequence, self.newest):
            gap = 0 if self.newest is None else (sequence - self.newest) % 65536
            if self.newest is None or gap >= history:
                self.slots = {}
            else:
                for skipped in range(1, gap):
                    self.slots.pop((self.newest + skipped) % 65536 % history, None)
            self.newest = sequence
        self.slots[sequence % history] = sequence

    def receive(self, data):
        """The messages (channel, bytes) this packet delivers, in order. Raises PacketError."""
        packet = decode(data, self.limits["maximumFragmentsPerMessage"])
        sequence = packet["sequence"]
        if self.is_stale(sequence) or self.slots.get(sequence % self.limits["receivedPacketHistory"]) == sequence:
            return []
        delivered = []
        if packet["type"] == MESSAGE and packet["channel"] == RELIABLE:
            self.receive_reliable(packet["message_id"], packet["payload"], delivered)
        elif packet["type"] == MESSAGE:
            delivered.append(("unreliable", packet["payload"]))
        elif packet["type"] == FRAGMENT_TYPE:
            args = (packet["message_id"], packet["index"], packet["count"], packet["payload"], delivered)
            (self.receive_reliable_fragment if packet["channel"] == RELIABLE else self.receive_unreliable_fragment)(*args)
        self.record(sequence)
        return delivered

    def distance(self, message_id):
        """How far a reliable id is ahead of the one due (1A.5); None when already delivered."""
        d = (message_id - self.due) % 65536
        if d >= 32768:
            return None
        if d >= self.limits["reliableReceiveWindow"]:
            raise PacketError("reliableProtocolViolation", f"message {message_id} is {d} ahead of message {self.due}, "
                                                           f"the receive window is {self.limits['reliableReceiveWindow']}")
        return d

    def deliver_reliable(self, data, delivered):
        delivered.append(("reliable-ordered", data))
        self.due = (self.due + 1) % 65536
        while self.due in self.held:
            delivered.append(("reliable-ordered", self.held.pop(self.due)))
            self.due = (self.due + 1) % 65536

    def receive_reliable(self, message_id, data, delivered):
        d = self.distance(message_id)
        if d is None or message_id in self.held:
            return
        if d > 0:
            self.held[message_id] = data
        else:
            self.deliver_reliable(data, delivered)

    def check_size(self, index, count, size):
        """1A.4: the smallest size the message can have, as its count and this fragment tell."""
        smallest = (count - 1) * FRAGMENT + (size if index == count - 1 else 1)
        if smallest > self.limits["maximumMessageBytes"]:
            raise PacketError("messageTooLarge", size=smallest, limit=self.limits["maximumMessageBytes"])

    def reassembly_bytes(self):
        held = self.unreliable + ([self.reliable] if self.reliable else [])
        return sum(r.count * FRAGMENT for r in held)

    def make_room(self, size):
        while self.unreliable and self.reassembly_bytes() + size > self.limits["maximumReassemblyBytes"]:
            self.unreliable.pop(0)

    def receive_reliable_fragment(self, message_id, index, count, data, delivered):
        d = self.distance(message_id)
        if d is None:
            return
        if d != 0:
            raise PacketError("reliableProtocolViolation", f"a fragment of message {message_id} arrived while message "
                                                           f"{self.due} is due")
        self.check_size(index, count, len(data))
        if self.reliable is not None and self.reliable.message_id != message_id:
            self.reliable = None
        if self.reliable is None:
            self.make_room(count * FRAGMENT)
            self.reliable = Reassembly(message_id, count)
        if self.reliable.count != count:
            raise PacketError("fragmentCountMismatch", messageID=message_id, count=count, expected=self.reliable.count)
        if self.reliable.store(index, data) and self.reliable.message() is not None:
            message, self.reliable = self.reliable.message(), None
            self.deliver_reliable(message, delivered)

    def receive_unreliable_fragment(self, message_id, index, count, data, delivered):
        self.check_size(index, count, len(data))
        reassembly = next((r for r in self.unreliable if r.message_id == message_id), None)
        if reassembly is None:
            if self.newest_completed is not None and not newer(message_id, self.newest_completed):
                return
            while len(self.unreliable) >= self.limits["maximumUnreliableReassemblies"]:
                self.unreliable.pop(0)
            self.make_room(count * FRAGMENT)
            if self.reassembly_bytes() + count * FRAGMENT > self.limits["maximumReassemblyBytes"]:
                return
            reassembly = Reassembly(message_id, count)
            self.unreliable.append(reassembly)
        if reassembly.count != count:
            raise PacketError("fragmentCountMismatch", messageID=message_id, count=count, expected=reassembly.count)
        if not reassembly.store(index, data) or reassembly.message() is None:
            return
        delivered.append(("unreliable", reassembly.message()))
        self.newest_completed = message_id
        self.unreliable = [r for r in self.unreliable if r is not reassembly and not newer(message_id, r.message_id)]
