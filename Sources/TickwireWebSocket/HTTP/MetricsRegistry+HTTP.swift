import TickwireFoundation

extension MetricsRegistry {
    /// Answers a plain HTTP request for `MetricsRegistry/path` (any query); `nil` for another path.
    ///
    /// - Parameter request: The request head.
    /// - Returns: `200` with the metrics (`PrometheusWriter/contentType`, `Cache-Control:
    ///   no-store`) to `GET` and `HEAD`, `405` with `Allow: GET, HEAD` to other methods, or `nil`
    ///   when the path is not `MetricsRegistry/path`.
    public func response(to request: HTTPRequestHead) -> HTTPResponse? {
        let target = request.target
        guard target.prefix(while: { $0 != "?" && $0 != "#" }) == Self.path else { return nil }
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = HTTPResponse.text(status: 405, "metrics are read with GET or HEAD")
            response.headers.add(name: "Allow", value: "GET, HEAD")
            return response
        }
        let headers: HTTPHeaders = ["Content-Type": PrometheusWriter.contentType, "Cache-Control": "no-store"]
        return HTTPResponse(status: 200, headers: headers, body: render().bytes)
    }

    /// A ``WebSocketServerConfiguration/httpHandler`` that serves `MetricsRegistry/path` and passes every
    /// other plain HTTP request on.
    ///
    /// - Parameter otherwise: The handler for other paths (a web site), or `nil` to answer them `404`.
    /// - Returns: The handler.
    public func httpHandler(
        otherwise: (@Sendable (HTTPRequestHead) -> HTTPResponse)?
    ) -> @Sendable (HTTPRequestHead) -> HTTPResponse {
        { [self] request in
            if let response = response(to: request) { return response }
            if let otherwise { return otherwise(request) }
            return .text(status: 404, "not found: this server serves \(Self.path) and WebSocket connections")
        }
    }
}
