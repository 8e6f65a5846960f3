import Foundation
import JSONBytes

/// The published manifest, format 1: what a device reads to decide what to download. The one
/// owner of the format: the server writes it with `encoded()` and every reader parses it with
/// `decode(_:)`. Unknown fields are ignored when reading, so later fields never break old clients.
public struct Manifest: Codable, Sendable, Equatable {
    /// The most manifest bytes a client reads (a real one is tens of KB, patches included).
    public static let maximumBytes = 4 << 20

    public struct Entry: Codable, Sendable, Equatable {
        /// Stable list identifier; the device's compiled list is named `id-<sha256 prefix>`.
        public var id: String
        /// File name relative to the manifest URL.
        public var file: String
        /// Lowercase hex SHA-256 of the identity bytes of `file`.
        public var sha256: String
        public var rules: Int
        /// The identity size of `file`, so a client can bound a patch's decoded output.
        public var bytes: Int?
        /// dcz patches from earlier versions of this id to `file` (most recent first).
        public var patches: [Patch]?

        public init(id: String, file: String, sha256: String, rules: Int, bytes: Int? = nil, patches: [Patch]? = nil) {
            self.id = id
            self.file = file
            self.sha256 = sha256
            self.rules = rules
            self.bytes = bytes
            self.patches = patches
        }

        /// The entry's fields in their published order. A new field is one more line here (and
        /// an optional property, so manifests without it still decode).
        fileprivate func write(to object: inout JSONDocument, patchNamesDerived: Bool) {
            object.key("id") { $0.string(id) }
            object.key("file") { $0.string(file) }
            object.key("sha256") { $0.string(sha256) }
            object.key("rules") { $0.integer(rules) }
            if let bytes { object.key("bytes") { $0.integer(bytes) } }
            if let patches, !patchNamesDerived { object.key("patches") { $0.array(patches) { $1.write(to: &$0) } } }
        }
    }

    /// A dcz patch (RFC 9842: 40-byte header, then a zstd frame with the old version as raw
    /// dictionary) that turns the version with SHA-256 `from` into the entry's file.
    public struct Patch: Codable, Sendable, Equatable {
        /// Lowercase hex SHA-256 of the old version's identity bytes (the dictionary).
        public var from: String
        /// File name relative to the manifest URL.
        public var file: String
        /// Lowercase hex SHA-256 of the patch file itself.
        public var sha256: String
        /// Size of the patch file.
        public var bytes: Int

        public init(from: String, file: String, sha256: String, bytes: Int) {
            self.from = from
            self.file = file
            self.sha256 = sha256
            self.bytes = bytes
        }

        fileprivate func write(to out: inout JSONDocument) {
            out.object { object in
                object.key("from") { $0.string(from) }
                object.key("file") { $0.string(file) }
                object.key("sha256") { $0.string(sha256) }
                object.key("bytes") { $0.integer(bytes) }
            }
        }
    }

    public var format: Int
    /// `derivedPatchFiles` when every patch lives under the name a device derives from the hash it
    /// holds and the hash it wants; entries then carry no `patches` in the published bytes (listing
    /// them grew the manifest every device fetches daily; docs/device-cost.md). nil: entries list them.
    public var patchFiles: String?
    public var lists: [Entry]
    /// Hosts where a device turns blocking off (a host and its subdomains, for main-frame
    /// navigations), normalised and sorted; nil or absent: none. Changing them changes no list file.
    public var unprotectedSites: [String]?
    // Signing: nil in an unsigned manifest. Written after `lists`, in this order.
    /// Never decreases from one published manifest to the next; a client refuses a lower one.
    public var generation: Int?
    /// RFC 3339 UTC time (`2026-12-15T00:00:00Z`) after which a client refuses the manifest.
    public var expires: String?

    public init(
        format: Int = 1, patchFiles: String? = nil, lists: [Entry], unprotectedSites: [String]? = nil,
        generation: Int? = nil, expires: String? = nil
    ) {
        self.format = format
        self.patchFiles = patchFiles
        self.lists = lists
        self.unprotectedSites = unprotectedSites
        self.generation = generation
        self.expires = expires
    }

    /// The published bytes: fixed key order, no whitespace, no timestamps, a trailing newline.
    /// The same manifest always gives the same bytes, so every origin serves the same ETag.
    public func encoded() -> [UInt8] {
        var out = JSONDocument(reservingCapacity: 1 << 12)
        out.object { top in
            top.key("format") { $0.integer(format) }
            if let patchFiles { top.key("patchFiles") { $0.string(patchFiles) } }
            top.key("lists") {
                $0.array(lists) { out, entry in
                    out.object { entry.write(to: &$0, patchNamesDerived: patchFiles != nil) }
                }
            }
            if let unprotectedSites, !unprotectedSites.isEmpty {
                top.key("unprotectedSites") { $0.array(unprotectedSites) { $0.string($1) } }
            }
            if let generation { top.key("generation") { $0.integer(generation) } }
            if let expires { top.key("expires") { $0.string(expires) } }
        }
        return out.bytes + [0x0A]
    }

    /// The one patch naming a device may derive: `<id>.<from sha12>-<to sha12>.dcz` beside the
    /// manifest. A client that does not know this value reads `patches` (absent) and takes whole files.
    public static let derivedPatchFiles = "<id>.<from12>-<to12>.dcz"

    /// The patch from the version `fromSHA256` of `entry` to the entry's own version, as named under
    /// `derivedPatchFiles`; nil when this manifest does not derive names. The patch's SHA-256 is not
    /// known: its output is checked against the entry's SHA-256 and size instead.
    public func derivedPatch(for entry: Entry, from fromSHA256: String) -> Patch? {
        guard patchFiles == Self.derivedPatchFiles, fromSHA256.utf8.count == 64, entry.sha256.utf8.count == 64 else {
            return nil
        }
        let name = "\(entry.id).\(fromSHA256.prefix(12))-\(entry.sha256.prefix(12)).dcz"
        return Patch(from: fromSHA256, file: name, sha256: "", bytes: 0)
    }

    /// Parses manifest bytes (any format number; callers decide which formats they accept).
    public static func decode(_ bytes: Data) throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: bytes)
    }
}
