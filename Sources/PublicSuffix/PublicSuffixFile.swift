import CIDNShim
import Foundation

/// Debian's copy of the Public Suffix List (package `publicsuffix`): party tests in `explain` and
/// the frame conditions of `safari-26` sets.
public enum PublicSuffixFile {
    public static let defaultPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    public static func load(path: String = defaultPath) throws(PublicSuffixFileError) -> PublicSuffixList {
        guard let data = FileManager.default.contents(atPath: path) else { throw PublicSuffixFileError(path: path) }
        return PublicSuffixList(bytes: [UInt8](data), toASCII: punycode)
    }

    /// A Unicode rule in punycode through libidn2, as hosts arrive; nil when libidn2 refuses it.
    public static func punycode(_ name: String) -> String? {
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return name }
        var output: UnsafeMutablePointer<CChar>?
        guard shim_domain_to_ascii(name, &output) == 0, let output else { return nil }
        defer { free(output) }
        return String(cString: output).lowercased()
    }
}

/// The Public Suffix List could not be read.
public struct PublicSuffixFileError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var description: String { "cannot read the Public Suffix List at \(path) (apt-get install publicsuffix)" }
}
