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
        if line[index] == UInt8(ascii: "@") { isException = true; index += 1 }
        switch line[index] {
        case UInt8(ascii: "?"): return .failure(SkipReasonError(reason: .extendedCSS))
        case UInt8(ascii: "$"), UInt8(ascii: "%"): return .failure(SkipReasonError(reason: .snippet))
        default: break
        }
        let selector = line[(index + 1)...]
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
        return .success(CosmeticFilter(isException: isException, includedDomains: included, excludedDomains: excluded, selector: selector))
    }
}
