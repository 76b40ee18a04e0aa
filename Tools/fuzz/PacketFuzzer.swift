// Not part of the Swift package: built by `Tools/fuzz/run packet SECONDS` with -sanitize=fuzzer,address.

import TickwireNetcode
import TickwirePacket

/// The key, protocol id and time the netcode.io modes read with (fixed, for reproducible runs).
private let netcodeKey: NetcodeKey = {
    do throws(NetcodeError) {
        return try NetcodeKey(bytes: (0..<UInt8(Netcode.keyBytes)).map { $0 &* 7 &+ 1 })
    } catch {
        fatalError("a 32-byte key is refused: \(error)")
    }
}()
private let protocolID: UInt64 = 0x5449_434B
private let now: UInt64 = 1_700_000_000

/// libFuzzer entry. The first byte picks the mode, the rest is the input:
/// - 0: one packet-layer packet (PROTOCOL.md 1A.2): `Packet.decode`; a packet that decodes must
///   encode to the same bytes.
/// - 1, 2: packets for one `PacketEndpoint` (default limits, then small ones), each cut by a
///   two-byte little-endian length, the time advancing by the packet's first byte in
///   milliseconds, with an `update` after each: every message type, fragments, reassembly and
///   the reliable channel. No delivered message is over the message limit.
/// - 3: one netcode.io datagram read as a server and as a client would, with and without a key.
/// - 4: a netcode.io payload built from the input, written and read back: the same packet.
/// Nothing may crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func packetFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = input.first else { return 0 }
    let rest = Array(input.dropFirst())
    switch mode % 5 {
    case 0: decodeOne(rest)
    case 1: receiveAll(rest, limits: PacketLimits())
    case 2:
        var small = PacketLimits()
        small.maximumMessageBytes = 4096
        small.maximumFragmentsPerMessage = 4
        small.maximumUnreliableReassemblies = 2
        small.maximumReassemblyBytes = 8192
        small.reliableReceiveWindow = 8
        receiveAll(rest, limits: small)
    case 3: readNetcode(rest)
    default: roundTripNetcode(rest)
    }
    return 0
}

private func decodeOne(_ bytes: [UInt8]) {
    let packet: Packet
    do throws(PacketError) {
        packet = try Packet.decode(bytes)
    } catch {
        return  // refused: the property is only that it did not crash
    }
    let again = packet.encode()
    if again != bytes { fatalError("packet \(bytes) decoded as \(packet) encodes as \(again)") }
}

private func receiveAll(_ input: [UInt8], limits: PacketLimits) {
    let created: PacketEndpoint
    do throws(PacketError) {
        created = try PacketEndpoint(limits: limits)
    } catch {
        fatalError("the fuzzer's limits are refused: \(error)")
    }
    var endpoint = created
    var time = 0.0
    var index = 0
    while index + 2 <= input.count {
        let length = Int(input[index]) | Int(input[index + 1]) << 8
        index += 2
        let packet = Array(input[index..<min(index + length, input.count)])
        index += length
        time += Double(packet.first ?? 0) / 1000
        do throws(PacketError) {
            for message in try endpoint.receive(packet, now: time) where message.bytes.count > limits.maximumMessageBytes {
                fatalError("a message of \(message.bytes.count) bytes passed the limit of \(limits.maximumMessageBytes)")
            }
        } catch {
            // Refused (counted by the endpoint); the stream goes on, as a transport's would.
        }
        _ = endpoint.update(now: time)
    }
}

private func readNetcode(_ datagram: [UInt8]) {
    for accepted in [NetcodePacket.acceptedByServer, NetcodePacket.acceptedByClient] {
        for key in [nil, netcodeKey] {
            var window: ReplayProtection? = ReplayProtection()
            do throws(NetcodeError) {
                _ = try NetcodePacket.read(
                    datagram, key: key, protocolID: protocolID, now: now, accepted: accepted, replayProtection: &window)
            } catch {
                continue  // refused: the property is only that it did not crash
            }
        }
    }
}

private func roundTripNetcode(_ input: [UInt8]) {
    guard input.count >= 2 else { return }
    let sequence = UInt64(input[0]) << UInt64(8 * Int(input[1] % 8))
    let body = Array(input.dropFirst(2).prefix(Netcode.maxPayloadBytes))
    guard !body.isEmpty else { return }
    let written: [UInt8]
    do throws(NetcodeError) {
        written = try NetcodePacket.payload(body).written(sequence: sequence, key: netcodeKey, protocolID: protocolID)
    } catch {
        fatalError("a payload of \(body.count) bytes cannot be written: \(error)")
    }
    var window: ReplayProtection? = ReplayProtection()
    do throws(NetcodeError) {
        let read = try NetcodePacket.read(
            written, key: netcodeKey, protocolID: protocolID, now: now, accepted: NetcodePacket.acceptedByServer,
            replayProtection: &window)
        if read.packet != .payload(body) || read.sequence != sequence {
            fatalError("payload \(body) at sequence \(sequence) reads back as \(read)")
        }
    } catch {
        fatalError("a written payload is refused: \(error)")
    }
}
