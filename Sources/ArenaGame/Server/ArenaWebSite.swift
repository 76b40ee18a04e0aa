import Tickwire

/// The arena's browser client served over plain HTTP on the game's WebSocket port: an
/// ``WebSocketServerConfiguration/httpHandler`` that answers from a fixed table of files
/// embedded in the binary (`EmbeddedWebFiles`, generated at build time by the `EmbedWebFiles`
/// plugin from `Sources/ArenaGame/Web` and `Clients/javascript`), so a copied `arena` binary
/// still serves them.
///
/// - `GET /` (any query, such as `?name=ann&room=main`) and `GET /index.html`: the page.
/// - `GET /tickwire/NAME.js` (the `@tickwire/client` package's modules), `GET /arena/NAME.js`: the
///   modules, `text/javascript; charset=utf-8`.
/// - Anything else is `404`: the path is looked up in the table as it is, never decoded or joined
///   to a folder, so `..`, `%2e%2e`, `//etc/passwd` or an absolute URL cannot reach anything else.
/// - Methods other than `GET` and `HEAD`: `405` with `Allow: GET, HEAD`.
///
/// Every file carries an `ETag` (a hash of its bytes) and `Cache-Control: no-cache`: a browser
/// keeps its copy but asks each time, and a request with a matching `If-None-Match` gets `304`
/// without a body. The modules import each other by fixed names, so a longer `max-age` could let
/// a browser mix the modules of two server versions after an upgrade; revalidating costs a few
/// hundred bytes per file on a reload.
package enum ArenaWebSite {
    /// One served file.
    struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
        let etag: String
    }

    /// The files by URL path, built once from ``EmbeddedWebFiles``.
    static let files: [String: File] = {
        var table: [String: File] = [:]
        for (path, text) in EmbeddedWebFiles.files {
            let bytes = Array(text.utf8)
            table[path] = File(bytes: bytes, contentType: contentType(of: path), etag: etag(of: bytes))
        }
        return table
    }()

    /// The URL paths served (besides `/`, which serves `/index.html`), sorted.
    package static var paths: [String] { files.keys.sorted() }

    /// Answers one plain HTTP request; pass it as ``WebSocketServerConfiguration/httpHandler``.
    ///
    /// - Parameter request: The request head.
    /// - Returns: The file, `304`, `404` or `405`.
    @Sendable package static func respond(to request: HTTPRequestHead) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = HTTPResponse.text(status: 405, "only GET and HEAD are served here")
            response.headers.add(name: "Allow", value: "GET, HEAD")
            return response
        }
        let target = request.target
        let path = target.prefix { $0 != "?" && $0 != "#" }
        guard let file = files[path == "/" ? "/index.html" : String(path)] else {
            return .text(status: 404, "not found: this server serves the arena page at / and its scripts")
        }
        var headers: HTTPHeaders = [
            "Cache-Control": "no-cache", "ETag": file.etag, "X-Content-Type-Options": "nosniff",
        ]
        if let wanted = request.headers["If-None-Match"],
            wanted == "*" || request.headers.listElements(for: "If-None-Match").contains(file.etag)
        {
            return HTTPResponse(status: 304, headers: headers)
        }
        headers.add(name: "Content-Type", value: file.contentType)
        return HTTPResponse(status: 200, headers: headers, body: file.bytes)
    }

    /// The `Content-Type` of a path, by its extension.
    static func contentType(of path: String) -> String {
        if path.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if path.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        if path.hasSuffix(".css") { return "text/css; charset=utf-8" }
        return "application/octet-stream"
    }

    /// A strong entity tag: the FNV-1a 64-bit hash of the bytes, in hex, quoted.
    static func etag(of bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }
}
