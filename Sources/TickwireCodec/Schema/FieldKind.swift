/// What a field holds and how it is quantized to an unsigned integer on the wire.
///
/// Every field value travels as a *quantized value* `q` in `0...maxQuantized`, written in
/// ``bitWidth`` bits. The kinds (see `Protocol/PROTOCOL.md` §3):
/// - ``bool``: `q` is 0 or 1.
/// - ``integer(min:max:)``: `q = value − min`.
/// - ``float(min:max:resolution:)``: `q = round((value − min) / resolution)`, clamped.
/// - ``angle(bits:)``: radians; `q = round(value / 2π × 2^bits) mod 2^bits`; wraps around.
/// - ``enumeration(cases:)``: `q` is the case index.
/// - ``text(maxBytes:)``: a short UTF-8 text, not a number: its `q` is always 0 and its bytes
///   travel beside the numbers, whole and only when they change (§3.2, protocol 1.2). Read and
///   write it with ``Snapshot/text(at:field:)`` and ``Snapshot/setText(_:at:field:)``.
public struct FieldKind: Hashable, Sendable, CustomStringConvertible {
    enum Storage: Hashable, Sendable {
        case bool
        case integer(min: Int64, max: Int64)
        case float(min: Double, max: Double, resolution: Double)
        case angle(bits: Int)
        case enumeration(cases: Int)
        case text(maxBytes: Int)
    }

    let storage: Storage

    /// A boolean, one bit, interpolated by step.
    public static let bool = FieldKind(storage: .bool)

    /// An integer in `min...max`, in exactly the bits the range needs, interpolated linearly.
    ///
    /// - Parameters:
    ///   - min: The smallest value.
    ///   - max: The largest value, at least `min`.
    /// - Returns: The kind; ``Schema`` checks the bounds.
    public static func integer(min: Int64, max: Int64) -> FieldKind {
        FieldKind(storage: .integer(min: min, max: max))
    }

    /// A real number in `min...max` kept to a multiple of `resolution` above `min`, interpolated linearly.
    ///
    /// The quantized value runs from 0 to `ceil((max − min) / resolution − 1e-9)`; at most 32 bits.
    ///
    /// - Parameters:
    ///   - min: The smallest value (finite).
    ///   - max: The largest value (finite, above `min`).
    ///   - resolution: The quantization step (finite, above 0).
    /// - Returns: The kind; ``Schema`` checks the parameters.
    public static func float(min: Double, max: Double, resolution: Double) -> FieldKind {
        FieldKind(storage: .float(min: min, max: max, resolution: resolution))
    }

    /// An angle in radians quantized to `2^bits` steps per turn; wraps around, interpolated along the shortest arc.
    ///
    /// - Parameter bits: Steps per turn as a power of two, 1...32.
    /// - Returns: The kind; ``Schema`` checks the width.
    public static func angle(bits: Int) -> FieldKind {
        FieldKind(storage: .angle(bits: bits))
    }

    /// One of `cases` values `0..<cases`, interpolated by step.
    ///
    /// - Parameter cases: The number of cases, 1...256.
    /// - Returns: The kind; ``Schema`` checks the count.
    public static func enumeration(cases: Int) -> FieldKind {
        FieldKind(storage: .enumeration(cases: cases))
    }

    /// A short UTF-8 text of at most `maxBytes` bytes (a player's name), sent whole when it
    /// changes and interpolated by step.
    ///
    /// Its quantized value is always 0; the text itself lives beside the numbers in a
    /// ``Snapshot`` (``Snapshot/text(at:field:)``). A schema with a text field needs protocol 1.2
    /// and a client that offers text fields in its hello (`Protocol/PROTOCOL.md` §3.2, §5.3).
    ///
    /// - Parameter maxBytes: The longest text in UTF-8 bytes, 1...``Schema/maxTextBytes``.
    /// - Returns: The kind; ``Schema`` checks the bound.
    public static func text(maxBytes: Int) -> FieldKind {
        FieldKind(storage: .text(maxBytes: maxBytes))
    }

    /// The longest text in UTF-8 bytes of a ``text(maxBytes:)`` field, or `nil` for the numeric kinds.
    public var maxTextBytes: Int? {
        if case let .text(maxBytes) = storage { return maxBytes }
        return nil
    }

