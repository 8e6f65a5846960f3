import Foundation
import ListFormat

@testable import OriginStore

extension SiteContent {
    /// This content with `id` left out of its manifest; its file kept (inside the grace period) or not.
    package func dropping(_ id: String, keepFiles: Bool) throws -> SiteContent {
        var manifest = try Manifest.decode(Data(self.manifest!.identity))
        let dropped = manifest.lists.filter { $0.id == id }.map(\.file)
        manifest.lists.removeAll { $0.id == id }
        let bytes = manifest.encoded()
        var out = self
        out.manifest = SiteContent.Entry(
            name: "manifest.json", identity: bytes, gzip: nil, sha256: SHA256Digest.hex(of: bytes),
            lastModified: self.manifest!.lastModified.addingTimeInterval(86_400))
        if !keepFiles { for name in dropped { out.files[name] = nil } }
        return out
    }
}
