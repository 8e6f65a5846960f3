import Foundation
import ListSync
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif
@testable import ListOrigin

/// The manifest and its signature are read with a size cap that stops the transfer as
/// the bytes arrive. A loopback origin serves a real signed set, then answers the signature (or the
/// manifest) with a body that never ends; the device stops reading long before the origin's bound,
/// says why, and keeps its set byte for byte.
@Suite(.serialized) struct SignedFetchCapTests {
    /// Serves files from a published directory; paths in `endless` get a close-delimited body of
    /// `bound` bytes (or an announced `Content-Length` of a gigabyte with `announce`). Records how
    /// many body bytes each endless reply got out before the client hung up.
    final class EndlessOrigin: @unchecked Sendable {
        let port: Int
        let directory: String
        /// 256 MiB: what "forever" means here, so the loop ends by itself.
        let bound = 256 << 20
        private let listener: Int32
        private let lock = NSLock()
        private var endlessPaths: Set<String> = []
        private var announce = false
        private var sent: [Int] = []

        init(directory: String) throws {
            self.directory = directory
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ok = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            guard fd >= 0, ok else { throw LoopbackSocketFailure(description: "cannot listen on 127.0.0.1: errno \(errno)") }
            listener = fd
            port = Int(UInt16(bigEndian: address.sin_port))
            Thread { [self] in
                while true {
                    let connection = accept(listener, nil, nil)
                    if connection < 0 { if errno == EINTR { continue } else { return } }
                    Thread { [self] in serve(connection) }.start()
                }
            }.start()
        }

        struct LoopbackSocketFailure: Error, CustomStringConvertible { var description: String }

        func makeEndless(_ paths: Set<String>, announce: Bool = false) {
            lock.lock(); endlessPaths = paths; self.announce = announce; sent = []; lock.unlock()
        }

        /// Body bytes each endless reply sent before the peer closed (or `bound` if it never did).
        var endlessBytesSent: [Int] { lock.lock(); defer { lock.unlock() }; return sent }

        func stop() {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }

        private func serve(_ connection: Int32) {
            defer { close(connection) }
            var head: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while head.count < 65_536, !head.containsCRLFCRLF {
                let count = recv(connection, &buffer, buffer.count, 0)
                if count <= 0 { return }
                head += buffer[0..<count]
            }
            let requestLine = String(decoding: head.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
            guard requestLine.count >= 2 else { return }
            let path = String(requestLine[1])
            lock.lock()
            let endless = endlessPaths.contains(path), announce = self.announce
            lock.unlock()
            guard endless else {
                if let data = FileManager.default.contents(atPath: directory + path) {
                    send(connection, "HTTP/1.1 200 OK\r\nContent-Length: \(data.count)\r\nConnection: close\r\n\r\n", Array(data))
                } else {
                    send(connection, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", [])
                }
                return
            }
            let length = announce ? "Content-Length: 1000000000\r\n" : ""
            guard send(connection, "HTTP/1.1 200 OK\r\n\(length)Connection: close\r\n\r\n", []) else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: "A"), count: 65_536)
            var total = 0
            while total < bound, send(connection, "", chunk) { total += chunk.count }
            lock.lock(); sent.append(total); lock.unlock()
        }

        @discardableResult
        private func send(_ connection: Int32, _ head: String, _ body: [UInt8]) -> Bool {
            let bytes = Array(head.utf8) + body
            var offset = 0
            while offset < bytes.count {
                let count = bytes[offset...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count <= 0 { return false }
                offset += count
            }
            return true
        }
    }

    static func sync(_ client: SyncClient) async -> SyncError? {
        do {
            _ = try await client.sync()
            Issue.record("the sync must fail")
            return nil
        } catch let error as SyncError {
            return error
        } catch {
            Issue.record("expected a SyncError, got \(error)")
            return nil
        }
    }

    @Test func anEndlessOrOversizedSignatureOrManifestIsCutOffWhileStreaming() async throws {
        let signer = try SignedSyncTests.signer()
        let origin = SignedSyncTests.Origin()
        let first = try origin.publish(signer, tag: "one")
        let server = try EndlessOrigin(directory: origin.scratch.sub("public"))
        defer { server.stop() }
        let storePath = origin.scratch.sub("device")
        let client = SyncClient(manifestURL: URL(string: "http://127.0.0.1:\(server.port)/manifest.json")!,
                                store: SyncStore(directory: URL(fileURLWithPath: storePath)),
                                trust: try ManifestTrust(trustedKeys: [signer.key.publicKey]), options: .init(timeout: 20))
        #expect(try await client.sync().outcome == .updated)
        let held = SignedSyncTests.snapshot(storePath)

        // A new set, whose signature never ends.
        let second = try origin.publish(signer, tag: "two")
        let signaturePath = "/" + PublishedSignature.name(forManifest: try #require(second.manifestSHA256))
        for announce in [false, true] {
            server.makeEndless([signaturePath], announce: announce)
            let error = await Self.sync(client)
            #expect(error == .bodyTooLarge(url: "http://127.0.0.1:\(server.port)\(signaturePath)", limit: MinisignSignature.maximumFileBytes),
                    "announce \(announce): \(String(describing: error))")
            #expect(SignedSyncTests.snapshot(storePath) == held)
            // The client hung up: the origin never got to the end of its bound.
            let sent = try #require(try await Self.endlessReplies(server, count: 1).first)
            #expect(sent < server.bound, "announce \(announce): the client read all \(sent) bytes before refusing")
        }

        // The manifest itself never ends.
        server.makeEndless(["/manifest.json"])
        let error = await Self.sync(client)
        #expect(error == .bodyTooLarge(url: "http://127.0.0.1:\(server.port)/manifest.json", limit: Manifest.maximumBytes), "\(String(describing: error))")
        #expect(SignedSyncTests.snapshot(storePath) == held)
        let sent = try #require(try await Self.endlessReplies(server, count: 1).first)
        #expect(sent < server.bound, "the client read all \(sent) manifest bytes before refusing")
        _ = first
    }

    /// Waits (bounded) until the origin's endless replies have ended: the client closed, or the bound ran out.
    static func endlessReplies(_ server: EndlessOrigin, count: Int) async throws -> [Int] {
        _ = try await eventually(timeout: 30, interval: 0.05) { server.endlessBytesSent.count >= count }
        return server.endlessBytesSent
    }
}

private extension Array where Element == UInt8 {
    var containsCRLFCRLF: Bool {
        count >= 4 && (0...(count - 4)).contains { self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10 }
    }
}
