/// One element-hiding line: `domains##selector` or `domains#@#selector`.
struct CosmeticFilter: Equatable, Sendable {
    var isException: Bool
    var includedDomains: [ArraySlice<UInt8>]
    var excludedDomains: [ArraySlice<UInt8>]
    var selector: ArraySlice<UInt8>
}

struct CosmeticFilterParser {
    /// `separatorStart` is the index of the first `#` of the separator (see `LineClassifier`).
    static func parse(_ line: ArraySlice<UInt8>, separatorStart: Int) -> Result<CosmeticFilter, SkipReasonError> {
        var index = separatorStart + 1
        var isException = false
        if line[index] == UInt8(ascii: "@") {
            isException = true
            index += 1
        }
        var isExtended = false
        switch line[index] {
        case UInt8(ascii: "?"):
            isExtended = true
            index += 1
        case UInt8(ascii: "$"), UInt8(ascii: "%"): return .failure(SkipReasonError(reason: .snippet))
        default: break
        }
        var selector = line[(index + 1)...]
        if isExtended { selector = nativeSelector(selector) }
        if selector.isEmpty { return .failure(SkipReasonError(reason: .invalidSelector)) }
        switch selector[selector.startIndex] {
        case UInt8(ascii: "+"):
            if selector.starts(with: "+js(".utf8) { return .failure(SkipReasonError(reason: .snippet)) }
        case UInt8(ascii: "^"):
            return .failure(SkipReasonError(reason: .htmlFilter))
        default: break
        }
        var included: [ArraySlice<UInt8>] = []
        var excluded: [ArraySlice<UInt8>] = []
        let domainText = line[line.startIndex..<separatorStart]
        if !domainText.isEmpty {
            for part in domainText.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                var domain = part
                while domain.first == 0x20 { domain = domain.dropFirst() }
                while domain.last == 0x20 { domain = domain.dropLast() }
                if domain.first == UInt8(ascii: "~") {
                    domain = domain.dropFirst()
                    if domain.isEmpty { return .failure(SkipReasonError(reason: .invalidDomain)) }
                    excluded.append(domain)
                } else {
                    if domain.isEmpty { return .failure(SkipReasonError(reason: .invalidDomain)) }
                    included.append(domain)
                }
            }
        }
        return .success(
            CosmeticFilter(
                isException: isException, includedDomains: included, excludedDomains: excluded, selector: selector))
    }

    static let abpHas = Array(":-abp-has(".utf8)
    static let cssHas = Array(":has(".utf8)

    /// A `#?#` selector with ABP's `:-abp-has(` written as CSS `:has(`, which WebKit (Safari 16.4+,
    /// WebKitGTK 2.42+) matches natively. Other procedural operators are left for
    /// `CSSSelectorChecker` to refuse as extended CSS.
    static func nativeSelector(_ selector: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let first = firstRange(of: abpHas, in: selector) else { return selector }
        var out: [UInt8] = []
        out.reserveCapacity(selector.count)
        var rest = selector
        var next: Range<Int>? = first
        while let range = next {
            out.append(contentsOf: rest[rest.startIndex..<range.lowerBound])
            out.append(contentsOf: cssHas)
            rest = rest[range.upperBound...]
            next = firstRange(of: abpHas, in: rest)
        }
        out.append(contentsOf: rest)
        return out[...]
    }

    private static func firstRange(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Range<Int>? {
        guard haystack.count >= needle.count else { return nil }
        var start = haystack.startIndex
        while start + needle.count <= haystack.endIndex {
            if haystack[start] == needle[0], haystack[start..<start + needle.count].elementsEqual(needle) {
                return start..<start + needle.count
            }
            start += 1
        }
        return nil
    }
}
