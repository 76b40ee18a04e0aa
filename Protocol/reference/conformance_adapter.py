#!/usr/bin/env python3
"""The Python reference decoders behind the conformance contract (Protocol/CONFORMANCE.md).

Reads one JSON request per line on standard input and writes one JSON answer per line, after a
first line naming the decoder and its families: bit streams (snapshot_codec.BitReader) and
snapshots in the three codings (snapshot_codec.decode, entropy_codec.decode and
decode_predicted). The reference has no frame decoder, so frames are not among its families.
Run it through the checker: Tools/conformance -- python3 Protocol/reference/conformance_adapter.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import entropy_codec  # noqa: E402
import snapshot_codec  # noqa: E402
from snapshot_codec import SCHEMAS, BitReader, CodecError, unzigzag  # noqa: E402


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


def answer(request):
    family = request["family"]
    try:
        if family == "bits":
            reader = BitReader(bytes.fromhex(request["bytes"]))
            return {"values": [str(read(reader, kind)) for kind in request["reads"]]}
        if family == "snapshot":
            return decode_snapshot(request)
    except CodecError as error:
        return {"error": str(error)}
    return {"unsupported": family}


def main():
    if "--help" in sys.argv[1:] or "-h" in sys.argv[1:]:
        print(__doc__.strip())
        return
    print(json.dumps({"decoder": "python-reference", "families": ["bits", "snapshot"]}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        result = answer(request)
        result["id"] = request.get("id")
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
