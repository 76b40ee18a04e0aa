/// A Swift type a field's value can be read as through a ``FieldKey``: `Double` for every
/// kind, `Int` for integers and enumerations, `Bool` for booleans.
///
/// A client's values are dequantized and interpolated as `Double`s; a ``FieldKey`` turns them
/// back into the type the field was declared as, so a game keeps no index constants and
/// converts nothing by hand.
public protocol FieldValue: Sendable {
    /// The name of the type in an error message (`Double`, `Int`, `Bool`).
    static var fieldValueTypeName: String { get }

    /// Whether a field of `kind` can be read as this type.
    ///
    /// - Parameter kind: The field's kind.
    /// - Returns: `true` when ``init(fieldValue:)`` gives a meaningful value for it.
    static func canRead(_ kind: FieldKind) -> Bool

    /// The value a dequantized (possibly interpolated) field value stands for.
    ///
    /// - Parameter fieldValue: The value in game units, as ``FieldKind/dequantize(_:)`` gives it.
    init(fieldValue: Double)
}

extension Double: FieldValue {
    /// `Double`.
    public static var fieldValueTypeName: String { "Double" }

    /// Every numeric kind reads as a `Double` (booleans as 0 or 1, enumerations as the case
    /// index); a text does not (read it with ``Snapshot/text(at:field:)``).
    ///
    /// - Parameter kind: The field's kind.
    /// - Returns: `true` unless `kind` is ``FieldKind/text(maxBytes:)``.
    public static func canRead(_ kind: FieldKind) -> Bool { kind.maxTextBytes == nil }

    /// The value as it is.
    ///
    /// - Parameter fieldValue: The value in game units.
    public init(fieldValue: Double) { self = fieldValue }
}

extension Int: FieldValue {
    /// `Int`.
    public static var fieldValueTypeName: String { "Int" }

    /// Integers and enumerations (the case index) read as an `Int`.
    ///
    /// - Parameter kind: The field's kind.
    /// - Returns: Whether `kind` is ``FieldKind/integer(min:max:)`` or ``FieldKind/enumeration(cases:)``.
    public static func canRead(_ kind: FieldKind) -> Bool {
        switch kind.storage {
        case .integer, .enumeration: true
        case .bool, .float, .angle, .text: false
        }
    }

    /// The value rounded to the nearest integer (an interpolated integer lies between two),
    /// clamped to `Int`'s range.
    ///
    /// - Parameter fieldValue: The value in game units.
    public init(fieldValue: Double) {
        let rounded = fieldValue.rounded()
        if rounded.isNaN {
            self = 0
        } else if rounded >= 9.223_372_036_854_775_807e18 {
            self = .max
        } else if rounded <= -9.223_372_036_854_775_808e18 {
            self = .min
        } else {
            self = Int(rounded)
        }
    }
}

extension Bool: FieldValue {
    /// `Bool`.
    public static var fieldValueTypeName: String { "Bool" }

    /// Booleans read as a `Bool`.
    ///
    /// - Parameter kind: The field's kind.
    /// - Returns: Whether `kind` is ``FieldKind/bool``.
    public static func canRead(_ kind: FieldKind) -> Bool { kind == .bool }

    /// `true` for 1, `false` for 0 (booleans interpolate by step, so nothing lies between).
    ///
    /// - Parameter fieldValue: The value, 0 or 1.
    public init(fieldValue: Double) { self = fieldValue >= 0.5 }
}
