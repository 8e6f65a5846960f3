import Foundation

/// RFC 9842 §2.2 `Available-Dictionary`: an RFC 8941 Byte Sequence item (`:base64:`, parameters
/// allowed and ignored) holding the SHA-256 of the one dictionary the client offers.
public enum AvailableDictionary {
    public enum Problem: Error, Equatable, Sendable {
        /// Not a Byte Sequence item (no `:`…`:`, or text after it that is not parameters).
        case notAByteSequence
        /// A character outside base64's alphabet, or base64 that does not decode.
        case invalidBase64
        /// Decodes to other than the 32 bytes of a SHA-256.
        case wrongLength(Int)
    }

    /// The 32-byte hash in a field value (as the HTTP layer gives it: one line, OWS trimmed or not).
    public static func sha256(fromFieldValue value: String) throws(Problem) -> [UInt8] {
        var scanner = StructuredFieldScanner(value)
        scanner.skipSpaces()
        guard let content = scanner.byteSequenceContent() else { throw .notAByteSequence }
        guard scanner.skipParameters() else { throw .notAByteSequence }
        scanner.skipSpaces()
        guard scanner.atEnd else { throw .notAByteSequence }
        guard let bytes = decodeBase64(content) else { throw .invalidBase64 }
        guard bytes.count == 32 else { throw .wrongLength(bytes.count) }
        return bytes
    }

    /// The field value a client sends for `sha256` (32 bytes).
    public static func fieldValue(sha256: [UInt8]) -> String {
        ":" + Data(sha256).base64EncodedString() + ":"
    }

    /// RFC 8941 §4.2.7: `=` padding may be missing.
    static func decodeBase64(_ text: Substring) -> [UInt8]? {
        guard text.utf8.allSatisfy({ StructuredFieldScanner.isBase64($0) }) else { return nil }
        var padded = String(text)
        switch padded.utf8.count % 4 {
        case 2: padded += "=="
        case 3: padded += "="
        case 1: return nil
        default: break
        }
        return Data(base64Encoded: padded).map(Array.init)
    }
}
