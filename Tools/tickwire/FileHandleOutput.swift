#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to standard error, for messages that must not mix into standard output.
enum FileHandleOutput {
    case standardError

    func write(_ text: String) {
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
