import Foundation

/// The published manifest, format 1: what a device reads to decide what to download.
public struct Manifest: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        /// Stable list identifier; the device's compiled list is named `id-<sha256 prefix>`.
        public var id: String
        /// File name relative to the manifest URL.
        public var file: String
        /// Lowercase hex SHA-256 of the identity bytes of `file`.
        public var sha256: String
        public var rules: Int

        public init(id: String, file: String, sha256: String, rules: Int) {
            self.id = id
            self.file = file
            self.sha256 = sha256
            self.rules = rules
        }
    }

    public var format: Int
    public var lists: [Entry]

    public init(format: Int = 1, lists: [Entry]) {
        self.format = format
        self.lists = lists
    }
}
