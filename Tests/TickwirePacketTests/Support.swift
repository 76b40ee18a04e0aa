import Foundation
import TickwireFoundation
import TickwirePacket

/// Bytes from hexadecimal text (whitespace ignored); nil on odd length or a non-hex digit.
func hexBytes(_ text: String) -> [UInt8]? {
    let digits = text.filter { !$0.isWhitespace }
    guard digits.count % 2 == 0 else { return nil }
    var result: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
        result.append(byte)
        index = next
    }
    return result
}

/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A message whose bytes say which message it is: `index` as 4 big-endian bytes, then filler to `size`.
func numberedMessage(_ index: Int, size: Int) -> [UInt8] {
    var bytes = [
        UInt8(truncatingIfNeeded: index >> 24), UInt8(truncatingIfNeeded: index >> 16), UInt8(truncatingIfNeeded: index >> 8),
        UInt8(truncatingIfNeeded: index),
    ]
    while bytes.count < size { bytes.append(UInt8(truncatingIfNeeded: bytes.count &* 31 &+ index)) }
    return bytes
}

/// The index a ``numberedMessage(_:size:)`` carries.
func messageNumber(_ bytes: [UInt8]) -> Int {
    Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
}

/// What a simulated link does to packets: drops, delays (a base plus uniform jitter, which reorders),
/// duplicates. Each direction draws from the same seeded generator.
struct LinkConditions {
    var loss = 0.0
    var duplication = 0.0
    var delay = 0.02
    var jitter = 0.0
}

/// Two endpoints over a simulated lossy link on a virtual clock.
struct LinkSimulation {
    var a: PacketEndpoint
    var b: PacketEndpoint
    var conditions: LinkConditions
    var random: SplitMix64
    var now = 0.0
    var receivedByA: [ReceivedMessage] = []
    var receivedByB: [ReceivedMessage] = []
    /// Packets dropped on purpose by a test's filter (in addition to random loss).
    var dropFilter: ((_ toB: Bool, _ packet: [UInt8]) -> Bool)?
    private var inFlight: [(time: Double, order: Int, toB: Bool, bytes: [UInt8])] = []
    private var order = 0

    init(seed: UInt64, conditions: LinkConditions, limits: PacketLimits = PacketLimits()) throws {
        a = try PacketEndpoint(limits: limits)
        b = try PacketEndpoint(limits: limits)
        self.conditions = conditions
        random = SplitMix64(seed: seed)
    }

    /// Puts `packets` on the link, towards B when `toB`.
    mutating func transmit(_ packets: [[UInt8]], toB: Bool) {
        for packet in packets {
            precondition(packet.count <= 1200, "a packet of \(packet.count) bytes does not fit a netcode.io payload")
            if let dropFilter, dropFilter(toB, packet) { continue }
            if Double.random(in: 0..<1, using: &random) < conditions.loss { continue }
            let copies = Double.random(in: 0..<1, using: &random) < conditions.duplication ? 2 : 1
            for _ in 0..<copies {
                let delay = conditions.delay + Double.random(in: 0...1, using: &random) * conditions.jitter
                order += 1
                inFlight.append((now + delay, order, toB, packet))
            }
        }
    }

    /// Sends `message` from A (or from B when `fromA` is false) and puts the packets on the link.
    mutating func send(_ message: [UInt8], on channel: PacketChannel, fromA: Bool = true) throws {
        if fromA {
            transmit(try a.send(message, on: channel, now: now), toB: true)
        } else {
            transmit(try b.send(message, on: channel, now: now), toB: false)
        }
    }

    /// Advances the clock by `step`, delivering every packet due, then updates both endpoints.
    mutating func advance(by step: Double) throws {
        now += step
        inFlight.sort { ($0.time, $0.order) < ($1.time, $1.order) }
        while let first = inFlight.first, first.time <= now {
            inFlight.removeFirst()
            if first.toB {
                receivedByB += try b.receive(first.bytes, now: first.time)
            } else {
                receivedByA += try a.receive(first.bytes, now: first.time)
            }
        }
        transmit(a.update(now: now), toB: true)
        transmit(b.update(now: now), toB: false)
    }
}
