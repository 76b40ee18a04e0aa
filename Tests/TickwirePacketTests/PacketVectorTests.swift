import Foundation
import Testing
import TickwirePacket

/// One `Protocol/vectors/packet/*.hex` file: one packet, or a sequence of packets (`# packet`
/// lines) that one endpoint receives in order, with the `# message:` lines the last delivers and
/// the `# limit:` lines it receives under.
struct PacketVector: CustomStringConvertible {
    let name: String
    let fields: [String: String]
    /// The one packet's bytes; a sequence's packets, concatenated.
    let bytes: [UInt8]
    /// A sequence's packets, in order; empty for a vector of one packet.
    let packets: [[UInt8]]
    /// A sequence's `# message:` lines (`CHANNEL HEX`) and `# limit:` lines (`NAME VALUE`).
    let messages: [String]
    let limits: [String]
    var description: String { name }
    var isSequence: Bool { !packets.isEmpty }

    static let directory = repositoryRoot.appendingPathComponent("Protocol/vectors/packet")

    static func all() -> [PacketVector] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".hex") }.sorted().compactMap { try? PacketVector(named: $0) }
    }

    init(named name: String) throws {
        self.name = name
        let text = try String(contentsOf: Self.directory.appendingPathComponent(name), encoding: .utf8)
        var fields: [String: String] = [:]
        var lists: [String: [String]] = ["message": [], "limit": []]
        var hex = ""
        var packetHex: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# packet") {
                packetHex.append("")
            } else if line.hasPrefix("#") {
                let body = line.dropFirst().trimmingCharacters(in: .whitespaces)
                if let colon = body.firstIndex(of: ":"), !body[..<colon].contains(" ") {
                    let key = String(body[..<colon])
                    let value = body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    if lists[key] != nil { lists[key, default: []].append(value) } else { fields[key] = value }
                }
            } else {
                hex += line
                if !packetHex.isEmpty { packetHex[packetHex.count - 1] += line }
            }
        }
        guard let decoded = hexBytes(hex) else { throw CocoaError(.fileReadCorruptFile) }
        self.fields = fields
        self.bytes = decoded
        self.packets = try packetHex.map { digits in
            guard let packet = hexBytes(digits) else { throw CocoaError(.fileReadCorruptFile) }
            return packet
        }
        self.messages = lists["message", default: []]
        self.limits = lists["limit", default: []]
    }
}

@Suite("Packet vectors")
struct PacketVectorTests {
    @Test("the vector directory holds every kind the README lists")
    func directoryIsComplete() {
        let names = Set(PacketVector.all().map(\.name))
        for required in [
            "packet-header-acks.hex", "packet-ack-only.hex", "packet-unreliable.hex", "packet-reliable.hex",
            "packet-fragment-0.hex", "packet-fragment-1.hex", "packet-fragment-2.hex", "packet-no-acks.hex",
            "packet-error-truncated-header.hex", "packet-error-fragment-index.hex", "packet-error-fragment-count-exceeded.hex",
        ] {
            #expect(names.contains(required), "Protocol/vectors/packet/\(required) is missing")
        }
    }

