extension WebSocketMaskingKey {
    /// Bytes seen through a masking key: iterating them, or appending them to an array, yields
    /// each source byte XORed with its key byte.
    ///
    /// It lets an array grow by a masked or unmasked copy of a payload in one pass.
    /// `array.append(contentsOf: key.applied(to: chunk))` writes the XORed bytes straight into
    /// the array's new space, through ``_copyContents(initializing:)`` and the vector loop of
    /// ``WebSocketMaskingKey/apply(from:to:phase:)``. A plain `append` followed by
    /// ``WebSocketMaskingKey/apply(to:phase:)`` would take two passes: a copy, then the XOR in place.
    ///
    /// The iterator gives the same bytes one at a time, so a consumer that does not use
    /// `_copyContents` still gets the right bytes, only more slowly.
    ///
    /// The source must stay valid, and unchanged, for as long as the value is used.
    @usableFromInline
    struct AppliedBytes: Sequence {
        /// The bytes to mask or unmask.
        @usableFromInline let source: UnsafeRawBufferPointer
        /// The key.
        @usableFromInline let key: WebSocketMaskingKey
        /// The offset of `source`'s first byte within its payload (only modulo 4 matters).
        @usableFromInline let phase: Int

        @inlinable
        init(source: UnsafeRawBufferPointer, key: WebSocketMaskingKey, phase: Int) {
            self.source = source
            self.key = key
            self.phase = phase
        }

        /// All of them: `Array.append(contentsOf:)` reserves this much before copying.
        @inlinable
        var underestimatedCount: Int { source.count }

        /// Gives the XORed bytes one at a time, from `offset` on.
        @usableFromInline
        struct Iterator: IteratorProtocol {
            @usableFromInline let bytes: AppliedBytes
            @usableFromInline var offset: Int

            @inlinable
            init(bytes: AppliedBytes, offset: Int) {
                self.bytes = bytes
                self.offset = offset
            }

            @inlinable
            mutating func next() -> UInt8? {
                guard offset < bytes.source.count else { return nil }
                let shift = UInt32(((bytes.phase &+ offset) & 3) &* 8)
                let keyByte = UInt8(truncatingIfNeeded: bytes.key.word >> shift)
                defer { offset &+= 1 }
                return bytes.source[offset] ^ keyByte
            }
        }

        @inlinable
        func makeIterator() -> Iterator { Iterator(bytes: self, offset: 0) }

        /// Writes as many XORed bytes as fit into `destination` in one vector pass.
        ///
        /// This is the `Sequence` customisation point that `Array.append(contentsOf:)` and
        /// `UnsafeMutableBufferPointer.initialize(from:)` call to copy a sequence in bulk.
        ///
        /// - Parameter destination: Uninitialized space for the bytes.
        /// - Returns: An iterator over the bytes that did not fit, and how many were written.
        @inlinable @inline(__always)
        func _copyContents(initializing destination: UnsafeMutableBufferPointer<UInt8>) -> (Iterator, Int) {
            let count = Swift.min(source.count, destination.count)
            if count > 0 {
                key.apply(
                    from: UnsafeRawBufferPointer(rebasing: source[..<count]),
                    to: UnsafeMutableRawBufferPointer(destination), phase: phase
                )
            }
            return (Iterator(bytes: self, offset: count), count)
        }
    }

    /// `source` seen through this key, for appending to an array in one pass (see ``AppliedBytes``).
    ///
    /// - Parameters:
    ///   - source: The bytes to mask or unmask; must stay valid while the result is used.
    ///   - phase: The offset of `source`'s first byte within its payload; only `phase % 4` matters.
    /// - Returns: A sequence of `source`'s bytes XORed with the key.
    @inlinable
    func applied(to source: UnsafeRawBufferPointer, phase: Int = 0) -> AppliedBytes {
        AppliedBytes(source: source, key: self, phase: phase)
    }
}
