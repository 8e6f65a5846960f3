#if canImport(Glibc)
    import Glibc
#endif

/// Why a signing key could not be loaded, made or saved, with what to do about it.
public enum SigningKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The key file grants group or other users any access (mode shown in octal).
    case tooOpen(path: String, mode: UInt32)
    case notARegularFile(path: String)
    case unreadable(path: String, errno: Int32)
    case tooLarge(path: String, bytes: Int)
    case notPEM
    case notEd25519
    /// A file in the way of a new key; a private key is never overwritten.
    case exists(path: String)
    case writeFailed(path: String, operation: String, errno: Int32)
    case crypto(String)
    /// Wraps a load failure with the file it came from.
    indirect case inFile(path: String, SigningKeyError)

    public var description: String {
        switch self {
        case .tooOpen(let path, let mode):
            return
                "the private key file \(path) has mode \(String(mode, radix: 8)), so other users on this machine can read it or "
                + "change it; it must be readable by its owner only: run `chmod 600 \(path)` (and consider the key exposed if others had access)"
        case .notARegularFile(let path):
            return "\(path) is not a regular file; give the path of a PEM private key file"
        case .unreadable(let path, let code):
            return "cannot read the private key file \(path): \(String(cString: strerror(code)))"
        case .tooLarge(let path, let bytes):
            return "\(path) has \(bytes) bytes, far more than a PEM Ed25519 key (about 120); is it the right file?"
        case .notPEM:
            return
                "not an unencrypted PEM private key (expected \"-----BEGIN PRIVATE KEY-----\", as `listserver keygen` or "
                + "`openssl genpkey -algorithm ed25519` write it; encrypted keys are not supported)"
        case .notEd25519:
            return "the PEM private key is not an Ed25519 key; make one with `listserver keygen --out DIR`"
        case .exists(let path):
            return
                "\(path) already exists; refusing to overwrite a key: move it away, or choose another --out directory"
        case .writeFailed(let path, let operation, let code):
            return "\(operation) \(path): \(String(cString: strerror(code)))"
        case .crypto(let message):
            return message
        case .inFile(let path, let inner):
            return "\(path): \(inner)"
        }
    }
}
