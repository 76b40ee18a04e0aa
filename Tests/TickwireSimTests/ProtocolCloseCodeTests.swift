import Foundation
import Testing
import TickwireCodec

@testable import TickwireSim

/// PROTOCOL.md and the code agree on close codes: section 1.3's table against the Swift
/// constants, and sections 5.5 and 5.10's reason tables against ``Message/Reject/Reason/closeCode``
/// and ``Message/Disconnect/Reason/closeCode``.
@Suite("PROTOCOL.md close codes")
struct ProtocolCloseCodeTests {
    static let protocolPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Protocol/PROTOCOL.md").standardized.path

    /// Every close code Tickwire names in Swift, with the name PROTOCOL.md 1.3 gives it.
    static let swiftCodes: [(code: CloseCode, name: String)] = [
        (.normalClosure, "normal closure"), (.goingAway, "going away"), (.protocolError, "protocol error"),
        (.unsupportedData, "unsupported data"), (.invalidFramePayloadData, "invalid frame payload data"),
        (.policyViolation, "policy violation"), (.messageTooBig, "message too big"), (.internalServerError, "internal error"),
        (.schemaMismatch, "schema mismatch"), (.roomFull, "room full"), (.kicked, "kicked"),
        (.unsupportedVersion, "unsupported version"), (.malformedFrame, "malformed frame"),
        (.idleTimeout, "idle timeout"), (.roomClosed, "room closed"),
        (.moved, "moved"),
    ]

    /// The text of one section: from its heading to the next heading of any level.
    static func section(_ heading: String) throws -> String {
        let text = try String(contentsOfFile: protocolPath, encoding: .utf8)
        guard let start = text.range(of: "\n" + heading + "\n") else { throw SectionMissing(heading: heading) }
        let rest = text[start.upperBound...]
        let end = rest.range(of: "\n#")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    struct SectionMissing: Error { let heading: String }

    /// The rows of a section's tables whose first cell starts with a number: (number, second cell).
    static func rows(_ section: String) -> [(Int, String)] {
        section.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, let number = Int(String(cells[1].prefix { $0.isASCII && $0.isNumber })) else { return nil }
            return (number, cells[2])
        }
    }

    @Test("every code in section 1.3 is a Swift constant of the same name, and every Swift constant is in the table")
    func closeCodeTable() throws {
        let documented = Self.rows(try Self.section("### 1.3 Close codes"))
        #expect(
            documented.count == Self.swiftCodes.count, "section 1.3 lists \(documented.count) codes, Swift names \(Self.swiftCodes.count)")
        for (number, name) in documented {
            let match = Self.swiftCodes.first { Int($0.code.rawValue) == number }
            #expect(match != nil, "PROTOCOL.md 1.3 documents \(number) \(name), which has no Swift constant")
            #expect(match?.name == name, "PROTOCOL.md 1.3 names \(number) '\(name)', Swift '\(match?.name ?? "")'")
        }
        for (code, name) in Self.swiftCodes {
            #expect(documented.contains { $0.0 == Int(code.rawValue) }, "\(code.rawValue) \(name) is not in PROTOCOL.md 1.3")
        }
    }

    @Test("section 5.5's reject table gives each reason the close code the host closes with")
    func rejectTable() throws {
        let rows = Self.rows(try Self.section("### 5.5 Reject (0x03)")).filter { $0.1.allSatisfy(\.isNumber) }
        #expect(rows.count == 16, "fifteen reasons (0-14) and the application range, got \(rows)")
        for (reason, code) in rows {
            let swift = Message.Reject.Reason(rawValue: UInt16(reason)).closeCode.rawValue
            #expect("\(swift)" == code, "reject reason \(reason): PROTOCOL.md says \(code), the host closes with \(swift)")
        }
        for raw in UInt16(0)...14 {
            #expect(rows.contains { $0.0 == Int(raw) }, "reject reason \(raw) has no row")
        }
    }

    @Test("section 5.10's disconnect table gives each reason the close code that follows it")
    func disconnectTable() throws {
        let rows = Self.rows(try Self.section("### 5.10 Disconnect (0x08)")).filter { $0.1.allSatisfy(\.isNumber) }
        #expect(rows.count == 11, "ten reasons and the application range, got \(rows)")
        for (reason, code) in rows {
            let swift = Message.Disconnect.Reason(rawValue: UInt16(reason)).closeCode.rawValue
            #expect("\(swift)" == code, "disconnect reason \(reason): PROTOCOL.md says \(code), the code is \(swift)")
        }
    }

    @Test("every code a host closes with is documented in section 1.3")
    func everyCodeSentIsDocumented() throws {
        let documented = Set(Self.rows(try Self.section("### 1.3 Close codes")).map(\.0))
        var sent: [CloseCode] = [.idleTimeout, .roomClosed]
        for raw in Array(UInt16(0)...9) + [32768, 65535] {
            sent.append(Message.Reject.Reason(rawValue: raw).closeCode)
            sent.append(Message.Disconnect.Reason(rawValue: raw).closeCode)
        }
        for code in sent {
            #expect(documented.contains(Int(code.rawValue)), "the host closes with \(code), which PROTOCOL.md 1.3 does not list")
        }
    }
}
