import Foundation
import Testing

@testable import TickwireUDPTransport

/// The vectors of `Protocol/vectors/udp`: the transport's close and handover messages (PROTOCOL.md
/// 1A.10, 1A.11). Each valid one decodes to the values it states and encodes to its own bytes;
/// each `protocolError` one is refused.
@Suite("UDP transport message vectors")
struct UDPMessageVectorTests {
    /// One vector: its `# name: value` lines and its bytes.
    struct Vector: CustomStringConvertible {
        let name: String
        let lines: [String: [String]]
        let bytes: [UInt8]
        var description: String { name }

        static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Protocol/vectors/udp")

        static func all() throws -> [Vector] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".hex") }.sorted()
                .map { try Vector(named: $0) }
        }

        init(named name: String) throws {
            self.name = name
            var lines: [String: [String]] = [:]
            var digits = ""
            for line in try String(contentsOf: Self.directory.appendingPathComponent(name), encoding: .utf8).split(separator: "\n") {
                if line.hasPrefix("#") {
                    let body = line.dropFirst().trimmingCharacters(in: .whitespaces)
                    if let colon = body.firstIndex(of: ":"), !body[..<colon].contains(" ") {
                        lines[String(body[..<colon]), default: []].append(
                            body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                    }
                } else {
                    digits += line.filter { !$0.isWhitespace }
                }
            }
            self.lines = lines
            var bytes: [UInt8] = []
            var index = digits.startIndex
            while index < digits.endIndex {
                let next = digits.index(index, offsetBy: 2, limitedBy: digits.endIndex) ?? digits.endIndex
                guard let byte = UInt8(digits[index..<next], radix: 16) else { throw CocoaError(.fileReadCorruptFile) }
                bytes.append(byte)
                index = next
            }
            self.bytes = bytes
        }
    }

    @Test("the folder holds a close, a handover and a refusal of each")
    func folderIsComplete() throws {
        let names = Set(try Vector.all().map(\.name))
        for required in ["close-room-full.hex", "handover.hex", "close-error-utf8.hex", "handover-error-token.hex"] {
            #expect(names.contains(required), "Protocol/vectors/udp/\(required) is missing")
        }
    }

    @Test("each vector decodes to what it states, and a valid one encodes to its own bytes", arguments: try Vector.all())
    func vector(_ vector: Vector) throws {
        let refused = vector.lines["error"] == ["protocolError"]
        if UDPCloseMessage.isCloseMessage(vector.bytes) {
            let close = UDPCloseMessage(decoding: vector.bytes)
            guard !refused else {
                #expect(close == nil, "\(vector.name) must be refused, the transport closes with 1002 for it")
                return
            }
            let decoded = try #require(close, "\(vector.name) must decode")
            let reason = try #require(vector.lines["reason"]?.first.flatMap { $0.data(using: .utf8) })
            #expect(vector.lines["code"] == [String(decoded.code.rawValue)], "\(vector.name): the code")
            #expect(try JSONDecoder().decode(String.self, from: reason) == decoded.reason, "\(vector.name): the reason")
            #expect(decoded.encoded == vector.bytes, "\(vector.name) does not encode to its own bytes")
        } else {
            #expect(UDPHandoverMessage.isHandoverMessage(vector.bytes), "\(vector.name) is neither a close nor a handover")
            let handover = UDPHandoverMessage(decoding: vector.bytes)
            guard !refused else {
                #expect(handover == nil, "\(vector.name) must be refused, the transport closes with 1002 for it")
                return
            }
            let token = try #require(handover, "\(vector.name) must decode").token
            #expect(vector.lines["protocol-id"] == [String(token.protocolID)], "\(vector.name): the protocol id")
            #expect(vector.lines["expire-timestamp"] == [String(token.expireTimestamp)], "\(vector.name): the expire timestamp")
            #expect(vector.lines["server-address"]?.count == token.serverAddresses.count, "\(vector.name): the server addresses")
            #expect(handover?.encoded == vector.bytes, "\(vector.name) does not encode to its own bytes")
        }
    }
}
