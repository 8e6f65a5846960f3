import Foundation
import ListSync

/// `sync --sets URL (--target NAME | --webkit-version X.Y)`: reads an origin's `/sets/` and picks
/// the set the device's WebKit supports, as an app would; the sync then starts from its manifest.
enum SyncSetSelection {
    static let flags: [FlagSpec] = [
        FlagSpec(
            name: "--sets", takesValue: true,
            help: "an origin's /sets/ URL: pick the set for this device instead of giving --manifest"),
        FlagSpec(
            name: "--target", takesValue: true,
            help: "with --sets: the device's target, \(DeviceTarget.allCases.map(\.rawValue).joined(separator: " or "))"
        ),
        FlagSpec(
            name: "--webkit-version", takesValue: true,
            help: "with --sets: the device's WebKitGTK version (2.50 and later: safari-26)"),
    ]

    /// The manifest URL to sync: `--manifest`, or the chosen set's from `--sets`.
    static func manifest(_ arguments: ParsedArguments, timeout: Int) throws -> (url: String, set: SetIndex.Entry?) {
        guard let sets = arguments.value("--sets") else {
            guard let manifest = arguments.value("--manifest") else {
                throw UsageError(description: "--manifest or --sets is required")
            }
            return (manifest, nil)
        }
        if arguments.value("--manifest") != nil { throw UsageError(description: "give --manifest or --sets, not both") }
        guard let url = URL(string: sets), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw UsageError(description: "--sets must be an http(s) URL, got \"\(sets)\"")
        }
        let device = try target(arguments)
        let index: SetIndex
        switch BlockingTask.run({ try await SetIndex.fetch(url, timeout: TimeInterval(timeout)) }) {
        case .success(let fetched): index = fetched
        case .failure(let error): throw UsageError(description: "--sets: \(error)")
        }
        guard let chosen = SetChooser.choose(from: index, for: device) else {
            let offered = index.sets.map { "\($0.name) (\($0.target))" }.joined(separator: ", ")
            throw UsageError(
                description: "\(sets) has no set a \(device.rawValue) device can use (offered: \(offered))")
        }
        return (chosen.manifest, chosen)
    }

    private static func target(_ arguments: ParsedArguments) throws -> DeviceTarget {
        switch (arguments.value("--target"), arguments.value("--webkit-version")) {
        case (let name?, nil):
            guard let target = DeviceTarget(rawValue: name) else {
                throw UsageError(
                    description:
                        "--target must be \(DeviceTarget.allCases.map(\.rawValue).joined(separator: " or ")), got \"\(name)\""
                )
            }
            return target
        case (nil, let version?):
            guard let target = DeviceTarget.webKitGTK(version: version) else {
                throw UsageError(description: "--webkit-version must look like 2.50.6, got \"\(version)\"")
            }
            return target
        case (nil, nil):
            throw UsageError(description: "--sets needs the device's --target or --webkit-version")
        case (_?, _?):
            throw UsageError(description: "give --target or --webkit-version, not both")
        }
    }
}
