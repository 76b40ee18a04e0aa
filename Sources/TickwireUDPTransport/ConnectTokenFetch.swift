import TickwireIO
import TickwireNetcode

/// Fetches a connect token from an HTTP (or https) endpoint that answers `GET` with the token's
/// 2048 bytes in hexadecimal (`arena serve`'s `/udp-token`), on a short-lived event loop of its own.
package enum ConnectTokenFetch {
    /// The most bytes of a response read (a hex token is 4096 bytes and a small head).
    package static let maximumResponseBytes = 16_384

    /// GETs `path` from `host`:`port` and reads the token in the body.
    ///
    /// - Parameters:
    ///   - host: A name or a numeric address.
    ///   - port: The HTTP port.
    ///   - path: The request target, such as `/udp-token`.
    ///   - timeout: How long the whole exchange may take.
    ///   - source: The local address to connect from (a load tool's spread of addresses), or
    ///     `nil` for the kernel's choice.
    ///   - tls: How to check an https endpoint's certificate, or `nil` (default) for plain HTTP.
    /// - Returns: The token.
    /// - Throws: ``UDPTransportError``: the host does not resolve, the connection fails or times
    ///   out, the status is not 200 (``UDPTransportError/tokenRefusal`` holds the answer), or the
    ///   body is not a token in hexadecimal.
    package static func fetch(
        host: String, port: Int, path: String, timeout: Duration = .seconds(3), from source: SocketAddress? = nil,
        tls: TLSClientConfiguration? = nil
    ) throws(UDPTransportError) -> ConnectToken {
        var exchange = HTTPExchange(method: "GET", host: host, port: port, path: path)
        exchange.timeout = timeout
        exchange.source = source
        exchange.tls = tls
        exchange.maximumBodyBytes = maximumResponseBytes
        let response: HTTPExchangeResponse
        do throws(HTTPExchangeError) {
            response = try exchange.run()
        } catch {
            switch error.kind {
            case .system(let systemError): throw .system(systemError)
            case .timedOut: throw .address("no token from \(exchange.target) within \(timeout)")
            default: throw .address("\(error)")
            }
        }
        return try token(in: response, from: exchange.target)
    }

    /// The token in a response's body, or the refusal a status other than 200 is.
    static func token(in response: HTTPExchangeResponse, from source: String) throws(UDPTransportError) -> ConnectToken {
        let body = String(decoding: response.body, as: UTF8.self).filter { !$0.isWhitespace }
        guard response.status == 200 else {
            throw .tokenRefused(
                status: response.status, response: Self.rawResponse(response),
                words: "\(source) answered \(response.status) \(response.reason): \(body.prefix(200))")
        }
        guard let bytes = Hex.bytes(String(body)) else { throw .address("\(source) sent a body that is not hexadecimal") }
        do throws(NetcodeError) {
            return try ConnectToken(bytes: bytes)
        } catch {
            throw .netcode(error)
        }
    }

    /// The response as bytes again (head and body), as ``UDPTransportError/tokenRefusal`` keeps it.
    private static func rawResponse(_ response: HTTPExchangeResponse) -> [UInt8] {
        var head = "HTTP/1.1 \(response.status) \(response.reason)\r\n"
        for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
        return Array((head + "\r\n").utf8) + response.body
    }
}

/// Hexadecimal digits to bytes and back (connect tokens and keys in text).
package enum Hex {
    /// Lowercase hexadecimal digits of `bytes`.
    package static func text(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of an even number of hexadecimal digits, or `nil`.
    package static func bytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
