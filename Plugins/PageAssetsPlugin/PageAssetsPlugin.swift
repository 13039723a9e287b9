import Foundation
import PackagePlugin

/// Embeds the visitor page (`web/`) and the API document (`api/openapi.json`) into the
/// target as Swift string literals (`PageAssets.swift`), so `driftd` serves them with
/// nothing installed beside it. Reruns when any of those files changes.
@main
struct PageAssetsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        let web = root.appending(path: "web")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: web.path)) ?? [])
            .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }
            .sorted()
        let inputs = names.map { web.appending(path: $0) } + [root.appending(path: "api/openapi.json")]
        let output = context.pluginWorkDirectoryURL.appending(path: "PageAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding the visitor page",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [root.appending(path: "scripts/embed-page.sh").path, output.path] + inputs.map(\.path),
                inputFiles: inputs + [root.appending(path: "scripts/embed-page.sh")],
                outputFiles: [output]
            ),
        ]
    }
}
