import Foundation

/// What a device's WebKit can compile, oldest first: a list converted for a later target uses
/// trigger keys an older WebKit ignores, which silently widens its rules.
public enum DeviceTarget: String, Sendable, CaseIterable, Comparable {
    /// Safari/iOS 17 and later, and every WebKitGTK the project supports.
    case safari17 = "safari-17"
    /// Safari/iOS/macOS 26 and later, WebKitGTK 2.50 and later: frame-URL triggers and the rest.
    case safari26 = "safari-26"

    public static func < (lhs: DeviceTarget, rhs: DeviceTarget) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The target of an Apple OS (iOS, iPadOS, macOS, visionOS) by its major version.
    public static func appleOS(major: Int) -> DeviceTarget {
        major >= 26 ? .safari26 : .safari17
    }

    /// The target of a WebKitGTK (or WPE) version such as `2.50.6`; nil when it cannot be read.
    public static func webKitGTK(version: String) -> DeviceTarget? {
        let parts = version.split(separator: ".").map { Int($0) }
        guard parts.count >= 2, let major = parts[0], let minor = parts[1] else { return nil }
        return (major, minor) >= (2, 50) ? .safari26 : .safari17
    }
}

/// Picks the set a device should sync: of the sets whose target the device supports, the one of
/// the newest target, the default set first among equals. Never a set for a newer WebKit (or a
/// target this client does not know): nil when the origin has no set the device can use.
public enum SetChooser {
    public static func choose(from index: SetIndex, for device: DeviceTarget) -> SetIndex.Entry? {
        let supported = index.sets.filter { DeviceTarget(rawValue: $0.target).map { $0 <= device } ?? false }
        guard let newest = supported.compactMap({ DeviceTarget(rawValue: $0.target) }).max() else { return nil }
        let candidates = supported.filter { $0.target == newest.rawValue }
        return candidates.first { $0.name == index.defaultSet } ?? candidates.first
    }
}
