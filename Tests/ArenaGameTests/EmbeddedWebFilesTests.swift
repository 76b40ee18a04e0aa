import Foundation
import Testing
import Tickwire

@testable import ArenaGame

/// The browser client embedded in the binary (by the EmbedWebFiles build plugin) and served by ``ArenaWebSite``.
@Suite("Embedded web files")
struct EmbeddedWebFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardizedFileURL
    static let webFolder = root.appendingPathComponent("Sources/ArenaGame/Web")

    /// The files on disk that must be embedded, by URL path: the page, its modules (`/arena/`), and
    /// the `@tickwire/client` package's modules (`/tickwire/`, from Clients/javascript).
    static func filesOnDisk() throws -> [String: String] {
        var files: [String: String] = [
            "/index.html": try String(contentsOf: webFolder.appendingPathComponent("index.html"), encoding: .utf8)
        ]
        let folders = [
            ("/arena", webFolder.appendingPathComponent("arena")), ("/tickwire", root.appendingPathComponent("Clients/javascript")),
        ]
        for (prefix, directory) in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".js") {
                files["\(prefix)/\(name)"] = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            }
        }
        return files
    }

    @Test("the generated EmbeddedWebFiles holds exactly the page, Web/arena/*.js and Clients/javascript/*.js, byte for byte")
    func matchesTheFilesOnDisk() throws {
        let onDisk = try Self.filesOnDisk()
        let embedded = Dictionary(EmbeddedWebFiles.files.map { ($0.path, $0.text) }, uniquingKeysWith: { first, _ in first })
        #expect(embedded.count == EmbeddedWebFiles.files.count, "no path is embedded twice")
        #expect(
            Set(embedded.keys) == Set(onDisk.keys),
            "missing: \(Set(onDisk.keys).subtracting(embedded.keys).sorted()), extra: \(Set(embedded.keys).subtracting(onDisk.keys).sorted()); the EmbedWebFiles plugin (Plugins/EmbedWebFiles) lists its inputs differently from this test"
        )
        for (path, text) in onDisk {
            #expect(
                embedded[path].map { Array($0.utf8) } == Array(text.utf8),
                "\(path) differs from its embedded copy: the build did not rerun the EmbedWebFiles plugin after the file changed")
        }
    }

    private func get(_ target: String, method: String = "GET", headers: HTTPHeaders = ["Host": "127.0.0.1"]) -> HTTPResponse {
        ArenaWebSite.respond(to: HTTPRequestHead(method: method, target: target, headers: headers))
    }

    @Test("GET / and /?name=…&room=… serve the page as text/html, no-cache, with an ETag")
    func page() throws {
        let page = get("/")
        #expect(page.status == 200)
        #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(page.headers["Cache-Control"] == "no-cache")
        #expect(page.headers["ETag"]?.count == 18)
        #expect(page.body == Array(try #require(Self.filesOnDisk()["/index.html"]).utf8))
        #expect(get("/?name=ann&room=r2").body == page.body)
        #expect(get("/index.html").body == page.body)
    }

    @Test("every module is served as text/javascript from its embedded bytes")
    func scripts() throws {
        let onDisk = try Self.filesOnDisk()
        for path in onDisk.keys where path.hasSuffix(".js") {
            let response = get(path)
            #expect(response.status == 200, "\(path)")
            #expect(response.headers["Content-Type"] == "text/javascript; charset=utf-8", "\(path)")
            #expect(response.body == Array((onDisk[path] ?? "").utf8), "\(path)")
        }
        #expect(ArenaWebSite.paths.count == onDisk.count)
        #expect(ArenaWebSite.paths.contains("/arena/page.js") && ArenaWebSite.paths.contains("/tickwire/clientSession.js"))
    }

    @Test("a matching If-None-Match gets 304 without a body; another ETag gets the file")
    func conditional() {
        let etag = get("/arena/page.js").headers["ETag"] ?? ""
        let same = get("/arena/page.js", headers: ["If-None-Match": etag])
        #expect(same.status == 304 && same.body.isEmpty && same.headers["ETag"] == etag)
        #expect(get("/arena/page.js", headers: ["If-None-Match": "W/\"x\", \(etag)"]).status == 304)
        #expect(get("/arena/page.js", headers: ["If-None-Match": "\"0000000000000000\""]).status == 200)
        #expect(etag != get("/index.html").headers["ETag"], "ETags differ between files")
    }

    @Test("paths outside the table are 404, however they are spelled: .., %2e%2e, absolute, doubled slashes, folders")
    func traversal() {
        let attempts = [
            "/../Package.swift", "/arena/../../Package.swift", "/%2e%2e/Package.swift", "/arena/%2e%2e/tickwire/index.js",
            "/arena/..%2fpage.js", "//etc/passwd", "/etc/passwd", "http://127.0.0.1/arena/page.js", "/arena/", "/arena",
            "/tickwire", "/README.md", "/package.json", "/EmbeddedWebFiles.swift", "/arena/page.js/", "/ARENA/PAGE.JS",
            "/arena/page.js%00", "/arena//page.js", "/./arena/page.js", "*", "", "/favicon.ico",
        ]
        for target in attempts {
            let response = get(target)
            #expect(response.status == 404, "\(target) gave \(response.status)")
            #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
        }
    }

    @Test("methods other than GET and HEAD get 405 with Allow; HEAD is answered like GET (the server drops the body)")
    func methods() {
        for method in ["POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "get"] {
            let response = get("/", method: method)
            #expect(response.status == 405, "\(method)")
            #expect(response.headers["Allow"] == "GET, HEAD")
        }
        #expect(get("/", method: "HEAD").status == 200)
    }
}
