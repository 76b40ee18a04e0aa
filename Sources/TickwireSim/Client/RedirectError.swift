/// Why a ``ReconnectingSession`` stopped following redirects.
public struct RedirectError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case tooManyRedirects(limit: Int, urls: [String])
    }

    let reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    /// The URLs the redirects pointed to, in order.
    public var urls: [String] {
        switch reason {
        case let .tooManyRedirects(_, urls): urls
        }
    }

    /// What happened, in plain words.
    public var description: String {
        switch reason {
        case let .tooManyRedirects(limit, urls):
            "gave up after \(limit) redirects in a row (the fleet's directory sends this room round in circles): "
                + urls.joined(separator: " -> ")
        }
    }
}
