import Glibc
import JSONBytes

/// The `action` object of one rule, checked as WebKit's parser reads it: a known type string and the
/// members that type requires (a CSS selector WebKit will not drop, a notification, a redirect, a priority).
enum ActionChecker {
    private enum ActionType {
        /// block, block-cookies, ignore-previous-rules, make-https: nothing else required.
        case simple
        case cssDisplayNone
        case notify
        case redirect
        case modifyHeaders
        case unknown

        init(_ name: UnsafeBufferPointer<UInt8>) {
            if ByteName.equals(name, "block") || ByteName.equals(name, "block-cookies")
                || ByteName.equals(name, "ignore-previous-rules")
                || ByteName.equals(name, "make-https")
            {
                self = .simple
            } else if ByteName.equals(name, "css-display-none") {
                self = .cssDisplayNone
            } else if ByteName.equals(name, "notify") {
                self = .notify
            } else if ByteName.equals(name, "redirect") {
                self = .redirect
            } else if ByteName.equals(name, "modify-headers") {
                self = .modifyHeaders
            } else {
                self = .unknown
            }
        }
    }

    /// The action's problem (WebKit rejects or drops the rule), nil when there is none.
    /// - Parameter selectors: the last selector's verdict, reused across the rules of a list.
    static func problem(_ cursor: inout JSONCursor, selectors: inout LastSelectorVerdict) throws -> String? {
        /// The last `type` member's value; nil when absent or not a string.
        var type: ActionType?
        var selectorVerdict: CSSSelectorChecker.Verdict?
        var selectorPrefix = ""
        var hasNotification = false
        var hasRedirect = false
        var hasPriority = false
        if try cursor.beginObject() {
            repeat {
                let key = try cursor.key()
                let isString = cursor.peek() == UInt8(ascii: "\"")
                if ByteName.equals(key, "type") {
                    if isString {
                        type = ActionType(try cursor.string())
                    } else {
                        type = nil
                        try cursor.skipValue(depth: 3)
                    }
                } else if ByteName.equals(key, "selector"), isString {
                    let selector = try cursor.string()
                    let verdict = selectors.verdict(of: selector)
                    selectorVerdict = verdict
                    if verdict == .invalid { selectorPrefix = String(decoding: selector.prefix(120), as: UTF8.self) }
                } else {
                    if ByteName.equals(key, "notification") { hasNotification = isString }
                    if ByteName.equals(key, "redirect") { hasRedirect = true }
                    if ByteName.equals(key, "priority") { hasPriority = true }
                    if ByteName.equals(key, "selector") { selectorVerdict = nil }
                    try cursor.skipValue(depth: 3)
                }
            } while try cursor.next(closing: UInt8(ascii: "}"))
        }
        switch type {
        case nil: return "action without a type string (WebKit: Invalid action type)"
        case .simple?: return nil
        case .cssDisplayNone?:
            switch selectorVerdict {
            case nil: return "css-display-none without a selector string (WebKit: Requires a selector)"
            case .valid?: return nil
            case .extendedCSS?:
                return "selector uses procedural (non-CSS) operators; WebKit would drop the rule silently"
            case .invalid?:
                return
                    "selector \"\(selectorPrefix)\" may be rejected by WebKit's CSS parser, which drops the rule silently"
            }
        case .notify?: return hasNotification ? nil : "notify without a notification string"
        case .redirect?: return hasRedirect ? nil : "redirect without a redirect member"
        case .modifyHeaders?: return hasPriority ? nil : "modify-headers without a positive priority"
        case .unknown?: return "unknown action type (WebKit: Invalid action type)"
        }
    }
}

/// The verdict of the last selector checked: an entity site's rules repeat one selector for each of
/// their url-filters, one after the other, so a list checks it once per run instead of once per rule.
struct LastSelectorVerdict {
    private var selector: [UInt8] = []
    private var verdict: CSSSelectorChecker.Verdict?

    /// `CSSSelectorChecker.check(selector)`, taken from the last call when it had the same bytes.
    mutating func verdict(of selector: UnsafeBufferPointer<UInt8>) -> CSSSelectorChecker.Verdict {
        if let verdict, selector.count == self.selector.count,
            selector.isEmpty
                || self.selector.withUnsafeBufferPointer({
                    memcmp($0.baseAddress!, selector.baseAddress!, selector.count) == 0
                })
        {
            return verdict
        }
        let verdict = CSSSelectorChecker.check(selector)
        self.selector.removeAll(keepingCapacity: true)
        self.selector.append(contentsOf: selector)
        self.verdict = verdict
        return verdict
    }
}
