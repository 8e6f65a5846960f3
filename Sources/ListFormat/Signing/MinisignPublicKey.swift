import Foundation

/// A minisign key id: 8 bytes that name the key a signature was made with.
/// It picks the key to check with; it proves nothing by itself.
public struct MinisignKeyID: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 8
    /// The bytes as they appear in key and signature files.
    public let bytes: Data

    public init(bytes: Data) throws {
        guard bytes.count == Self.byteCount else {
            throw SignatureError.malformedPublicKey("a key id has \(Self.byteCount) bytes, not \(bytes.count)")
        }
        self.bytes = Data(bytes)
    }

    /// The form `minisign` prints (e.g. in "minisign public key AB6DC34DEFDEFB37"): the bytes read as a
    /// little-endian 64-bit number, in uppercase hex.
    public var description: String {
        bytes.reversed().map { String(format: "%02X", $0) }.joined()
    }
}

/// A minisign public key: algorithm `Ed`, a key id and a raw 32-byte Ed25519 key. Its base64 form is
/// what `minisign -P` takes and what an app pins.
public struct MinisignPublicKey: Hashable, Sendable {
    public static let keyByteCount = 32
    static let algorithm = Data("Ed".utf8)

    public let keyID: MinisignKeyID
    /// The raw Ed25519 public key (RFC 8032 encoding).
    public let key: Data

    public init(keyID: MinisignKeyID, key: Data) throws {
        guard key.count == Self.keyByteCount else {
            throw SignatureError.malformedPublicKey(
                "an Ed25519 public key has \(Self.keyByteCount) bytes, not \(key.count)")
        }
        self.keyID = keyID
        self.key = Data(key)
    }

    /// Parses a public key: its base64 line alone (`RWQ…`, as `minisign -P` takes it), or the whole
    /// text of a `.pub` file (an untrusted comment line, then that line).
    public init(_ text: String) throws {
        var lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        if let first = lines.first, first.hasPrefix(MinisignSignature.untrustedPrefix) { lines.removeFirst() }
        guard lines.count == 1, let line = lines.first else {
            throw SignatureError.malformedPublicKey(
                "expected one base64 line (optionally after an untrusted comment line), found \(lines.count) lines")
        }
        guard let decoded = Data(base64Encoded: line) else {
            throw SignatureError.malformedPublicKey("\"\(line.prefix(60))\" is not base64")
        }
        let bytes = [UInt8](decoded)
        let expected = 2 + MinisignKeyID.byteCount + Self.keyByteCount
        guard bytes.count == expected else {
            throw SignatureError.malformedPublicKey(
                "decodes to \(bytes.count) bytes; a minisign public key has \(expected)")
        }
        guard Data(bytes[0..<2]) == Self.algorithm else {
            throw SignatureError.malformedPublicKey(
                "algorithm \"\(String(decoding: bytes[0..<2], as: UTF8.self))\" is not Ed25519 (\"Ed\")")
        }
        try self.init(keyID: MinisignKeyID(bytes: Data(bytes[2..<10])), key: Data(bytes[10...]))
    }

    /// The base64 line: `Ed` ‖ key id ‖ key.
    public var base64: String {
        (Self.algorithm + keyID.bytes + key).base64EncodedString()
    }

    /// A `.pub` file as `minisign -G` writes it: untrusted comment line, base64 line.
    public var fileText: String {
        MinisignSignature.untrustedPrefix + "minisign public key \(keyID)\n" + base64 + "\n"
    }
}
