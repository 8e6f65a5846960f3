import DurableFile
import Foundation
import ListFormat

#if canImport(Glibc)
    import Glibc
#endif

/// The signing key on disk: the private key as unencrypted PKCS#8 PEM (mode 0600, what `openssl pkey`
/// reads), the public key beside it in minisign's `.pub` format.
public enum SigningKeyFile {
    public static let privateKeyName = "signing-key.pem"
    public static let publicKeyName = "signing-key.pub"
    static let maximumBytes = 16_384

    /// Where `generate(inDirectory:)` put a new key.
    public struct Written: Sendable {
        public let key: ManifestSigningKey
        public let privateKeyPath: String
        public let publicKeyPath: String
    }

    /// Loads a private key, refusing a file that group or other users can access in any way
    /// (checked on the open file, so a swap between check and read cannot slip through).
    public static func load(path: String) throws -> ManifestSigningKey {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SigningKeyError.unreadable(path: path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SigningKeyError.unreadable(path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw SigningKeyError.notARegularFile(path: path) }
        let mode = UInt32(info.st_mode & 0o7777)
        guard mode & 0o077 == 0 else { throw SigningKeyError.tooOpen(path: path, mode: mode) }
        guard Int(info.st_size) <= maximumBytes else {
            throw SigningKeyError.tooLarge(path: path, bytes: Int(info.st_size))
        }
        var bytes = [UInt8](repeating: 0, count: maximumBytes + 1)
        defer { wipe(&bytes) }
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw SigningKeyError.unreadable(path: path, errno: errno) }
            if got == 0 { break }
            count += got
        }
        guard count <= maximumBytes else { throw SigningKeyError.tooLarge(path: path, bytes: count) }
        bytes.removeSubrange(count...)
        do {
            return try ManifestSigningKey(privateKey: Ed25519PrivateKey(pem: bytes))
        } catch let error as SigningKeyError {
            throw SigningKeyError.inFile(path: path, error)
        }
    }

    /// Makes a key and writes `signing-key.pem` (0600) and `signing-key.pub` (0644) into `directory`,
    /// creating it (0700, parents as needed) if missing. Refuses if either file exists: a key is never overwritten.
    public static func generate(inDirectory directory: String) throws -> Written {
        let privatePath = (directory as NSString).appendingPathComponent(privateKeyName)
        let publicPath = (directory as NSString).appendingPathComponent(publicKeyName)
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty {
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw SigningKeyError.writeFailed(path: directory, operation: "create directory", errno: errno)
        }
        for path in [privatePath, publicPath] where FileManager.default.fileExists(atPath: path) {
            throw SigningKeyError.exists(path: path)
        }
        let key = try ManifestSigningKey.generate()
        var pem = try key.privateKey.pkcs8PEM()
        defer { wipe(&pem) }
        try createFile(privatePath, bytes: pem, mode: 0o600)
        try createFile(publicPath, bytes: Array(key.publicKey.fileText.utf8), mode: 0o644)
        return Written(key: key, privateKeyPath: privatePath, publicKeyPath: publicPath)
    }

    /// Writes a new key file durably with exactly `mode`, never replacing a file at the name (see
    /// `DurableFile`).
    static func createFile(_ path: String, bytes: [UInt8], mode: mode_t) throws {
        do {
            try DurableFile.write(bytes, to: path, mode: mode, placement: .createNew)
        } catch DurableFileError.exists(let path) {
            throw SigningKeyError.exists(path: path)
        } catch DurableFileError.failed(let path, let operation, let code) {
            throw SigningKeyError.writeFailed(path: path, operation: operation, errno: code)
        }
    }

    /// Best effort: zeroes the buffers this type filled with key bytes (explicit_bzero is never
    /// optimized away). Copies libcrypto or Swift made elsewhere are out of its reach.
    private static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { explicit_bzero(base, raw.count) }
        }
    }
}
