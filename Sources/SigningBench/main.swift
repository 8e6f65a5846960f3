import CCryptoShim
import Foundation
import ListFormat
import ManifestSigning

// Prints what signing costs per manifest: signing and verifying time, and the signature file's bytes.
// usage: SigningBench [MANIFEST] [ROUNDS]   (no MANIFEST: a synthetic 3,000-byte manifest)

let arguments = CommandLine.arguments.dropFirst()
let rounds = arguments.dropFirst().first.flatMap { Int($0) } ?? 1000
let manifest: Data
if let path = arguments.first, path != "-" {
    guard let bytes = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("SigningBench: cannot read \(path)\n".utf8))
        exit(1)
    }
    manifest = bytes
} else {
    var text = #"{"format":1,"generation":1764547200,"expires":"2025-12-15T00:00:00Z","lists":["#
    var index = 0
    while text.utf8.count < 2900 {
        let hash = String(
            repeating: String(format: "%08x", UInt32(truncatingIfNeeded: index &* 2_654_435_761)), count: 8)
        text +=
            (index == 0 ? "" : ",")
            + #"{"id":"list-\#(index)","file":"lists/\#(hash).json","sha256":"\#(hash)","rules":\#(40_000 + index)}"#
        index += 1
    }
    manifest = Data((text + "]}").utf8)
}

/// CPU seconds of this thread, so other processes on a busy machine inflate the figure less than wall time.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    var start = timespec()
    var end = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
    try body()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
    return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
}

let key = try ManifestSigningKey.generate()
let verifier = try SignatureVerifier(trustedKeys: [key.publicKey])
let comment = "generation:1764547200\texpires:2025-12-15T00:00:00Z"
var signature = try key.sign(manifest, trustedComment: comment)
for _ in 0..<50 { signature = try key.sign(manifest, trustedComment: comment) }  // warm-up

let signTime = try seconds { for _ in 0..<rounds { signature = try key.sign(manifest, trustedComment: comment) } }
let file = signature.fileBytes
let verifyTime = try seconds { for _ in 0..<rounds { _ = try verifier.verify(manifest, signatureFile: file) } }
var digest = [UInt8](repeating: 0, count: 32)
let hashTime = seconds {
    for _ in 0..<rounds { manifest.withUnsafeBytes { shim_sha256($0.baseAddress, $0.count, &digest) } }
}

print("manifest: \(manifest.count) bytes, \(rounds) rounds, key \(key.keyID); CPU time of the signing thread")
print(String(format: "sign (2 Ed25519 signatures + file form): %8.1f µs per manifest", signTime / Double(rounds) * 1e6))
print(
    String(format: "verify (parse + 2 Ed25519 checks):       %8.1f µs per manifest", verifyTime / Double(rounds) * 1e6))
print(
    String(
        format: "SHA-256 of the manifest, same run:       %8.2f µs (sign/hash ratio %.0fx)",
        hashTime / Double(rounds) * 1e6, signTime / max(hashTime, 1e-12)))
print("signature file: \(file.count) bytes (trusted comment \(comment.utf8.count) bytes)")
