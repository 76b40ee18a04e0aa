import CommandLineSupport
import Foundation
import Tickwire

/// `tickwire inspect [FILE] [--hex] [--schema-hex HEX]`: prints the frames of a recording
/// (`Protocol/PROTOCOL.md` §9, written by `RecordingWriter`, e.g. `arena join --record FILE`)
/// as text, through ``FrameInspector``.
///
/// With `--hex`, frames are read as hex lines from FILE or stdin instead: one frame per line,
/// `<` before it for a frame to the client (the default), `>` for one to the server; blank lines
/// and `#` comments are skipped. `--schema-hex` then gives the schema's canonical encoding
/// (`Schema.canonicalEncoding()`) in hex, needed to decode snapshots.
enum InspectCommand {
    /// What `tickwire inspect` accepts; its usage text and its parser both come from here.
    static let syntax = CommandSyntax(
        name: "tickwire inspect",
        synopsis: ["FILE", "[FILE] --hex --schema-hex HEX"],
        summary: """
            prints a recording's frames as text (a recording: arena join --record FILE), or, with --hex,
            frames given as hex lines from FILE or standard input
            """,
        options: [
            .flag("hex", "read frames as hex lines ('<' to the client, the default; '>' to the server)"),
            .value("schema-hex", "HEX", "the schema's canonical encoding in hex (needed with --hex)"),
        ])

    static func run(_ arguments: CommandArguments) throws {
        var parsed = arguments
        let isHex = parsed.flag("hex")
        let schemaHex = parsed.string("schema-hex")
        try parsed.rejectUnknown()
        guard parsed.positionals.count <= 1 else { throw CommandArguments.UsageError(description: "one FILE at most") }
        let path = parsed.positionals.first

        let schema: Schema
        let frames: [RecordedFrame]
        if isHex {
            guard let schemaHex else { throw CommandArguments.UsageError(description: "--hex needs --schema-hex") }
            schema = try Schema(canonicalEncoding: try bytes(fromHex: schemaHex, what: "--schema-hex"))
            let text = try readInput(path)
            frames = try hexFrames(String(decoding: text, as: UTF8.self))
        } else {
            guard let path else { throw CommandArguments.UsageError(description: "which recording? (a FILE, or --hex)") }
            var reader = try RecordingReader(bytes: try readInput(path))
            schema = reader.schema
            frames = try reader.readAll()
        }
        print(describe(schema))
        let inspector = FrameInspector(schema: schema)
        for frame in frames {
            for line in inspector.inspect(frame) { print(line) }
        }
    }

    /// The schema in one line per type: `schema 0x… : ship(x float(…), …)`.
    static func describe(_ schema: Schema) -> String {
        let digits = String(schema.fingerprint, radix: 16)
        var lines = ["schema 0x" + String(repeating: "0", count: 16 - digits.count) + digits + ":"]
        for type in schema.entityTypes {
            lines.append("  \(type.name): " + type.fields.map { "\($0.name) \($0.kind)" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    /// The file's bytes (at most `RecordingReader.maximumRecordingBytes`), or stdin's when `path` is nil.
    static func readInput(_ path: String?) throws -> [UInt8] {
        guard let path else { return [UInt8](FileHandle.standardInput.readDataToEndOfFile()) }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= RecordingReader.maximumRecordingBytes else {
            throw CommandArguments.UsageError(
                description: "\(path) is \(size) bytes, over the \(RecordingReader.maximumRecordingBytes)-byte limit")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandArguments.UsageError(description: "cannot read \(path)")
        }
        return [UInt8](data)
    }

    /// Frames from hex lines; times are the line numbers in milliseconds, so order is kept.
    static func hexFrames(_ text: String) throws -> [RecordedFrame] {
        var frames: [RecordedFrame] = []
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            var direction = RecordingDirection.toClient
            if line.hasPrefix(">") { direction = .toServer; line.removeFirst() } else if line.hasPrefix("<") { line.removeFirst() }
            frames.append(
                RecordedFrame(
                    direction: direction, time: UInt64(number) * 1_000,
                    bytes: try bytes(fromHex: line, what: "line \(number + 1)")))
        }
        return frames
    }

    static func bytes(fromHex text: String, what: String) throws -> [UInt8] {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") })
        guard digits.count % 2 == 0 else { throw CommandArguments.UsageError(description: "\(what): odd number of hex digits") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else {
                throw CommandArguments.UsageError(description: "\(what): not hex near digit \(index + 1)")
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
