import Foundation
import Testing
import TickwireVectorTestSupport

/// Every refusal `Protocol/PROTOCOL.md` 5.3.1 and 5.3.2 write in vectors has one in
/// `Protocol/vectors/tokens`, and every error a tokens vector expects is named there: read from the
/// `Error` columns of the two sections' tables (a verifier's `tokenExpired` and `tokenInvalid`, the
/// user data layout's refusals) and from the vectors' `# error:` lines. The sibling of
/// `ErrorVectorCoverageTests` (section 7) and `PacketErrorVectorCoverageTests` (section 1A.6).
@Suite("Token error vector coverage")
struct TokenErrorVectorCoverageTests {
    /// The error names of the tables of sections 5.3.1 and 5.3.2.
    static func sectionErrors() throws -> Set<String> {
        let text = try String(contentsOf: VectorFile.protocolDirectory.appendingPathComponent("PROTOCOL.md"), encoding: .utf8)
        let start = try #require(text.range(of: "\n#### 5.3.1 "), "PROTOCOL.md has a section 5.3.1")
        let end = try #require(text.range(of: "\n### 5.4 ", range: start.upperBound..<text.endIndex), "section 5 has a 5.4")
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
                errorColumns = cells.indices.filter { cells[$0] == "Error" }
                continue
            }
            if cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) { continue }
            for column in errorColumns where column < cells.count {
                let spans = cells[column].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
                names.formUnion(spans.map { String($0.element.prefix { $0.isLetter || $0.isNumber }) }.filter { !$0.isEmpty })
            }
        }
        return names
    }

    /// The error each tokens vector's `# error:` line names (before any values), by vector.
    static func vectorErrors() throws -> [String: String] {
        let directory = VectorFile.protocolDirectory.appendingPathComponent("vectors/tokens")
        var errors: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".hex") {
            let vector = try VectorFile.load("vectors/tokens/" + name)
            if let signature = vector["error"] { errors[name] = String(signature.prefix { $0 != "(" }) }
        }
        return errors
    }

    @Test("sections 5.3.1 and 5.3.2 name a verifier's refusals and the user data layout's")
    func readsTheTables() throws {
        let named = try Self.sectionErrors()
        for error in ["tokenExpired", "tokenInvalid", "unknownLayout", "lengthExceeded", "truncated", "invalidUTF8", "nonZeroPadding"] {
            #expect(named.contains(error), "\(error) is in section 5.3's tables but was not read from them")
        }
    }

    @Test("every refusal sections 5.3.1 and 5.3.2 name has a tokens vector")
    func everyErrorHasAVector() throws {
        let covered = Set(try Self.vectorErrors().values)
        for error in try Self.sectionErrors().sorted() {
            #expect(covered.contains(error), "PROTOCOL.md 5.3 names \(error), but no vector in Protocol/vectors/tokens expects it")
        }
    }

    @Test("every error a tokens vector expects is named in sections 5.3.1 and 5.3.2")
    func everyVectorErrorIsNamed() throws {
        let named = try Self.sectionErrors()
        let errors = try Self.vectorErrors()
        #expect(errors.values.contains("tokenExpired") && errors.values.contains("tokenInvalid"), "the whole-token error vectors were read")
        for (vector, error) in errors.sorted(by: { $0.key < $1.key }) {
            #expect(named.contains(error), "\(vector) expects \(error), which PROTOCOL.md 5.3 does not name")
        }
    }
}
