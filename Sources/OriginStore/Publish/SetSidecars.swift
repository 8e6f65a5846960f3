import Converter
import Foundation

/// The files a converting origin writes beside its set for `/explain` and the status page
/// (`provenance.txt`, `report.json`), served as they are on disk and never cached (`no-store`),
/// so a follower can mirror them. They are not signed: the provenance names the list hashes it was
/// written for, and `/explain` uses it only for a set with those lists (`SetProvenance`).
package enum SetSidecars {
    package static let names = [ProvenanceFile.fileName, PublishPlan.reportName]
}
