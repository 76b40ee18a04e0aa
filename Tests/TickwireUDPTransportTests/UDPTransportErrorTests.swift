import Testing
import TickwireSim

@testable import TickwireUDPTransport

/// A token endpoint's refusal, as a ``ReconnectingSession`` reads it from the opener's error.
@Suite("UDPTransportError refusals")
struct UDPTransportErrorTests {
    @Test("a token endpoint's 401 reads as a refusal with its status, reason phrase and body")
    func tokenRefusal() {
        let response = Array("HTTP/1.1 401 Unauthorized\r\nContent-Length: 15\r\n\r\n sign in again\n".utf8)
        let error = UDPTransportError.tokenRefused(status: 401, response: response, words: "answered 401")
        #expect(error.transportRefusal == TransportRefusal(status: 401, reason: "Unauthorized", text: "sign in again"))
    }

    @Test("a response cut before its body keeps the status and the reason phrase")
    func truncatedResponse() {
        let error = UDPTransportError.tokenRefused(status: 403, response: Array("HTTP/1.1 403 Forbidden\r\n".utf8), words: "answered 403")
        #expect(error.transportRefusal == TransportRefusal(status: 403, reason: "Forbidden", text: ""))
        let empty = UDPTransportError.tokenRefused(status: 403, response: [], words: "answered 403")
        #expect(empty.transportRefusal == TransportRefusal(status: 403, reason: "", text: ""))
    }

    @Test("any other failure is no refusal")
    func otherFailures() {
        #expect(UDPTransportError.address("no such host").transportRefusal == nil)
    }
}
