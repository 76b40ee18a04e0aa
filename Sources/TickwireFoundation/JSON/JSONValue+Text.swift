extension JSONValue {
    /// The value as compact JSON text: no whitespace, object members sorted by name (so that equal
    /// values give equal text), strings escaped as RFC 8259 requires, whole numbers within ±2^53
    /// written without a fraction.
    public var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let number):
            if let whole = integerValue { output += String(whole) } else { output += number.isFinite ? "\(number)" : "null" }
        case .string(let text): Self.writeString(text, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, name) in members.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                Self.writeString(name, to: &output)
                output += ":"
                members[name]?.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{0}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
