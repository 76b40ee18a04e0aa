/// Writes metric families in the Prometheus text exposition format 0.0.4, the body a
/// `GET /metrics` answers with (`Content-Type: text/plain; version=0.0.4; charset=utf-8`).
///
/// Each family is a `# HELP` line, a `# TYPE` line and its samples, one per line:
///
/// ```swift
/// var writer = PrometheusWriter()
/// writer.gauge("tickwire_rooms", help: "Rooms open.", value: 3)
/// writer.counter("tickwire_handshakes_refused_total", help: "Hellos refused, by reason.", label: "reason",
///                values: [("room_full", 2), ("unknown_room", 1)])
/// writer.histogram("tickwire_tick_duration_seconds", help: "Tick duration.", histogram)
/// let body = writer.bytes
/// ```
///
/// The format's conventions are the caller's to follow: a `tickwire_` prefix, counters named
/// `…_total`, base units in the name (`_seconds`, `_bytes`), each family written once per body
/// with all its samples together. The writer makes whatever it is given well-formed: a byte a
/// metric or label name may not hold (`[a-zA-Z_:][a-zA-Z0-9_:]*`, no `:` in a label name)
/// becomes `_` (each byte of a non-ASCII character); label values are escaped (`\\`, `\"`,
/// `\n`), and so is the help text (`\\`, `\n`); values are written as Go's parser reads them
/// (`+Inf`, `-Inf`, `NaN`).
public struct PrometheusWriter: Sendable {
    /// The `Content-Type` of a body in this format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The text written so far, UTF-8.
    public private(set) var bytes: [UInt8] = []

    /// Creates an empty writer.
    public init() {}

    /// The text written so far.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: Lines

