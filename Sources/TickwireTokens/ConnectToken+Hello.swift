import TickwireCodec
import TickwireNetcode

extension ConnectToken {
    /// What a WebSocket hello carries of this token (`Protocol/PROTOCOL.md` 5.3.1): its expire
    /// timestamp, nonce and encrypted private part. The same token serves the UDP transport whole.
    ///
    /// `nil` only when `nonce` or `encryptedPrivateData` were changed to another size, which
    /// no token read or minted has.
    public var helloToken: Message.Hello.ConnectToken? {
        Message.Hello.ConnectToken(expireTimestamp: expireTimestamp, nonce: nonce, encryptedPrivateData: encryptedPrivateData)
    }
}
