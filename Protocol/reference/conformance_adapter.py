#!/usr/bin/env python3
"""The Python reference decoders behind the conformance contract (Protocol/CONFORMANCE.md).

Reads one JSON request per line on standard input and writes one JSON answer per line, after a
first line naming the decoder and its families: bit streams (snapshot_codec.BitReader) and
snapshots in the three codings (snapshot_codec.decode, entropy_codec.decode and
decode_predicted), a connection's frames (frame_codec.Receiver, each message's body encoded
again with frame_codec.encode_body), the UDP packet layer's packets (packet_codec.decode, and
packet_receiver.Receiver for a sequence one endpoint receives), the UDP transport's close and
handover messages (udp_messages.decode), WebSocket frames (websocket_codec.Receiver) and
netcode.io's tokens and packets, read by the independent netcode.io peer of Tools/netcode-peer
(its netcode.py, with PyNaCl: run the adapter with the repository's .venv/bin/python; without
PyNaCl the udp, netcode and tokens families are left out of the first line and Tools/conformance
shows them not covered), and Tickwire's connect tokens: user data in Tickwire's layout
(token_codec.decode) and a whole token opened with netcode.py, its user data read by token_codec.
Run it through the checker: Tools/conformance -- python3 Protocol/reference/conformance_adapter.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.join(HERE, "..", "..", "Tools", "netcode-peer"))

import entropy_codec  # noqa: E402
import frame_codec  # noqa: E402
import packet_codec  # noqa: E402
import packet_receiver  # noqa: E402
import websocket_codec  # noqa: E402
import snapshot_codec  # noqa: E402
import token_codec  # noqa: E402
from snapshot_codec import SCHEMAS, BitReader, CodecError, unzigzag  # noqa: E402

try:
    import netcode  # noqa: E402  (Tools/netcode-peer; needs PyNaCl)
    import vectors as netcode_vectors  # noqa: E402  (Tools/netcode-peer/vectors.py)
    import udp_messages  # noqa: E402  (reads a handover's token with netcode.py)
except ImportError as missing:
    netcode, NETCODE_MISSING = None, missing


def read(reader, kind):
    """One read of a bits request: bool, varint, gamma, signedN (zigzag in N bits) or uN."""
    if kind == "bool":
        return int(reader.bool())
    if kind == "varint":
        return reader.varint()
    if kind == "gamma":
        return reader.gamma()
    if kind.startswith("signed"):
        return unzigzag(reader.u(int(kind[6:])))
    if kind.startswith("u") and kind[1:].isdigit():
        return reader.u(int(kind[1:]))
    raise ValueError(f"unknown read kind {kind}")


def decode_snapshot(request):
    """Decodes the request's steps in order, each against the snapshot (and motion) before it."""
    types = SCHEMAS[request["schema"]]
    limits = request.get("limits", {})
    bounds = {"max_entities": limits.get("maxEntities", 65536), "max_encoded_bytes": limits.get("maxEncodedBytes", 4 << 20)}
    snapshot, motion = None, entropy_codec.ZERO_MOTION
    for step in request["steps"]:
        data = bytes.fromhex(step["bytes"])
        coding = step["coding"]
        if coding == "bitPacked":
            tick, entities = snapshot_codec.decode(types, data, snapshot, **bounds)
            new_motion = entropy_codec.motion_of(types, tick, entities, snapshot)
        elif coding == "entropy":
            tick, entities = entropy_codec.decode(types, data, snapshot, **bounds)
            new_motion = entropy_codec.motion_of(types, tick, entities, snapshot)
        elif coding == "predictedEntropy":
            tick, entities, new_motion = entropy_codec.decode_predicted(types, data, snapshot, motion, **bounds)
        else:
            raise ValueError(f"unknown coding {coding}")
        snapshot, motion = (tick, entities), new_motion
    tick, entities = snapshot
    # A text's value (protocol 1.2) is t: and its bytes in hex, as on a vector's `# entity:` line.
    lines = [f"{i} {t} " + " ".join(snapshot_codec.value_token(v) for v in values) for i, (t, values) in sorted(entities.items())]
    return {"tick": tick, "entities": [line.strip() for line in lines]}


def decode_frames(request):
    """Decodes the frames in order on one connection, going on after a refused one: each message's
    body encoded again, uncompressed, or the frame's error signature."""
    if request["mode"] not in frame_codec.MODES:
        raise ValueError(f"unknown compression mode {request['mode']}")
    receiver = frame_codec.Receiver(request["mode"], request.get("limits", {}))
    messages = []
    for frame in request["frames"]:
        try:
            mtype, fields = receiver.decode(bytes.fromhex(frame))
            messages.append({"type": mtype, "body": frame_codec.encode_body(mtype, fields).hex()})
        except frame_codec.FrameError as error:
            messages.append({"error": error.signature})
    return {"messages": messages}


PACKET_TYPES = {packet_codec.ACK_ONLY: "ack-only", packet_codec.MESSAGE: "message", packet_codec.FRAGMENT_TYPE: "fragment"}


