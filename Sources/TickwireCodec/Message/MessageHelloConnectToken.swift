extension Message.Hello {
    /// What a hello carries of a netcode.io 1.02 connect token (`Protocol/PROTOCOL.md` section
    /// 5.3.1): the parts a server needs to open the token's private part, which holds the
    /// player's verified identity.
    ///
    /// Layout (1056 bytes, no length prefix): expire timestamp (u64, Unix seconds), nonce (24
    /// bytes), encrypted private connect token (1024 bytes, netcode.io's, its last 16 bytes the
    /// AEAD tag). The token's protocol id and netcode.io version info are not sent: the server
    /// uses its own, and a token minted for another fails to open. A client gets these bytes from
    /// the same 2048-byte connect token it would give the UDP transport.
    public struct ConnectToken: Hashable, Sendable {
        /// The bytes of the nonce (netcode.io's connect token nonce).
        public static let nonceBytes = 24
        /// The bytes of the encrypted private part, tag included (netcode.io's).
        public static let encryptedPrivateDataBytes = 1024
        /// The bytes of the AEAD tag at the end of the encrypted private part.
        public static let tagBytes = 16
        /// The bytes of the whole field in a hello: 8 + 24 + 1024.
        public static let encodedBytes = 8 + nonceBytes + encryptedPrivateDataBytes

        /// The Unix time (seconds) at which the token expires: part of the AEAD's associated
        /// data, so it cannot be changed without the token failing to open.
        public let expireTimestamp: UInt64
        /// The token's nonce, exactly ``nonceBytes`` bytes.
        public let nonce: [UInt8]
        /// The encrypted private part, exactly ``encryptedPrivateDataBytes`` bytes.
        public let encryptedPrivateData: [UInt8]

        /// Creates the hello's token field from a connect token's parts.
        ///
        /// - Parameters:
        ///   - expireTimestamp: The token's expire timestamp.
        ///   - nonce: Its nonce, ``nonceBytes`` bytes.
        ///   - encryptedPrivateData: Its encrypted private part, ``encryptedPrivateDataBytes`` bytes.
        /// - Returns: `nil` when the nonce or the private part has another size: no such token exists.
        public init?(expireTimestamp: UInt64, nonce: [UInt8], encryptedPrivateData: [UInt8]) {
            guard nonce.count == Self.nonceBytes, encryptedPrivateData.count == Self.encryptedPrivateDataBytes else { return nil }
            self.expireTimestamp = expireTimestamp
            self.nonce = nonce
            self.encryptedPrivateData = encryptedPrivateData
        }

        /// Reads the field from its ``encodedBytes`` bytes, as a matchmaker's seat carries them in
        /// hexadecimal (`Protocol/MATCHMAKER.md` section 2, `helloToken`).
        ///
        /// - Parameter bytes: Exactly ``encodedBytes`` bytes.
        /// - Throws: ``FrameError``: fewer bytes (truncated) or more (trailing bytes).
        public init(encoded bytes: [UInt8]) throws(FrameError) {
            var reader = ByteReader(bytes)
            try self.init(from: &reader)
            guard reader.isAtEnd else { throw .trailingBytes(type: MessageType.hello.rawValue, count: reader.remainingCount) }
        }

        /// The AEAD tag of the private part (its last ``tagBytes`` bytes): what a host remembers of
        /// a used token, since no two tokens that open share it.
        public var tag: [UInt8] { Array(encryptedPrivateData.suffix(Self.tagBytes)) }

        func encode(into writer: inout ByteWriter) {
            writer.writeUInt64(expireTimestamp)
            writer.writeBytes(nonce)
            writer.writeBytes(encryptedPrivateData)
        }

        init(from reader: inout ByteReader) throws(FrameError) {
            expireTimestamp = try reader.readUInt64()
            nonce = try reader.readBytes(count: Self.nonceBytes)
            encryptedPrivateData = try reader.readBytes(count: Self.encryptedPrivateDataBytes)
        }
    }
}
