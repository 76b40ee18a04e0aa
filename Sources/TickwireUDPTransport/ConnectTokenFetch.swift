import Dispatch
import Synchronization
import TickwireIO
import TickwireNetcode

/// Fetches a connect token from a plain-HTTP endpoint that answers `GET` with the token's 2048
/// bytes in hexadecimal (`arena serve`'s `/udp-token`), on a short-lived event loop of its own.
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
    /// - Returns: The token.
    /// - Throws: ``UDPTransportError``: the host does not resolve, the connection fails or times
    ///   out, the status is not 200 (``UDPTransportError/tokenRefusal`` holds the answer), or the
    ///   body is not a token in hexadecimal.
    package static func fetch(
        host: String, port: Int, path: String, timeout: Duration = .seconds(3), from source: SocketAddress? = nil
    ) throws(UDPTransportError) -> ConnectToken {
        let addresses: [SocketAddress]
        let loop: EventLoop
        do throws(SystemError) {
            addresses = try SocketAddress.resolve(host: host, port: port)
            loop = try EventLoop()
            try loop.start()
        } catch {
            throw .system(error)
        }
        defer { loop.stop() }
        guard let address = addresses.first else { throw .address("\(host) has no address") }
        let exchange = Exchange()
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n".utf8)
        let started = loop.runAndWait { () -> SystemError? in
            do throws(SystemError) {
                let socket = try Socket(family: address.family)
                let isConnected = try socket.connect(to: address, from: source)
                let channel = try TCPChannel(socket: socket, peer: address, loop: loop, isConnecting: !isConnected)
                channel.onRead = { bytes in exchange.received(Array(bytes)) }
                channel.onClose = { error in exchange.finish(error) }
                if isConnected {
                    channel.write(request)
                } else {
                    channel.onConnect = { error in
                        if let error { exchange.finish(error) } else { channel.write(request) }
                    }
                }
                return nil
            } catch {
                return error
            }
        }
        switch started {
        case .some(.some(let error)): throw .system(error)
        case .none: throw .address("the event loop stopped")
        case .some(.none): break
        }
        let nanoseconds = Int(timeout.components.seconds) * 1_000_000_000 + Int(timeout.components.attoseconds / 1_000_000_000)
        let isDone = exchange.done.wait(timeout: .now() + .nanoseconds(nanoseconds))
        // Stopping the loop (deferred above) closes the socket, answered or not.
        guard isDone == .success else { throw .address("no token from \(host):\(port)\(path) within \(timeout)") }
        return try parse(exchange.bytes.withLock { $0 }, from: "\(host):\(port)\(path)")
    }

    /// The token in an HTTP response's body.
    static func parse(_ response: [UInt8], from source: String) throws(UDPTransportError) -> ConnectToken {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let split = response.indices.dropLast(3).first(where: { Array(response[$0..<$0 + 4]) == separator }) else {
            throw .address("\(source) sent no complete HTTP response")
        }
        let head = String(decoding: response[..<split], as: UTF8.self)
        let body = String(decoding: response[(split + 4)...], as: UTF8.self).filter { !$0.isWhitespace }
        guard head.hasPrefix("HTTP/1.1 200") || head.hasPrefix("HTTP/1.0 200") else {
            let status = Int(head.dropFirst("HTTP/1.1 ".count).prefix(3)) ?? 0
            throw .tokenRefused(
                status: status, response: response, words: "\(source) answered \(head.prefix { $0 != "\r" }): \(body.prefix(200))")
        }
        guard let bytes = Hex.bytes(String(body)) else { throw .address("\(source) sent a body that is not hexadecimal") }
        do throws(NetcodeError) {
            return try ConnectToken(bytes: bytes)
        } catch {
            throw .netcode(error)
        }
    }

    /// What the loop and the waiting thread share: the bytes read and the end.
    private final class Exchange: Sendable {
        let bytes = Mutex<[UInt8]>([])
        let isFinished = Mutex(false)
        let done = DispatchSemaphore(value: 0)

        func received(_ more: [UInt8]) {
            let isFull = bytes.withLock { bytes -> Bool in
                bytes += more.prefix(ConnectTokenFetch.maximumResponseBytes - bytes.count)
                return bytes.count >= ConnectTokenFetch.maximumResponseBytes
            }
            if isFull { finish(nil) }
        }

        func finish(_ error: SystemError?) {
            let isFirst = isFinished.withLock { isFinished -> Bool in
                defer { isFinished = true }
                return !isFinished
            }
            if isFirst { done.signal() }
        }
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
