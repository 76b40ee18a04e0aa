import Foundation
import Testing

/// Every error `Protocol/PROTOCOL.md` section 7 names has a vector in `Protocol/vectors`, and
/// every error a vector expects is named there: read from the tables of sections 7.1 and 7.2
/// (their `Error` and `Refused with` columns) and from the vectors' `# error:` lines.
@Suite("Error vector coverage")
struct ErrorVectorCoverageTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The error names of section 7.1's and 7.2's tables. A row checked at `declaration` (schema
    /// errors) or marked `not a wire error` names nothing a decoder of the wire reports.
    static func sectionSevenErrors() throws -> Set<String> {
        let text = try String(contentsOf: root.appendingPathComponent("Protocol/PROTOCOL.md"), encoding: .utf8)
        let start = try #require(text.range(of: "\n## 7. "), "PROTOCOL.md has a section 7")
        let end = try #require(text.range(of: "\n### 7.3 ", range: start.upperBound..<text.endIndex), "section 7 has a 7.3")
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
                errorColumns = cells.indices.filter { cells[$0] == "Error" || cells[$0] == "Refused with" }
                continue
            }
            if cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) { continue }
            if cells.contains("declaration") || line.contains("not a wire error") { continue }
            for column in errorColumns where column < cells.count {
                names.formUnion(codeSpanNames(cells[column]))
            }
        }
        return names
    }

    /// The leading identifier of every code span in a table cell (`truncated(offset, needed)` → `truncated`).
    static func codeSpanNames(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }
            .map { String($0.element.prefix { $0.isLetter || $0.isNumber }) }
            .filter { !$0.isEmpty }
    }

    /// The error each vector's `# error:` line names (its name, before any parameters), by vector.
    static func vectorErrors() throws -> [String: String] {
        let directory = root.appendingPathComponent("Protocol/vectors")
        var errors: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".hex") {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("# error:") {
                let signature = line.dropFirst("# error:".count).trimmingCharacters(in: .whitespaces)
                errors[name] = String(signature.prefix { $0 != "(" })
            }
        }
        return errors
    }

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
