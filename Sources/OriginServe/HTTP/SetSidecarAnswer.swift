import Foundation
import HTTPServerCore
import OriginStore

extension SetSidecars {
    /// The answer for `name` when it is one of the sidecars (404 while the file is missing), else nil.
    package static func answer(
        _ request: HTTPRequest, name: UnsafeBufferPointer<UInt8>, directory: String?, route: HTTPRoute,
        into output: inout OutputQueue
    ) -> HTTPAnswer? {
        guard let directory, let match = names.first(where: { name.elementsEqual($0.utf8) }) else { return nil }
        guard let bytes = FileManager.default.contents(atPath: directory + "/" + match) else {
            return request.notFound(into: &output)
        }
        let type = match.hasSuffix(".json") ? "application/json" : "text/plain; charset=utf-8"
        return request.respond(status: 200, route: route, contentType: type, body: Array(bytes), into: &output)
    }
}