    /// How a client blends two values of a field between snapshots.
    public struct Interpolation: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// `a + (b − a) × t`: integers and floats.
        public static let linear = Interpolation(name: "linear")
        /// Linear along the shorter way around the circle: angles.
        public static let shortestArc = Interpolation(name: "shortestArc")
        /// `a` until the next snapshot is reached, then `b`: booleans and enumerations.
        public static let step = Interpolation(name: "step")
        /// The style's name (`linear`, `shortestArc`, `step`).
        public var description: String { name }
    }

    /// How a client interpolates this field.
    public var interpolation: Interpolation {
        switch storage {
        case .bool, .enumeration, .text: .step
        case .integer, .float: .linear
        case .angle: .shortestArc
        }
    }

    /// The largest quantized value.
    public var maxQuantized: UInt64 {
        switch storage {
        case .bool: 1
        // Wrapping subtraction: the span of any Int64 range fits in a UInt64 bit pattern.
        case let .integer(min, max): UInt64(bitPattern: max &- min)
        case let .float(min, max, resolution): FieldKind.floatSteps(min: min, max: max, resolution: resolution)
        case let .angle(bits): BitWriter.mask(bits)
        case let .enumeration(cases): UInt64(Swift.max(cases, 1) - 1)
        case .text: 0
        }
    }

    /// The bits a full value takes on the wire.
    public var bitWidth: Int { BitWriter.bitWidth(ofMaximum: maxQuantized) }

    /// Whether changed values of this field may be sent as a delta from the baseline value
    /// (integers, floats and angles of 4 to 62 bits).
    var allowsDelta: Bool {
        switch storage {
        case .bool, .enumeration, .text: false
        case .integer, .float, .angle: bitWidth >= 4 && bitWidth <= 62
        }
    }

    /// Whether deltas wrap around modulo `2^bitWidth` (angles).
    var wrapsAround: Bool {
        if case .angle = storage { return true }
        return false
    }

    static func floatSteps(min: Double, max: Double, resolution: Double) -> UInt64 {
        let steps = ((max - min) / resolution - 1e-9).rounded(.up)
        guard steps.isFinite, steps >= 0, steps < 18_446_744_073_709_551_616.0 else { return 0 }
        return UInt64(steps)
    }

    /// Quantizes a value of this kind, clamping it into the field's range.
    ///
    /// - Parameter value: A number: radians for angles, 0/1 for booleans, the integer or case index otherwise. NaN quantizes to 0.
    /// - Returns: The quantized value in `0...maxQuantized`.
    public func quantize(_ value: Double) -> UInt64 {
        guard !value.isNaN else { return 0 }
        switch storage {
        case .text:
            return 0
        case .bool:
            return value != 0 ? 1 : 0
        case let .integer(min, max):
            let clamped = Swift.min(Swift.max(value.rounded(), Double(min)), Double(max))
            let integer = clamped >= 9.2e18 ? max : (clamped <= -9.2e18 ? min : Int64(clamped))
            return quantize(integer: integer)
        case let .float(min, _, resolution):
            let steps = ((value - min) / resolution).rounded()
            if steps <= 0 { return 0 }
            let top = maxQuantized
            if steps >= Double(top) { return top }
            return UInt64(steps)
        case let .angle(bits):
            let turns = value / (2 * Double.pi)
            let fraction = turns - turns.rounded(.down)
            guard fraction.isFinite else { return 0 }
            let scaled = (fraction * Double(UInt64(1) << UInt64(bits))).rounded()
            return UInt64(scaled) & BitWriter.mask(bits)
        case .enumeration:
            let top = maxQuantized
            if value <= 0 { return 0 }
            if value >= Double(top) { return top }
            return UInt64(value.rounded())
        }
    }

    /// Quantizes an integer (an integer field's value, an enumeration case, 0/1 for a boolean), clamping it into range.
    ///
    /// - Parameter integer: The value.
    /// - Returns: The quantized value in `0...maxQuantized`.
    public func quantize(integer: Int64) -> UInt64 {
        switch storage {
        case let .integer(min, max):
            let clamped = Swift.min(Swift.max(integer, min), max)
            // Wrapping subtraction: the offset inside min...max always fits in a UInt64.
            return UInt64(bitPattern: clamped &- min)
        case .float, .angle:
            return quantize(Double(integer))
        case .bool, .enumeration, .text:
            return integer <= 0 ? 0 : Swift.min(UInt64(integer), maxQuantized)
        }
    }

    /// The value a quantized value stands for.
    ///
    /// - Parameter quantized: A quantized value (clamped to `maxQuantized`).
    /// - Returns: Radians for angles, 0/1 for booleans, the number otherwise.
    public func dequantize(_ quantized: UInt64) -> Double {
        let q = Swift.min(quantized, maxQuantized)
        switch storage {
        case .bool, .enumeration, .text: return Double(q)
        // Wrapping addition: q ≤ max − min, so min + q stays in min...max.
        case let .integer(min, _): return Double(min &+ Int64(bitPattern: q))
        case let .float(min, _, resolution): return min + Double(q) * resolution
        case let .angle(bits): return Double(q) * (2 * Double.pi) / Double(UInt64(1) << UInt64(bits))
        }
    }

    /// The integer a quantized value stands for (integer fields, enumeration cases, booleans).
    ///
    /// - Parameter quantized: A quantized value (clamped to `maxQuantized`).
    /// - Returns: `min + q` for integers, `q` for the other kinds.
    func dequantizeInteger(_ quantized: UInt64) -> Int64 {
        let q = Swift.min(quantized, maxQuantized)
        if case let .integer(min, _) = storage {
            // Wrapping addition: q ≤ max − min, so min + q stays in min...max.
            return min &+ Int64(bitPattern: q)
        }
        return Int64(bitPattern: q)
    }

    /// Blends two dequantized values of this kind as ``interpolation`` says.
    ///
    /// - Parameters:
    ///   - from: The older value.
    ///   - to: The newer value.
    ///   - fraction: 0 gives `from`, 1 gives `to`; values outside extrapolate (linear kinds).
    /// - Returns: The blended value (angles in `[0, 2π)`).
    public func interpolate(from: Double, to: Double, fraction: Double) -> Double {
        switch interpolation {
        case .linear:
            return from + (to - from) * fraction
        case .shortestArc:
            let turn = 2 * Double.pi
            var difference = (to - from).truncatingRemainder(dividingBy: turn)
            if difference > Double.pi { difference -= turn }
            if difference < -Double.pi { difference += turn }
            var result = (from + difference * fraction).truncatingRemainder(dividingBy: turn)
            if result < 0 { result += turn }
            return result
        default:
            return fraction < 1 ? from : to
        }
    }

    /// The kind and its parameters in words, e.g. `integer(0...100)`.
    public var description: String {
        switch storage {
        case .bool: "bool"
        case let .integer(min, max): "integer(\(min)...\(max))"
        case let .float(min, max, resolution): "float(\(min)...\(max) by \(resolution))"
        case let .angle(bits): "angle(\(bits) bits)"
        case let .enumeration(cases): "enumeration(\(cases) cases)"
        case let .text(maxBytes): "text(\(maxBytes) bytes)"
        }
    }
}
