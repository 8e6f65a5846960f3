import DictionaryPatch
import DictionaryPatchOrigin
import Dispatch
import Foundation

/// Patches every list whose bytes changed between two published sets (paired by id), as a publish
/// would, and prints per list the patch and gzip sizes and the size rule's decision, then one
/// `summary` line: the new set's gzip bytes, what a device transfers with patches and with whole
/// files, and the encode time (one thread, and all cores as a publisher would run it).
struct SetMeasurement {
    var old: String
    var new: String
    var level: Int32?

    struct Entry {
        var id: String
        var file: String
        var sha256: String
    }

    func manifest(_ directory: String) -> [Entry] {
        let url = URL(fileURLWithPath: directory).appendingPathComponent("manifest.json")
        guard let data = try? Data(contentsOf: url),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let lists = object["lists"] as? [[String: Any]]
        else { fail("\(url.path) is not a manifest") }
        return lists.map {
            Entry(
                id: $0["id"] as? String ?? "", file: $0["file"] as? String ?? "", sha256: $0["sha256"] as? String ?? "")
        }
    }

    func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    func run() {
        let before = Dictionary(manifest(old).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let after = manifest(new)
        let changed = after.filter { entry in before[entry.id].map { $0.sha256 != entry.sha256 } ?? false }
        let added = after.filter { before[$0.id] == nil }
        let pairs = changed.map { entry in
            (entry, Array(read(old + "/" + before[entry.id]!.file)), Array(read(new + "/" + entry.file)))
        }
        var encoder = PatchEncoder()
        if let level { encoder.parameters.level = level }

        // One thread, then every core: the second is what a publisher's Parallel.map would take.
        let serialStart = DispatchTime.now()
        var patches = pairs.map { try! encoder.encode(from: $0.1, to: $0.2) }
        let serial = seconds(since: serialStart)
        let parallelStart = DispatchTime.now()
        let slots = UnsafeMutableBufferPointer<[UInt8]>.allocate(capacity: pairs.count)
        slots.initialize(repeating: [])
        DispatchQueue.concurrentPerform(iterations: pairs.count) {
            slots[$0] = try! encoder.encode(from: pairs[$0].1, to: pairs[$0].2)
        }
        let parallel = seconds(since: parallelStart)
        guard Array(slots) == patches else { fail("two encodings of the same lists differ") }
        slots.deallocate()

        let setGzip = after.reduce(0) { $0 + size(new + "/" + $1.file + ".gz") }
        let addedGzip = added.reduce(0) { $0 + size(new + "/" + $1.file + ".gz") }
        var withPatches = addedGzip
        var wholeFiles = addedGzip
        print(
            "list".padding(toLength: 24, withPad: " ", startingAt: 0),
            "  identity      gzip       dcz  gz/dcz  decision")
        for (index, (entry, oldBytes, newBytes)) in pairs.enumerated() {
            let gzip = size(new + "/" + entry.file + ".gz")
            let decoded = try? PatchDecoder().apply(
                Data(patches[index]), to: Data(oldBytes), expectedBytes: newBytes.count,
                expectedSHA256: entry.sha256)
            guard decoded == Data(newBytes) else { fail("the patch for \(entry.id) does not round-trip") }
            let decision = PatchSizeRule.decide(patchBytes: patches[index].count, gzipBytes: gzip)
            withPatches += decision == .write ? patches[index].count : gzip
            wholeFiles += gzip
            print(
                entry.id.padding(toLength: 24, withPad: " ", startingAt: 0),
                String(
                    format: "%10d %9d %9d %7.1f  %@", newBytes.count, gzip, patches[index].count,
                    Double(gzip) / Double(max(1, patches[index].count)), decision == .write ? "write" : "skip"))
        }
        patches = []
        print(
            String(
                format:
                    "summary changed=%d added=%d set_gzip=%d added_gzip=%d with_patches=%d whole_files=%d encode_serial_s=%.3f encode_parallel_s=%.3f",
                changed.count, added.count, setGzip, addedGzip, withPatches, wholeFiles, serial, parallel))
    }

    func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
