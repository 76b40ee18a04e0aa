"""Sans-IO netcode.io 1.02 server and client, written from STANDARD.md: feed datagrams with
receive(), call update() with the time, send what take_outgoing() returns (datagram, address)."""

import os
import struct

import netcode as nc


class Server:
    def __init__(self, protocol_id, private_key, public_address, max_clients):
        self.protocol_id = protocol_id
        self.private_key = private_key
        self.public_address = public_address
        self.max_clients = max_clients
        self.challenge_key = os.urandom(nc.KEY_BYTES)
        self.challenge_sequence = 0
        self.global_sequence = nc.SERVER_GLOBAL_SEQUENCE_START
        self.slots = [None] * max_clients
        self.mappings = {}  # address -> dict(send, recv, timeout, expire, last)
        self.token_history = {}  # private token tag -> address
        self.outgoing = []
        self.payloads = []  # (client index, payload)
        self.events = []
        self.ignored = 0
        self.time = 0.0

    def take_outgoing(self):
        out, self.outgoing = self.outgoing, []
        return out

    def _slot_of(self, address):
        for index, slot in enumerate(self.slots):
            if slot is not None and slot["address"] == address:
                return index
        return None

    def _mapping(self, address):
        mapping = self.mappings.get(address)
        if mapping is None:
            return None
        expired = (mapping["timeout"] > 0 and mapping["last"] + mapping["timeout"] < self.time) or \
                  (mapping["expire"] is not None and mapping["expire"] < self.time)
        if expired:
            return None
        mapping["last"] = self.time
        return mapping

    def _send_global(self, packet_type, body, address, key):
        self.outgoing.append((nc.write_packet(packet_type, body, self.global_sequence, key, self.protocol_id), address))
        self.global_sequence += 1

    def _send_slot(self, index, packet_type, body):
        slot = self.slots[index]
        self.outgoing.append((nc.write_packet(packet_type, body, slot["sequence"], slot["send"], self.protocol_id), slot["address"]))
        slot["sequence"] += 1
        slot["last_send"] = self.time
        self.mappings[slot["address"]]["last"] = self.time

    def receive(self, data, address, now):
        self.time = now
        try:
            self._receive(data, address)
        except nc.Refused as refusal:
            self.ignored += 1
            self.events.append("ignored: %s" % refusal)

    def _receive(self, data, address):
        if len(data) <= 1 or len(data) > nc.MAX_DATAGRAM_BYTES:
            raise nc.Refused("datagram size %d" % len(data))
        if data[0] == nc.REQUEST:
            return self._request(data, address)
        index = self._slot_of(address)
        mapping = self.mappings.get(address) if index is not None else self._mapping(address)
        if mapping is None:
            raise nc.Refused("no encryption mapping")
        replay = self.slots[index]["replay"] if index is not None else None
        packet_type, _, body = nc.read_packet(data, mapping["recv"], self.protocol_id,
                                              {nc.RESPONSE, nc.KEEP_ALIVE, nc.PAYLOAD, nc.DISCONNECT}, replay)
        if packet_type == nc.RESPONSE:
            return self._response(body, address, mapping)
        if index is None:
            raise nc.Refused("%s from an address with no client" % nc.TYPE_NAMES[packet_type])
        slot = self.slots[index]
        if packet_type in (nc.KEEP_ALIVE, nc.PAYLOAD):
            slot["last_receive"] = self.time
            slot["confirmed"] = True
            if packet_type == nc.PAYLOAD:
                self.payloads.append((index, body))
        else:
            self._free(index, "client disconnected")

    def _request(self, data, address):
        expire, nonce, encrypted = nc.read_request(data, self.protocol_id, int(self.time))
        private = nc.PrivateToken.decrypt(encrypted, self.protocol_id, expire, nonce, self.private_key)
        if self.public_address not in private.server_addresses:
            raise nc.Refused("token does not name this server")
        if self._slot_of(address) is not None:
            raise nc.Refused("address already connected")
        if any(s is not None and s["client_id"] == private.client_id for s in self.slots):
            raise nc.Refused("client id already connected")
        tag = encrypted[-nc.MAC_BYTES:]
        if self.token_history.setdefault(tag, address) != address:
            raise nc.Refused("token used from another address")
        if all(s is not None for s in self.slots):
            return self._send_global(nc.DENIED, b"", address, private.server_to_client_key)
        timeout = private.timeout_seconds
        self.mappings[address] = {"send": private.server_to_client_key, "recv": private.client_to_server_key,
                                  "timeout": timeout, "expire": self.time + timeout if timeout >= 0 else None, "last": self.time}
        token = nc.challenge_token_encrypt(private.client_id, private.user_data, self.challenge_sequence, self.challenge_key)
        self._send_global(nc.CHALLENGE, nc.challenge_body(self.challenge_sequence, token), address, private.server_to_client_key)
        self.challenge_sequence += 1

    def _response(self, body, address, mapping):
        sequence = struct.unpack("<Q", body[:8])[0]
        client_id, user_data = nc.challenge_token_decrypt(body[8:], sequence, self.challenge_key)
        if self._slot_of(address) is not None:
            raise nc.Refused("address already connected")
        if any(s is not None and s["client_id"] == client_id for s in self.slots):
            raise nc.Refused("client id already connected")
        if all(s is not None for s in self.slots):
            return self._send_global(nc.DENIED, b"", address, mapping["send"])
        index = self.slots.index(None)
        mapping["expire"] = None
        self.slots[index] = {"client_id": client_id, "address": address, "send": mapping["send"], "sequence": 0,
                             "last_send": self.time, "last_receive": self.time, "confirmed": False,
                             "replay": nc.ReplayProtection(), "timeout": mapping["timeout"], "user_data": user_data}
        self.events.append("connected %d client id %d" % (index, client_id))
        self._send_slot(index, nc.KEEP_ALIVE, nc.keep_alive_body(index, self.max_clients))

    def _free(self, index, reason):
        self.mappings.pop(self.slots[index]["address"], None)
        self.events.append("disconnected %d: %s" % (index, reason))
        self.slots[index] = None

    def send_payload(self, index, payload):
        if not self.slots[index]["confirmed"]:
            self._send_slot(index, nc.KEEP_ALIVE, nc.keep_alive_body(index, self.max_clients))
        self._send_slot(index, nc.PAYLOAD, payload)

    def update(self, now):
        self.time = now
        for index, slot in enumerate(self.slots):
            if slot is not None and slot["last_send"] + nc.SEND_INTERVAL <= now:
                self._send_slot(index, nc.KEEP_ALIVE, nc.keep_alive_body(index, self.max_clients))
        for index, slot in enumerate(self.slots):
            if slot is not None and slot["timeout"] > 0 and slot["last_receive"] + slot["timeout"] <= now:
                self._free(index, "timed out")

    def disconnect_all(self):
        for index, slot in enumerate(self.slots):
            if slot is not None:
                for _ in range(nc.DISCONNECT_PACKETS):
                    self._send_slot(index, nc.DISCONNECT, b"")
                self._free(index, "server disconnected")


