import Foundation
import Testing
import TickwireCodec
import TickwireNetcode
import TickwireSim
import TickwireTokens

/// Reads `Protocol/vectors/tokens/*.hex` and the token frame vectors (`Protocol/vectors/tokens/README.md`):
/// `# name: value` lines, the rest hex.
struct TokenVector {
    var fields: [String: String] = [:]
    var bytes: [UInt8] = []

    static let protocolDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Protocol")

    static func load(_ path: String) throws -> TokenVector {
        let text = try String(contentsOf: protocolDirectory.appendingPathComponent(path), encoding: .utf8)
        var vector = TokenVector()
        var hex = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# ") {
                let body = line.dropFirst(2)
                if let colon = body.firstIndex(of: ":"), !body.hasPrefix(" ") {
                    let key = String(body[..<colon])
                    let value = String(body[body.index(after: colon)...].drop { $0 == " " })
                    vector.fields[key] = value
                }
            } else if !line.hasPrefix("#") {
                hex += line.filter { !$0.isWhitespace }
            }
        }
        vector.bytes = try bytes(hex)
        return vector
    }

    static func bytes(_ hex: String) throws -> [UInt8] {
        let digits = Array(hex.utf8)
        try #require(digits.count % 2 == 0, "odd number of hex digits")
        return try stride(from: 0, to: digits.count, by: 2).map { index in
            try #require(UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16), "bad hex digits")
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Hex in lines of 16 bytes, as the vector files hold it.
    static func hexLines(_ bytes: [UInt8]) -> String {
        stride(from: 0, to: bytes.count, by: 16).map { start in
            bytes[start..<min(start + 16, bytes.count)].map { String(format: "%02x", $0) }.joined(separator: " ")
        }.joined(separator: "\n") + "\n"
    }

    func field(_ name: String) throws -> String {
        try #require(fields[name], "the vector has no `# \(name):` line")
    }

    func hexField(_ name: String) throws -> [UInt8] { try Self.bytes(try field(name)) }

    func integer(_ name: String) throws -> UInt64 {
        let text = try field(name)
        if text.hasPrefix("0x") { return try #require(UInt64(text.dropFirst(2), radix: 16), "\(name) is not hex") }
        return try #require(UInt64(text), "\(name) is not a decimal integer")
    }
}

/// The fixed inputs of `Protocol/vectors/tokens/token-01-connect-token.hex`: every byte of the
/// token follows from them (libsodium's XChaCha20-Poly1305 is deterministic given the nonce).
enum TokenVectorInputs {
    static let key = try! NetcodeKey(bytes: Array(0..<32))
    static let protocolID: UInt64 = 0x5449_434B_5749_5245
    static let createTimestamp: UInt64 = 1_800_000_000
    static let expireTimestamp: UInt64 = 1_800_000_060
    static let nonce: [UInt8] = Array(0x40..<0x58)
    static let clientToServerKey = try! NetcodeKey(bytes: Array(0x80..<0xA0))
    static let serverToClientKey = try! NetcodeKey(bytes: Array(0xA0..<0xC0))
    static let address = NetcodeAddress(ipv4: 127, 0, 0, 1, port: 40_000)
    static let userID: UInt64 = 42

    static func token() throws -> ConnectToken {
        let userData = try ConnectTokenUserData(room: "red", displayName: "Ada", claims: [0x07, 0x2A]).encoded()
        let privatePart = try ConnectTokenPrivate(
            clientID: userID, timeoutSeconds: 10, serverAddresses: [address], clientToServerKey: clientToServerKey,
            serverToClientKey: serverToClientKey, userData: userData)
        return try ConnectToken.generate(
            privatePart, protocolID: protocolID, createTimestamp: createTimestamp, expireTimestamp: expireTimestamp, privateKey: key,
            nonce: nonce)
    }

    /// The hello of `Protocol/vectors/frame-hello-connect-token.hex`.
    static func hello() throws -> Message.Hello {
        Message.Hello(
            schemaFingerprint: 0x0123_4567_89AB_CDEF, compressionModes: [.perFrame, .streaming], room: "red",
            payload: Array("ada".utf8), connectToken: try #require(try token().helloToken))
    }
}
