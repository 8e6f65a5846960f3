/// ABP request types as a bit set, so that `$script,~image` style lists combine cheaply.
struct RequestTypes: OptionSet, Hashable, Sendable {
    let rawValue: UInt16
    static let script = RequestTypes(rawValue: 1 << 0)
    static let image = RequestTypes(rawValue: 1 << 1)
    static let stylesheet = RequestTypes(rawValue: 1 << 2)
    static let xmlHTTPRequest = RequestTypes(rawValue: 1 << 3)
    static let subdocument = RequestTypes(rawValue: 1 << 4)
    static let object = RequestTypes(rawValue: 1 << 5)
    static let media = RequestTypes(rawValue: 1 << 6)
    static let font = RequestTypes(rawValue: 1 << 7)
    static let popup = RequestTypes(rawValue: 1 << 8)
    static let ping = RequestTypes(rawValue: 1 << 9)
    static let websocket = RequestTypes(rawValue: 1 << 10)
    static let other = RequestTypes(rawValue: 1 << 11)
    static let document = RequestTypes(rawValue: 1 << 12)

    /// What an ABP rule without type options matches: everything but top-level documents and popups.
    static let defaultTypes: RequestTypes = [
        .script, .image, .stylesheet, .xmlHTTPRequest, .subdocument, .object,
        .media, .font, .ping, .websocket, .other,
    ]
}

/// `$elemhide`, `$generichide`, `$genericblock`: exceptions that switch a feature off on a site.
enum SiteExceptionOption: Equatable, Sendable {
    case elementHiding
    case genericHiding
    case genericBlocking
}

/// The parsed `$…` options of one network filter.
struct NetworkOptions: Equatable, Sendable {
    /// nil: any party; true: only third-party; false: only first-party.
    var thirdParty: Bool?
    var includedTypes: RequestTypes = []
    var excludedTypes: RequestTypes = []
    var includedDomains: [ArraySlice<UInt8>] = []
    var excludedDomains: [ArraySlice<UInt8>] = []
    var matchCase = false
    var important = false
    var badfilter = false
    var siteException: SiteExceptionOption?

    /// The request types the rule applies to, following ABP: explicit types minus negated ones,
    /// or the default set minus negated ones.
    var effectiveTypes: RequestTypes {
        let base = includedTypes.isEmpty ? RequestTypes.defaultTypes : includedTypes
        return base.subtracting(excludedTypes)
    }

    /// True when the rule names no type at all (only then may the trigger omit `resource-type`).
    var hasTypeOptions: Bool { !includedTypes.isEmpty || !excludedTypes.subtracting(.object).isEmpty }
}

/// Parses the comma-separated option list after `$`. Returns a skip reason for options WebKit
/// cannot express; a specific reason (`option-csp`, …) wins over `unsupported-option`.
struct NetworkOptionsParser {
    static func parse(_ text: ArraySlice<UInt8>) -> Result<NetworkOptions, SkipReasonError> {
        var options = NetworkOptions()
        var unsupported = false
        var specific: SkipReason?
        var start = text.startIndex
        let end = text.endIndex
        while start <= end {
            var stop = start
            while stop < end, text[stop] != UInt8(ascii: ",") { stop += 1 }
            let token = text[start..<stop]
            start = stop + 1
            if token.isEmpty {
                if stop >= end { break }
                unsupported = true
                continue
            }
            switch apply(token, to: &options) {
            case .ok: break
            case .unsupported: unsupported = true
            case .skip(let reason): if specific == nil { specific = reason }
            }
            if stop >= end { break }
        }
        if let specific { return .failure(SkipReasonError(reason: specific)) }
        if unsupported { return .failure(SkipReasonError(reason: .unsupportedOption)) }
        return .success(options)
    }

    private enum Outcome {
        case ok, unsupported
        case skip(SkipReason)
    }

    private static func apply(_ token: ArraySlice<UInt8>, to options: inout NetworkOptions) -> Outcome {
        var nameStart = token.startIndex
        var negated = false
        if token[nameStart] == UInt8(ascii: "~") {
            negated = true
            nameStart += 1
        }
        var nameEnd = nameStart
        while nameEnd < token.endIndex, token[nameEnd] != UInt8(ascii: "=") { nameEnd += 1 }
        var name = String(decoding: token[nameStart..<nameEnd], as: UTF8.self)
        if token[nameStart..<nameEnd].contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { name = name.lowercased() }
        let value: ArraySlice<UInt8>? = nameEnd < token.endIndex ? token[(nameEnd + 1)...] : nil

        if let type = requestType(named: name) {
            if value != nil { return .unsupported }
            if negated { options.excludedTypes.insert(type) } else { options.includedTypes.insert(type) }
            return .ok
        }
        switch name {
        case "third-party", "3p":
            if value != nil { return .unsupported }
            options.thirdParty = !negated
        case "first-party", "1p":
            if value != nil { return .unsupported }
            options.thirdParty = negated
        case "domain", "from":
            guard let value, !negated, !value.isEmpty else { return .unsupported }
            var partStart = value.startIndex
            while partStart <= value.endIndex {
                var partEnd = partStart
                while partEnd < value.endIndex, value[partEnd] != UInt8(ascii: "|") { partEnd += 1 }
                var part = value[partStart..<partEnd]
                if part.first == UInt8(ascii: "~") {
                    part = part.dropFirst()
                    if part.isEmpty { return .skip(.invalidDomain) }
                    options.excludedDomains.append(part)
                } else {
                    if part.isEmpty { return .skip(.invalidDomain) }
                    options.includedDomains.append(part)
                }
                partStart = partEnd + 1
                if partEnd >= value.endIndex { break }
            }
        case "match-case":
            if value != nil { return .unsupported }
            options.matchCase = !negated
        case "important":
            if value != nil || negated { return .unsupported }
            options.important = true
        case "badfilter":
            if value != nil || negated { return .unsupported }
            options.badfilter = true
        case "collapse":
            // Only affects how ABP collapses blocked elements; nothing to express.
            if value != nil { return .unsupported }
        case "elemhide", "ehide":
            if value != nil || negated { return .unsupported }
            options.siteException = .elementHiding
        case "generichide", "ghide":
            if value != nil || negated { return .unsupported }
            options.siteException = .genericHiding
        case "genericblock":
            if value != nil || negated { return .unsupported }
            options.siteException = .genericBlocking
        case "csp": return .skip(.optionCSP)
        case "redirect", "redirect-rule": return .skip(.optionRedirect)
        case "rewrite": return .skip(.optionRewrite)
        case "removeparam", "queryprune": return .skip(.optionRemoveparam)
        case "sitekey": return .skip(.optionSitekey)
        default: return .unsupported
        }
        return .ok
    }

    private static func requestType(named name: String) -> RequestTypes? {
        switch name {
        case "script": return .script
        case "image": return .image
        case "stylesheet", "css": return .stylesheet
        case "xmlhttprequest", "xhr": return .xmlHTTPRequest
        case "subdocument", "frame": return .subdocument
        case "object", "object-subrequest": return .object
        case "media": return .media
        case "font": return .font
        case "popup": return .popup
        case "ping", "beacon": return .ping
        case "websocket": return .websocket
        case "other": return .other
        case "document", "doc": return .document
        default: return nil
        }
    }

    @inline(__always) static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}

/// A skip reason carried through `Result`.
struct SkipReasonError: Error, Equatable {
    var reason: SkipReason
}
