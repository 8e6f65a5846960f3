/// WebKit's content-blocker limits, defined once: the layout clamps to them, the validator checks
/// them, and the origin's configuration bounds its settings by them.
public enum WebKitLimits {
    /// Most rules WebKit compiles in one list (measured on WebKitGTK 2.50: 150,000 compiles, 150,001
    /// fails with "Too many rules in JSON array").
    public static let rulesPerList = 150_000
}
