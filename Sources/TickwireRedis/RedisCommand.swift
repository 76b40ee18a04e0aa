/// One Redis command: its name and arguments, each a binary-safe byte string, encoded as RESP2
/// wants them (an array of bulk strings).
public struct RedisCommand: Hashable, Sendable {
    /// The name first, then the arguments.
    public var arguments: [[UInt8]]

    /// Creates a command from byte strings.
    ///
    /// - Parameter arguments: The name first, then the arguments.
    public init(arguments: [[UInt8]]) {
        self.arguments = arguments
    }

    /// Creates a command from text (each string sent as its UTF-8 bytes).
    ///
    /// - Parameter arguments: The name first, then the arguments, for example `"SET", "k", "v"`.
    public init(_ arguments: String...) {
        self.arguments = arguments.map { Array($0.utf8) }
    }

    /// Creates a command from text arguments followed by byte-string ones.
    ///
    /// - Parameters:
    ///   - text: The name and the first arguments.
    ///   - bytes: The arguments after them, as bytes.
    public init(_ text: [String], bytes: [[UInt8]] = []) {
        self.arguments = text.map { Array($0.utf8) } + bytes
    }

    /// Appends the command's RESP2 encoding (`*N\r\n` then `$len\r\nbytes\r\n` per argument).
    ///
    /// - Parameter output: The buffer to append to.
    public func encode(into output: inout [UInt8]) {
        output.reserveCapacity(output.count + arguments.reduce(16) { $0 + $1.count + 16 })
        Self.appendHeader(UInt8(ascii: "*"), arguments.count, to: &output)
        for argument in arguments {
            Self.appendHeader(UInt8(ascii: "$"), argument.count, to: &output)
            output.append(contentsOf: argument)
            output.append(contentsOf: [13, 10])
        }
    }

    /// The command's RESP2 encoding.
    public var encoded: [UInt8] {
        var output: [UInt8] = []
        encode(into: &output)
        return output
    }

    private static func appendHeader(_ type: UInt8, _ count: Int, to output: inout [UInt8]) {
        output.append(type)
        output.append(contentsOf: String(count).utf8)
        output.append(contentsOf: [13, 10])
    }
}
