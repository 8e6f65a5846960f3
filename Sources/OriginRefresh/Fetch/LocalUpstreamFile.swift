import Foundation

/// A local upstream (`upstreams[].path`): an operator's own ABP rules, read at each refresh as
/// a fetched body is received, so the same checks (`UpstreamBodyCheck`) and the same "last good
/// copy stays" rule apply to it.
struct LocalUpstreamFile: Sendable {
    var path: String
    /// The most bytes read, as `fetch.maxBodyBytes` caps a download.
    var maxBodyBytes: Int

    /// The whole file as a body; a missing, unreadable or oversized file is a failed fetch.
    func read() throws(FetchError) -> FetchResult {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw .localFile(
                path: path, detail: FileManager.default.fileExists(atPath: path) ? "cannot stat it" : "no such file")
        }
        if attributes[.type] as? FileAttributeType == .typeDirectory {
            throw .localFile(path: path, detail: "it is a directory")
        }
        if let size = attributes[.size] as? Int, size > maxBodyBytes { throw .tooLarge(url: path, limit: maxBodyBytes) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .localFile(path: path, detail: "permission denied")
        }
        return .body(Array(data), Validators())
    }
}
