import Foundation

/// Where the repository is, for benches that run its scripts (`Tools/autobahn`, `Tools/losslab`).
enum BenchRepository {
    /// The directory holding `Package.swift`, searched upwards (ten levels at most) from the
    /// working directory; the working directory itself when none is found.
    static func find() -> URL {
        var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for _ in 0..<10 {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) { return directory }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }
}
