#if canImport(Converter)
    import Converter  // absent when scripts/fuzz/run-converter-fuzz.sh compiles these sources into one module with the converter's
#endif

/// The converter's fuzz entry point: any bytes are a filter list. The converter must not crash, must
/// account for every filter line, and every list it emits must pass `WebKitListValidator` (one invalid
/// rule makes WebKit reject a whole list).
public enum ConverterFuzz {
    /// Converts `bytes` and returns what is wrong with the result, or nil when nothing is.
    public static func problem(in bytes: [UInt8]) -> String? {
        var configuration = ConverterConfiguration()
        configuration.validatesLists = false  // validated below, so a bad list is reported, not thrown
        let output: ConversionOutput
        do {
            output = try ListConverter(configuration: configuration).convert([
                FilterListSource(id: "fuzz", bytes: bytes)
            ])
        } catch ConversionError.nothingToConvert {
            return nil
        } catch {
            return "conversion failed: \(error)"
        }
        for source in output.report.sources {
            let skipped = source.skipped.values.reduce(0) { $0 + $1.count }
            if source.converted + skipped != source.rules {
                return
                    "line accounting broken: converted \(source.converted) + skipped \(skipped) != rules \(source.rules)"
            }
        }
        let validator = WebKitListValidator()
        for list in output.lists {
            let problems = validator.problems(in: list.json)
            if !problems.isEmpty { return "list \(list.id) fails validation: \(problems.prefix(3))" }
        }
        return nil
    }

    /// What a fuzzer calls with each input: traps, with the input's start, on any problem.
    public static func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
        if let problem = problem(in: bytes) {
            fatalError("\(problem) for input \(String(decoding: bytes.prefix(300), as: UTF8.self).debugDescription)")
        }
    }
}