CONNECT_TOKEN_EXPIRED, INVALID_CONNECT_TOKEN, CONNECTION_TIMED_OUT, RESPONSE_TIMED_OUT, REQUEST_TIMED_OUT, DENIED = range(-6, 0)
DISCONNECTED, SENDING_REQUEST, SENDING_RESPONSE, CONNECTED = range(4)


class Client:
    def __init__(self):
        self.state = DISCONNECTED
        self.outgoing = []
        self.received = []
        self.ignored = 0

    def take_outgoing(self):
        out, self.outgoing = self.outgoing, []
        return out

    def connect(self, token_bytes, now):
        try:
            self.token = nc.ConnectToken.read(token_bytes)
        except nc.Refused:
            self.state = INVALID_CONNECT_TOKEN
            return
        self.server_index = 0
        self.start = now
        self._reset(now)

    def _reset(self, now):
        self.server = self.token.server_addresses[self.server_index]
        self.sequence = 0
        self.replay = nc.ReplayProtection()
        self.last_send = -1e9
        self.last_receive = now
        self.state = SENDING_REQUEST

    def _fail(self, state, now):
        if self.server_index + 1 < len(self.token.server_addresses):
            self.server_index += 1
            self._reset(now)
        else:
            self.state = state

    def _send(self, packet_type, body, now):
        self.outgoing.append((nc.write_packet(packet_type, body, self.sequence, self.token.client_to_server_key,
                                              self.token.protocol_id), self.server))
        self.sequence += 1
        self.last_send = now

    def receive(self, data, address, now):
        if self.state not in (SENDING_REQUEST, SENDING_RESPONSE, CONNECTED) or address != self.server:
            self.ignored += 1
            return
        try:
            packet_type, _, body = nc.read_packet(data, self.token.server_to_client_key, self.token.protocol_id,
                                                  {nc.DENIED, nc.CHALLENGE, nc.KEEP_ALIVE, nc.PAYLOAD, nc.DISCONNECT}, self.replay)
        except nc.Refused:
            self.ignored += 1
            return
        if packet_type == nc.DENIED and self.state in (SENDING_REQUEST, SENDING_RESPONSE):
            self._fail(DENIED, now)
        elif packet_type == nc.CHALLENGE and self.state == SENDING_REQUEST:
            self.challenge = body
            self.last_receive = now
            self.last_send = -1e9
            self.state = SENDING_RESPONSE
        elif packet_type == nc.KEEP_ALIVE and self.state in (SENDING_RESPONSE, CONNECTED):
            if self.state == SENDING_RESPONSE:
                self.client_index, self.max_clients = struct.unpack("<II", body)
                self.state = CONNECTED
            self.last_receive = now
        elif packet_type == nc.PAYLOAD and self.state == CONNECTED:
            self.last_receive = now
            self.received.append(body)
        elif packet_type == nc.DISCONNECT and self.state == CONNECTED:
            self.state = DISCONNECTED
        else:
            self.ignored += 1

    def send_payload(self, payload, now):
        assert self.state == CONNECTED and 1 <= len(payload) <= nc.MAX_PAYLOAD_BYTES
        self._send(nc.PAYLOAD, payload, now)

    def update(self, now):
        if self.state in (SENDING_REQUEST, SENDING_RESPONSE, CONNECTED) and self.last_send + nc.SEND_INTERVAL < now:
            if self.state == SENDING_REQUEST:
                token = self.token
                self.outgoing.append((nc.write_request(token.protocol_id, token.expire_timestamp, token.nonce,
                                                       token.encrypted_private), self.server))
                self.last_send = now
            elif self.state == SENDING_RESPONSE:
                self._send(nc.RESPONSE, self.challenge, now)
            else:
                self._send(nc.KEEP_ALIVE, nc.keep_alive_body(0, 0), now)
        if self.state in (SENDING_REQUEST, SENDING_RESPONSE) and \
                now - self.start >= self.token.expire_timestamp - self.token.create_timestamp:
            self.state = CONNECT_TOKEN_EXPIRED
            return
        timeout = self.token.timeout_seconds
        if timeout > 0 and self.last_receive + timeout < now:
            if self.state == SENDING_REQUEST:
                self._fail(REQUEST_TIMED_OUT, now)
            elif self.state == SENDING_RESPONSE:
                self._fail(RESPONSE_TIMED_OUT, now)
            elif self.state == CONNECTED:
                self.state = CONNECTION_TIMED_OUT

    def disconnect(self, now):
        if self.state == CONNECTED:
            for _ in range(nc.DISCONNECT_PACKETS):
                self._send(nc.DISCONNECT, b"", now)
        self.state = DISCONNECTED
