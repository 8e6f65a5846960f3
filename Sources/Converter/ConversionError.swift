/// Why a conversion produced nothing. Individual bad lines are never errors: they are skipped and
/// counted in the report. These cases mean the whole input or state is unusable.
public enum ConversionError: Error, Equatable, CustomStringConvertible {
    /// No input list had a single convertible rule.
    case nothingToConvert
    /// The previous layout state could not be read; the message says what was wrong.
    case invalidPreviousLayout(String)
    /// The rules cannot be laid out within the list limits (chunk size, list count); the message says which.
    case layoutImpossible(String)
    /// A list failed `WebKitListValidator`: publishing it could make WebKit reject it or drop rules.
    case invalidList(String)

    public var description: String {
        switch self {
        case .nothingToConvert:
            return "no input list contained a convertible rule; check that the inputs are ABP filter lists"
        case .invalidPreviousLayout(let reason):
            return "the previous layout state is unreadable (\(reason)); remove it to start a fresh layout"
        case .layoutImpossible(let reason):
            return "the rules do not fit the list limits: \(reason)"
        case .invalidList(let reason):
            return
                "a generated list would not compile cleanly in WebKit (\(reason)); nothing was published, report this with the input files"
        }
    }
}
