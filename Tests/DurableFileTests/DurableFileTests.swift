import DurableFile
import Foundation
import TestSupport
import Testing

/// The observable contract of the one durable write: the bytes, the exact mode, no temp file left,
/// replace versus create-new, and errors that name the file. (The directory fsync is not observable
/// without a power cut.)
@Suite struct DurableFileTests {
    private func names(_ scratch: ScratchDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted()
    }

    private func mode(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test func writesTheBytesWithExactlyTheModeAndLeavesNoTempFile() throws {
        let scratch = ScratchDirectory("durable")
        let path = scratch.sub("list.json")
        try DurableFile.write(Array("[1]".utf8), to: path)
        #expect(try scratch.read("list.json") == Data("[1]".utf8))
        #expect(try mode(path) == 0o644)
        // Group- and world-writable: a usual umask (022) would narrow this if it applied. (The test
        // does not set the umask itself: it is process-wide and the fast tier runs in parallel.)
        try DurableFile.write(Array("[2]".utf8), to: path, mode: 0o666)
        #expect(try mode(path) == 0o666, "the umask does not narrow the mode")
        try DurableFile.write(Data("key".utf8), to: scratch.sub("key"), mode: 0o600)
        #expect(try mode(scratch.sub("key")) == 0o600)
        #expect(try names(scratch) == ["key", "list.json"])
    }

    @Test func replaceSwapsTheWholeFile() throws {
        let scratch = ScratchDirectory("durable")
        let path = try scratch.write("state.json", Data("old, and longer than the new".utf8))
        try DurableFile.write(Array("new".utf8), to: path)
        #expect(try scratch.read("state.json") == Data("new".utf8))
        #expect(try names(scratch) == ["state.json"])
    }

    /// link(2), not rename(2): a file that appears at the name is kept, even one made after any check.
    @Test func createNewNeverReplacesAnExistingFile() throws {
        let scratch = ScratchDirectory("durable")
        let path = try scratch.write("taken", Data("first".utf8))
        #expect(throws: DurableFileError.exists(path: path)) {
            try DurableFile.write(Array("second".utf8), to: path, mode: 0o600, placement: .createNew)
        }
        #expect(try scratch.read("taken") == Data("first".utf8))
        #expect(try names(scratch) == ["taken"])
        try DurableFile.write(Array("fresh".utf8), to: scratch.sub("free"), placement: .createNew)
        #expect(try scratch.read("free") == Data("fresh".utf8))
        #expect(try names(scratch) == ["free", "taken"])
    }

    @Test func aFailedWriteNamesThePathAndTheStepAndLeavesNothing() throws {
        let scratch = ScratchDirectory("durable")
        let missing = scratch.sub("no-such-directory") + "/list.json"
        do {
            try DurableFile.write(Array("x".utf8), to: missing)
            Issue.record("a write into a missing directory succeeded")
        } catch let error as DurableFileError {
            #expect(error.path.hasPrefix(scratch.sub("no-such-directory") + "/.list.json.tmp-"), "\(error)")
            #expect(error.reason == "create: No such file or directory")
            #expect(error.description == "create \(error.path): No such file or directory")
        }
        // A directory in the way of the rename: the temp file is removed again.
        try FileManager.default.createDirectory(atPath: scratch.sub("dir"), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: scratch.sub("dir/inner"), withIntermediateDirectories: false)
        #expect(throws: DurableFileError.failed(path: scratch.sub("dir"), operation: "rename into", errno: EISDIR)) {
            try DurableFile.write(Array("x".utf8), to: scratch.sub("dir"))
        }
        #expect(try names(scratch) == ["dir"])
    }

    @Test func staleTempFilesAreRecognisedAndRemoved() throws {
        let scratch = ScratchDirectory("durable")
        _ = try scratch.write("list.json", Data("keep".utf8))
        _ = try scratch.write(".list.json.tmp-123-456", Data("stale".utf8))
        _ = try scratch.write(".hidden", Data("keep".utf8))
        #expect(DurableFile.isTempName(".list.json.tmp-123-456"))
        #expect(!DurableFile.isTempName("list.json"))
        DurableFile.removeStaleTempFiles(in: scratch.path)
        #expect(try names(scratch) == [".hidden", "list.json"])
    }
}
