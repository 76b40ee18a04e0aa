import Foundation

/// The Swift code blocks of a Markdown file in this repository (the README, a DocC article), for
/// the tests that keep those blocks compiled: each block as its lines, trimmed, blank lines left out.
///
/// - Parameter path: The file's path from the repository's root.
/// - Returns: Every ```` ```swift ```` block, in order.
/// - Throws: When the file cannot be read.
func swiftBlocks(inMarkdownAt path: String) throws -> [[String]] {
    let text = try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    var blocks: [[String]] = []
    var current: [String]?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("```") {
            if let block = current {
                blocks.append(block)
                current = nil
            } else if line.hasPrefix("```swift") {
                current = []
            }
            continue
        }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty { current?.append(trimmed) }
    }
    return blocks
}

/// The lines of a test's own source file, trimmed, to look a documentation block's lines up in.
///
/// - Parameter filePath: The test file's `#filePath`.
/// - Returns: The set of its trimmed lines.
/// - Throws: When the file cannot be read.
func trimmedLines(ofSourceAt filePath: String) throws -> Set<String> {
    Set(
        try String(contentsOf: URL(fileURLWithPath: filePath), encoding: .utf8).split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        })
}

/// The repository's root: three folders up from this file (`Tests/TickwireTests/…`).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
