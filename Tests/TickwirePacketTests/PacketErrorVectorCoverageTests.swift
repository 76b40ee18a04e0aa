import Foundation
import Testing

/// Every error `Protocol/PROTOCOL.md` section 1A.6 names has a vector in `Protocol/vectors/packet`,
/// and every error a packet vector expects is named there: read from 1A.6's tables (their `Error`
/// columns: the packet's refusals, the channel's, and the error parameters) and from the vectors'
/// `# error:` lines. The sibling of `ErrorVectorCoverageTests`, which reads section 7.
@Suite("Packet error vector coverage")
struct PacketErrorVectorCoverageTests {
    /// The error names of section 1A.6's tables.
    static func sectionErrors() throws -> Set<String> {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("Protocol/PROTOCOL.md"), encoding: .utf8)
        let start = try #require(text.range(of: "\n### 1A.6 "), "PROTOCOL.md has a section 1A.6")
        let end = try #require(text.range(of: "\n### 1A.7 ", range: start.upperBound..<text.endIndex), "section 1A has a 1A.7")
        var names: Set<String> = []
        var errorColumns: [Int] = []
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") {
            guard line.hasPrefix("|") else {
                errorColumns = []
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if errorColumns.isEmpty {
                // A table's header row: which columns name errors.
                errorColumns = cells.indices.filter { cells[$0] == "Error" }
                continue
            }
            if cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) { continue }
            for column in errorColumns where column < cells.count {
                names.formUnion(codeSpanNames(cells[column]))
            }
        }
        return names
    }

    /// The leading identifier of every code span in a table cell (`truncated(what, needed, available)` → `truncated`).
    static func codeSpanNames(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }
            .map { String($0.element.prefix { $0.isLetter || $0.isNumber }) }
            .filter { !$0.isEmpty }
    }

    /// The error each packet vector's `# error:` line names (before any values), by vector.
    static func vectorErrors() -> [String: String] {
        var errors: [String: String] = [:]
        for vector in PacketVector.all() {
            if let signature = vector.fields["error"] { errors[vector.name] = String(signature.prefix { $0 != "(" }) }
        }
        return errors
    }

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
        let covered = Set(Self.vectorErrors().values)
        for error in try Self.sectionErrors().sorted() {
            #expect(covered.contains(error), "PROTOCOL.md section 1A.6 names \(error), but no vector in Protocol/vectors/packet expects it")
        }
    }

    @Test("every error a packet vector expects is named in section 1A.6")
    func everyVectorErrorIsNamed() throws {
        let named = try Self.sectionErrors()
        #expect(!Self.vectorErrors().isEmpty, "no packet vector has an error line: Protocol/vectors/packet was not read")
        for (vector, error) in Self.vectorErrors().sorted(by: { $0.key < $1.key }) {
            #expect(named.contains(error), "\(vector) expects \(error), which PROTOCOL.md section 1A.6 does not name")
        }
    }
}