def receive_packets(request):
    """Packets one endpoint receives in order (PROTOCOL.md 1A.3-1A.5): per packet, the messages
    it delivers or its refusal; the endpoint goes on after a refused packet."""
    receiver = packet_receiver.Receiver(request.get("limits", {}))
    received = []
    for packet in request["receive"]:
        try:
            messages = receiver.receive(bytes.fromhex(packet))
            received.append({"messages": [{"channel": channel, "payload": data.hex()} for channel, data in messages]})
        except packet_codec.PacketError as error:
            received.append({"error": error.signature})
    return {"received": received}


def decode_packet(request):
    """One packet of the UDP packet layer (PROTOCOL.md 1A.2), its fields as CONFORMANCE.md names them."""
    if "receive" in request:
        return receive_packets(request)
    p = packet_codec.decode(bytes.fromhex(request["bytes"]))
    packet = {"sequence": p["sequence"], "type": PACKET_TYPES[p["type"]]}
    if p["acks"] is not None:
        packet["ack"], packet["ackBits"] = p["acks"]
    if p["type"] != packet_codec.ACK_ONLY:
        packet["channel"] = packet_codec.CHANNELS[p["channel"]]
        packet["payload"] = p["payload"].hex()
    if "message_id" in p:
        packet["messageId"] = p["message_id"]
    if p["type"] == packet_codec.FRAGMENT_TYPE:
        packet["fragmentIndex"], packet["fragmentCount"] = p["index"], p["count"]
    return {"packet": packet}


def decode_netcode(request):
    """A netcode.io token or packet (Protocol/NETCODE.md), read by the netcode peer with the request's inputs."""
    return {"fields": netcode_vectors.decode(request["kind"], bytes.fromhex(request["bytes"]), request["inputs"])}


def user_data_answer(fields):
    return {"version": fields["version"], "room": fields["room"], "displayName": fields["displayName"],
            "claims": fields["claims"].hex()}


def decode_tokens(request):
    """Tickwire's connect token user data (PROTOCOL.md 5.3.2), or a whole connect token opened as a
    verifier opens it (5.3.1, token_codec.open_token): expired at `now` is tokenExpired; not
    opening with the key and the protocol id, or user data not in layout 1, is tokenInvalid."""
    data = bytes.fromhex(request["bytes"])
    if request["kind"] == "user-data":
        return {"userData": user_data_answer(token_codec.decode(data))}
    if request["kind"] != "connect-token":
        raise ValueError(f"unknown tokens kind {request['kind']}")
    inputs = request["inputs"]
    try:
        user_id, fields = token_codec.open_token(data, bytes.fromhex(inputs["key"]), int(inputs["protocol-id"]), int(inputs["now"]))
    except token_codec.TokenRefused as refusal:
        return {"error": refusal.signature}
    return {"userId": str(user_id), "userData": user_data_answer(fields)}


def receive_websocket(request):
    """The frames of a WebSocket vector, read by the side its role names (websocket_codec)."""
    receiver = websocket_codec.Receiver(request["role"], request.get("permessageDeflate", False))
    events, reply = receiver.receive(bytes.fromhex(request["bytes"]))
    return {"events": events, "reply": reply.hex()}


def answer(request):
    family = request["family"]
    try:
        if family == "bits":
            reader = BitReader(bytes.fromhex(request["bytes"]))
            return {"values": [str(read(reader, kind)) for kind in request["reads"]]}
        if family == "snapshot":
            return decode_snapshot(request)
        if family == "frame":
            return decode_frames(request)
        if family == "packet":
            return decode_packet(request)
        if family == "websocket":
            return receive_websocket(request)
        if family == "netcode" and netcode is not None:
            return decode_netcode(request)
        if family == "tokens" and netcode is not None:
            return decode_tokens(request)
        if family == "udp" and netcode is not None:
            message = udp_messages.decode(bytes.fromhex(request["bytes"]))
            return message if "close" in message else {"fields": message["handover"]}
    except CodecError as error:
        return {"error": str(error)}
    except (packet_codec.PacketError, websocket_codec.WebSocketError, token_codec.UserDataError) as error:
        return {"error": error.signature}
    except Exception as error:
        if netcode is not None and isinstance(error, (netcode.Refused, udp_messages.ProtocolError)):
            return {"error": error.signature}
        raise
    return {"unsupported": family}


def main():
    if "--help" in sys.argv[1:] or "-h" in sys.argv[1:]:
        print(__doc__.strip())
        return
    families = ["bits", "snapshot", "frame", "websocket", "packet"] + (["udp", "netcode", "tokens"] if netcode is not None else [])
    if netcode is None:
        print(f"conformance_adapter.py: the udp, netcode and tokens families need PyNaCl ({NETCODE_MISSING}); "
              "run it with the repository's .venv/bin/python (Tools/python-requirements.txt)", file=sys.stderr)
    print(json.dumps({"decoder": "python-reference", "families": families}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        result = answer(request)
        result["id"] = request.get("id")
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
