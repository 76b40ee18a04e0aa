import Foundation
import Testing
import TickwireVectorTestSupport

/// Every error `Protocol/PROTOCOL.md` section 1A.6 names has a vector in `Protocol/vectors/packet`,
/// and every error a packet vector expects is named there: read from 1A.6's tables (their `Error`
/// columns: the packet's refusals, the channel's, and the error parameters) and from the vectors'
/// `# error:` lines. The sibling of `ErrorVectorCoverageTests`, which reads section 7.
@Suite("Packet error vector coverage")
struct PacketErrorVectorCoverageTests {
    /// The error names of section 1A.6's tables.
    static func sectionErrors() throws -> Set<String> {
        try ErrorVectorCoverage.documentedErrors(in: "PROTOCOL.md", from: "### 1A.6 ", to: "### 1A.7 ")
    }

    /// The error each packet vector's `# error:` line names (before any values), by vector.
    static func vectorErrors() throws -> [String: String] { try ErrorVectorCoverage.vectorErrors(in: "vectors/packet") }

    @Test("section 1A.6's tables name the packet's and the channel's refusals")
    func readsTheTables() throws {
        let named = try Self.sectionErrors()
        for error in ["packetTooLarge", "truncated", "fragmentSizeInvalid", "messageTooLarge", "reliableProtocolViolation"] {
            #expect(named.contains(error), "\(error) is in section 1A.6's tables but was not read from them")
        }
        #expect(!named.contains("reliableQueueFull"), "a full send queue is the sender's error, not a refusal of a packet received")
    }

    @Test("every error named in section 1A.6 has at least one packet vector")
    func everyErrorHasAVector() throws {
        let covered = Set(try Self.vectorErrors().values)
        for error in try Self.sectionErrors().sorted() {
            #expect(covered.contains(error), "PROTOCOL.md section 1A.6 names \(error), but no vector in Protocol/vectors/packet expects it")
        }
    }

    @Test("every error a packet vector expects is named in section 1A.6")
    func everyVectorErrorIsNamed() throws {
        let named = try Self.sectionErrors()
        #expect(!(try Self.vectorErrors()).isEmpty, "no packet vector has an error line: Protocol/vectors/packet was not read")
        for (vector, error) in try Self.vectorErrors().sorted(by: { $0.key < $1.key }) {
            #expect(named.contains(error), "\(vector) expects \(error), which PROTOCOL.md section 1A.6 does not name")
        }
    }
}
