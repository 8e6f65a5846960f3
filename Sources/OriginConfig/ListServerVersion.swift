/// The one version string: `--version`, the HTTP `Server` header and the status page.
public enum ListServerVersion {
    public static let current = "1.0.0"
}
