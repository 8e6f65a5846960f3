import Converter
import Foundation
import ListFormat
import OriginStore

/// Converts and publishes; when the publish gate rejects lists, finds the rules WebKit rejects
/// (`PoisonIsolation`), maps them back to their ABP lines through the conversion's provenance,
/// converts again without those lines and publishes that through the same gate. A set is never
/// published with a list from an older layout: when isolation fails, nothing is published.
package struct IsolatingPublish: Sendable {
    package var converter: ListConverter
    package var publisher: Publisher
    package var bounds: PoisonIsolation.Bounds
    package var log: Log
    /// Test-only: changes each conversion's output before it is published. The converter never
    /// emits a rule WebKit rejects (its validator and parser stop such lines first), so a test uses
    /// this to put a real WebKit-rejected rule in place of a line's rule. Nil in the server.
    package var reviseOutput: (@Sendable (inout ConversionOutput) -> Void)? = nil

    package struct Published: Sendable {
        package var outcome: Publisher.Outcome
        package var output: ConversionOutput
        package var isolated: [IsolatedLine]
        /// What finding them took: WebKit compiles of parts of lists, and seconds (0 when none was needed).
        package var isolationCompiles = 0
        package var isolationSeconds = 0.0
    }

    package enum Failure: Error, Sendable {
        case conversion(String)
        case publish(PublishError)
        /// WebKit rejected lists and their lines could not be isolated; nothing was published.
        case isolation(String)
        /// The deadline passed before a stage.
        case late(SetFailure)
    }

    /// Each round drops at least one line; a line's rules can hide another bad rule behind them
    /// in the same list, so a few rounds are allowed before giving up.
    package static let maxRounds = 4

    package func run(
        _ sources: [FilterListSource], previous: PublishedSet?, history: inout [PersistentState.PublishRecord],
        now: Date,
        deadline: (String) -> SetFailure?
    ) throws(Failure) -> Published {
        var sources = sources
        var isolated: [IsolatedLine] = []
        var budget = PoisonIsolation.Budget()
        for _ in 0..<Self.maxRounds {
            var output: ConversionOutput
            do {
                output = try converter.convert(
                    sources, previousLayout: previous?.layoutState, previousLists: previous?.listBytesByID ?? [:])
            } catch {
                throw .conversion("\(error)")
            }
            reviseOutput?(&output)
            if let late = deadline("publishing") { throw .late(late) }
            do {
                let outcome = try publisher.publish(output, over: previous, history: &history, now: now)
                var published = Published(outcome: outcome, output: output, isolated: isolated)
                if !isolated.isEmpty {
                    published.isolationCompiles = budget.compiles
                    published.isolationSeconds = budget.seconds
                    log.warning(
                        "publish gate: published without \(isolated.count) lines WebKit rejects, found in \(budget.compiles) compiles and \(String(format: "%.1f", budget.seconds)) s"
                    )
                }
                return published
            } catch PublishError.gateRejected(let rejections) {
                if budget.compiles == 0 { budget.started = Date() }
                let found = try isolate(rejections, in: output, budget: &budget)
                isolated += found
                for line in found {
                    log.warning(
                        "publish gate: dropping \(line.upstream):\(line.line) \(line.text.prefix(200)) (WebKit rejected its rule in \(line.list): \(line.error))"
                    )
                    if let index = sources.firstIndex(where: { $0.id == line.upstream }) {
                        sources[index].isolatedLines.insert(line.line)
                    }
                }
            } catch let error as PublishError {
                throw .publish(error)
            } catch {
                throw .publish(.write(publisher.writer.directory, "\(error)"))
            }
        }
        throw .isolation(
            "WebKit still rejected lists after \(Self.maxRounds) rounds of dropping lines (\(isolated.count) dropped); nothing published"
        )
    }

    /// The lines behind the rules WebKit rejects in each rejected list.
    private func isolate(
        _ rejections: [Publisher.GateRejection], in output: ConversionOutput,
        budget: inout PoisonIsolation.Budget
    ) throws(Failure) -> [IsolatedLine] {
        guard let gate = publisher.gate else { throw .publish(.gateRejected(rejections)) }
        let isolation = PoisonIsolation(gate: gate, bounds: bounds)
        var found: [IsolatedLine] = []
        for rejection in rejections {
            guard let list = output.lists.first(where: { $0.id == rejection.id }) else {
                throw .isolation("WebKit rejected \(rejection.id), which the conversion did not produce")
            }
            let offenders: [PoisonIsolation.Offender]
            do {
                offenders = try isolation.offenders(in: list, reason: rejection.reason, budget: &budget)
            } catch {
                throw .isolation("\(error); WebKit's error: \(rejection.reason); nothing published")
            }
            for offender in offenders {
                guard let lines = output.provenance.sourceLines(ofList: list.id, rules: [offender.rule]), !lines.isEmpty
                else {
                    throw .isolation(
                        "WebKit rejects rule \(offender.rule) of \(list.id) (\(offender.reason)) but no ABP line is known for it; nothing published"
                    )
                }
                found += lines.map { IsolatedLine($0, list: list.id, error: offender.reason) }
            }
        }
        return found
    }
}
