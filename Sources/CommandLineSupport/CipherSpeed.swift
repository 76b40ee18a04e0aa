/// One cipher's throughput as `openssl speed -evp CIPHER` reports it: bytes per second of CPU
/// time for each block size it measured.
///
/// `bench ws --tls` measures it in the same run as its servers, to work out the least CPU time
/// a TLS echo can spend per message (the cipher's passes over the payload).
package struct CipherSpeed: Equatable, Sendable {
    /// The cipher as `openssl speed` names it (`AES-128-GCM`).
    package let cipher: String
    /// Each measured block size in bytes, with its throughput in bytes per second.
    package let bytesPerSecondByBlock: [(blockBytes: Int, bytesPerSecond: Double)]

    package static func == (lhs: CipherSpeed, rhs: CipherSpeed) -> Bool {
        lhs.cipher == rhs.cipher
            && lhs.bytesPerSecondByBlock.map(\.blockBytes) == rhs.bytesPerSecondByBlock.map(\.blockBytes)
            && lhs.bytesPerSecondByBlock.map(\.bytesPerSecond) == rhs.bytesPerSecondByBlock.map(\.bytesPerSecond)
    }

    /// Parses the table `openssl speed` prints at its end:
    ///
    /// ```
    /// The 'numbers' are in 1000s of bytes per second processed.
    /// type          16384 bytes
    /// AES-128-GCM    3845946.26k
    /// ```
    ///
    /// - Parameters:
    ///   - output: What `openssl speed` printed (its other lines are skipped).
    ///   - cipher: The row to read, compared without regard to case (`aes-128-gcm` finds `AES-128-GCM`).
    /// - Returns: The row's figures, or `nil` when the output has no `type` header with block
    ///   sizes, no row for `cipher`, or a row whose figures do not match the header.
    package init?(opensslSpeedOutput output: String, cipher: String) {
        let lines = output.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
        var blocks: [Int]?
        var row: [Double]?
        for line in lines {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first == "type" {
                // "type 16 bytes 64 bytes …": a count then the word "bytes", for each column.
                let rest = Array(fields.dropFirst())
                guard !rest.isEmpty, rest.count % 2 == 0 else { return nil }
                var sizes: [Int] = []
                for index in stride(from: 0, to: rest.count, by: 2) {
                    guard rest[index + 1] == "bytes", let size = Int(rest[index]), size > 0 else { return nil }
                    sizes.append(size)
                }
                blocks = sizes
            } else if let sizes = blocks, first.lowercased() == cipher.lowercased() {
                // The last figures of the row, one per column, in 1000s of bytes per second ("3845946.26k").
                let figures = fields.dropFirst()
                guard figures.count == sizes.count else { return nil }
                var values: [Double] = []
                for figure in figures {
                    guard figure.hasSuffix("k"), let thousands = Double(figure.dropLast()), thousands.isFinite, thousands > 0 else {
                        return nil
                    }
                    values.append(thousands * 1000)
                }
                row = values
            }
        }
        guard let blocks, let row else { return nil }
        self.cipher = cipher
        bytesPerSecondByBlock = Array(zip(blocks, row)).map { (blockBytes: $0.0, bytesPerSecond: $0.1) }
    }

    /// The throughput at the measured block size closest to `bytes` (the smaller one on a tie).
    ///
    /// - Parameter bytes: The size of interest, such as a TLS record's 16 KiB.
    /// - Returns: That block size and its bytes per second.
    package func bytesPerSecond(closestTo bytes: Int) -> (blockBytes: Int, bytesPerSecond: Double) {
        bytesPerSecondByBlock.min { lhs, rhs in
            let left = abs(lhs.blockBytes - bytes), right = abs(rhs.blockBytes - bytes)
            return left != right ? left < right : lhs.blockBytes < rhs.blockBytes
        } ?? (blockBytes: 0, bytesPerSecond: 0)
    }
}
