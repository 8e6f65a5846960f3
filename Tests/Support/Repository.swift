import Foundation

/// Where the checkout and its test fixtures are, for tests that read real lists, scripts and docs.
public enum Repository {
    /// The repository's root directory (this file is `Tests/Support/Repository.swift`).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// `Tests/Fixtures`: real lists, requests and fuzz seeds.
    public static let fixtures = root.appendingPathComponent("Tests/Fixtures")
}
