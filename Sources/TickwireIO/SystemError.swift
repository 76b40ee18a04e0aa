#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed POSIX call: which C function failed and the `errno` it left.
///
/// In the style of swift-system's `Errno`: a thin, honest wrapper that names the call underneath,
/// so `connect(2) failed: Connection refused (errno 111)` tells a reader what went wrong and where.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C call that failed, for example `"connect"` or `"epoll_ctl"`.
    public let call: String
    /// The `errno` value the call left.
    public let code: Int32

    /// Creates an error for `call` with an explicit `errno` value.
    ///
    /// - Parameters:
    ///   - call: The name of the C function that failed.
    ///   - code: The `errno` value.
    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    /// Captures the current thread's `errno` for a call that just failed.
    ///
    /// - Parameter call: The name of the C function that failed.
    /// - Returns: The error naming `call` and the current `errno`.
    package static func current(_ call: String) -> SystemError {
        SystemError(call: call, code: errno)
    }

    /// The system's text for ``code`` (`strerror`).
    public var message: String {
        guard let text = strerror(code) else { return "unknown error" }
        return String(cString: text)
    }

    /// Plain words: `connect(2) failed: Connection refused (errno 111)`.
    public var description: String {
        "\(call)(2) failed: \(message) (errno \(code))"
    }

    /// `EAGAIN`/`EWOULDBLOCK`: a non-blocking call has nothing to do right now.
    public var isWouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }
    /// `EINTR`: a signal interrupted the call; retry.
    public var isInterrupted: Bool { code == EINTR }
    /// `EINPROGRESS`: a non-blocking `connect` has started and will finish later.
    public var isInProgress: Bool { code == EINPROGRESS }
}
