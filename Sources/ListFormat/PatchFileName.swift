/// `<id>.<from sha12>-<to sha12>.dcz`: content-hashed, so immutable and cacheable forever, and
/// recognisable, so the publisher removes only files it wrote.
public struct PatchFileName: Equatable, Hashable, Sendable {
    public static let hashPrefixLength = PublishedFileNames.hashPrefixLength
    public static let suffix = ".dcz"

    public var listID: String
    /// The first 12 hex digits of the old and new versions' SHA-256.
    public var fromPrefix: String
    public var toPrefix: String

    /// The name of the patch from `fromSHA256` to `toSHA256` (64-digit lowercase hex), or nil when the
    /// id or a hash is not of the form the publisher writes.
    public init?(listID: String, fromSHA256: String, toSHA256: String) {
        guard Self.isListID(listID), Self.isHex(fromSHA256, count: 64), Self.isHex(toSHA256, count: 64) else {
            return nil
        }
        self.listID = listID
        self.fromPrefix = String(fromSHA256.prefix(Self.hashPrefixLength))
        self.toPrefix = String(toSHA256.prefix(Self.hashPrefixLength))
    }

    /// Parses a file name; nil for anything the publisher would not have written.
    public init?(parsing name: String) {
        guard name.hasSuffix(Self.suffix) else { return nil }
        let base = name.dropLast(Self.suffix.count)
        guard let dot = base.lastIndex(of: ".") else { return nil }
        let hashes = base[base.index(after: dot)...].split(separator: "-", omittingEmptySubsequences: false)
        let id = String(base[..<dot])
        guard hashes.count == 2, Self.isListID(id),
            Self.isHex(hashes[0], count: Self.hashPrefixLength), Self.isHex(hashes[1], count: Self.hashPrefixLength)
        else { return nil }
        self.listID = id
        self.fromPrefix = String(hashes[0])
        self.toPrefix = String(hashes[1])
    }

    public var name: String { "\(listID).\(fromPrefix)-\(toPrefix)\(Self.suffix)" }

    public static func isPatchFileName(_ name: String) -> Bool { PatchFileName(parsing: name) != nil }

    /// The publisher's list id rule (`PublishedFileNames.isListID`).
    public static func isListID(_ id: String) -> Bool { PublishedFileNames.isListID(id) }

    static func isHex<S: StringProtocol>(_ text: S, count: Int) -> Bool { PublishedFileNames.isHex(text, count: count) }
}
