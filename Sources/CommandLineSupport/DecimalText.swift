/// A number written with a fixed count of decimals, rounded half away from zero, without
/// Foundation (`String(format:)` needs it); `-` for NaN and infinities.
///
/// - Parameters:
///   - value: The number.
///   - places: Decimals to keep, 0 or more.
/// - Returns: The text, for example `decimalText(3.14159, places: 2)` is `3.14`.
package func decimalText(_ value: Double, places: Int) -> String {
    guard value.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<max(places, 0) { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let whole = Int(scaled / scale)
    let fraction = Int(scaled) - whole * Int(scale)
    let sign = value < 0 && scaled > 0 ? "-" : ""
    guard places > 0 else { return "\(sign)\(whole)" }
    let digits = String(fraction)
    return "\(sign)\(whole).\(String(repeating: "0", count: places - digits.count))\(digits)"
}
