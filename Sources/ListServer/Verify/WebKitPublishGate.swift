import Converter

/// The publish gate backed by real WebKit: a list is published only if WebKit compiles it.
/// When WebKit cannot be run at all the list is rejected too (fail closed), so the publisher keeps
/// the previous good file rather than shipping something unchecked.
struct WebKitPublishGate: PublishGate {
    var verifier: WebKitVerifier

    func rejection(of list: RuleList) -> String? {
        do {
            guard let verdict = try verifier.verify([list]).first else { return "WebKit verifier returned no result" }
            return verdict.error
        } catch {
            return "\(error)"
        }
    }
}
