import CIDNShim
import ContentBlockerEngine
import Foundation

/// Debian's copy of the Public Suffix List (package `publicsuffix`), read once for `load-type`.
package enum PublicSuffixFile {
    static let defaultPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    package static func load(path: String = defaultPath) throws -> PublicSuffixList {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ExplainError.publicSuffixListMissing(path)
        }
        return PublicSuffixList(text: String(decoding: data, as: UTF8.self), toASCII: punycode)
    }

    /// A Unicode rule in punycode through libidn2, as hosts arrive; nil when libidn2 refuses it.
    static func punycode(_ name: String) -> String? {
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return name }
        var output: UnsafeMutablePointer<CChar>?
        guard shim_domain_to_ascii(name, &output) == 0, let output else { return nil }
        defer { free(output) }
        return String(cString: output).lowercased()
    }
}
