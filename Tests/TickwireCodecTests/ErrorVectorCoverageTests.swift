import Foundation
import Testing
import TickwireVectorTestSupport

/// Every error `Protocol/PROTOCOL.md` section 7 names has a vector in `Protocol/vectors`, and
/// every error a vector expects is named there: read from the tables of sections 7.1 and 7.2
/// (their `Error` and `Refused with` columns) and from the vectors' `# error:` lines.
@Suite("Error vector coverage")
struct ErrorVectorCoverageTests {
    /// The error names of section 7.1's and 7.2's tables (their `Error` and `Refused with`
    /// columns). A row checked at `declaration` (schema errors) or marked `not a wire error` names
    /// nothing a decoder of the wire reports.
    static func sectionSevenErrors() throws -> Set<String> {
        try ErrorVectorCoverage.documentedErrors(
            in: "PROTOCOL.md", from: "## 7. ", to: "### 7.3 ", columns: ["Error", "Refused with"],
            skipsRow: { cells in cells.contains("declaration") || cells.contains { $0.contains("not a wire error") } })
    }

    /// The error each top-level vector's `# error:` line names (its name, before any parameters), by vector.
    static func vectorErrors() throws -> [String: String] { try ErrorVectorCoverage.vectorErrors(in: "vectors") }

    @Test("section 7's tables name the errors a decoder reports")
    func readsTheTables() throws {
        let named = try Self.sectionSevenErrors()
        for error in ["truncated", "trailingData", "malformedRangeCode", "emptyFrame", "inflation", "trailingBytes"] {
            #expect(named.contains(error), "\(error) is in section 7's tables but was not read from them")
        }
        #expect(!named.contains("SchemaError") && !named.contains("schemaMismatch"), "schema errors are not wire errors")
    }

    @Test("every error named in section 7 has at least one vector")
    func everyErrorHasAVector() throws {
        let covered = Set(try Self.vectorErrors().values)
        for error in try Self.sectionSevenErrors().sorted() {
            #expect(covered.contains(error), "PROTOCOL.md section 7 names \(error), but no vector in Protocol/vectors expects it")
        }
    }

    @Test("every error a vector expects is named in section 7")
    func everyVectorErrorIsNamed() throws {
        let named = try Self.sectionSevenErrors()
        for (vector, error) in try Self.vectorErrors().sorted(by: { $0.key < $1.key }) {
            #expect(named.contains(error), "\(vector) expects \(error), which PROTOCOL.md section 7 does not name")
        }
    }
}
