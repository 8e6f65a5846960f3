import Foundation

/// Where the WebKit compile helper lives: a Python interpreter that can import WebKit2 4.1 through
/// PyGObject, and `scripts/webkit/compile.py`. WebKitGTK has no stable C API for content
/// filters that Swift could call without GTK headers, so the verifier drives the helper.
package struct WebKitToolLocation: Sendable, Equatable {
    static let pythonOverride = "LISTSERVER_WEBKIT_PYTHON"
    package static let scriptOverride = "LISTSERVER_WEBKIT_SCRIPT"
    package static let scriptRelativePath = "scripts/webkit/compile.py"

    var python: URL
    package var script: URL

    /// Resolves the helper: environment overrides first, then the repository found from the current
    /// directory or from the executable's path (`<repo>/.build*/…/listserver`). nil when not found.
    package static func find(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath,
        executablePath: String = CommandLine.arguments.first ?? ""
    ) -> WebKitToolLocation? {
        let fileManager = FileManager.default
        var repositories: [URL] = []
        for start in [currentDirectory, URL(fileURLWithPath: executablePath).deletingLastPathComponent().path] where !start.isEmpty {
            var directory = URL(fileURLWithPath: start).standardizedFileURL
            for _ in 0..<8 {
                if fileManager.fileExists(atPath: directory.appendingPathComponent(scriptRelativePath).path) {
                    repositories.append(directory)
                    break
                }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }

        let script: URL
        if let override = environment[scriptOverride], !override.isEmpty {
            script = URL(fileURLWithPath: override)
        } else if let repository = repositories.first {
            script = repository.appendingPathComponent(scriptRelativePath)
        } else {
            return nil
        }
        guard fileManager.fileExists(atPath: script.path) else { return nil }

        if let override = environment[pythonOverride], !override.isEmpty {
            return WebKitToolLocation(python: URL(fileURLWithPath: override), script: script)
        }
        // The project venv sees system site-packages (gi) and is preferred; plain python3 also works.
        var candidates = repositories.map { $0.appendingPathComponent(".venv/bin/python").path }
        candidates.append("/usr/bin/python3")
        guard let python = candidates.first(where: { fileManager.isExecutableFile(atPath: $0) }) else { return nil }
        return WebKitToolLocation(python: URL(fileURLWithPath: python), script: script)
    }
}
