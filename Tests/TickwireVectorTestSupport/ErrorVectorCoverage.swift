import Foundation

/// The walk behind the error vector coverage tests: the error names a part of a protocol document
/// lists in its tables, and the error each vector of a folder expects, so that a test can check
/// both ways that every documented error has a vector and every vector's error is documented.
public enum ErrorVectorCoverage {
    /// The error names in the tables of a part of a document: the leading identifier of every
    /// code span in a column whose header is one of `columns` (`truncated(offset, needed)` →
    /// `truncated`).
    ///
    /// - Parameters:
    ///   - document: The document's path below `Protocol/` (`PROTOCOL.md`).
    ///   - start: The heading the part begins at (`"### 1A.6 "`), found at the start of a line.
    ///   - end: The heading after it (`"### 1A.7 "`).
    ///   - columns: The headers of the columns that name errors.
    ///   - skipsRow: Whether a table row (its cells, trimmed) names nothing a decoder of the wire reports.
    /// - Returns: The names.
    /// - Throws: ``VectorFileError`` when the document has no such part.
    public static func documentedErrors(
        in document: String, from start: String, to end: String, columns: Set<String> = ["Error"],
        skipsRow: ([String]) -> Bool = { _ in false }
    ) throws -> Set<String> {
        let text = try String(contentsOf: VectorFile.protocolDirectory.appendingPathComponent(document), encoding: .utf8)
        guard let from = text.range(of: "\n" + start) else { throw VectorFileError("\(document) has no heading \(start)") }
        guard let to = text.range(of: "\n" + end, range: from.upperBound..<text.endIndex) else {
            throw VectorFileError("\(document) has no heading \(end) after \(start)")
        }
        var names: Set<String> = []
        var errorColumns: [Int] = []
        for line in text[from.upperBound..<to.lowerBound].split(separator: "\n") {
            guard line.hasPrefix("|") else {
                errorColumns = []
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if errorColumns.isEmpty {
                // A table's header row: which columns name errors.
                errorColumns = cells.indices.filter { columns.contains(cells[$0]) }
                continue
            }
            if cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) || skipsRow(cells) { continue }
            for column in errorColumns where column < cells.count {
                names.formUnion(codeSpanNames(cells[column]))
            }
        }
        return names
    }

    /// The leading identifier of every code span in a table cell (`truncated(offset, needed)` → `truncated`).
    public static func codeSpanNames(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }
            .map { String($0.element.prefix { $0.isLetter || $0.isNumber }) }
            .filter { !$0.isEmpty }
    }

    /// The error each vector of a folder expects: its `# error:` line's name, before any values, by file name.
    ///
    /// - Parameter folder: The folder below `Protocol/` (`vectors`, `vectors/packet`); its own
    ///   `.hex` files, not those of folders below it.
    /// - Throws: Foundation's error when the folder cannot be listed, ``VectorFileError`` when a file does not read.
    public static func vectorErrors(in folder: String) throws -> [String: String] {
        let directory = VectorFile.protocolDirectory.appendingPathComponent(folder)
        var errors: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".hex") {
            if let signature = try VectorFile.load(folder + "/" + name)["error"] {
                errors[name] = String(signature.prefix { $0 != "(" })
            }
        }
        return errors
    }
}
