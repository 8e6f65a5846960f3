import PublicSuffix
/// WebKit's resource types, as a trigger's `resource-type` names them.
public enum ResourceType: String, CaseIterable, Sendable, Codable {
    case document, image
    case styleSheet = "style-sheet"
    case script, font, raw
    case svgDocument = "svg-document"
    case media
    case popup, ping, fetch, websocket, other

    var bit: UInt16 {
        switch self {
        case .document: return 1 << 0
        case .image: return 1 << 1
        case .styleSheet: return 1 << 2
        case .script: return 1 << 3
        case .font: return 1 << 4
        case .raw: return 1 << 5
        case .svgDocument: return 1 << 6
        case .media: return 1 << 7
        case .popup: return 1 << 8
        case .ping: return 1 << 9
        case .fetch: return 1 << 10
        case .websocket: return 1 << 11
        case .other: return 1 << 12
        }
    }
}

/// Where a load happens: the main frame or an iframe.
public enum LoadContext: String, CaseIterable, Sendable, Codable {
    case topFrame = "top-frame"
    case childFrame = "child-frame"
}

/// Whether the request's registrable domain equals the main document's.
public enum LoadType: String, CaseIterable, Sendable, Codable {
    case firstParty = "first-party"
    case thirdParty = "third-party"
}

/// One load, as WebKit's content blocker sees it.
public struct BlockerRequest: Sendable, Equatable {
    public var url: NormalizedURL
    /// The main document (top-frame page) the load belongs to.
    public var page: NormalizedURL
    public var resourceType: ResourceType
    public var loadContext: LoadContext

    public init(url: NormalizedURL, page: NormalizedURL, resourceType: ResourceType, loadContext: LoadContext) {
        self.url = url
        self.page = page
        self.resourceType = resourceType
        self.loadContext = loadContext
    }

    /// The page's own document load: what decides the hiding selectors on it.
    public var pageDocumentLoad: BlockerRequest {
        BlockerRequest(url: page, page: page, resourceType: .document, loadContext: .topFrame)
    }
}

/// ABP request types, mapped to what WebKit sees (scripts/webkit/README.md: the modelling choices).
public enum ABPRequestType: String, CaseIterable, Sendable, Codable {
    case script, image, stylesheet, xmlhttprequest, subdocument, document, media, font, ping, websocket, other

    /// `subdocument` is a document in a child frame; everything else loads in the top frame. WebKitGTK
    /// matches `navigator.sendBeacon()` as `other`, never `ping`, so ABP `ping` is `other`.
    public var webKit: (ResourceType, LoadContext) {
        switch self {
        case .script: return (.script, .topFrame)
        case .image: return (.image, .topFrame)
        case .stylesheet: return (.styleSheet, .topFrame)
        case .xmlhttprequest: return (.fetch, .topFrame)
        case .subdocument: return (.document, .childFrame)
        case .document: return (.document, .topFrame)
        case .media: return (.media, .topFrame)
        case .font: return (.font, .topFrame)
        case .ping, .other: return (.other, .topFrame)
        case .websocket: return (.websocket, .topFrame)
        }
    }
}

extension BlockerRequest {
    /// The request model of the project's checks: a `document` request, and one without a source
    /// page, is its own page.
    public init(url: String, source: String?, type: ABPRequestType) throws(URLInputError) {
        let target = try NormalizedURL(url)
        let page: NormalizedURL
        if type == .document || (source ?? "").isEmpty {
            page = target
        } else {
            page = try NormalizedURL(source!)
        }
        let (resourceType, loadContext) = type.webKit
        self.init(url: target, page: page, resourceType: resourceType, loadContext: loadContext)
    }
}
