import ContentBlockerEngine
import Foundation
import OriginConfig
import OriginServe
import PublicSuffix

/// `listserver explain URL`: which rules of the published set decide a request, as WebKit would.
/// Exit 0 with an answer, 1 when the set cannot be read, 2 on bad input.
enum ExplainCommand: Command {
    static let name = "explain"
    static let summary = "say which rules of the published set block or allow a request, and what the page hides"
    static let synopsis = "URL [--page URL] [--type TYPE] [--set DIR | --config PATH] [--json]"
    static let flags: [FlagSpec] = [
        FlagSpec(
            name: "--page", takesValue: true, help: "the page that makes the request (default: the URL is its own page)"
        ),
        FlagSpec(
            name: "--type", takesValue: true,
            help: "ABP request type: \(ABPRequestType.allCases.map(\.rawValue).joined(separator: ", ")) (default other)"
        ),
        FlagSpec(
            name: "--set", takesValue: true,
            help: "published set directory with manifest.json (default: the config's public dir)"),
        FlagSpec(name: "--config", takesValue: true, help: "config file (default ./config.json), for its public dir"),
        FlagSpec(name: "--json", takesValue: false, help: "print the answer as JSON"),
        FlagSpec(
            name: "--repeat", takesValue: true,
            help: "answer N times in process and print the median time per answer (latency check)"),
        FlagSpec(
            name: "--no-index", takesValue: false,
            help: "with --repeat: try every rule, not only the indexed candidates (the latency baseline)"),
    ]
    static let maxPositional = 1
    /// Longest URL or page accepted, in bytes: more is not a URL a browser sends.
    static let maximumURLBytes = 8192

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let request = try ExplainInput.request(
            url: arguments.positional.first, page: arguments.value("--page"),
            type: arguments.value("--type"), maximumBytes: maximumURLBytes)
        let directory =
            try arguments.value("--set")
            ?? ResolvedConfiguration.load(path: arguments.value("--config") ?? "config.json").publicDirectory
        let repeats = try arguments.value("--repeat").map {
            try ArgumentParser.integer($0, flag: "--repeat", range: 1...100_000)
        }
        let set = try PublishedRuleSet.load(directory: directory)
        let engine = try set.engine(
            registrableDomains: try PublicSuffixFile.load(), indexing: arguments.has("--no-index") ? .none : .trigram)
        let provenance = SetProvenance.load(for: set)
        let answer = {
            ExplainAnswer.make(request, engine: engine, provenance: provenance, manifestSHA256: set.manifestSHA256)
        }
        if let repeats {
            print(
                ExplainLatency.measure(repeats: repeats, ruleCount: engine.rules.count) {
                    ExplanationJSON.bytes(answer())
                }.summary)
            return 0
        }
        print(arguments.has("--json") ? ExplanationJSON.render(answer()) : ExplanationText.human(answer()))
        return 0
    }
}

/// Turns command-line (or query) input into a request, with usage errors for bad input.
enum ExplainInput {
    static func request(url: String?, page: String?, type: String?, maximumBytes: Int) throws -> BlockerRequest {
        guard let url, !url.isEmpty else { throw UsageError(description: "give the URL to explain") }
        let abpType: ABPRequestType
        if let type {
            guard let parsed = ABPRequestType(rawValue: type) else {
                throw UsageError(
                    description:
                        "unknown --type \(type.prefix(40)); use one of \(ABPRequestType.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            abpType = parsed
        } else {
            abpType = .other
        }
        for (label, value) in [("URL", url), ("--page", page ?? "")] where !value.isEmpty {
            guard value.utf8.count <= maximumBytes else {
                throw UsageError(
                    description: "the \(label) is \(value.utf8.count) bytes long; the limit is \(maximumBytes)")
            }
            let lowered = value.lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
                throw UsageError(description: "the \(label) must be an http:// or https:// URL: \(value.prefix(80))")
            }
        }
        do {
            return try BlockerRequest(url: url, source: page, type: abpType)
        } catch {
            throw UsageError(description: error.description)
        }
    }
}

/// In-process timing of repeated answers, so start-up and set loading are left out.
struct ExplainLatency {
    var repeats: Int
    var medianMilliseconds: Double
    var maximumMilliseconds: Double
    var ruleCount: Int

    var summary: String {
        String(
            format: "explain: %d answers over %d rules, median %.3f ms, max %.3f ms", repeats, ruleCount,
            medianMilliseconds, maximumMilliseconds)
    }

    /// Times `answer` (the whole answer: decision, sources and skipped lines, rendered as the
    /// endpoint sends it) `repeats` times after one warm-up.
    static func measure(repeats: Int, ruleCount: Int, _ answer: () -> [UInt8]) -> ExplainLatency {
        _ = answer()  // warm-up
        var samples: [Double] = []
        samples.reserveCapacity(repeats)
        for _ in 0..<repeats {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = answer()
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        samples.sort()
        return ExplainLatency(
            repeats: repeats, medianMilliseconds: samples[samples.count / 2],
            maximumMilliseconds: samples.last ?? 0, ruleCount: ruleCount)
    }
}
