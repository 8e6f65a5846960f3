import Foundation
import ListSync

/// `listserver sync`: the reference device client. Brings DIR up to date with a published
/// manifest the way an app would, and says what a device paid: bytes, files, recompiles.
enum SyncCommand: Command {
    static let name = "sync"
    static let summary = "sync a device store from a manifest URL, as an app would"
    static let synopsis =
        "(--manifest URL | --sets URL (--target NAME | --webkit-version X.Y)) --dir DIR (--trusted-key KEY... | --allow-unsigned) [--json]"
    static let flags: [FlagSpec] =
        [
            FlagSpec(name: "--manifest", takesValue: true, help: "manifest.json URL (http or https)"),
            FlagSpec(name: "--dir", takesValue: true, help: "device store directory (created if missing)"),
            FlagSpec(name: "--timeout", takesValue: true, help: "seconds per request (default 60)"),
            FlagSpec(
                name: "--trusted-key", takesValue: true, repeatable: true,
                help:
                    "minisign public key (RWQ… base64, or a .pub file) whose signature a manifest must carry; repeat for a key rotation"
            ),
            FlagSpec(
                name: "--allow-unsigned", takesValue: false,
                help: "accept manifests without a signature (a server that does not sign)"),
            FlagSpec(name: "--json", takesValue: false, help: "print the report as JSON"),
        ] + SyncSetSelection.flags

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        guard let directory = arguments.value("--dir") else { throw UsageError(description: "--dir is required") }
        let timeout =
            try arguments.value("--timeout").map { try ArgumentParser.integer($0, flag: "--timeout", range: 1...3_600) }
            ?? 60
        let (manifest, chosenSet) = try SyncSetSelection.manifest(arguments, timeout: timeout)
        guard let url = URL(string: manifest), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme), url.host != nil
        else {
            throw UsageError(description: "--manifest must be an http(s) URL, got \"\(manifest)\"")
        }
        let keys = arguments.all("--trusted-key")
        guard !keys.isEmpty || arguments.has("--allow-unsigned") else {
            throw UsageError(
                description:
                    "give the server's public key with --trusted-key (from /status signing.publicKey), or --allow-unsigned"
            )
        }
        let trust: ManifestTrust
        do {
            let parsed = try keys.map { key in
                try MinisignPublicKey(
                    FileManager.default.fileExists(atPath: key) ? String(contentsOfFile: key, encoding: .utf8) : key)
            }
            trust = try ManifestTrust(trustedKeys: parsed, allowUnsigned: arguments.has("--allow-unsigned"))
        } catch let error as SignatureError {
            throw UsageError(description: "--trusted-key: \(error)")
        }
        let client = SyncClient(
            manifestURL: url, store: SyncStore(directory: URL(fileURLWithPath: directory)), trust: trust,
            options: SyncClient.Options(timeout: TimeInterval(timeout)))
        switch BlockingTask.run({ try await client.sync() }) {
        case .success(let report):
            if arguments.has("--json") {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                var object = try JSONSerialization.jsonObject(with: encoder.encode(report)) as? [String: Any] ?? [:]
                object["transferredBytes"] = report.transferredBytes
                object["downloadedBytes"] = report.downloadedBytes
                if let chosenSet { object["set"] = ["name": chosenSet.name, "target": chosenSet.target] }
                let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                if let chosenSet { print("set \(chosenSet.name) (\(chosenSet.target))") }
                print(report.summary)
            }
            return 0
        case .failure(let error):
            ListServerCommandLine.printError("listserver sync: \(error)")
            return 1
        }
    }
}
