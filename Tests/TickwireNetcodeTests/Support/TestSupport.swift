import Foundation
import TickwireNetcode

/// Bytes from hexadecimal text (whitespace ignored); nil on odd length or a non-hex digit.
func bytes(hex text: String) -> [UInt8]? {
    let digits = text.filter { !$0.isWhitespace }
    guard digits.count % 2 == 0 else { return nil }
    var result: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
        result.append(byte)
        index = next
    }
    return result
}

/// The package root: the nearest directory above this file holding `Package.swift` and `Protocol/`.
func packageRoot() -> URL {
    var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    for _ in 0..<8 {
        let manifest = directory.appendingPathComponent("Package.swift").path
        let protocolDirectory = directory.appendingPathComponent("Protocol").path
        if FileManager.default.fileExists(atPath: manifest) && FileManager.default.fileExists(atPath: protocolDirectory) {
            return directory
        }
        directory.deleteLastPathComponent()
    }
    return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// One `Protocol/vectors/netcode/*.hex` file: `# key: value` header lines and the expected bytes.
struct NetcodeVector {
    let name: String
    let headers: [String: [String]]
    let bytes: [UInt8]

    static let directory = packageRoot().appendingPathComponent("Protocol/vectors/netcode")

    init(named name: String) throws {
        self.name = name
        let text = try String(contentsOf: Self.directory.appendingPathComponent(name), encoding: .utf8)
        var headers: [String: [String]] = [:]
        var hex = ""
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#") {
                let body = trimmed.dropFirst()
                if let colon = body.firstIndex(of: ":") {
                    let key = body[..<colon].trimmingCharacters(in: .whitespaces)
                    let value = body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    headers[key, default: []].append(value)
                }
            } else {
                hex += trimmed
            }
        }
        self.headers = headers
        guard let decoded = TickwireNetcodeTests.bytes(hex: hex) else { throw VectorError.badHex(name) }
        bytes = decoded
    }

    func string(_ key: String) throws -> String {
        guard let value = headers[key]?.first else { throw VectorError.missingHeader(name, key) }
        return value
    }
    func integer(_ key: String) throws -> UInt64 {
        guard let value = UInt64(try string(key)) else { throw VectorError.badHeader(name, key) }
        return value
    }
    func hex(_ key: String) throws -> [UInt8] {
        guard let value = TickwireNetcodeTests.bytes(hex: try string(key)) else { throw VectorError.badHeader(name, key) }
        return value
    }
    func key(_ name: String) throws -> NetcodeKey { try NetcodeKey(bytes: try hex(name)) }
}

enum VectorError: Error, CustomStringConvertible {
    case badHex(String)
    case missingHeader(String, String)
    case badHeader(String, String)
    var description: String {
        switch self {
        case .badHex(let name): "vector \(name): the body is not hexadecimal"
        case .missingHeader(let name, let key): "vector \(name): no '# \(key):' header"
        case .badHeader(let name, let key): "vector \(name): header '\(key)' does not parse"
        }
    }
}

/// Fixed inputs shared by the unit tests (the same values as the vectors use).
enum Fixture {
    static let protocolID: UInt64 = 0x1122_3344_5566_7788
    static let privateKey = key(0x00)
    static let clientToServerKey = key(0x40)
    static let serverToClientKey = key(0x60)
    static let challengeKey = key(0x80)
    static let userData = (0..<256).map { UInt8($0 & 0xFF) }
    static let serverAddress = NetcodeAddress(ipv4: 127, 0, 0, 1, port: 40000)
    static let now: Double = 1_700_000_000

    static func key(_ start: UInt8) -> NetcodeKey {
        // 32 consecutive bytes: always a valid key.
        try! NetcodeKey(bytes: (0..<32).map { start &+ UInt8($0) })
    }

    static func privateToken(
        clientID: UInt64 = 0x0123_4567_89AB_CDEF, timeout: Int32 = 5, addresses: [NetcodeAddress] = [serverAddress],
        clientToServer: NetcodeKey = clientToServerKey, serverToClient: NetcodeKey = serverToClientKey
    ) throws -> ConnectTokenPrivate {
        try ConnectTokenPrivate(
            clientID: clientID, timeoutSeconds: timeout, serverAddresses: addresses, clientToServerKey: clientToServer,
            serverToClientKey: serverToClient, userData: userData)
    }

    static func token(
        clientID: UInt64 = 0x0123_4567_89AB_CDEF, timeout: Int32 = 5, addresses: [NetcodeAddress] = [serverAddress],
        create: UInt64 = 1_700_000_000, expire: UInt64 = 1_700_000_030, randomKeys: Bool = false
    ) throws -> ConnectToken {
        let privatePart = try privateToken(
            clientID: clientID, timeout: timeout, addresses: addresses,
            clientToServer: randomKeys ? .random() : clientToServerKey, serverToClient: randomKeys ? .random() : serverToClientKey)
        return try ConnectToken.generate(
            privatePart, protocolID: protocolID, createTimestamp: create, expireTimestamp: expire, privateKey: privateKey)
    }
}