    /// Starts a family: its `# HELP` and `# TYPE` lines. Its samples follow, before the next family.
    ///
    /// - Parameters:
    ///   - name: The family's name, such as `tickwire_rooms`.
    ///   - type: Its type.
    ///   - help: What it measures, in one sentence.
    public mutating func family(_ name: String, type: MetricType, help: String) {
        append("# HELP ")
        appendName(name, allowsColon: true)
        append(" ")
        for byte in help.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\n"): append("\\n")
            default: bytes.append(byte)
            }
        }
        append("\n# TYPE ")
        appendName(name, allowsColon: true)
        append(" ")
        append(type.rawValue)
        append("\n")
    }

    /// Writes one sample line with a floating-point value.
    ///
    /// - Parameters:
    ///   - name: The sample's name: the family's, or with the suffix its type gives it
    ///     (`_bucket`, `_sum`, `_count`).
    ///   - labels: Label names and values, in order.
    ///   - value: The value.
    public mutating func sample(_ name: String, labels: [(String, String)] = [], value: Double) {
        appendSampleStart(name, labels: labels)
        append(Self.text(of: value))
        append("\n")
    }

    /// Writes one sample line with an integer value.
    ///
    /// - Parameters:
    ///   - name: The sample's name.
    ///   - labels: Label names and values, in order.
    ///   - value: The value.
    public mutating func sample(_ name: String, labels: [(String, String)] = [], value: Int) {
        appendSampleStart(name, labels: labels)
        append(String(value))
        append("\n")
    }

    // MARK: Families

    /// Writes a counter family of one sample.
    ///
    /// - Parameters:
    ///   - name: The family's name, ending in `_total`.
    ///   - help: What it counts.
    ///   - value: The count.
    public mutating func counter(_ name: String, help: String, value: Int) {
        family(name, type: .counter, help: help)
        sample(name, value: value)
    }

    /// Writes a counter family with one sample per value of a label.
    ///
    /// - Parameters:
    ///   - name: The family's name, ending in `_total`.
    ///   - help: What it counts.
    ///   - label: The label's name, such as `reason`.
    ///   - values: The label's values and their counts, in the order to write them.
    public mutating func counter(_ name: String, help: String, label: String, values: [(String, Int)]) {
        family(name, type: .counter, help: help)
        for (labelValue, value) in values { sample(name, labels: [(label, labelValue)], value: value) }
    }

    /// Writes a gauge family of one integer sample.
    ///
    /// - Parameters:
    ///   - name: The family's name.
    ///   - help: What it measures.
    ///   - value: The value now.
    public mutating func gauge(_ name: String, help: String, value: Int) {
        family(name, type: .gauge, help: help)
        sample(name, value: value)
    }

    /// Writes a gauge family of one floating-point sample.
    ///
    /// - Parameters:
    ///   - name: The family's name, with its unit (`_seconds`, `_bytes`).
    ///   - help: What it measures.
    ///   - value: The value now.
    public mutating func gauge(_ name: String, help: String, value: Double) {
        family(name, type: .gauge, help: help)
        sample(name, value: value)
    }

    /// Writes a gauge family with one sample per value of a label.
    ///
    /// - Parameters:
    ///   - name: The family's name.
    ///   - help: What it measures.
    ///   - label: The label's name, such as `room`.
    ///   - values: The label's values and the gauge's value for each, in the order to write them.
    public mutating func gauge(_ name: String, help: String, label: String, values: [(String, Int)]) {
        family(name, type: .gauge, help: help)
        for (labelValue, value) in values { sample(name, labels: [(label, labelValue)], value: value) }
    }

    /// Writes a histogram family: a `_bucket` sample per upper bound with its cumulative count,
    /// the `le="+Inf"` bucket (all observations), `_sum` and `_count`.
    ///
    /// - Parameters:
    ///   - name: The family's name, with its unit (`_seconds`, `_bytes`).
    ///   - help: What it observes.
    ///   - histogram: The observations.
    ///   - labels: Labels every sample carries (before `le`).
    public mutating func histogram(_ name: String, help: String, _ histogram: MetricsHistogram, labels: [(String, String)] = []) {
        family(name, type: .histogram, help: help)
        let cumulative = histogram.cumulativeCounts
        let bucket = name + "_bucket"
        for (index, bound) in histogram.upperBounds.enumerated() {
            sample(bucket, labels: labels + [("le", Self.text(of: bound))], value: Int(clamping: cumulative[index]))
        }
        sample(bucket, labels: labels + [("le", "+Inf")], value: Int(clamping: histogram.count))
        sample(name + "_sum", labels: labels, value: histogram.sum)
        sample(name + "_count", labels: labels, value: Int(clamping: histogram.count))
    }

    // MARK: Text

    /// A value as the format writes it: `+Inf`, `-Inf`, `NaN`, or Swift's shortest round-trip
    /// decimal (`0.005`, `1e-05`, `2.0`), which Go's `ParseFloat` reads.
    ///
    /// - Parameter value: The value.
    /// - Returns: Its text.
    public static func text(of value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        return value.description
    }

    private mutating func appendSampleStart(_ name: String, labels: [(String, String)]) {
        appendName(name, allowsColon: true)
        if !labels.isEmpty {
            append("{")
            for (index, (labelName, labelValue)) in labels.enumerated() {
                if index > 0 { append(",") }
                appendName(labelName, allowsColon: false)
                append("=\"")
                for byte in labelValue.utf8 {
                    switch byte {
                    case UInt8(ascii: "\\"): append("\\\\")
                    case UInt8(ascii: "\""): append("\\\"")
                    case UInt8(ascii: "\n"): append("\\n")
                    default: bytes.append(byte)
                    }
                }
                append("\"")
            }
            append("}")
        }
        append(" ")
    }

    /// Appends a metric name (`[a-zA-Z_:][a-zA-Z0-9_:]*`) or label name (no `:`), each other
    /// byte as `_`; an empty name as `_`.
    private mutating func appendName(_ name: String, allowsColon: Bool) {
        guard !name.isEmpty else { return append("_") }
        for (index, byte) in name.utf8.enumerated() {
            let isLetter =
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            let isAllowed = isLetter || byte == UInt8(ascii: "_") || (allowsColon && byte == UInt8(ascii: ":")) || (isDigit && index > 0)
            bytes.append(isAllowed ? byte : UInt8(ascii: "_"))
        }
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}
