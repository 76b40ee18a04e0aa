import Foundation
import PackagePlugin

/// Embeds the browser client in the `ArenaGame` target at build time: runs `EmbedWebFilesTool`,
/// which writes `EmbeddedWebFiles.swift` (every served file's text as a Swift string) into the
/// plugin's work directory, where SwiftPM compiles it with the target's own sources.
///
/// The files, by the URL path `arena serve` serves them at (see `ArenaWebSite`):
/// - `/index.html`: `Web/index.html` in the target's folder;
/// - `/arena/NAME.js`: `Web/arena/*.js` in the target's folder, the arena's page;
/// - `/tickwire/NAME.js`: `Clients/javascript/*.js` at the package's root, the `@tickwire/client` package
///   (read through the link `Web/client`).
///
/// Every file is an input of the build command, so SwiftPM runs the tool again when one changes;
/// the list itself is read each time SwiftPM plans a build, which it does when a file is added to
/// or removed from the target's folder (and, through `Web/client`, from Clients/javascript).
@main
struct EmbedWebFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let module = target as? SwiftSourceModuleTarget else {
            throw PluginError(description: "EmbedWebFiles applies to a Swift target; \(target.name) is not one")
        }
        let web = module.directoryURL.appendingPathComponent("Web")
        // Web/client is a symbolic link to Clients/javascript. SwiftPM plans a build again (and asks
        // this plugin for its commands again) when the files in a target's folder change, not when
        // those in another folder do: through the link, an added or removed module is noticed too.
        let client = web.appendingPathComponent("client")
        let package = context.package.directoryURL.appendingPathComponent("Clients").appendingPathComponent("javascript")
        guard client.resolvingSymlinksInPath().path == package.resolvingSymlinksInPath().path else {
            throw PluginError(description: "\(client.path) must be a symbolic link to \(package.path) (ln -s ../../../Clients/javascript)")
        }
        var files: [(path: String, file: URL)] = [("/index.html", web.appendingPathComponent("index.html"))]
        files += try modules(in: web.appendingPathComponent("arena")).map { ("/arena/\($0.lastPathComponent)", $0) }
        let clientModules = try modules(in: client.resolvingSymlinksInPath())
        guard clientModules.contains(where: { $0.lastPathComponent == "index.js" }) else {
            throw PluginError(description: "no index.js in \(package.path): the @tickwire/client package is missing")
        }
        files += clientModules.map { ("/tickwire/\($0.lastPathComponent)", $0) }

        let output = context.pluginWorkDirectoryURL.appendingPathComponent("EmbeddedWebFiles.swift")
        var arguments = [output.path]
        for (path, file) in files { arguments += [path, file.path] }
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) web files in \(target.name)",
                executable: try context.tool(named: "EmbedWebFilesTool").url,
                arguments: arguments,
                inputFiles: files.map(\.file),
                outputFiles: [output]
            )
        ]
    }

    /// The `.js` files directly in `folder`, sorted by name (so the generated file is stable).
    private func modules(in folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "js" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}

/// Why the plugin cannot plan its command.
struct PluginError: Error, CustomStringConvertible {
    let description: String
}
