import Foundation
import Testing
import TickwirePacket

/// One `Protocol/vectors/packet/*.hex` file.
struct PacketVector: CustomStringConvertible {
    let name: String
    let fields: [String: String]
    let bytes: [UInt8]
    var description: String { name }

    static let directory = repositoryRoot.appendingPathComponent("Protocol/vectors/packet")

    static func all() -> [PacketVector] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".hex") }.sorted().compactMap { try? PacketVector(named: $0) }
    }

    init(named name: String) throws {
        self.name = name
        let text = try String(contentsOf: Self.directory.appendingPathComponent(name), encoding: .utf8)
        var fields: [String: String] = [:]
        var hex = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") {
                let body = line.dropFirst().trimmingCharacters(in: .whitespaces)
                if let colon = body.firstIndex(of: ":"), !body[..<colon].contains(" ") {
                    fields[String(body[..<colon])] = body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            } else {
                hex += line
            }
        }
        guard let decoded = hexBytes(hex) else { throw CocoaError(.fileReadCorruptFile) }
        self.fields = fields
        self.bytes = decoded
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
        arguments: PacketVector.all().filter { $0.fields["error"] == nil })
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
        arguments: PacketVector.all().filter { $0.fields["error"] != nil })
    func errorVector(_ vector: PacketVector) {
        let name = vector.fields["error"].map { String($0.prefix { $0 != "(" }) }
        #expect {
            _ = try Packet.decode(vector.bytes)
        } throws: { error in
            (error as? PacketError)?.code.description == name
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
