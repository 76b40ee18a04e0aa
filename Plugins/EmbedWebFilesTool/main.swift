// The tool the EmbedWebFiles build plugin runs: writes a Swift source file holding the text of
// every file the browser needs, so that a copied `arena` binary still serves the page (SwiftPM
// resources live in a bundle next to the binary, which a copy loses).
//
// usage: EmbedWebFilesTool OUTPUT URL_PATH FILE [URL_PATH FILE …]
// Exits 1 with a message on standard error when a file cannot be read, is not UTF-8, or holds
// a carriage return (the text must survive a multi-line string literal byte for byte).
import Foundation

/// Stops the build with a message that names the file at fault.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("EmbedWebFilesTool: \(message)\n".utf8))
    exit(1)
}

/// The indentation of a string literal's lines: Swift strips the closing delimiter's
/// indentation from every line, so the text is embedded exactly.
let indent = String(repeating: " ", count: 12)

/// A raw multi-line string literal holding `text` exactly: enough `#` that no `"""#…` or `\#…`
/// inside the text ends the literal or starts an escape.
func literal(_ text: String) -> String {
    var hashes = "#"
    while text.contains("\"\"\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : indent + $0 }
    // The newline before the closing delimiter is not part of the string: a text ending in a
    // newline ends with an empty line here.
    return "\(hashes)\"\"\"\n\(lines.joined(separator: "\n"))\n\(indent)\"\"\"\(hashes)"
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, arguments.count % 2 == 1 else {
    fail("usage: EmbedWebFilesTool OUTPUT URL_PATH FILE [URL_PATH FILE …] (got \(arguments.count) arguments)")
}
var source = """
    // Generated at build time by the EmbedWebFiles plugin (Plugins/EmbedWebFiles) from
    // Sources/ArenaGame/Web/index.html, Sources/ArenaGame/Web/arena/*.js and Clients/javascript/*.js.
    // Not in git: edit those files instead.

    /// The browser client's files, by URL path, as `arena serve` serves them (see ``ArenaWebSite``).
    enum EmbeddedWebFiles {
        /// Every served file: its URL path and its text.
        static let files: [(path: String, text: String)] = [

    """
for index in stride(from: 1, to: arguments.count, by: 2) {
    let (path, file) = (arguments[index], arguments[index + 1])
    guard let bytes = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
    guard let text = String(data: bytes, encoding: .utf8) else { fail("\(file) is not UTF-8") }
    guard !bytes.contains(UInt8(ascii: "\r")) else { fail("\(file) holds a carriage return; save it with LF line endings") }
    source += "        (\n            path: \"\(path)\",\n            text: \(literal(text))\n        ),\n"
}
source += "    ]\n}\n"
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: arguments[0]), options: .atomic)
} catch {
    fail("cannot write \(arguments[0]): \(error)")
}
