import Foundation
import Testing
import TickwireCodec
import TickwireNetcode
import TickwireSim
import TickwireTokens

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
