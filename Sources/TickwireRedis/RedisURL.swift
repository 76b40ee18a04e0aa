/// Where a Redis server is: `redis://HOST[:PORT][/DB]`.
///
/// The host is a name, an IPv4 address or a bracketed IPv6 address (`redis://[::1]:6379`); the
/// port defaults to 6379 and the database number to 0. Passwords, TLS (`rediss://`) and Unix
/// sockets are not supported.
public struct RedisURL: Hashable, Sendable, CustomStringConvertible {
    /// The host name or numeric address (without brackets).
    public var host: String
    /// The TCP port. Default 6379.
    public var port: Int
    /// The database number, selected after each connect when not 0 (`SELECT`).
    public var database: Int

    /// The default Redis port.
    public static let defaultPort = 6379

    /// Creates a URL from its parts.
    ///
    /// - Parameters:
    ///   - host: The host name or numeric address.
    ///   - port: The TCP port.
    ///   - database: The database number.
    public init(host: String, port: Int = RedisURL.defaultPort, database: Int = 0) {
        self.host = host
        self.port = port
        self.database = database
    }

    /// Parses `redis://HOST[:PORT][/DB]`.
    ///
    /// - Parameter text: The URL.
    /// - Throws: ``RedisError`` (``RedisError/isInvalidURL``) naming what is wrong.
    public init(parsing text: String) throws(RedisError) {
        let scheme = "redis://"
        guard text.lowercased().hasPrefix(scheme) else { throw .invalidURL(text, "it must start with redis://") }
        var rest = Substring(text.dropFirst(scheme.count))
        var databaseText: Substring?
        if let slash = rest.firstIndex(of: "/") {
            databaseText = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        guard !rest.contains("@") else { throw .invalidURL(text, "passwords are not supported") }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .invalidURL(text, "an IPv6 address without its closing ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidURL(text, "unexpected text after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw .invalidURL(text, "no host") }
        var port = Self.defaultPort
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw .invalidURL(text, "the port \"\(portText)\" is not a number in 1...65535")
            }
            port = value
        }
        var database = 0
        if let databaseText, !databaseText.isEmpty {
            guard let value = Int(databaseText), value >= 0 else {
                throw .invalidURL(text, "the database \"\(databaseText)\" is not a number")
            }
            database = value
        }
        self.init(host: String(host), port: port, database: database)
    }

    /// The URL as text: `redis://HOST:PORT` with `/DB` when not 0.
    public var description: String {
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "redis://\(hostText):\(port)" + (database == 0 ? "" : "/\(database)")
    }
}
