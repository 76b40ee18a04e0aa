/// Base64 with the standard alphabet and `=` padding (RFC 4648 section 4), for the
/// WebSocket handshake's `Sec-WebSocket-Key` and `Sec-WebSocket-Accept`.
package enum Base64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 255 marks a byte outside the alphabet.
    static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes as padded Base64.
    ///
    /// - Parameter bytes: The bytes.
    /// - Returns: The Base64 text.
    package static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(value >> 18 & 63)])
            output.append(alphabet[Int(value >> 12 & 63)])
            output.append(alphabet[Int(value >> 6 & 63)])
            output.append(alphabet[Int(value & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            output.append(alphabet[Int(value >> 18 & 63)])
            output.append(alphabet[Int(value >> 12 & 63)])
            output.append(rest == 2 ? alphabet[Int(value >> 6 & 63)] : UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes padded Base64, strictly: the length must be a multiple of 4, padding only at
    /// the end, no whitespace, and unused bits of the last symbol must be zero.
    ///
    /// - Parameter text: The Base64 text.
    /// - Returns: The bytes, or `nil` if `text` is not canonical padded Base64.
    package static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            let padding = isLast ? (input[index + 3] == UInt8(ascii: "=") ? (input[index + 2] == UInt8(ascii: "=") ? 2 : 1) : 0) : 0
            var value: UInt32 = 0
            for offset in 0..<4 {
                let byte = input[index + offset]
                if offset >= 4 - padding {
                    value <<= 6
                    continue
                }
                let symbol = decodeTable[Int(byte)]
                guard symbol != 255 else { return nil }
                value = value << 6 | UInt32(symbol)
            }
            output.append(UInt8(truncatingIfNeeded: value >> 16))
            if padding < 2 { output.append(UInt8(truncatingIfNeeded: value >> 8)) } else if value & 0xFFFF != 0 { return nil }
            if padding < 1 { output.append(UInt8(truncatingIfNeeded: value)) } else if value & 0xFF != 0 { return nil }
            index += 4
        }
        return output
    }
}

/// Base64 with the URL and file name safe alphabet and no padding (RFC 4648 section 5, as web
/// tokens use it, RFC 7515 section 2).
package enum Base64URL {
    /// Encodes bytes as unpadded base64url.
    ///
    /// - Parameter bytes: The bytes.
    /// - Returns: The text.
    package static func encode(_ bytes: [UInt8]) -> String {
        var text = Array(Base64.encode(bytes).utf8)
        while text.last == UInt8(ascii: "=") { text.removeLast() }
        for index in text.indices {
            if text[index] == UInt8(ascii: "+") {
                text[index] = UInt8(ascii: "-")
            } else if text[index] == UInt8(ascii: "/") {
                text[index] = UInt8(ascii: "_")
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Decodes unpadded base64url, strictly: no padding, no `+` or `/`, no whitespace, and the
    /// unused bits of the last symbol zero (so that each byte string has exactly one text).
    ///
    /// - Parameter text: The text.
    /// - Returns: The bytes, or `nil` when `text` is not canonical unpadded base64url.
    package static func decode(_ text: Substring) -> [UInt8]? {
        var standard = Array(text.utf8)
        guard standard.count % 4 != 1 else { return nil }
        for index in standard.indices {
            switch standard[index] {
            case UInt8(ascii: "-"): standard[index] = UInt8(ascii: "+")
            case UInt8(ascii: "_"): standard[index] = UInt8(ascii: "/")
            case UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="): return nil
            default: break
            }
        }
        while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
        return Base64.decode(String(decoding: standard, as: UTF8.self))
    }
}
