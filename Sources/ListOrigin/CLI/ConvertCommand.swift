import Converter
import Dispatch
import Foundation
import ListFormat
import ManifestSigning
import OriginConfig
import OriginRefresh
import OriginStore
import PublicSuffix

/// `listserver convert`: ABP files in, a published set (lists, gzip siblings, manifest, report,
/// layout state) out. The conversion itself is `ListConverter`; publishing is `Publisher`, the same
/// path the server's refresh takes.
enum ConvertCommand: Command {
    static let name = "convert"
    static let summary = "convert ABP filter files into a WebKit content-blocker set"
    static let synopsis =
        "--input FILE... --out DIR [--previous DIR] [--grace-period SECONDS] [--chunk-size N] [--removal-grace N] [--target safari-17|safari-26] [--signing-key FILE] [--dry-run]"
    static let flags: [FlagSpec] = [
        FlagSpec(
            name: "--input", takesValue: true, repeatable: true,
            help: "ABP filter files; each one's id is its file name up to the first dot, less a trailing -YYYY-MM-DD"),
        FlagSpec(name: "--out", takesValue: true, help: "directory to publish the set into (created if missing)"),
        FlagSpec(
            name: "--previous", takesValue: true,
            help:
                "directory of the previous set: its layout.json keeps unchanged rules in place (default: the set already in --out)"
        ),
        FlagSpec(
            name: "--grace-period", takesValue: true,
            help:
                "seconds superseded files stay in --out, and patches are written from them (default 604800; convert keeps no history, so a file's clock starts at its mtime)"
        ),
        FlagSpec(
            name: "--chunk-size", takesValue: true,
            help: "most rules in one list, exceptions included (default \(ConverterConfiguration.defaultChunkSize))"),
        FlagSpec(
            name: "--removal-grace", takesValue: true,
            help:
                "runs a list may keep its previous bytes when it only lost removed rules (default 0: apply at once); >0 also moves recent rules into lists that change anyway"
        ),
        FlagSpec(
            name: "--target", takesValue: true,
            help:
                "the WebKit the set is for: safari-17 (default; Safari 17/18, WebKitGTK 2.42+) or safari-26 (Safari 26, WebKitGTK 2.50+); see docs/targets.md"
        ),
        FlagSpec(
            name: "--no-validate", takesValue: false,
            help: "skip the WebKit validity check of new lists (benchmarks only)"),
        FlagSpec(
            name: "--signing-key", takesValue: true,
            help:
                "Ed25519 private key (PEM, mode 0600) that signs the manifest (signatures/<sha256>.minisig, valid 14 days); unsigned without it"
        ),
        FlagSpec(
            name: "--dry-run", takesValue: false, help: "convert to JSON bytes only: write, hash and compress nothing"),
    ]

    /// A problem the operator fixes by changing the command line or the files it names.
    struct InputError: Error, CustomStringConvertible {
        var description: String
    }

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let started = DispatchTime.now()
        let inputs = arguments.all("--input")
        guard !inputs.isEmpty else { throw UsageError(description: "--input needs at least one file") }
        let dryRun = arguments.has("--dry-run")
        let out = arguments.value("--out")
        if !dryRun, out == nil { throw UsageError(description: "--out is required unless --dry-run is given") }
        // The flags set the same fields as config.json's `conversion` section does for the server.
        var conversion = Configuration.Conversion.defaults
        if let text = arguments.value("--chunk-size") {
            conversion.chunkSize = try ArgumentParser.integer(
                text, flag: "--chunk-size", range: ConfigurationLimits.chunkSize)
        }
        if let text = arguments.value("--removal-grace") {
            conversion.removalGraceRuns = try ArgumentParser.integer(
                text, flag: "--removal-grace", range: ConfigurationLimits.removalGraceRuns)
        }
        var configuration = RefreshStages.converterConfiguration(conversion)
        configuration.validatesLists = !arguments.has("--no-validate")
        // `convert` reads no config.json: its chunk size is a flag, its list limit the default.
        configuration.settingNames = .init(chunkSize: "--chunk-size")
        if let text = arguments.value("--target") {
            guard let target = ConversionTarget(rawValue: text) else {
                let known = ConversionTarget.allCases.map(\.rawValue).joined(separator: ", ")
                throw UsageError(description: "--target \(text) is not a target; use one of \(known)")
            }
            configuration.target = target
        }
        if configuration.target.needsPublicSuffixes { configuration.publicSuffixes = try PublicSuffixFile.load() }

