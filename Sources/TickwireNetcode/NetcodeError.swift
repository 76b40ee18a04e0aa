/// An error of the netcode.io layer: a malformed or refused token or packet, or a value out of range.
///
/// A struct wrapping a private enum, so that new cases are not breaking changes. ``code`` tells
/// errors apart; ``description`` carries the values a reader needs (which limit, which value).
public struct NetcodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of a ``NetcodeError``, stable across releases, for counting and matching.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The name of the code.
        public let description: String
        init(_ name: String) { description = name }

        /// The input ends before a field it must hold.
        public static let truncated = Code("truncated")
        /// A datagram, token or field has a size the standard does not allow.
        public static let wrongSize = Code("wrongSize")
        /// The low 4 bits of the prefix byte name no packet type.
        public static let invalidPacketType = Code("invalidPacketType")
        /// The packet type is valid but not accepted by this side (a server gets no challenge).
        public static let packetTypeNotAccepted = Code("packetTypeNotAccepted")
        /// The high 4 bits of the prefix byte are outside `[1, 8]`.
        public static let invalidSequenceBytes = Code("invalidSequenceBytes")
        /// The version info is not `"NETCODE 1.02"`.
        public static let versionMismatch = Code("versionMismatch")
        /// The protocol id is not the one expected.
        public static let protocolIDMismatch = Code("protocolIDMismatch")
        /// The connect token has expired.
        public static let tokenExpired = Code("tokenExpired")
        /// AEAD decryption failed: wrong key, wrong associated data or tampered bytes.
        public static let authenticationFailed = Code("authenticationFailed")
        /// The packet's sequence number was already received or is older than the replay window.
        public static let replayed = Code("replayed")
        /// A connect token holds a number of server addresses outside `[1, 32]`.
        public static let invalidServerAddressCount = Code("invalidServerAddressCount")
        /// An address type is neither 1 (IPv4) nor 2 (IPv6).
        public static let invalidAddressType = Code("invalidAddressType")
        /// A connect token's create timestamp is after its expire timestamp.
        public static let invalidTimestamps = Code("invalidTimestamps")
        /// An address string could not be parsed.
        public static let invalidAddress = Code("invalidAddress")
        /// A connect token does not name this server's address.
        public static let serverAddressNotInToken = Code("serverAddressNotInToken")
        /// A client from this address or with this client id is already connected.
        public static let alreadyConnected = Code("alreadyConnected")
        /// The connect token was already used from another address.
        public static let tokenUsedElsewhere = Code("tokenUsedElsewhere")
        /// No encryption mapping exists for the sender (or all mappings are taken).
        public static let noEncryptionMapping = Code("noEncryptionMapping")
        /// The packet came from an address that is not the server the client talks to.
        public static let unexpectedSender = Code("unexpectedSender")
        /// The operation needs another state (sending a payload while not connected).
        public static let invalidState = Code("invalidState")
        /// A value is outside the range the standard or the configuration allows.
        public static let outOfRange = Code("outOfRange")
    }

    private enum Kind: Hashable, Sendable {
        case truncated(what: String, needed: Int, available: Int)
        case wrongSize(what: String, size: Int, expected: String)
        case invalidPacketType(UInt8)
        case packetTypeNotAccepted(NetcodePacketType)
        case invalidSequenceBytes(Int)
        case versionMismatch
        case protocolIDMismatch(expected: UInt64, received: UInt64)
        case tokenExpired(expireTimestamp: UInt64, now: UInt64)
        case authenticationFailed(what: String)
        case replayed(sequence: UInt64)
        case invalidServerAddressCount(Int)
        case invalidAddressType(UInt8)
        case invalidTimestamps(create: UInt64, expire: UInt64)
        case invalidAddress(String)
        case serverAddressNotInToken
        case alreadyConnected(what: String)
        case tokenUsedElsewhere
        case noEncryptionMapping
        case unexpectedSender(NetcodeAddress)
        case invalidState(operation: String, state: String)
        case outOfRange(what: String, value: Int, range: ClosedRange<Int>)
    }

    private let kind: Kind
    private init(_ kind: Kind) { self.kind = kind }

    /// The kind of this error.
    public var code: Code {
        switch kind {
        case .truncated: .truncated
        case .wrongSize: .wrongSize
        case .invalidPacketType: .invalidPacketType
        case .packetTypeNotAccepted: .packetTypeNotAccepted
        case .invalidSequenceBytes: .invalidSequenceBytes
        case .versionMismatch: .versionMismatch
        case .protocolIDMismatch: .protocolIDMismatch
        case .tokenExpired: .tokenExpired
        case .authenticationFailed: .authenticationFailed
        case .replayed: .replayed
        case .invalidServerAddressCount: .invalidServerAddressCount
        case .invalidAddressType: .invalidAddressType
        case .invalidTimestamps: .invalidTimestamps
        case .invalidAddress: .invalidAddress
        case .serverAddressNotInToken: .serverAddressNotInToken
        case .alreadyConnected: .alreadyConnected
        case .tokenUsedElsewhere: .tokenUsedElsewhere
        case .noEncryptionMapping: .noEncryptionMapping
        case .unexpectedSender: .unexpectedSender
        case .invalidState: .invalidState
        case .outOfRange: .outOfRange
        }
    }

    /// What went wrong, with the values involved.
    public var description: String {
        switch kind {
        case .truncated(let what, let needed, let available):
            "netcode: \(what) is truncated: \(needed) bytes needed, \(available) available"
        case .wrongSize(let what, let size, let expected):
            "netcode: \(what) has \(size) bytes, expected \(expected)"
        case .invalidPacketType(let value): "netcode: packet type \(value) is not a netcode.io packet type (0...6)"
        case .packetTypeNotAccepted(let type): "netcode: a \(type) packet is not accepted on this side"
        case .invalidSequenceBytes(let count): "netcode: \(count) sequence bytes, expected 1...8"
        case .versionMismatch: "netcode: version info is not \"NETCODE 1.02\""
        case .protocolIDMismatch(let expected, let received):
            "netcode: protocol id \(received) differs from the expected \(expected)"
        case .tokenExpired(let expire, let now): "netcode: connect token expired at \(expire), now is \(now)"
        case .authenticationFailed(let what): "netcode: \(what) failed to decrypt (wrong key, associated data or bytes)"
        case .replayed(let sequence): "netcode: sequence \(sequence) was already received or is older than the replay window"
        case .invalidServerAddressCount(let count): "netcode: \(count) server addresses, expected 1...\(Netcode.maxServersPerConnect)"
        case .invalidAddressType(let type): "netcode: address type \(type), expected 1 (IPv4) or 2 (IPv6)"
        case .invalidTimestamps(let create, let expire): "netcode: create timestamp \(create) is after expire timestamp \(expire)"
        case .invalidAddress(let text): "netcode: \"\(text)\" is not an IPv4 or IPv6 address with a port"
        case .serverAddressNotInToken: "netcode: the connect token does not name this server's address"
        case .alreadyConnected(let what): "netcode: a client with this \(what) is already connected"
        case .tokenUsedElsewhere: "netcode: the connect token was already used from another address"
        case .noEncryptionMapping: "netcode: no encryption mapping for the sender's address"
        case .unexpectedSender(let address): "netcode: packet from \(address), which is not the server"
        case .invalidState(let operation, let state): "netcode: cannot \(operation) in state \(state)"
        case .outOfRange(let what, let value, let range): "netcode: \(what) is \(value), expected \(range.lowerBound)...\(range.upperBound)"
        }
    }

    static func truncated(_ what: String, needed: Int, available: Int) -> Self {
        Self(.truncated(what: what, needed: needed, available: available))
    }
    static func wrongSize(_ what: String, size: Int, expected: String) -> Self {
        Self(.wrongSize(what: what, size: size, expected: expected))
    }
    static func invalidPacketType(_ value: UInt8) -> Self { Self(.invalidPacketType(value)) }
    static func packetTypeNotAccepted(_ type: NetcodePacketType) -> Self { Self(.packetTypeNotAccepted(type)) }
    static func invalidSequenceBytes(_ count: Int) -> Self { Self(.invalidSequenceBytes(count)) }
    static let versionMismatch = Self(.versionMismatch)
    static func protocolIDMismatch(expected: UInt64, received: UInt64) -> Self {
        Self(.protocolIDMismatch(expected: expected, received: received))
    }
    static func tokenExpired(expireTimestamp: UInt64, now: UInt64) -> Self {
        Self(.tokenExpired(expireTimestamp: expireTimestamp, now: now))
    }
    static func authenticationFailed(_ what: String) -> Self { Self(.authenticationFailed(what: what)) }
    static func replayed(_ sequence: UInt64) -> Self { Self(.replayed(sequence: sequence)) }
    static func invalidServerAddressCount(_ count: Int) -> Self { Self(.invalidServerAddressCount(count)) }
    static func invalidAddressType(_ type: UInt8) -> Self { Self(.invalidAddressType(type)) }
    static func invalidTimestamps(create: UInt64, expire: UInt64) -> Self { Self(.invalidTimestamps(create: create, expire: expire)) }
    static func invalidAddress(_ text: String) -> Self { Self(.invalidAddress(text)) }
    static let serverAddressNotInToken = Self(.serverAddressNotInToken)
    static func alreadyConnected(_ what: String) -> Self { Self(.alreadyConnected(what: what)) }
    static let tokenUsedElsewhere = Self(.tokenUsedElsewhere)
    static let noEncryptionMapping = Self(.noEncryptionMapping)
    static func unexpectedSender(_ address: NetcodeAddress) -> Self { Self(.unexpectedSender(address)) }
    static func invalidState(_ operation: String, state: String) -> Self { Self(.invalidState(operation: operation, state: state)) }
    static func outOfRange(_ what: String, value: Int, range: ClosedRange<Int>) -> Self {
        Self(.outOfRange(what: what, value: value, range: range))
    }
}