    @Test(
        "valid vectors decode to their described fields and re-encode byte for byte",
        arguments: PacketVector.all().filter { $0.fields["error"] == nil && !$0.isSequence })
    func validVector(_ vector: PacketVector) throws {
        let packet = try Packet.decode(vector.bytes)
        #expect(packet.encode() == vector.bytes, "\(vector.name) does not re-encode to its own bytes")
        #expect(vector.fields["sequence"].flatMap { UInt16($0) } == packet.sequence, "\(vector.name): sequence")
        if let ack = vector.fields["ack"] {
            #expect(UInt16(ack) == packet.acks?.ack, "\(vector.name): ack")
            #expect(
                vector.fields["ack-bits"].flatMap { UInt32($0.dropFirst(2), radix: 16) } == packet.acks?.ackBits, "\(vector.name): ack bits"
            )
        } else {
            #expect(packet.acks == nil, "\(vector.name) has no ack line, so the packet carries no acks")
        }
        // The payload line spells the bytes out; a long payload instead follows the pattern
        // `index`: byte k of fragment i (of a whole message, i = 0) is (i × 1024 + k) mod 256.
        func expectedPayload(index: Int, count: Int) -> [UInt8]? {
            if vector.fields["payload-pattern"] == "index" {
                return (0..<count).map { UInt8(truncatingIfNeeded: index * 1024 + $0) }
            }
            return vector.fields["payload"].flatMap { hexBytes($0) }
        }
        switch packet.content {
        case .ackOnly:
            #expect(vector.fields["type"] == "ack-only")
        case .message(let channel, let id, let body):
            #expect(vector.fields["type"] == "message")
            #expect(vector.fields["channel"] == channel.description)
            #expect(vector.fields["message-id"].flatMap { UInt16($0) } == id)
            #expect(expectedPayload(index: 0, count: body.count) == body, "\(vector.name): the message bytes differ from its payload line")
        case .fragment(let channel, let id, let index, let count, let body):
            #expect(vector.fields["type"] == "fragment")
            #expect(vector.fields["channel"] == channel.description)
            #expect(vector.fields["message-id"].flatMap { UInt16($0) } == id)
            #expect(vector.fields["fragment"] == "\(index)/\(count)")
            #expect(
                expectedPayload(index: index, count: body.count) == body, "\(vector.name): the fragment bytes differ from its payload line")
        }
    }

    /// The error line's name; its values (PROTOCOL.md 1A.6) are compared by `Tools/conformance`,
    /// which reads the error's signature from `tickwire conformance-decoder`.
    @Test(
        "error vectors are refused with the error their error line names",
        arguments: PacketVector.all().filter { $0.fields["error"] != nil && !$0.isSequence })
    func errorVector(_ vector: PacketVector) {
        let name = vector.fields["error"].map { String($0.prefix { $0 != "(" }) }
        #expect {
            _ = try Packet.decode(vector.bytes)
        } throws: { error in
            (error as? PacketError)?.code.description == name
        }
    }

    /// The last packet of a sequence delivers the vector's messages, or is refused with the error
    /// its error line names (its values are compared by `Tools/conformance`).
    @Test(
        "a sequence of packets, received in order by one endpoint, delivers its messages or is refused at the last",
        arguments: PacketVector.all().filter(\.isSequence))
    func sequenceVector(_ vector: PacketVector) throws {
        var limits = PacketLimits()
        for line in vector.limits {
            let parts = line.split(separator: " ")
            let value = try #require(parts.count == 2 ? Int(parts[1]) : nil, "\(vector.name): a limit line is NAME VALUE")
            switch parts[0] {
            case "maximumMessageBytes": limits.maximumMessageBytes = value
            case "maximumFragmentsPerMessage": limits.maximumFragmentsPerMessage = value
            default: Issue.record("\(vector.name): unknown limit \(parts[0])")
            }
        }
        var endpoint = try PacketEndpoint(limits: limits)
        for packet in vector.packets.dropLast() {
            _ = try endpoint.receive(packet, now: 0)
        }
        let last = try #require(vector.packets.last)
        if let error = vector.fields["error"] {
            let name = String(error.prefix { $0 != "(" })
            #expect {
                _ = try endpoint.receive(last, now: 0)
            } throws: { error in
                (error as? PacketError)?.code.description == name
            }
        } else {
            let delivered = try endpoint.receive(last, now: 0).map {
                "\($0.channel) \($0.bytes.map { String(format: "%02x", $0) }.joined())"
            }
            #expect(delivered == vector.messages, "\(vector.name): the last packet delivers other messages than its message lines")
        }
    }

    @Test("the fragments of packet-fragment-*.hex reassemble into the 2100-byte message")
    func fragmentsReassemble() throws {
        var endpoint = try PacketEndpoint()
        var delivered: [ReceivedMessage] = []
        for index in [2, 0, 1] {
            delivered += try endpoint.receive(try PacketVector(named: "packet-fragment-\(index).hex").bytes, now: 0)
        }
        let message = try #require(delivered.first, "the three fragments did not complete their message")
        #expect(delivered.count == 1)
        #expect(message.bytes == (0..<2100).map { UInt8(truncatingIfNeeded: $0) })
    }
}
