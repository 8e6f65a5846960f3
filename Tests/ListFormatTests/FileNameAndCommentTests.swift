import Foundation
import ListFormat
import Testing

/// The published format's names and the trusted comment, as both the origin and a device read them.
@Suite struct FileNameAndCommentTests {
    @Test func trustedCommentsRoundTripAndIgnoreWhatTheyDoNotKnow() {
        let comment = TrustedComment(generation: 1_767_225_600, expires: "2026-12-15T00:00:00Z")
        #expect(comment.text == "generation:1767225600\texpires:2026-12-15T00:00:00Z")
        #expect(TrustedComment(parsing: comment.text) == comment)
        #expect(
            TrustedComment(parsing: "timestamp:1 generation:7 file:manifest.json")
                == TrustedComment(generation: 7, expires: nil))
        #expect(TrustedComment(parsing: "generation:seven").generation == nil)
    }

    @Test func listFileNamesCarryTheirIdAndHashPrefix() {
        let sha = String(repeating: "0123456789abcdef", count: 4)
        let name = PublishedFileNames.list(id: "easylist-00", sha256: sha)
        #expect(name == "easylist-00.0123456789ab.json")
        #expect(PublishedFileNames.listID(ofListFile: name) == "easylist-00")
        #expect(PublishedFileNames.isHashedFile(name) && PublishedFileNames.isHashedFile(name + ".gz"))
        for other in [
            "manifest.json", "report.json", "Easylist.0123456789ab.json", "a.0123456789AB.json",
            "a.0123456789ab.json.br", "../a.0123456789ab.json",
        ] {
            #expect(!PublishedFileNames.isHashedFile(other), "\(other)")
        }
    }
}
