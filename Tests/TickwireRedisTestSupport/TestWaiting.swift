import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A test's own failure, with words.
package struct TestFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Polls `condition` every 5 ms for at most `seconds`, as a host polls its directory each pass.
///
/// - Returns: Whether the condition came true in time.
package func eventually(within seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}
