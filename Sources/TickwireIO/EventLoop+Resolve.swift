import Dispatch

extension EventLoop {
    /// Resolves `host` off the loop thread (`getaddrinfo` blocks) and hands the answer to
    /// `owner` on the loop thread: the one way a client on the loop looks up a name without
    /// stalling every other connection on it. `owner` is kept until the answer comes (it
    /// decides whether the answer still matters, e.g. by a ticket of its attempt).
    ///
    /// - Parameters:
    ///   - host: A host name (numeric addresses need no lookup: ``SocketAddress/init(numericHost:port:)``).
    ///   - port: The port, 0...65535.
    ///   - owner: Who waits for the answer.
    ///   - deliver: Called on the loop thread with `owner` and the addresses or the lookup's error.
    package func resolve<Owner: AnyObject>(
        host: String, port: Int, for owner: Owner, then deliver: @escaping (Owner, Result<[SocketAddress], SystemError>) -> Void
    ) {
        let waiting = LoopBound<(Owner, (Owner, Result<[SocketAddress], SystemError>) -> Void)?>((owner, deliver))
        DispatchQueue.global().async { [self] in
            let result = Result { () throws(SystemError) in try SocketAddress.resolve(host: host, port: port) }
            execute {
                if let (owner, deliver) = waiting.value { deliver(owner, result) }
                waiting.value = nil
            }
        }
    }
}
