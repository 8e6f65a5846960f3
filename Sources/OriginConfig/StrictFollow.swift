import Foundation
import ListFormat

/// Reads the `follow` section strictly: an http(s) manifest URL, at least one trusted key that
/// parses as a minisign public key, a positive interval.
package struct StrictFollow: Decodable {
    package var value: Configuration.Follow

    package init(from decoder: Decoder) throws {
        let object = try StrictObject(decoder)
        let manifest: String = try object.require("manifest")
        if !(manifest.hasPrefix("https://") || manifest.hasPrefix("http://")) || URL(string: manifest) == nil {
            throw ConfigurationError(
                file: "", key: "follow.manifest",
                problem: "must be an http:// or https:// URL of the primary's manifest.json")
        }
        let keys: [String] = try object.require("trustedKeys")
        if keys.isEmpty {
            throw ConfigurationError(
                file: "", key: "follow.trustedKeys",
                problem: "needs at least one key (the primary's /status shows it under signing.publicKey)")
        }
        for (index, key) in keys.enumerated() {
            do {
                _ = try MinisignPublicKey(key)
            } catch {
                throw ConfigurationError(
                    file: "", key: "follow.trustedKeys[\(index)]", problem: "not a minisign public key (\(error))")
            }
        }
        value = Configuration.Follow(manifest: manifest, trustedKeys: keys)
        value.intervalSeconds = try object.positive("intervalSeconds", default: value.intervalSeconds)
        try object.rejectUnknownKeys()
    }
}
