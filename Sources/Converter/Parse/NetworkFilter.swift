/// One network filter line split into its parts: `@@`, pattern and `$` options.
struct NetworkFilter: Equatable, Sendable {
    var isException: Bool
    /// The pattern bytes (between `@@` and the option `$`).
    var pattern: ArraySlice<UInt8>
    var options: NetworkOptions
    /// The line without `$badfilter`, as the filter it cancels is written (only set for badfilter lines).
    var badfilterTarget: [UInt8]?
}

struct NetworkFilterParser {
    static func parse(_ line: ArraySlice<UInt8>) -> Result<NetworkFilter, SkipReasonError> {
        var body = line
        var isException = false
        if body.count >= 2, body[body.startIndex] == UInt8(ascii: "@"), body[body.startIndex + 1] == UInt8(ascii: "@") {
            isException = true
            body = body.dropFirst(2)
        }
        var pattern = body
        var options = NetworkOptions()
        var optionText: ArraySlice<UInt8>?
        if let dollar = optionSeparator(in: body) {
            pattern = body[body.startIndex..<dollar]
            optionText = body[(dollar + 1)...]
            switch NetworkOptionsParser.parse(optionText!) {
            case .success(let parsed): options = parsed
            case .failure(let error): return .failure(error)
            }
        }
        var target: [UInt8]?
        if options.badfilter, let optionText {
            target = badfilterTarget(line: line, optionText: optionText)
        }
        return .success(
            NetworkFilter(isException: isException, pattern: pattern, options: options, badfilterTarget: target))
    }

    /// The last `$` followed by something that can start an option (a letter, a digit or `~`).
    /// A regex ending in `$/` is therefore never split there.
    static func optionSeparator(in body: ArraySlice<UInt8>) -> Int? {
        var index = body.endIndex - 1
        while index >= body.startIndex {
            if body[index] == UInt8(ascii: "$"), index + 1 < body.endIndex {
                let next = body[index + 1]
                if next == UInt8(ascii: "~") || isAlphanumeric(next) { return index }
            }
            index -= 1
        }
        return nil
    }

    /// Rebuilds the filter text without the `badfilter` option, keeping the other options' order.
    private static func badfilterTarget(line: ArraySlice<UInt8>, optionText: ArraySlice<UInt8>) -> [UInt8] {
        var result = Array(line[line.startIndex..<(optionText.startIndex - 1)])
        let kept = optionText.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).filter {
            $0.map(NetworkOptionsParser.lowercased).elementsEqual("badfilter".utf8) == false
        }
        if !kept.isEmpty {
            result.append(UInt8(ascii: "$"))
            for (index, option) in kept.enumerated() {
                if index > 0 { result.append(UInt8(ascii: ",")) }
                result.append(contentsOf: option)
            }
        }
        return result
    }

    @inline(__always) static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
    }
}
