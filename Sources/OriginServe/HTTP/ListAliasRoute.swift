import HTTPServerCore
import OriginStore

/// Answers every request name under `lists/`: the index (JSON, or HTML when `Accept` prefers it),
/// an alias of the current set, 410 for an id the current set no longer has while its last files
/// are still kept (the grace period), and the shared 404 for anything else. Only names the
/// generation installed are served; nothing here reaches another file.
package enum ListAliasRoute {
    /// Whether `name` is under `lists/` (the directory itself included).
    static func claims(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        name.starts(with: ListAliases.directory.utf8)
    }

    package static func respond(
        _ request: HTTPRequest, name: UnsafeBufferPointer<UInt8>, route: HTTPRoute, into output: inout OutputQueue
    ) -> HTTPAnswer {
        let site = request.site
        if name.count == ListAliases.indexName.utf8.count {
            let html = MediaTypeNegotiation.prefersHTMLOverJSON(
                accept: request.head.accept.map { String(decoding: request.value($0), as: UTF8.self) })
            guard let index = site.resource(named: html ? ListAliases.indexHTMLName : ListAliases.indexName) else {
                return request.notFound(into: &output)
            }
            return request.serve(index, route: route, into: &output)
        }
        if let resource = site.resource(named: name) {
            return request.serve(resource, route: route, into: &output)
        }
        if let id = retiredID(name, in: site) {
            return request.error(
                410, "list \(id) is no longer published; the current lists and their URLs are at /lists/", route: route,
                fields: [.link("</lists/>; rel=\"index\"")], into: &output)
        }
        return request.notFound(into: &output)
    }

    /// The id of `lists/<id>.json` when the site has no alias for it but still keeps a file of that
    /// id from an older manifest: the id was retired within the grace period. A rare path (only
    /// names that matched nothing get here), so a scan of the installed names is fine.
    private static func retiredID(_ name: UnsafeBufferPointer<UInt8>, in site: StaticSite) -> String? {
        let text = String(decoding: name, as: UTF8.self)
        guard text.hasSuffix(".json") else { return nil }
        let id = String(text.dropFirst(ListAliases.directory.count).dropLast(5))
        guard !id.isEmpty, !id.contains("/"), !id.contains(".") else { return nil }
        let kept = site.sources.contains { PatchPlanner.listID(ofListFile: $0.name) == id }
        return kept ? id : nil
    }
}
