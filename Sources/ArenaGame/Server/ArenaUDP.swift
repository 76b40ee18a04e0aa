import Tickwire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The arena's UDP side: its netcode.io protocol id, the private key connect tokens are sealed
/// with, and the guest tokens `GET /udp-token` hands out.
package enum ArenaUDP {
    /// The arena's netcode.io protocol id ("ARENA" and a version), which every token names.
    package static let protocolID: UInt64 = 0x4152_454E_4101

    /// The path of the token endpoint on the arena's HTTP port.
    package static let tokenPath = "/udp-token"

    /// How long a guest token may be used to connect, in seconds.
    package static let tokenLifetime: UInt64 = 30

    /// Seconds without a packet before netcode.io drops a connection made with a guest token.
    package static let tokenTimeoutSeconds: Int32 = 10

    /// Reads the private key from `path` (64 hexadecimal digits), or, when there is no such file,
    /// makes a fresh random one (libsodium's `randombytes_buf`) and writes it there, readable by
    /// the owner only.
    ///
    /// - Parameter path: The key file.
    /// - Returns: The key.
    /// - Throws: ``SystemError`` naming the file when it cannot be read, written or parsed.
    package static func key(at path: String) throws(SystemError) -> NetcodeKey {
        let existing: [UInt8]?
        do {
            existing = try HostStateFile.read(from: path, maximumBytes: 1024)
        } catch {
            throw SystemError(call: "read the UDP key \(path): \(error)", code: EIO)
        }
        if let existing {
            let text = String(decoding: existing, as: UTF8.self).trimmingWhitespace
            guard let bytes = Hex.bytes(text) else {
                throw SystemError(call: "read the UDP key \(path): expected \(Netcode.keyBytes * 2) hexadecimal digits", code: EINVAL)
            }
            do throws(NetcodeError) {
                return try NetcodeKey(bytes: bytes)
            } catch {
                throw SystemError(call: "read the UDP key \(path): \(error)", code: EINVAL)
            }
        }
        let key = NetcodeKey.random()
        do {
            try HostStateFile.write(Array((Hex.text(key.bytes) + "\n").utf8), to: path)
        } catch {
            throw SystemError(call: "write the UDP key \(path): \(error)", code: EIO)
        }
        guard chmod(path, 0o600) == 0 else { throw SystemError.current("chmod \(path)") }
        return key
    }

    /// The `udp://HOST:PORT` a fleet process registers for UDP (RedisDirectoryConfiguration's
    /// `publicUDPURL`): the address its connect tokens name, which for a wildcard host
    /// (`0.0.0.0`, `::`) is the loopback address, as ``UDPTransportServer`` names it.
    ///
    /// - Parameters:
    ///   - host: The numeric address the UDP server binds (`arena serve --host`).
    ///   - port: Its UDP port, 1...65535.
    /// - Returns: The URL, or `nil` for a host that is not a numeric address.
    package static func publicURL(host: String, port: Int) -> String? {
        let named = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host
        guard let port = UInt16(exactly: port), port > 0 else { return nil }
        do throws(NetcodeError) {
            return "udp://\(try NetcodeAddress(parsing: named.contains(":") ? "[\(named)]:\(port)" : "\(named):\(port)"))"
        } catch {
            return nil
        }
    }

    /// A guest connect token for `addresses`: a random client id, no user data.
    ///
    /// - Parameters:
    ///   - key: The server's private key.
    ///   - addresses: The server's public UDP addresses.
    ///   - now: The Unix time in seconds.
    /// - Returns: The token.
    /// - Throws: ``NetcodeError`` when the token cannot be made.
    package static func guestToken(key: NetcodeKey, addresses: [NetcodeAddress], now: UInt64) throws(NetcodeError) -> ConnectToken {
        var generator = SystemRandomNumberGenerator()
        let privatePart = try ConnectTokenPrivate(
            clientID: generator.next(), timeoutSeconds: tokenTimeoutSeconds, serverAddresses: addresses,
            clientToServerKey: NetcodeKey.random(), serverToClientKey: NetcodeKey.random(),
            userData: Array(repeating: 0, count: Netcode.userDataBytes))
        return try ConnectToken.generate(
            privatePart, protocolID: protocolID, createTimestamp: now, expireTimestamp: now + tokenLifetime, privateKey: key)
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line ends.
    fileprivate var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
