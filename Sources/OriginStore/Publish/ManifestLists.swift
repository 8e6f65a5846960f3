import Foundation
import ListFormat

/// The one verified reading of a published set's lists: the manifest's format, the one rule for the
/// file names it may give (inside the set's directory), and each list's bytes against its SHA-256.
/// The restart loader, `explain` and `/explain` all read a set through it.
package enum ManifestLists {
    package enum Problem: Error, Equatable {
        case badManifest(String)
        case outsideSet(id: String, file: String)
        case unreadable(id: String, file: String)
        case hashMismatch(id: String, expected: String, actual: String)
    }

    /// A format-1 manifest from its bytes.
    package static func decode(_ bytes: Data) throws(Problem) -> Manifest {
        let manifest: Manifest
        do {
            manifest = try Manifest.decode(bytes)
        } catch {
            throw .badManifest("\(error)")
        }
        guard manifest.format == 1 else { throw .badManifest("format \(manifest.format)") }
        return manifest
    }

    /// A name the manifest may give: a file directly inside the set's directory, never hidden.
    static func isInsideSet(_ file: String) -> Bool {
        !file.isEmpty && !file.contains("/") && !file.hasPrefix(".")
    }

    /// The first entry whose file lies outside the set, if any.
    static func checkNames(_ manifest: Manifest) throws(Problem) {
        if let entry = manifest.lists.first(where: { !isInsideSet($0.file) }) {
            throw .outsideSet(id: entry.id, file: entry.file)
        }
    }

    /// The manifest's lists in its order, each read with `read` (its bytes and their SHA-256) and
    /// checked against the hash the manifest gives.
    package static func verifiedLists(
        _ manifest: Manifest,
        read: (String) -> (identity: [UInt8], sha256: String)?
    ) throws(Problem) -> [(id: String, json: [UInt8])] {
        try checkNames(manifest)
        var lists: [(id: String, json: [UInt8])] = []
        for entry in manifest.lists {
            guard let file = read(entry.file) else { throw .unreadable(id: entry.id, file: entry.file) }
            guard file.sha256 == entry.sha256 else {
                throw .hashMismatch(id: entry.id, expected: entry.sha256, actual: file.sha256)
            }
            lists.append((entry.id, file.identity))
        }
        return lists
    }
}
