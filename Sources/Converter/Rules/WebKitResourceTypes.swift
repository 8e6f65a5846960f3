/// The `resource-type` names of one WebKit trigger, as a bit set: what layout compares when it
/// decides whether an exception can cancel a rule, without reading the names back from the JSON.
struct WebKitResourceTypes: OptionSet, Hashable, Sendable {
    let rawValue: UInt16

    /// Every name, in the order `NetworkRuleBuilder` writes them (which is this order).
    static let names: [(WebKitResourceTypes, StaticString)] = [
        (.image, "image"), (.styleSheet, "style-sheet"), (.script, "script"), (.font, "font"),
        (.svgDocument, "svg-document"), (.media, "media"), (.popup, "popup"), (.ping, "ping"), (.fetch, "fetch"),
        (.websocket, "websocket"), (.other, "other"), (.document, "document"),
    ]

    static let image = WebKitResourceTypes(rawValue: 1 << 0)
    static let styleSheet = WebKitResourceTypes(rawValue: 1 << 1)
    static let script = WebKitResourceTypes(rawValue: 1 << 2)
    static let font = WebKitResourceTypes(rawValue: 1 << 3)
    static let svgDocument = WebKitResourceTypes(rawValue: 1 << 4)
    static let media = WebKitResourceTypes(rawValue: 1 << 5)
    static let popup = WebKitResourceTypes(rawValue: 1 << 6)
    static let ping = WebKitResourceTypes(rawValue: 1 << 7)
    static let fetch = WebKitResourceTypes(rawValue: 1 << 8)
    static let websocket = WebKitResourceTypes(rawValue: 1 << 9)
    static let other = WebKitResourceTypes(rawValue: 1 << 10)
    static let document = WebKitResourceTypes(rawValue: 1 << 11)

    init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// The WebKit names of ABP request types: `$image` also covers SVG images (`svg-document`),
    /// `$xmlhttprequest` is `fetch`, and a document load (top or child frame) is `document`.
    /// `$ping` stays `ping` only: WebKitGTK 2.50 loads `navigator.sendBeacon()` as `other`, but adding
    /// `other` turns EasyPrivacy's `$ping,third-party` into a block of every third-party `other` load
    /// (measured over-blocks), so beacons are a known gap rather than an approximation.
    init(_ types: RequestTypes) {
        if types == .document || types == [.document, .subdocument] {
            self = .document
            return
        }
        self = []
        if types.contains(.image) { formUnion([.image, .svgDocument]) }
        if types.contains(.stylesheet) { insert(.styleSheet) }
        if types.contains(.script) { insert(.script) }
        if types.contains(.font) { insert(.font) }
        if types.contains(.media) { insert(.media) }
        if types.contains(.popup) { insert(.popup) }
        if types.contains(.ping) { insert(.ping) }
        if types.contains(.xmlHTTPRequest) { insert(.fetch) }
        if types.contains(.websocket) { insert(.websocket) }
        if types.contains(.other) { insert(.other) }
    }

    /// From names (tests, and callers that only have the JSON's names); unknown names are ignored.
    init(names: [String]) {
        self = []
        for name in names {
            if let entry = WebKitResourceTypes.names.first(where: { $0.1.description == name }) { insert(entry.0) }
        }
    }

    /// Appends `"name","name"` for each member, in `names` order.
    func appendNames(to out: inout [UInt8]) {
        var first = true
        for (type, name) in WebKitResourceTypes.names where contains(type) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "\""))
            name.withUTF8Buffer { out.append(contentsOf: $0) }
            out.append(UInt8(ascii: "\""))
        }
    }
}
