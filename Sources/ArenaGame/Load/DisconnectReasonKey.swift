/// How `tickwire load` groups its players' disconnect reasons: the same cause once, whatever the
/// exact figure in its words.
///
/// A host's timeout reads `timed out: nothing heard for 5.028078058 seconds`; a thousand players
/// timed out gave a thousand different lines. Every number with a fraction is rounded to one
/// decimal (`nothing heard for 5.0 seconds`), so that the report lists causes, not clocks.
package enum DisconnectReasonKey {
    /// `reason` with each decimal fraction rounded to one digit; whole numbers (close codes,
    /// counts) stay as they are.
    ///
    /// - Parameter reason: A disconnect reason as the session reported it.
    /// - Returns: The key the report counts it under.
    package static func grouping(_ reason: String) -> String {
        var result = ""
        var number = ""
        func flush() {
            defer { number = "" }
            // Past 10^15 tenths a number is no clock reading; it stays as it is (and fits an Int).
            guard number.contains("."), let value = Double(number), value < 1e14 else {
                result += number
                return
            }
            let tenths = (value * 10).rounded()
            result += "\(Int(tenths) / 10).\(Int(tenths) % 10)"
        }
        // Ends the number being read: a full stop after it ends the sentence, not a fraction.
        func endNumber() {
            let endsSentence = number.hasSuffix(".")
            if endsSentence { number.removeLast() }
            flush()
            if endsSentence { result.append(".") }
        }
        for character in reason {
            if character.isASCII && (character.isNumber || (character == "." && !number.isEmpty && !number.contains("."))) {
                number.append(character)
            } else {
                endNumber()
                result.append(character)
            }
        }
        endNumber()
        return result
    }
}