        var gracePeriod = Configuration.Publish.defaults.gracePeriodSeconds
        if let text = arguments.value("--grace-period") {
            gracePeriod = Double(
                try ArgumentParser.integer(text, flag: "--grace-period", range: ConfigurationLimits.gracePeriodSeconds))
        }
        let signer = try arguments.value("--signing-key").map { path in
            do {
                return ManifestSigner(
                    key: try SigningKeyFile.load(path: path),
                    validity: Configuration.Publish.defaults.signatureValiditySeconds)
            } catch let error as SigningKeyError {
                throw InputError(description: "--signing-key: \(error)")
            }
        }
        let sources = try readSources(inputs)
        // The set already in --out is the previous one, as for the server's refresh: it stays
        // served for the grace period and patches are written from its lists.
        let previous =
            try arguments.value("--previous").map { try readPrevious($0, gracePeriod: 0) }
            ?? out.flatMap { out in dryRun ? nil : try? readPrevious(out, gracePeriod: gracePeriod) }
        let output = try ListConverter(configuration: configuration)
            .convert(sources, previousLayout: previous?.layoutState, previousLists: previous?.listBytesByID ?? [:])

        var created = 0
        var patches = PatchPlanner.Summary()
        if !dryRun, let out {
            // The server's publish path, without a gate (`verify` does that). Convert keeps no
            // publish history: a superseded file's grace period starts at its mtime.
            let writer = SetWriter(directory: out)
            writer.removeStaleTempFiles()
            let publisher = Publisher(
                writer: writer, gracePeriod: gracePeriod, gate: nil, log: Log(label: "convert", minimum: .warning),
                signer: signer)
            var history: [PersistentState.PublishRecord] = []
            let outcome = try publisher.publish(output, over: previous, history: &history)
            created = outcome.createdFiles.count
            patches = outcome.patches
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        print(summary(output, seconds: seconds, dryRun: dryRun, createdFiles: created))
        if !dryRun {
            print(
                String(
                    format: "  patches: %d of %d encoded kept (PatchSizeRule) in %.3f s", patches.written,
                    patches.encoded, patches.seconds))
        }
        return 0
    }

    /// The input id is the file name up to its first dot, less a trailing `-YYYY-MM-DD` or
    /// `-YYYYMMDD` date: `easylist-2020-10-19.txt` → `easylist`, so daily copies share an id and
    /// their rules keep their places from one day to the next.
    static func sourceID(forPath path: String) -> String {
        let file = (path as NSString).lastPathComponent
        var base = Substring(
            file.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? Substring(file))
        for pattern in ["-dddd-dd-dd", "-dddddddd"] where base.count > pattern.count {
            let tail = base.suffix(pattern.count)
            let matches = zip(tail, pattern).allSatisfy { char, want in
                want == "d" ? char.isASCII && char.isNumber : char == want
            }
            if matches {
                base = base.dropLast(pattern.count)
                break
            }
        }
        return base.lowercased()
    }

    private static func readSources(_ paths: [String]) throws -> [FilterListSource] {
        var seen: [String: String] = [:]
        return try paths.map { path in
            let id = sourceID(forPath: path)
            if let other = seen[id] {
                throw InputError(description: "\(path) and \(other) both give the input id \"\(id)\"; rename one")
            }
            seen[id] = path
            guard let data = FileManager.default.contents(atPath: path) else {
                throw InputError(description: "cannot read \(path): check that it exists and is readable")
            }
            return FilterListSource(id: id, bytes: Array(data))
        }
    }

    /// The set in `--previous DIR`: its layout state (required) and the lists its manifest names
    /// (each checked against its hash; a missing or damaged one only means that list cannot keep
    /// its old bytes, and its file is written afresh).
    private static func readPrevious(_ directory: String, gracePeriod: Double) throws -> PublishedSet {
        let writer = SetWriter(directory: directory)
        guard let layout = FileManager.default.contents(atPath: writer.path(PublishPlan.layoutName)) else {
            throw InputError(
                description:
                    "--previous \(directory) has no readable \(PublishPlan.layoutName); point it at a set written by convert or publish"
            )
        }
        let loader = PublishedSetLoader(writer: writer, gracePeriod: gracePeriod, strict: false)
        var set =
            (try? loader.load(history: []))
            ?? PublishedSet(
                directory: directory, manifest: Manifest(lists: []),
                content: SiteContent(manifest: nil, files: [:]), layoutState: nil)
        set.layoutState = Array(layout)
        return set
    }

    private static func summary(_ output: ConversionOutput, seconds: Double, dryRun: Bool, createdFiles: Int) -> String
    {
        let rules = output.lists.reduce(0) { $0 + $1.ruleCount }
        let bytes = output.lists.reduce(0) { $0 + $1.json.count }
        var lines = [
            String(
                format: "converted %d inputs into %d lists, %d rules, %d JSON bytes in %.3f s%@",
                output.report.sources.count, output.lists.count, rules, bytes, seconds,
                dryRun ? " (dry run, nothing written)" : ", \(createdFiles) new files")
        ]
        for source in output.report.sources {
            let skipped = source.skipped.values.reduce(0) { $0 + $1.count }
            lines.append("  \(source.id): \(source.rules) filters, \(source.converted) converted, \(skipped) skipped")
        }
        for list in output.lists {
            lines.append("  \(list.id): \(list.ruleCount) rules, \(list.json.count) bytes")
        }
        if output.report.freshLayout { lines.append("  fresh layout: every list is new") }
        return lines.joined(separator: "\n")
    }
}
