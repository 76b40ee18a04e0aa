import TickwireIO
import TickwireNetcode
import TickwirePacket
import TickwireSim

/// Why a UDP transport server or client could not be set up.
public struct UDPTransportError: TransportRefusalError, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case system(SystemError)
        case netcode(NetcodeError)
        case packet(PacketError)
        case address(String)
        case tokenRefused(status: Int, response: [UInt8], words: String)
    }

    private let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// A socket or event loop call failed (`socket`, `bind`, `pthread_create`, …).
    static func system(_ error: SystemError) -> UDPTransportError { UDPTransportError(.system(error)) }
    /// netcode.io refused the configuration or the token.
    static func netcode(_ error: NetcodeError) -> UDPTransportError { UDPTransportError(.netcode(error)) }
    /// The packet layer's limits are out of range.
    static func packet(_ error: PacketError) -> UDPTransportError { UDPTransportError(.packet(error)) }
    /// An address cannot be used: the words say which and why.
    static func address(_ words: String) -> UDPTransportError { UDPTransportError(.address(words)) }

    /// A token endpoint answered with a status other than 200: `response` is its head and the
    /// start of its body (at most `ConnectTokenFetch.maximumResponseBytes`).
    static func tokenRefused(status: Int, response: [UInt8], words: String) -> UDPTransportError {
        UDPTransportError(.tokenRefused(status: status, response: response, words: words))
    }

    /// The HTTP status and the response (head and body bytes) of a token endpoint that refused
    /// to hand out a token, if that is what failed: for a caller that explains refusals (a
    /// `Tickwire-Refusal` header naming the budget, say).
    package var tokenRefusal: (status: Int, response: [UInt8])? {
        if case .tokenRefused(let status, let response, _) = kind { return (status, response) }
        return nil
    }

    /// The token endpoint's refusal, if that is what failed: its status, the status line's
    /// reason phrase, and its body's text (as far as the response was read). A
    /// ``ReconnectingSession`` whose opener throws it stops on a status in
    /// ``ReconnectingSession/finalConnectionRefusals`` (401, 403).
    public var transportRefusal: TransportRefusal? {
        guard case .tokenRefused(let status, let response, _) = kind else { return nil }
        let statusLine = String(decoding: response.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        // "HTTP/1.1 401 Unauthorized": the words after the version and the code.
        let reason = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).dropFirst(2).first ?? ""
        let blankLine: [UInt8] = [13, 10, 13, 10]
        let bodyStart = (0...max(0, response.count - blankLine.count)).first {
            Array(response[$0..<min($0 + 4, response.count)]) == blankLine
        }
        let body = bodyStart.map { String(decoding: response[($0 + blankLine.count)...], as: UTF8.self) } ?? ""
        let words = body.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
        return TransportRefusal(status: status, reason: String(reason), text: String(words))
    }

    /// The socket error underneath, if that is what failed.
    public var systemError: SystemError? {
        if case .system(let error) = kind { return error }
        return nil
    }

    /// The netcode.io error underneath, if that is what failed.
    public var netcodeError: NetcodeError? {
        if case .netcode(let error) = kind { return error }
        return nil
    }

    /// What failed, in words.
    public var description: String {
        switch kind {
        case .system(let error): "UDP transport: \(error)"
        case .netcode(let error): "UDP transport: netcode.io: \(error)"
        case .packet(let error): "UDP transport: packet limits: \(error)"
        case .address(let words): "UDP transport: \(words)"
        case .tokenRefused(_, _, let words): "UDP transport: \(words)"
        }
    }
}
