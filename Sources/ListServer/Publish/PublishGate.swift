import Converter

/// Compiles a list the way a device will before it is published. WebKit rejects a whole list for
/// one bad url-filter, so a list that fails here must never reach a manifest.
protocol PublishGate: Sendable {
    /// nil when the list compiles; otherwise the compiler's reason.
    func rejection(of list: RuleList) -> String?
    /// One verdict per list, in order. Gates that can compile a batch in one go override this.
    func rejections(of lists: [RuleList]) -> [String?]
}

extension PublishGate {
    func rejections(of lists: [RuleList]) -> [String?] { lists.map { rejection(of: $0) } }
}
