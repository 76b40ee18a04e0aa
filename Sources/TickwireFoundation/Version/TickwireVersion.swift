/// The version of the Tickwire package, as `CHANGELOG.md` and the README name it.
///
/// Semantic versioning: while the major version is 0, a minor release may change the public API,
/// and a patch release never does. The JavaScript client (`Clients/javascript/package.json`)
/// carries the same version. The wire protocol has its own version
/// (`Protocol/PROTOCOL.md`, `tickwireProtocolVersion`), negotiated in the hello.
public enum TickwireVersion {
    /// The major version.
    public static let major = 0
    /// The minor version.
    public static let minor = 1
    /// The patch version.
    public static let patch = 0

    /// `major.minor.patch`, for logs and `--version`.
    public static var string: String { "\(major).\(minor).\(patch)" }
}
