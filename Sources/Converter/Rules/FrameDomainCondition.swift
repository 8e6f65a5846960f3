/// `$domain=` judged where ABP judges it, in the frame that issues the request: the sites as
/// `if-frame-url` / `unless-frame-url` regexes over that frame's URL (`ConversionTarget.safari26`).
///
/// WebKitGTK 2.50.6 matches a frame condition of a frame's own load (a child-document request)
/// against `about:blank`, so document loads keep the top-page `if-domain` condition: for an iframe
/// of the top page, whose parent is the top page, that is ABP's judgement too.
enum FrameDomainCondition {
    /// The sites' frame-URL regexes, one per site: WebKit's url-filter grammar has no alternation.
    static func patterns(_ sites: [String]) -> [String] { sites.map(pattern) }

    /// A URL whose host is `site` or one of its subdomains, any scheme and port: `||site^` as
    /// `URLFilterBuilder` writes it, `^[^:]+://+([^:/]+\.)?example\.com[/:]`.
    static func pattern(_ site: String) -> String {
        var bytes = URLFilterBuilder.hostAnchorPrefix
        bytes.reserveCapacity(bytes.count + site.utf8.count + 8)
        for byte in site.utf8 {
            if byte == UInt8(ascii: ".") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        bytes += URLFilterBuilder.hostEndClass
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Every type a typeless trigger matches except document loads: the part a frame condition judges exactly.
    static let subresources: RequestTypes = [
        .script, .image, .stylesheet, .xmlHTTPRequest, .media, .font, .popup, .ping,
        .websocket, .other,
    ]

    /// The type groups a rule with a domain condition needs: a typeless group splits into its
    /// subresources (judged in the frame) and its document loads (judged against the top page).
    static func groups(splitting groups: [NetworkRuleBuilder.TypeGroup]) -> [NetworkRuleBuilder.TypeGroup] {
        guard groups.contains(where: { $0.resourceTypes == nil }) else { return groups }
        return groups.flatMap { group -> [NetworkRuleBuilder.TypeGroup] in
            guard group.resourceTypes == nil else { return [group] }
            return [
                NetworkRuleBuilder.TypeGroup(resourceTypes: subresources),
                NetworkRuleBuilder.TypeGroup(resourceTypes: .document),
            ]
        }
    }

    /// True when the group loads documents, whose frame condition WebKitGTK judges against `about:blank`.
    static func loadsDocument(_ group: NetworkRuleBuilder.TypeGroup) -> Bool {
        group.resourceTypes?.contains(.document) ?? true
    }
}
