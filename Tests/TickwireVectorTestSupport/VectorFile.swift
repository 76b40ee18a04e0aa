import Foundation

/// One `.hex` vector file of `Protocol/vectors` (`Protocol/vectors/README.md`): its `# name: value`
/// lines and its bytes, split into frames at `# frame` lines.
///
/// A `#` line is a `# name: value` line when a name follows `# ` directly (not more spaces) and a
/// colon ends it; every other `#` line is a comment. Every line that is not a `#` line is hex
/// (whitespace ignored). The shared reader of the Swift tests that read vectors.
public struct VectorFile: Sendable {
    /// The repository's `Protocol` folder, found from this file's path.
    public static let protocolDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Protocol")

    /// The file's path below `Protocol/` (`vectors/tokens/token-01-connect-token.hex`).
    public let path: String
    /// Every `# name: value` line, in order (a name may repeat, as `# limit:` does).
    public var lines: [(name: String, value: String)] = []
    /// The hex of each frame, in order: the whole file's when it has no `# frame` line; none for a
    /// file without hex.
    public var frames: [[UInt8]] = []

    /// Every byte of the file, the frames one after the other.
    public var bytes: [UInt8] { frames.flatMap { $0 } }

    /// The value of the first `# name:` line, or `nil`.
    public subscript(name: String) -> String? { lines.first { $0.name == name }?.value }

    /// The values of every `# name:` line, in order.
    public func values(_ name: String) -> [String] { lines.filter { $0.name == name }.map(\.value) }

    /// Reads a vector file.
    ///
    /// - Parameter path: The file's path below `Protocol/` (`vectors/frame-hello.hex`).
    /// - Throws: Foundation's error when the file cannot be read; ``VectorFileError`` when its hex is not.
    public static func load(_ path: String) throws -> VectorFile {
        let text = try String(contentsOf: protocolDirectory.appendingPathComponent(path), encoding: .utf8)
        var vector = VectorFile(path: path)
        var hex = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("# frame") {
                if !hex.isEmpty { vector.frames.append(try bytes(hex: hex, in: path)) }
                hex = ""
            } else if line.hasPrefix("# ") {
                let body = line.dropFirst(2)
                if !body.hasPrefix(" "), let colon = body.firstIndex(of: ":") {
                    let value = body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    vector.lines.append((String(body[..<colon]), value))
                }
            } else if !line.hasPrefix("#") {
                hex += line.filter { !$0.isWhitespace }
            }
        }
        if !hex.isEmpty { vector.frames.append(try bytes(hex: hex, in: path)) }
        return vector
    }

    /// The value of the `# name:` line.
    ///
    /// - Throws: ``VectorFileError`` when the file has none.
    public func field(_ name: String) throws -> String {
        guard let value = self[name] else { throw VectorFileError("\(path) has no `# \(name):` line") }
        return value
    }

    /// The bytes the `# name:` line writes in hex.
    public func hexField(_ name: String) throws -> [UInt8] { try Self.bytes(hex: try field(name), in: "\(path)'s `# \(name):` line") }

    /// The integer the `# name:` line writes, in decimal or as `0x` hex.
    public func integer(_ name: String) throws -> UInt64 {
        let text = try field(name)
        let value = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        guard let value else { throw VectorFileError("\(path)'s `# \(name): \(text)` is not a decimal or 0x integer") }
        return value
    }

    /// Bytes from hex digits (no whitespace).
    ///
    /// - Parameters:
    ///   - hex: An even number of hex digits.
    ///   - place: Where the digits come from, for the error's words.
    /// - Throws: ``VectorFileError`` on an odd count or a digit that is not hex.
    public static func bytes(hex: String, in place: String = "hex") throws -> [UInt8] {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { throw VectorFileError("\(place): an odd number of hex digits (\(digits.count))") }
        return try stride(from: 0, to: digits.count, by: 2).map { index in
            let pair = String(decoding: digits[index..<index + 2], as: UTF8.self)
            guard let byte = UInt8(pair, radix: 16) else { throw VectorFileError("\(place): '\(pair)' is not a hex byte") }
            return byte
        }
    }

    /// Bytes as lower-case hex, the bytes joined by `separator`.
    public static func hex(_ bytes: [UInt8], separator: String = "") -> String {
        bytes.map { String(format: "%02x", $0) }.joined(separator: separator)
    }

    /// Hex in lines of 16 bytes, as the vector files hold it.
    public static func hexLines(_ bytes: [UInt8]) -> String {
        stride(from: 0, to: bytes.count, by: 16).map { start in
            hex(Array(bytes[start..<min(start + 16, bytes.count)]), separator: " ")
        }.joined(separator: "\n") + "\n"
    }
}

/// A vector file that does not read: which file, and what is wrong with it.
public struct VectorFileError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
