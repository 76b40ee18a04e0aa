"""The fleet suite's matchmaker checks (Protocol/MATCHMAKER.md), over the suite's three
`arena serve --redis …` processes and one `arena matchmaker` process on the same Redis.

- 300 players ask `joinOrCreate` at once, spread over the three processes: every room is filled
  to exactly its capacity and none over, and the rooms spread over the processes.
- `GET /rooms` from every process and from the lone matchmaker agrees with the seats handed out.
- The seats' connect tokens are checked by the processes: one joins (a welcome), and a replayed,
  an expired (minted here with the fleet's key by the independent netcode.io peer,
  Tools/netcode-peer), a forged and another room's token are each refused with their reject
  reason (PROTOCOL.md 5.3.1).
- `--jwt-secret`: a bearer token signed here gets a seat under its verified name, and plays
  under it; a tampered or missing one gets 401.
- Bad requests get their documented status and code.
"""
import asyncio
import base64
import hashlib
import hmac
import json
import os
import ssl
import struct
import sys
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for folder in (("Tools", "hostile"), ("Tools", "netcode-peer"), ("Protocol", "reference")):
    sys.path.insert(0, os.path.join(ROOT, *folder))

from players import join  # noqa: E402  (Tools/hostile: hellos over a raw WebSocket)

# The arena's netcode.io protocol id (ArenaUDP.protocolID), which its tokens are sealed for.
ARENA_PROTOCOL_ID = 0x4152_454E_4101
# PROTOCOL.md 5.5's reject reasons for connect tokens (5.3.1).
TOKEN_INVALID, TOKEN_EXPIRED, TOKEN_ALREADY_USED, TOKEN_WRONG_ROOM = 10, 11, 12, 13
MODE = "arena"


class Answer:
    """An HTTP answer: its status, headers and body (JSON when it parses)."""

    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body
        try:
            self.json = json.loads(body.decode("utf-8"))
        except ValueError:
            self.json = None

    def __repr__(self):
        return "%d %s" % (self.status, self.body[:300].decode("utf-8", "replace"))


# The CA an https matchmaker's certificate is checked against (trust_ca), else the system's.
TRUSTED_CA = {"file": None}


def trust_ca(path):
    """Checks https matchmakers' certificates against the CA in `path` (a throwaway one)."""
    TRUSTED_CA["file"] = path


def request(base, method, path, body=None, headers=None, timeout=15):
    """One HTTP request to `base` (http:// or https://HOST:PORT); never raises for an HTTP status."""
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    call = urllib.request.Request(base + path, data=data, method=method, headers=headers or {})
    context = ssl.create_default_context(cafile=TRUSTED_CA["file"]) if base.startswith("https://") else None
    try:
        with urllib.request.urlopen(call, timeout=timeout, context=context) as response:
            return Answer(response.status, dict(response.headers), response.read())
    except urllib.error.HTTPError as error:
        return Answer(error.code, dict(error.headers), error.read())


