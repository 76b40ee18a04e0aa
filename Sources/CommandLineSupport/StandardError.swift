#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard error, for messages that must not mix into standard output.
package enum StandardError {
    /// Writes `text` to standard error, unbuffered.
    ///
    /// - Parameter text: What to write; add the newline yourself.
    package static func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { buffer in
            #if canImport(Glibc)
            Glibc.write(STDERR_FILENO, buffer.baseAddress, buffer.count)
            #else
            Darwin.write(STDERR_FILENO, buffer.baseAddress, buffer.count)
            #endif
        }
    }
}
