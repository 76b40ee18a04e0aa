#!/usr/bin/env bash
# Builds the WebSocket protocol core with libFuzzer and AddressSanitizer and fuzzes it.
# Usage: Tools/fuzz/run-websocket-fuzzer.sh [seconds]   (default 60)
# Crashing inputs land in .build/fuzz/ as crash-*; turn each into a regression test.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=.build/fuzz
mkdir -p "$OUT/corpus"
# TickwireZlib is a dependency, built plainly; the WebSocket sources and the target are instrumented.
swiftc -parse-as-library -emit-module -emit-library -static -O -module-name TickwireZlib \
    -I Sources/CZlib -emit-module-path "$OUT/TickwireZlib.swiftmodule" -o "$OUT/libTickwireZlib.a" \
    Sources/TickwireZlib/*.swift
swiftc -parse-as-library -O -sanitize=fuzzer,address -module-name WebSocketFuzz \
    -I "$OUT" -I Sources/CZlib -L "$OUT" -lTickwireZlib -lz \
    Sources/TickwireWebSocket/*.swift Tools/fuzz/WebSocketFuzzTarget.swift -o "$OUT/websocket-fuzzer" 2>&1 \
    | grep -v "warning: .*local" || true
"$OUT/websocket-fuzzer" -max_total_time="${1:-60}" -max_len=4096 -artifact_prefix="$OUT/" "$OUT/corpus"
