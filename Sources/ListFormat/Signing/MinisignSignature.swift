import Foundation

/// A detached minisign signature, legacy variant (`Ed`: Ed25519 over the message bytes themselves):
///
///     untrusted comment: <text>
///     base64(Ed ‖ key id ‖ signature)
///     trusted comment: <text>
///     base64(global signature = Ed25519 over signature ‖ trusted comment bytes)
///
/// Only the trusted comment is covered by a signature; the untrusted one can be edited by anyone.
public struct MinisignSignature: Equatable, Sendable {
    public static let signatureByteCount = 64
    /// Larger files are refused unread: a comment line is at most 1,024 bytes and a trusted comment
    /// 8,192 (minisign's own limits), so a real file is far smaller.
    public static let maximumFileBytes = 10_240
    static let untrustedPrefix = "untrusted comment: "
    static let trustedPrefix = "trusted comment: "
    static let maximumUntrustedCommentBytes = 1024 - untrustedPrefix.utf8.count
    static let maximumTrustedCommentBytes = 8192 - trustedPrefix.utf8.count
    static let prehashedAlgorithm = Data("ED".utf8)

    public let untrustedComment: String
    public let keyID: MinisignKeyID
    /// Ed25519 over the message bytes.
    public let signature: Data
    public let trustedComment: String
    /// Ed25519 over `globalMessage`.
    public let globalSignature: Data

    public init(
        untrustedComment: String, keyID: MinisignKeyID, signature: Data, trustedComment: String, globalSignature: Data
    ) throws {
        try Self.checkComment(untrustedComment, name: "untrusted comment", limit: Self.maximumUntrustedCommentBytes)
        try Self.checkComment(trustedComment, name: "trusted comment", limit: Self.maximumTrustedCommentBytes)
        guard signature.count == Self.signatureByteCount, globalSignature.count == Self.signatureByteCount else {
            throw SignatureError.malformedSignature("an Ed25519 signature has \(Self.signatureByteCount) bytes")
        }
        self.untrustedComment = untrustedComment
        self.keyID = keyID
        self.signature = Data(signature)
        self.trustedComment = trustedComment
        self.globalSignature = Data(globalSignature)
    }

    /// What the global signature covers: the signature bytes, then the trusted comment's bytes.
    public static func globalMessage(signature: Data, trustedComment: String) -> Data {
        signature + Data(trustedComment.utf8)
    }

    public var globalMessage: Data { Self.globalMessage(signature: signature, trustedComment: trustedComment) }

    /// The file bytes, four lines each ending in "\n", as `minisign -S -l` writes them.
    public var fileBytes: Data {
        let text =
            Self.untrustedPrefix + untrustedComment + "\n"
            + (MinisignPublicKey.algorithm + keyID.bytes + signature).base64EncodedString() + "\n"
            + Self.trustedPrefix + trustedComment + "\n"
            + globalSignature.base64EncodedString() + "\n"
        return Data(text.utf8)
    }

    /// Parses a signature file. Lines end in "\n" (a "\r" before it is dropped); blank lines after the
    /// fourth are allowed. Refuses the prehashed `ED` variant with `.unsupportedAlgorithm`.
    public init(parsing data: Data) throws {
        guard data.count <= Self.maximumFileBytes else {
            throw SignatureError.malformedSignature(
                "\(data.count) bytes; a minisign signature file is at most \(Self.maximumFileBytes)")
        }
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line -> Data in
            line.last == UInt8(ascii: "\r") ? Data(line.dropLast()) : Data(line)
        }
        while let last = lines.last, last.isEmpty, lines.count > 4 { lines.removeLast() }
        guard lines.count == 4 else {
            throw SignatureError.malformedSignature(
                "expected 4 lines (untrusted comment, signature, trusted comment, global signature), found \(lines.count)"
            )
        }
        let untrusted = try Self.comment(lines[0], prefix: Self.untrustedPrefix, name: "line 1")
        let trusted = try Self.comment(lines[2], prefix: Self.trustedPrefix, name: "line 3")
        guard let signatureLine = Data(base64Encoded: lines[1]) else {
            throw SignatureError.malformedSignature("line 2 is not base64")
        }
        let expected = 2 + MinisignKeyID.byteCount + Self.signatureByteCount
        guard signatureLine.count == expected else {
            throw SignatureError.malformedSignature("line 2 decodes to \(signatureLine.count) bytes, not \(expected)")
        }
        let bytes = [UInt8](signatureLine)
        let algorithm = Data(bytes[0..<2])
        if algorithm == Self.prehashedAlgorithm { throw SignatureError.unsupportedAlgorithm("ED") }
        guard algorithm == MinisignPublicKey.algorithm else {
            throw SignatureError.unsupportedAlgorithm(String(decoding: algorithm, as: UTF8.self))
        }
        guard let global = Data(base64Encoded: lines[3]), global.count == Self.signatureByteCount else {
            throw SignatureError.malformedSignature(
                "line 4 is not the base64 of a \(Self.signatureByteCount)-byte signature")
        }
        try self.init(
            untrustedComment: untrusted, keyID: MinisignKeyID(bytes: Data(bytes[2..<10])),
            signature: Data(bytes[10...]), trustedComment: trusted, globalSignature: global)
    }

    private static func comment(_ line: Data, prefix: String, name: String) throws -> String {
        guard line.starts(with: Data(prefix.utf8)) else {
            throw SignatureError.malformedSignature("\(name) does not start with \"\(prefix)\"")
        }
        // Decoded by the standard library and checked to round-trip, so the bytes the global signature
        // covers are exactly the file's (Foundation's decoder may drop a leading byte-order mark).
        let bytes = line.dropFirst(prefix.utf8.count)
        let text = String(decoding: bytes, as: UTF8.self)
        guard Data(text.utf8) == bytes else {
            throw SignatureError.malformedSignature("\(name) is not UTF-8")
        }
        return text
    }

    /// A comment is one line: no line breaks or NUL (a tab is fine; minisign's own comments use it).
    private static func checkComment(_ text: String, name: String, limit: Int) throws {
        if text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0x00 }) {
            throw SignatureError.malformedSignature("the \(name) must be one line, without line breaks or NUL")
        }
        if text.utf8.count > limit {
            throw SignatureError.malformedSignature(
                "the \(name) has \(text.utf8.count) bytes; at most \(limit) are allowed")
        }
    }
}
