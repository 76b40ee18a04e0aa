import TickwireCodec

// Which close code ends a connection after which message: PROTOCOL.md section 1.3 (the codes),
// 5.5 (after a reject) and 5.10 (after a disconnect). A host closes every connection through
// these, so that a program on the other side can act on the code alone.

extension Message.Reject.Reason {
    /// The close code a host closes the connection with after a reject for this reason
    /// (PROTOCOL.md section 5.5).
    ///
    /// Version mismatch 4003, schema mismatch 4000, room full 4001, invalid hello 4004 (the
    /// first frame was not a well-formed hello: a malformed frame), server shutting down 1001,
    /// unknown room and bad resume token 1008 (a server policy: which rooms it runs, which
    /// tokens it honours), unspecified 1011 (the server could not set the session up), redirect
    /// 4007 (the room is on another process), and an application's own reason (32768 and up) 1008.
    public var closeCode: CloseCode {
        switch self {
        case .versionMismatch: .unsupportedVersion
        case .schemaMismatch: .schemaMismatch
        case .roomFull: .roomFull
        case .invalidHello: .malformedFrame
        case .redirect: .moved
        case .serverShuttingDown: .goingAway
        case .unspecified: .internalServerError
        default: .policyViolation
        }
    }
}

extension Message.Disconnect.Reason {
    /// The close code that follows a disconnect message for this reason (PROTOCOL.md section 5.10).
    ///
    /// Leaving, replaced and unspecified 1000, server shutting down 1001, kicked and kicked-may-rejoin
    /// 4002, timed out 4005, protocol error 4004, too slow 1008, moved 4007, and an application's
    /// own reason 1000.
    public var closeCode: CloseCode {
        switch self {
        case .serverShuttingDown: .goingAway
        case .kicked, .kickedMayRejoin: .kicked
        case .timedOut: .idleTimeout
        case .protocolError: .malformedFrame
        case .tooSlow: .policyViolation
        case .moved: .moved
        default: .normalClosure
        }
    }
}
