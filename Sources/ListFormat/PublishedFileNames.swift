/// The names of the files a published set holds, for the publisher that writes them and every reader
/// (the origin's loader, `explain`, the device). Content-hashed names are immutable, so cacheable
/// forever, and recognisable, so the publisher removes only files it wrote.
public enum PublishedFileNames {
    public static let manifest = "manifest.json"
    public static let report = "report.json"
    public static let layout = "layout.json"
    /// Where detached manifest signatures live, relative to the manifest.
    public static let signatureDirectory = "signatures"
    /// How many hex digits of a SHA-256 a hashed file name carries.
    public static let hashPrefixLength = 12

    /// `<id>.<sha256[:12]>.json`.
    public static func list(id: String, sha256: String) -> String {
        "\(id).\(sha256.prefix(hashPrefixLength)).json"
    }

    /// `signatures/<sha256 of the manifest bytes>.minisig`: the manifest's own hash, so no cache can
    /// pair a manifest with another one's signature.
    public static func signature(forManifest sha256: String) -> String {
        "\(signatureDirectory)/\(sha256).minisig"
    }

    /// The manifest hash a signature file's name (inside `signatures/`) carries; nil for any other name.
    public static func manifestSHA256(inSignatureFileName name: String) -> String? {
        guard name.hasSuffix(".minisig") else { return nil }
        let hash = name.dropLast(8)
        guard isHex(hash, count: 64) else { return nil }
        return String(hash)
    }

    /// The id of `<id>.<12 hex>.json`; nil for gzip siblings, patches and anything else.
    public static func listID(ofListFile name: String) -> String? {
        guard name.hasSuffix(".json") else { return nil }
        let base = name.dropLast(5)
        guard let dot = base.lastIndex(of: ".") else { return nil }
        let id = String(base[..<dot])
        guard isHex(base[base.index(after: dot)...], count: hashPrefixLength), isListID(id) else { return nil }
        return id
    }

    /// `<id>.<12 hex>.json`, `.json.gz` or a patch `<id>.<12 hex>-<12 hex>.dcz`: the only names the
    /// publisher ever removes.
    public static func isHashedFile(_ name: String) -> Bool {
        if PatchFileName.isPatchFileName(name) { return true }
        return listID(ofListFile: name.hasSuffix(".gz") ? String(name.dropLast(3)) : name) != nil
    }

    /// The publisher's list id rule: 1–64 of `a-z 0-9 - _`.
    public static func isListID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d || $0 == 0x5f
            }
    }

    /// Whether `text` is `count` lowercase hex digits.
    public static func isHex<S: StringProtocol>(_ text: S, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
