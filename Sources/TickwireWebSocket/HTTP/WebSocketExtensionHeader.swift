/// One element of a `Sec-WebSocket-Extensions` header: an extension name and its
/// parameters (RFC 6455 section 9.1), e.g. `permessage-deflate; client_max_window_bits=10`.
package struct WebSocketExtensionElement: Hashable, Sendable, CustomStringConvertible {
    /// One `name` or `name=value` parameter.
    package struct Parameter: Hashable, Sendable {
        /// The parameter name, lowercased.
        package var name: String
        /// The value with any quoting removed, or `nil` for a bare name.
        package var value: String?

        /// Creates a parameter.
        ///
        /// - Parameters:
        ///   - name: The parameter name.
        ///   - value: The value, or `nil` for a bare name.
        package init(name: String, value: String? = nil) {
            self.name = name.lowercased()
            self.value = value
        }
    }

    /// The extension name, lowercased.
    package var name: String
    /// The parameters in the order they appeared.
    package var parameters: [Parameter]

    /// Creates an element.
    ///
    /// - Parameters:
    ///   - name: The extension name.
    ///   - parameters: Its parameters.
    package init(name: String, parameters: [Parameter] = []) {
        self.name = name.lowercased()
        self.parameters = parameters
    }

    /// The element in header syntax, e.g. `permessage-deflate; server_max_window_bits=10`.
    package var description: String {
        var text = name
        for parameter in parameters {
            text += "; " + parameter.name
            if let value = parameter.value { text += "=" + value }
        }
        return text
    }

    /// Parses a `Sec-WebSocket-Extensions` value (or several header lines joined with commas).
    ///
    /// Grammar (RFC 6455 section 9.1): `extension *( "," extension )`, where
    /// `extension = token *( ";" token [ "=" ( token / quoted-string ) ] )`, with optional
    /// whitespace around separators. Empty list elements are skipped.
    ///
    /// - Parameter value: The header value.
    /// - Returns: The elements in order, or `nil` when the value breaks the grammar.
    package static func parseList(_ value: String) -> [WebSocketExtensionElement]? {
        var scanner = HeaderScanner(Array(value.utf8))
        var elements: [WebSocketExtensionElement] = []
        while true {
            scanner.skipWhitespace()
            if scanner.isAtEnd { return elements }
            if scanner.peek == UInt8(ascii: ",") {
                scanner.advance()
                continue
            }
            guard let name = scanner.token() else { return nil }
            var element = WebSocketExtensionElement(name: name)
            scanner.skipWhitespace()
            while scanner.peek == UInt8(ascii: ";") {
                scanner.advance()
                scanner.skipWhitespace()
                guard let parameterName = scanner.token() else { return nil }
                scanner.skipWhitespace()
                var parameterValue: String?
                if scanner.peek == UInt8(ascii: "=") {
                    scanner.advance()
                    scanner.skipWhitespace()
                    if scanner.peek == UInt8(ascii: "\"") {
                        guard let quoted = scanner.quotedString() else { return nil }
                        parameterValue = quoted
                    } else {
                        guard let token = scanner.token() else { return nil }
                        parameterValue = token
                    }
                    scanner.skipWhitespace()
                }
                element.parameters.append(Parameter(name: parameterName, value: parameterValue))
            }
            elements.append(element)
            if scanner.isAtEnd { return elements }
            guard scanner.peek == UInt8(ascii: ",") else { return nil }
            scanner.advance()
        }
    }
}

/// A cursor over an HTTP header value for the token / quoted-string grammar of RFC 7230.
struct HeaderScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }
    mutating func advance() { index += 1 }

    mutating func skipWhitespace() {
        while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    /// Reads a non-empty RFC 7230 token.
    mutating func token() -> String? {
        let start = index
        while let byte = peek, Self.isTokenCharacter(byte) { index += 1 }
        guard index > start else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// Reads a quoted string, undoing backslash escapes.
    mutating func quotedString() -> String? {
        guard peek == UInt8(ascii: "\"") else { return nil }
        advance()
        var result: [UInt8] = []
        while let byte = peek {
            advance()
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: result, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { return nil }
                advance()
                result.append(escaped)
            default: result.append(byte)
            }
        }
        return nil
    }

    /// Whether `byte` is a `tchar` of RFC 7230 section 3.2.6.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
