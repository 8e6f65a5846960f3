import DictionaryPatch
import DictionaryPatchOrigin
import Foundation
import HTTPServerCore
import ListFormat
import OriginStore

/// RFC 9842 on list URLs, prepared once per generation: every list response names the list's
/// later versions as its dictionary scope (`Use-As-Dictionary`) and varies on both request fields,
/// and a list has one `dcz` body per published patch that leads to it, keyed by the old version's
/// SHA-256 from the patch's own dcz header. The patch bytes are shared, not copied.
package struct ListDictionaryFields {
    /// Patches by the list file they lead to (`<id>.<to sha12>.json`).
    private let patchesByTarget: [String: [DictionaryCompressedBody]]

    package init(files: [String: SiteContent.Entry]) {
        var byTarget: [String: [DictionaryCompressedBody]] = [:]
        for (name, entry) in files {
            guard let patch = PatchFileName(parsing: name), let header = try? DCZHeader.parse(entry.identity) else {
                continue
            }
            byTarget["\(patch.listID).\(patch.toPrefix).json", default: []]
                .append(DictionaryCompressedBody(dictionarySHA256: header.dictionarySHA256, body: entry.identity))
        }
        // Install order does not matter for matching; sorted so a generation always prepares the same heads.
        patchesByTarget = byTarget.mapValues {
            $0.sorted { $0.dictionarySHA256.lexicographicallyPrecedes($1.dictionarySHA256) }
        }
    }

    /// Adds the RFC 9842 fields to a list file's resource; anything else is returned unchanged.
    package func apply(to resource: StaticResource) -> StaticResource {
        guard let id = PatchPlanner.listID(ofListFile: resource.name),
            let scope = UseAsDictionary.fieldValue(listID: id)
        else {
            return resource
        }
        var list = resource
        list.vary = UseAsDictionary.vary
        list.fields = [.useAsDictionary(scope)]
        list.dictionaryCompressed = patchesByTarget[resource.name] ?? []
        return list
    }
}
