import CIDNShim

#if canImport(Glibc)
    import Glibc
#endif

/// Turns an ABP domain (`News.Example`, `bücher.example`) into what WebKit requires:
/// lowercase ASCII, punycode for internationalized names (libidn2, UTS #46).
struct DomainNormalizer {
    enum Outcome: Equatable {
        case domain(String)
        case failure(SkipReason)
    }

    static func normalize(_ raw: ArraySlice<UInt8>) -> Outcome {
        if raw.isEmpty { return .failure(.invalidDomain) }
        if isEntity(raw) { return .failure(.entityDomain) }
        var ascii = true
        var lowered = [UInt8]()
        lowered.reserveCapacity(raw.count)
        for byte in raw {
            if byte >= 0x80 { ascii = false }
            lowered.append(NetworkOptionsParser.lowercased(byte))
        }
        if !ascii {
            guard let converted = punycode(lowered) else { return .failure(.nonASCII) }
            lowered = converted
        }
        return isValidHost(lowered) ? .domain(String(decoding: lowered, as: UTF8.self)) : .failure(.invalidDomain)
    }

    /// `name.*`: an ABP entity domain (see `EntityDomains`).
    static func isEntity(_ raw: ArraySlice<UInt8>) -> Bool {
        raw.count >= 2 && raw[raw.endIndex - 1] == UInt8(ascii: "*") && raw[raw.endIndex - 2] == UInt8(ascii: ".")
    }

    /// Letters, digits, `-`, `_` and inner dots, as hostnames in URLs.
    static func isValidHost(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first, let last = bytes.last, first != UInt8(ascii: "."), last != UInt8(ascii: ".")
        else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
                UInt8(ascii: "_"):
                break
            case UInt8(ascii: "."): if previous == UInt8(ascii: ".") { return false }
            default: return false
            }
            previous = byte
        }
        return true
    }

    /// UTF-8 → punycode via libidn2; nil when libidn2 rejects the name.
    static func punycode(_ utf8: [UInt8]) -> [UInt8]? {
        var output: UnsafeMutablePointer<CChar>?
        let status = (utf8 + [0]).withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                shim_domain_to_ascii($0, &output)
            }
        }
        guard status == 0, let output else { return nil }
        defer { free(output) }
        let result = Array(
            UnsafeBufferPointer(
                start: UnsafeRawPointer(output).assumingMemoryBound(to: UInt8.self), count: strlen(output)))
        return result.allSatisfy({ $0 < 0x80 }) ? result.map(NetworkOptionsParser.lowercased) : nil
    }

    /// True when `domain` is `parent` or one of its subdomains.
    static func isSameOrSubdomain(_ domain: String, of parent: String) -> Bool {
        if domain == parent { return true }
        return domain.utf8.count > parent.utf8.count && domain.hasSuffix("." + parent)
    }
}
