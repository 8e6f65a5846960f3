import DictionaryPatch
import DictionaryPatchOrigin
import Foundation
import ListFormat

/// Reads back the patches of a manifest that leaves them out (`Manifest.derivedPatchFiles`): each
/// `<id>.<from12>-<to12>.dcz` in the directory that leads to an entry's version becomes one of that
/// entry's patches again, with the full old hash from its dcz header. The server keeps every patch
/// in memory (to carry it to the next publish and keep it until it expires); devices never see the list.
package enum DerivedPatchFiles {
    /// Gives each entry of `manifest` (decoded from published bytes, so without patches) the patches
    /// the same file has in `held`, the server's in-memory manifest.
    package static func carry(from held: Manifest, into manifest: inout Manifest) {
        let patches = Dictionary(held.lists.map { ($0.file, $0.patches) }, uniquingKeysWith: { first, _ in first })
        for index in manifest.lists.indices where manifest.lists[index].patches == nil {
            manifest.lists[index].patches = patches[manifest.lists[index].file] ?? nil
        }
    }

    /// Fills `patches` of every entry from the patch files in `directory` (newest file first; the
    /// order means nothing to a device, which derives the one name it needs).
    package static func fill(_ manifest: inout Manifest, directory: String) {
        guard manifest.patchFiles == Manifest.derivedPatchFiles,
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else { return }
        var byTarget: [String: [(name: String, date: Date, patch: Manifest.Patch)]] = [:]
        for name in names {
            guard let parsed = PatchFileName(parsing: name) else { continue }
            let path = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: path),
                let header = try? DCZHeader.parse(data)
            else { continue }
            let from = SHA256Digest.hex(Array(header.dictionarySHA256))
            guard from.hasPrefix(parsed.fromPrefix) else { continue }
            let date =
                ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
            let patch = Manifest.Patch(from: from, file: name, sha256: SHA256Digest.hex(of: data), bytes: data.count)
            byTarget[parsed.listID + "." + parsed.toPrefix, default: []].append((name, date, patch))
        }
        for index in manifest.lists.indices {
            let entry = manifest.lists[index]
            let found = byTarget[entry.id + "." + entry.sha256.prefix(PatchFileName.hashPrefixLength)] ?? []
            manifest.lists[index].patches = found.sorted {
                $0.date > $1.date || ($0.date == $1.date && $0.name < $1.name)
            }.map(\.patch)
        }
    }
}
