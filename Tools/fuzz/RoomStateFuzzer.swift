// Not part of the Swift package: built by `Tools/fuzz/run room-state SECONDS` with -sanitize=fuzzer,address.

import TickwireSim

/// The fuzz stand-in for a game's world: its bytes, passed through as they are. A world whose
/// first byte is 0xFF is refused (``RoomStateError/invalidWorld(_:)``), so that the game's own
/// refusal is fuzzed too.
struct FuzzStandInWorld: Equatable, Sendable {
    var bytes: [UInt8]

    static func decode(_ bytes: [UInt8]) throws(RoomStateError) -> FuzzStandInWorld {
        if bytes.first == 0xFF { throw RoomStateError.invalidWorld("the fuzz stand-in refuses a world starting with 0xFF") }
        return FuzzStandInWorld(bytes: bytes)
    }

    static func encode(_ world: FuzzStandInWorld) -> [UInt8] { world.bytes }
}

/// The schema fingerprint the seeds carry (`Tools/fuzz/make-seeds`).
let fuzzSchemaFingerprint: UInt64 = 0x5457_4655_5A5A_0001

/// libFuzzer entry for ``RoomStateEncoding/decode(_:schemaFingerprint:limits:decodeWorld:)``.
/// The input is 3 header bytes, then the bytes to decode:
///
/// - byte 0: bit 0 set: the last 8 bytes are replaced with the right checksum, so that the fields
///   behind it are reached; bit 1 set: the expected fingerprint is the one in the bytes (else
///   ``fuzzSchemaFingerprint``); bits 2…7: the byte limit (64 + ×64);
/// - byte 1: low 4 bits the client limit, high 4 bits the room name limit (×4 bytes);
/// - byte 2: low 4 bits the token limit (×2 bytes), high 4 bits the world limit (×32 bytes).
///
/// Decoding must never crash and throws only ``RoomStateError`` (typed throws); a state it returns
/// respects the limits and re-encodes to the same bytes (a version 1 state: to version 2 bytes), which
/// decode to an equal state.
@_cdecl("LLVMFuzzerTestOneInput")
public func roomStateFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard input.count >= 3 else { return 0 }
    var limits = RoomStateEncoding.Limits()
    limits.maximumBytes = 64 + Int(input[0] >> 2) * 64
    limits.maximumClients = Int(input[1] & 15)
    limits.maximumRoomNameBytes = Int(input[1] >> 4) * 4
    limits.maximumTokenBytes = Int(input[2] & 15) * 2
    limits.maximumWorldBytes = Int(input[2] >> 4) * 32
    var bytes = Array(input[3...])
    if input[0] & 1 != 0 && bytes.count >= 8 {
        let checksum = RoomStateEncoding.checksum(bytes[..<(bytes.count - 8)])
        for index in 0..<8 { bytes[bytes.count - 8 + index] = UInt8(truncatingIfNeeded: checksum >> (56 - 8 * index)) }
    }
    var fingerprint = fuzzSchemaFingerprint
    if input[0] & 2 != 0 && bytes.count >= 13 {
        fingerprint = bytes[5..<13].reduce(0) { $0 << 8 | UInt64($1) }
    }
    let state: RoomState<FuzzStandInWorld>
    do {
        state = try RoomStateEncoding.decode(bytes, schemaFingerprint: fingerprint, limits: limits, decodeWorld: FuzzStandInWorld.decode)
    } catch {
        _ = error.description
        return 0
    }
    guard state.name.utf8.count <= limits.maximumRoomNameBytes, state.clients.count <= limits.maximumClients,
        state.world.bytes.count <= limits.maximumWorldBytes,
        state.clients.allSatisfy({
            $0.id != 0 && $0.token.count <= limits.maximumTokenBytes
                && ($0.identity?.userData.count ?? 0) <= limits.maximumUserDataBytes
        }),
        Set(state.clients.map(\.id)).count == state.clients.count, Set(state.clients.map(\.token)).count == state.clients.count
    else { fatalError("\(bytes) decoded as \(state), which breaks \(limits)") }
    let encoded = RoomStateEncoding.encode(state, schemaFingerprint: fingerprint, encodeWorld: FuzzStandInWorld.encode)
    // Every field has one encoding (varints must be canonical, nothing may trail): the same bytes,
    // unless the input is of an older version, which is written anew in the current one.
    guard encoded == bytes || bytes[4] != RoomStateEncoding.version else {
        fatalError("\(bytes) decoded as \(state), which re-encodes as other bytes: \(encoded)")
    }
    // A version 1 state grows by one identity byte a client when written anew.
    var rereadLimits = limits
    rereadLimits.maximumBytes = max(limits.maximumBytes, encoded.count)
    do {
        let again = try RoomStateEncoding.decode(
            encoded, schemaFingerprint: fingerprint, limits: rereadLimits, decodeWorld: FuzzStandInWorld.decode)
        guard again.name == state.name, again.tick == state.tick, again.clients == state.clients, again.world == state.world else {
            fatalError("\(bytes) decoded as \(state), re-encoded as \(encoded), decoded again as \(again)")
        }
    } catch {
        fatalError("\(bytes) decoded as \(state), re-encoded as \(encoded), which does not decode: \(error)")
    }
    return 0
}
