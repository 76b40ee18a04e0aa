#!/usr/bin/env python3
"""Writes Protocol/vectors/netcode/*.hex from the fixed inputs of vectors.py (deterministic:
fixed keys, nonces and sequences), the valid vectors and the error vectors (`error` header). Run check_vectors.py after; the Swift tests read the same files.

Usage: make_vectors.py [--help]
"""

import os
import sys

import vectors


def main():
    if "--help" in sys.argv[1:]:
        print(__doc__.strip())
        return 0
    os.makedirs(vectors.VECTOR_DIR, exist_ok=True)
    for name, description, headers, data in list(vectors.all_vectors()) + list(vectors.error_vectors()):
        with open(os.path.join(vectors.VECTOR_DIR, name), "w") as out:
            out.write("# %s\n" % description)
            for key, value in headers:
                out.write("# %s: %s\n" % (key, value))
            for start in range(0, len(data), 32):
                out.write(" ".join("%02x" % b for b in data[start:start + 32]) + "\n")
        print("wrote %s (%d bytes)" % (name, len(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