def web_token(secret, claims, tamper=False):
    """An HS256 JSON Web Token (RFC 7519) signed with `secret`, written here from the RFC."""
    def part(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    signing_input = part(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + part(json.dumps(claims).encode())
    signature = hmac.new(secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    if tamper:
        signature = bytes([signature[0] ^ 1]) + signature[1:]
    return signing_input + "." + part(signature)


def base_url(server):
    return "http://%s:%d" % (server.address, server.port)


def holder_of(seat, servers):
    """The server whose WebSocket URL the seat names."""
    url = seat["urls"].get("ws") or seat["urls"].get("wss") or ""
    for server in servers:
        if url.startswith(server.url + "/"):
            return server
    return None


def check_joins(servers, capacity, players, say, fail):
    """`players` joinOrCreates at once, round-robin over the processes; returns the seats."""
    seats, failures = [None] * players, []
    start = threading.Barrier(players)

    def ask(index):
        server = servers[index % len(servers)]
        try:
            start.wait(timeout=60)
            answer = request(base_url(server), "POST", "/matchmake/joinOrCreate/" + MODE, {"name": "p%d" % index})
        except Exception as error:  # a thread's failure is reported below, never lost
            failures.append("player %d: %r" % (index, error))
            return
        if answer.status != 200 or answer.json is None:
            failures.append("player %d: %r" % (index, answer))
        else:
            seats[index] = answer.json

    began = time.time()
    threads = [threading.Thread(target=ask, args=(i,)) for i in range(players)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    if failures or any(seat is None for seat in seats):
        fail("matchmaker: %d of %d joinOrCreate failed: %s" % (len(failures), players, failures[:5]))
    rooms = {}
    for seat in seats:
        rooms.setdefault(seat["room"], []).append(seat)
    over = {room: len(s) for room, s in rooms.items() if len(s) > capacity}
    if over:
        fail("matchmaker: rooms over their capacity of %d: %s" % (capacity, over))
    if players % capacity == 0 and any(len(s) != capacity for s in rooms.values()):
        fail("matchmaker: %d players in rooms of %d should fill %d rooms exactly: %s"
             % (players, capacity, players // capacity, sorted(len(s) for s in rooms.values())))
    ids = [seat["userId"] for seat in seats]
    names = [seat["displayName"] for seat in seats]
    if len(set(ids)) != players or len(set(names)) != players:
        fail("matchmaker: guests share ids or names: %d ids, %d names for %d players" % (len(set(ids)), len(set(names)), players))
    spread = {}
    for room, room_seats in rooms.items():
        holders = {holder_of(seat, servers) for seat in room_seats}
        if len(holders) != 1 or None in holders:
            fail("matchmaker: room %s is named at %s" % (room, sorted(str(seat["urls"]) for seat in room_seats)[:3]))
        spread.setdefault(holders.pop().index, []).append(room)
    least = len(rooms) // len(servers) - 1
    if len(spread) != len(servers) or min(len(r) for r in spread.values()) < least:
        fail("matchmaker: %d rooms should spread over the %d processes by load (at least %d each): %s"
             % (len(rooms), len(servers), least, {k: len(v) for k, v in spread.items()}))
    say("ok: matchmaker: %d joinOrCreate at once over %d processes in %.1f s: %d rooms of exactly %d, none over; "
        "rooms per process %s; %d distinct guest ids and names"
        % (players, len(servers), time.time() - began, len(rooms), capacity, {k: len(v) for k, v in sorted(spread.items())}, players))
    return seats


def check_listings(bases, seats, capacity, say, fail):
    """`GET /rooms?mode=arena` from every base URL lists the seats' rooms with their counts."""
    expected = {}
    for seat in seats:
        expected[seat["room"]] = expected.get(seat["room"], 0) + 1
    for base in bases:
        answer = request(base, "GET", "/rooms?mode=" + MODE)
        if answer.status != 200 or answer.json is None:
            fail("matchmaker: GET %s/rooms: %r" % (base, answer))
        listed = {room["room"]: room for room in answer.json["rooms"] if room["room"] in expected}
        counts = {room: entry["clients"] for room, entry in listed.items()}
        if counts != expected or any(entry["capacity"] != capacity for entry in listed.values()):
            fail("matchmaker: GET %s/rooms lists %s; the seats say %s" % (base, counts, expected))
    say("ok: matchmaker: GET /rooms from %d processes and matchmakers agrees with the %d seats handed out (%d rooms)"
        % (len(bases), len(seats), len(expected)))


def hello_token(seat):
    return bytes.fromhex(seat["helloToken"])


def expired_token(udp_key_path, room, name):
    """A connect token for `room` that expired 5 s ago, sealed with the fleet's key by the
    independent netcode.io peer (Tools/netcode-peer) and Tickwire's user data layout
    (Protocol/reference/token_codec.py); returns the 1056 bytes a hello carries."""
    from netcode import ConnectToken, PrivateToken, parse_address
    from token_codec import encode
    key = bytes.fromhex(open(udp_key_path).read().strip())
    now = int(time.time())
    private = PrivateToken(1 << 40, 10, [parse_address("127.0.0.1:1")], os.urandom(32), os.urandom(32), encode(room, name, b""))
    token = ConnectToken.generate(private, ARENA_PROTOCOL_ID, now - 60, now - 5, key)
    return struct.pack(">Q", token.expire_timestamp) + token.nonce + token.encrypted_private


async def fingerprint_of(server, room):
    """The arena's schema fingerprint, from the schema-mismatch reject a hello with fingerprint 0 gets."""
    import re
    session = await join(server.port, 0, room=room.encode(), payload=b"probe", host=server.address)
    match = session.reject and re.search(r"server's schema fingerprint is 0x([0-9a-f]{16})", session.reject[1])
    if not match:
        raise RuntimeError("cannot learn the arena's schema fingerprint from %r" % (session.reject,))
    return int(match.group(1), 16)


def check_token_refusals(servers, seats, udp_key_path, say, fail):
    """One seat joins with its token; the same token again, an expired one, a forged one and
    another room's are refused with their PROTOCOL.md 5.3.1 reasons."""
    by_server = {}
    for seat in seats:
        by_server.setdefault(holder_of(seat, servers).index, {}).setdefault(seat["room"], []).append(seat)
    index, rooms = max(by_server.items(), key=lambda item: len(item[1]))
    if len(rooms) < 2:
        fail("matchmaker: the token checks need two rooms on one process: %s" % {k: len(v) for k, v in by_server.items()})
    server = servers[index]
    (room, room_seats), (other_room, other_seats) = list(rooms.items())[:2]

    async def run():
        fingerprint = await fingerprint_of(server, room)

        async def hello_with(token, in_room):
            return await join(server.port, fingerprint, room=in_room.encode(), payload=b"mm", host=server.address,
                              connect_token=token)

        outcomes = {}
        first = await hello_with(hello_token(room_seats[0]), room)
        outcomes["fresh"] = first
        if first.welcome is None:
            fail("matchmaker: a seat's token was not welcomed in %s on %s: %r" % (room, server.url, first.reject))
        first.ws.abort()
        outcomes["replayed"] = await hello_with(hello_token(room_seats[0]), room)
        outcomes["expired"] = await hello_with(expired_token(udp_key_path, room, "late"), room)
        forged = bytearray(hello_token(room_seats[1]))
        forged[100] ^= 0x01
        outcomes["forged"] = await hello_with(bytes(forged), room)
        outcomes["another room"] = await hello_with(hello_token(other_seats[0]), room)
        return outcomes

    outcomes = asyncio.run(run())
    wanted = {"replayed": TOKEN_ALREADY_USED, "expired": TOKEN_EXPIRED, "forged": TOKEN_INVALID, "another room": TOKEN_WRONG_ROOM}
    for what, reason in wanted.items():
        got = outcomes[what].reject
        if got is None or got[0] != reason:
            fail("matchmaker: a %s token should be refused with reject %d: got %r" % (what, reason, got))
    say("ok: matchmaker: a seat's token joins %s on %s; replayed, expired, forged and another room's tokens refused "
        "with rejects %s" % (room, server.url, ", ".join("%d" % outcomes[w].reject[0] for w in wanted)))


def check_bad_requests(base, say, fail):
    """Each refusal of MATCHMAKER.md §4 that a client can provoke, with its status and code."""
    cases = [
        ("malformed JSON", "POST", "/matchmake/joinOrCreate/" + MODE, b"{\"name\":", 400, "badRequest"),
        ("an array body", "POST", "/matchmake/joinOrCreate/" + MODE, b"[]", 400, "badRequest"),
        ("a number as name", "POST", "/matchmake/joinOrCreate/" + MODE, b"{\"name\":7}", 400, "badRequest"),
        ("an unknown mode", "POST", "/matchmake/joinOrCreate/nosuchmode", b"{}", 404, "unknownMode"),
        ("an unknown room", "POST", "/matchmake/joinById/arena-ffffffff", b"{}", 404, "unknownRoom"),
        ("a GET of a POST path", "GET", "/matchmake/joinOrCreate/" + MODE, None, 405, "methodNotAllowed"),
        ("a body over 4096 bytes", "POST", "/matchmake/joinOrCreate/" + MODE,
         json.dumps({"name": "x", "pad": "y" * 4100}).encode(), 413, None),
    ]
    for what, method, path, body, status, code in cases:
        answer = request(base, method, path, body, headers={"Content-Type": "application/json"})
        if answer.status != status or (code and (answer.json or {}).get("error") != code):
            fail("matchmaker: %s should get %d %s: got %r" % (what, status, code or "", answer))
    say("ok: matchmaker: %d bad requests each got their status and code (%s)"
        % (len(cases), ", ".join("%d" % c[4] for c in cases)))


def check_web_tokens(base, secret, say, fail):
    """A bearer token signed with the matchmaker's secret gets a seat under its verified name;
    a tampered one, and none, get 401. Returns the seat."""
    claims = {"sub": "account-7", "name": "Lovelace", "exp": int(time.time()) + 300}
    good = request(base, "POST", "/matchmake/joinOrCreate/" + MODE, {"name": "mallory"},
                   headers={"Authorization": "Bearer " + web_token(secret, claims)})
    if good.status != 200 or good.json.get("displayName") != "Lovelace":
        fail("matchmaker --jwt-secret: a valid bearer token should get a seat as 'Lovelace': %r" % good)
    for what, headers in (("tampered", {"Authorization": "Bearer " + web_token(secret, claims, tamper=True)}), ("missing", {})):
        answer = request(base, "POST", "/matchmake/joinOrCreate/" + MODE, {}, headers=headers)
        if answer.status != 401 or (answer.json or {}).get("error") != "unauthorized":
            fail("matchmaker --jwt-secret: a %s bearer token should get 401 unauthorized: %r" % (what, answer))
    say("ok: matchmaker --jwt-secret: a signed bearer token gets a seat as '%s' (user id %s); tampered and missing get 401"
        % (good.json["displayName"], good.json["userId"]))
    return good.json
