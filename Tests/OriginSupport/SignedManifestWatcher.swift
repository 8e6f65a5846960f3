import Foundation
import ListSync

@testable import ListOrigin
@testable import OriginStore

#if canImport(Glibc)
    import Glibc
#endif

/// Watches a public directory with inotify and, the moment a new `manifest.json` is renamed into
/// place, checks that its signature is already there and verifies. A kill after each publish only
/// samples the directory now and then; a signature written just after its manifest is missing for
/// the few milliseconds of one fsync, which this sees on every publish it watches.
package final class SignedManifestWatcher: @unchecked Sendable {
    private let directory: String
    private let verifier: SignatureVerifier
    private let inotify: Int32
    private let lock = NSLock()
    private var problems: [String] = []
    private var checked = 0
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)

    package struct Unavailable: Error, CustomStringConvertible { package var description: String }

    // <sys/inotify.h>, which Swift's Glibc module does not export.
    private typealias InitFunction = @convention(c) (Int32) -> Int32
    private typealias AddWatchFunction = @convention(c) (Int32, UnsafePointer<CChar>, UInt32) -> Int32
    private static let inMovedTo: UInt32 = 0x80
    private static let inCloexec: Int32 = 0o2_000_000
    private static let eventHeaderBytes = 16  // wd, mask, cookie, len

    package init(directory: String, verifier: SignatureVerifier) throws {
        self.directory = directory
        self.verifier = verifier
        let libc = dlopen(nil, RTLD_NOW)
        guard let initSymbol = dlsym(libc, "inotify_init1"), let addSymbol = dlsym(libc, "inotify_add_watch") else {
            throw Unavailable(description: "inotify is not available in this libc")
        }
        let initialize = unsafeBitCast(initSymbol, to: InitFunction.self)
        let addWatch = unsafeBitCast(addSymbol, to: AddWatchFunction.self)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        inotify = initialize(Self.inCloexec)
        guard inotify >= 0, addWatch(inotify, directory, Self.inMovedTo) >= 0 else {
            throw Unavailable(description: "inotify on \(directory) failed: errno \(errno)")
        }
        Thread { [self] in run() }.start()
    }

    /// Manifests checked so far, and what was wrong with any of them.
    package var report: (checked: Int, problems: [String]) {
        lock.lock()
        defer { lock.unlock() }
        return (checked, problems)
    }

    /// Stops the watch thread (bounded wait) and closes the descriptor.
    package func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        // A rename into the directory wakes the blocked read so the thread sees `stopping`.
        let wake = directory + "/.watcher-wake"
        FileManager.default.createFile(atPath: wake + ".new", contents: nil)
        rename(wake + ".new", wake)
        _ = finished.wait(timeout: .now() + 5)
        unlink(wake)
        close(inotify)
    }

    private func run() {
        defer { finished.signal() }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = read(inotify, &buffer, buffer.count)
            lock.lock()
            let done = stopping
            lock.unlock()
            if done || count <= 0 { return }
            var offset = 0
            var manifestRenamed = false
            while offset + Self.eventHeaderBytes <= count {
                let nameLength = buffer.withUnsafeBytes {
                    Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                }
                let nameBytes = buffer[(offset + Self.eventHeaderBytes)..<(offset + Self.eventHeaderBytes + nameLength)]
                    .prefix { $0 != 0 }
                if String(decoding: nameBytes, as: UTF8.self) == PublishPlan.manifestName { manifestRenamed = true }
                offset += Self.eventHeaderBytes + nameLength
            }
            if manifestRenamed { check() }
        }
    }

    /// The invariant at this instant: the manifest on disk has a valid signature at its URL.
    private func check() {
        guard let manifest = FileManager.default.contents(atPath: directory + "/" + PublishPlan.manifestName) else {
            return
        }
        let name = PublishedSignature.name(forManifest: SHA256Digest.hex(of: manifest))
        var problem: String?
        if let signature = FileManager.default.contents(atPath: directory + "/" + name) {
            do { _ = try verifier.verify(manifest, signatureFile: signature) } catch { problem = "\(name): \(error)" }
        } else {
            problem =
                "manifest \(name.dropFirst("signatures/".count).prefix(12)) was visible before its signature \(name)"
        }
        lock.lock()
        checked += 1
        if let problem { problems.append(problem) }
        lock.unlock()
    }
}

/// Checks of a published directory's signature, shared by the publish and fault tests.
package enum PublishedSignatureCheck {
    /// The signature file the published set in `directory` names, verified; the problems found.
    package static func problems(in directory: String, verifier: SignatureVerifier) -> [String] {
        guard let manifest = FileManager.default.contents(atPath: directory + "/manifest.json") else { return [] }
        let name = PublishedSignature.name(forManifest: SHA256Digest.hex(of: manifest))
        guard let signature = FileManager.default.contents(atPath: directory + "/" + name) else {
            return ["\(name) missing"]
        }
        do {
            let verified = try verifier.verify(manifest, signatureFile: signature)
            let decoded = try Manifest.decode(manifest)
            guard let generation = decoded.generation, verified.trustedComment.contains("generation:\(generation)")
            else {
                return ["the trusted comment \"\(verified.trustedComment)\" does not carry the manifest's generation"]
            }
            return []
        } catch {
            return ["\(name): \(error)"]
        }
    }
}
