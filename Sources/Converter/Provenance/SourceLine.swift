/// One upstream ABP line: which upstream, its 1-based line number, and its text. The converter
/// records these as provenance; `explain` answers with them beside the WebKit rules they became.
public struct SourceLine: Sendable, Equatable, Codable {
    public var upstream: String
    public var line: Int
    public var text: String

    public init(upstream: String, line: Int, text: String) {
        self.upstream = upstream
        self.line = line
        self.text = text
    }
}
