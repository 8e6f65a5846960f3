import HTTPServerCore
import OriginConfig
import OriginStore

/// Answers names under `sets/`: the index (JSON, or HTML when `Accept` prefers it), each set's
/// manifest (counted as a manifest), its `lists/` index (negotiated like `/lists/`) and its files.
/// Only names the generation installed are served.
enum SetsRoute {
    static func claims(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        name.starts(with: ResolvedConfiguration.setsDirectory.utf8)
    }

    /// `publicDirectory` holds the sets' sidecar files (`SetSidecars`); `isDefault` says which set lives at its root.
    static func respond(
        _ request: HTTPRequest, name: UnsafeBufferPointer<UInt8>, publicDirectory: String?, isDefault: (String) -> Bool,
        into output: inout OutputQueue
    ) -> HTTPAnswer {
        let site = request.site
        let text = String(decoding: name, as: UTF8.self)
        let prefersHTML = {
            MediaTypeNegotiation.prefersHTMLOverJSON(
                accept: request.head.accept.map { String(decoding: request.value($0), as: UTF8.self) })
        }
        if text == SetsIndex.indexName || text.hasSuffix("/" + ListAliases.indexName) {
            let html = prefersHTML()
            let resourceName = html ? text + "index.html" : text
            let route = text == SetsIndex.indexName ? OriginRoute.sets.route : OriginRoute.lists.route
            guard let index = site.resource(named: resourceName) else { return request.notFound(into: &output) }
            return request.serve(index, route: route, into: &output)
        }
        guard let resource = site.resource(named: name) else {
            return sidecar(request, text: text, publicDirectory: publicDirectory, isDefault: isDefault, into: &output)
                ?? request.notFound(into: &output)
        }
        let route: OriginRoute =
            text.hasSuffix("/" + SiteContent.manifestName)
            ? .manifest : (text.contains("/" + ListAliases.directory) ? .lists : .list)
        return request.serve(resource, route: route.route, into: &output)
    }

    /// `sets/<name>/<sidecar>` from the set's directory, so a follower mirrors each set's sidecars.
    /// The set name is checked before it names a directory; the file must be a sidecar name exactly.
    private static func sidecar(
        _ request: HTTPRequest, text: String, publicDirectory: String?, isDefault: (String) -> Bool,
        into output: inout OutputQueue
    ) -> HTTPAnswer? {
        let parts = text.dropFirst(ResolvedConfiguration.setsDirectory.count).split(
            separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let publicDirectory, !parts[0].isEmpty,
            parts[0].utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d })
        else { return nil }
        let set = String(parts[0])
        let directory =
            isDefault(set) ? publicDirectory : publicDirectory + "/" + ResolvedConfiguration.setsDirectory + set
        let file = Array(parts[1].utf8)
        return file.withUnsafeBufferPointer {
            SetSidecars.answer(request, name: $0, directory: directory, route: OriginRoute.explain.route, into: &output)
        }
    }
}
