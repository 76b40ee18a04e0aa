#!/usr/bin/env python3
"""The frame vectors' check for frame_codec.py (run as `python3 frame_codec.py --check`): every
Protocol/vectors/frame-*.hex decodes to the values its comments state (EXPECTED, below) and
re-encodes byte for byte (compressed frames with Python's zlib at level 6), or is refused with the
error its `# error:` line names, values included where the line gives them.
"""
import glob
import os

from frame_codec import FrameError, Receiver, Sender

# The values each valid vector's frames carry (type, fields), as in the vector's comments.
TILES = bytes([0x01, 0x7F, 0x20, 0x00])


def vector_private_part(name):
    """The encrypted private part a hello vector carries (its frame's bytes 49..1072): the one of
    vectors/tokens/token-01-connect-token.hex, which the Swift tests open with that vector's key."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors", name)
    digits = "".join(line for line in open(path) if not line.startswith("#"))
    return bytes.fromhex("".join(digits.split()))[49:1073]


EXPECTED = {
    "frame-hello-connect-token.hex": [(1, (1, 0x0123456789ABCDEF, 3, "red", None,
                                           (1800000060, bytes(range(0x40, 0x58)), vector_private_part("frame-hello-connect-token.hex")),
                                           b"ada"))],
    "frame-hello.hex": [(1, (1, 0x0123456789ABCDEF, 3, "arena", bytes.fromhex("deadbeef"), b"ada"))],
    "frame-welcome.hex": [(2, (7, 60, 1000, 16666000, 2, bytes(range(1, 9))))],
    "frame-reject.hex": [(3, (2, "schema differs"))],
    "frame-reject-redirect.hex": [(3, (8, "ws://10.0.0.2:7777/r"))],
    "frame-snapshot.hex": [(4, (1000, 998, 57, 16683333, bytes.fromhex("038140123480")))],
    "frame-input.hex": [(5, (999, 58, [b"\x05\x01", b"\x05\x00", b"\x01\x00"]))],
    "frame-input-render-times.hex": [(5, (999, 58, [b"\x05\x01", b"\x05\x00"], [(997, 128), (996, 64)]))],
    "frame-hello-render-times.hex": [(1, (1, 0x0123456789ABCDEF, 0x43, "arena", None, b""))],
    "frame-welcome-render-times.hex": [(2, (7, 20, 1000, 40000000, 0x41, b""))],
    "frame-ping.hex": [(6, (5000000,))],
    "frame-pong.hex": [(7, (5000000, 16700000))],
    "frame-pong-hold.hex": [(7, (5000000, 16700000, 21250))],
    "frame-hello-pong-hold.hex": [(1, (1, 0x0123456789ABCDEF, 0x13, "arena", None, b""))],
    "frame-hello-text-fields.hex": [(1, (1, 0x0123456789ABCDEF, 0x0B, "arena", None, b""))],
    "frame-hello-version-2.hex": [(1, (2, 0x0123456789ABCDEF, 3, "arena", None, b""))],
    "frame-welcome-pong-hold.hex": [(2, (7, 20, 1000, 40000000, 0x11, b""))],
    "frame-disconnect.hex": [(8, (1, "bye"))],
    "frame-disconnect-moved.hex": [(8, (8, "ws://10.0.0.3:7777/r"))],
    "frame-disconnect-kicked-may-rejoin.hex": [(8, (9, "afk"))],
    "frame-stats.hex": [(9, (3600, 850, 2100, 4800, 420, 32, 1500000))],
    "frame-application.hex": [(0x40, b"gg")],
    "frame-perframe-snapshot.hex": [(4, (2000, None, 0, 33333333, TILES * 16))],
    "frame-streaming-sequence.hex": [
        (4, (1000, 998, 57, 16683333, TILES * 8)), (4, (1001, 999, 58, 16700000, TILES * 8)),
        (0x40, b"0123456789abcdefghij"), (0x40, b"0123456789abcdefghij" * 2)],
}


def signature_matches(expected, got):
    """Whether a refusal's signature is the one a vector's `# error:` line names: the same string;
    the same name where the line gives no values; or, for a nested error named without its values
    (`inflation(corruptData)`), the same nested name (Protocol/CONFORMANCE.md)."""
    if expected == got:
        return True
    if "(" not in expected:
        return got.split("(", 1)[0] == expected
    name, inner = expected[:-1].split("(", 1)
    got_name, _, got_inner = got.partition("(")
    return name == got_name and inner.isalnum() and signature_matches(inner, got_inner[:-1])


def load(path):
    """A frame vector's mode, frames, error line and limits (vectors/README.md)."""
    mode, frames, hexdigits, error, limits, marked = "none", [], "", None, {}, False
    with open(path, encoding="utf-8") as file:
        for line in file:
            line = line.strip()
            if line.startswith("# mode:"):
                mode = line.split(":", 1)[1].strip()
            elif line.startswith("# limit:"):
                limit, value = line.split(":", 1)[1].split()
                limits[limit] = int(value)
            elif line.startswith("# error:"):
                error = line.split(":", 1)[1].strip()
            elif line.startswith("# frame"):
                if marked or hexdigits:
                    frames.append(bytes.fromhex(hexdigits))
                marked, hexdigits = True, ""
            elif not line.startswith("#"):
                hexdigits += line.replace(" ", "")
    frames.append(bytes.fromhex(hexdigits))
    return mode, frames, error, limits


def check_vector(name, mode, frames, error, limits):
    receiver, sender = Receiver(mode, limits), Sender(mode)
    if error is None:
        expected = EXPECTED.get(name)
        if expected is None or len(expected) != len(frames):
            raise AssertionError("no expected values for %d frames" % len(frames))
        for frame, values in zip(frames, expected):
            mtype, fields = receiver.decode(frame)
            if (mtype, fields) != values:
                raise AssertionError("decoded %r, expected %r" % ((mtype, fields), values))
            again = sender.encode(mtype, fields)
            if again != frame:
                raise AssertionError("re-encodes as " + again.hex(" "))
        return
    for frame in frames[:-1]:
        try:
            receiver.decode(frame)
        except FrameError:
            # Only the frame that breaks a streaming context may be refused before the last.
            if name != "frame-error-context-broken.hex":
                raise
    try:
        receiver.decode(frames[-1])
    except FrameError as refused:
        if not signature_matches(error, refused.signature):
            raise AssertionError("refused with %s, expected %s" % (refused.signature, error)) from None
        return
    raise AssertionError("decoded, but should be refused with " + error)


def check():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors")
    failures, count = 0, 0
    for path in sorted(glob.glob(os.path.join(root, "frame-*.hex"))):
        name = os.path.basename(path)
        count += 1
        try:
            check_vector(name, *load(path))
            print("ok   " + name)
        except (AssertionError, FrameError) as problem:
            failures += 1
            print("FAIL %s: %s" % (name, problem))
    print("%d frame vectors, %d failed (independent Python decoder, Protocol/reference/frame_codec.py)" % (count, failures))
    return 1 if failures or count == 0 else 0
