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

    static func respond(_ request: HTTPRequest, name: UnsafeBufferPointer<UInt8>, into output: inout OutputQueue) -> HTTPAnswer {
        let site = request.site
        let text = String(decoding: name, as: UTF8.self)
        let prefersHTML = { MediaTypeNegotiation.prefersHTMLOverJSON(accept: request.head.accept.map { String(decoding: request.value($0), as: UTF8.self) }) }
        if text == SetsIndex.indexName || text.hasSuffix("/" + ListAliases.indexName) {
            let html = prefersHTML()
            let resourceName = html ? text + "index.html" : text
            let route = text == SetsIndex.indexName ? OriginRoute.sets.route : OriginRoute.lists.route
            guard let index = site.resource(named: resourceName) else { return request.notFound(into: &output) }
            return request.serve(index, route: route, into: &output)
        }
        guard let resource = site.resource(named: name) else { return request.notFound(into: &output) }
        let route: OriginRoute = text.hasSuffix("/" + SiteContent.manifestName) ? .manifest : (text.contains("/" + ListAliases.directory) ? .lists : .list)
        return request.serve(resource, route: route.route, into: &output)
    }
}
