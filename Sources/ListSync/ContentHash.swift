import DictionaryPatch
import Foundation

/// SHA-256 of downloaded bytes, the name under which the device stores a list. The hashing itself
/// is `DictionaryPatch.SHA256Digest` (CryptoKit on Apple platforms, libcrypto elsewhere).
enum ContentHash {
    static func sha256Hex(_ data: Data) -> String {
        SHA256Digest.hex(SHA256Digest.of(data))
    }

    /// Whether `text` has the manifest's form: 64 lowercase hex digits.
    static func isWellFormed(_ text: String) -> Bool {
        SHA256Digest.bytes(hex: text) != nil
    }
}
