import HTTPServerCore

/// One fuzz input through the request parser and the header interpreters. Traps (precondition)
/// on any broken invariant, so libFuzzer and the seed-corpus test both see a crash.
///
/// Invariants: ranges stay inside the input, a strict prefix of a complete head never completes,
/// `.incomplete` only within the limits (no unbounded buffering), failures map to known statuses,
/// no unservable name passes target decoding, an offered dictionary's base64 stays inside its
/// `Available-Dictionary` value and holds only base64, and `Accept` prefers HTML only when it names text.
public func fuzzHTTPRequest(_ raw: UnsafeRawBufferPointer) {
    let bytes = raw.assumingMemoryBound(to: UInt8.self)
    let size = bytes.count
    let parsers = [
        HTTPRequestParser(maxHeaderBytes: 16_384, maxURIBytes: 2_048),
        HTTPRequestParser(maxHeaderBytes: 512, maxURIBytes: 64),
    ]
    for parser in parsers {
        switch parser.parse(bytes) {
        case .complete(let head):
            precondition(head.length <= size, "head longer than input")
            precondition(!head.target.isEmpty && head.target.upperBound <= head.length, "target outside head")
            let single = [
                head.range, head.ifRange, head.authorization, head.ifModifiedSince, head.ifUnmodifiedSince,
                head.accept, head.availableDictionary,
            ].compactMap { $0 }
            for range in single + head.acceptEncoding.lines + head.ifNoneMatch.lines + head.ifMatch.lines {
                precondition(range.lowerBound >= 0 && range.upperBound <= head.length, "header value outside head")
            }
            _ = ContentNegotiation.choose(bytes, header: head.acceptEncoding, gzipAvailable: true)
            _ = ContentNegotiation.choose(bytes, header: head.acceptEncoding, gzipAvailable: false)
            _ = ContentNegotiation.accepts(bytes, header: head.acceptEncoding, coding: "dcz")
            if let value = head.availableDictionary,
                let base64 = AvailableDictionaryField.base64Content(UnsafeBufferPointer(rebasing: bytes[value]))
            {
                let start = base64.baseAddress.map { $0 - bytes.baseAddress! } ?? value.lowerBound
                precondition(
                    start >= value.lowerBound && start + base64.count <= value.upperBound,
                    "dictionary hash outside its field")
                precondition(
                    base64.allSatisfy { $0 != 0x3A && $0 != 0x3D && $0 > 0x20 }, "dictionary hash holds a delimiter")
            }
            if let value = head.accept {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self)
                if MediaTypeNegotiation.prefersHTMLOverJSON(accept: text) {
                    precondition(text.lowercased().contains("text/"), "HTML preferred without a text range")
                }
            }
            _ = ConditionalRequest.evaluate(
                bytes, head: head, etag: Array("\"0123456789abcdef\"".utf8), lastModified: 1_603_101_600)
            if let range = head.range {
                for length in [0, 1, 1000] {
                    if case .partial(let part) = RangeRequest.evaluate(bytes, value: range, length: length) {
                        precondition(
                            part.lowerBound >= 0 && part.upperBound <= length && !part.isEmpty, "range outside body")
                    }
                }
            }
            if let value = head.ifRange {
                _ = ConditionalRequest.ifRangeHolds(bytes, value: value, etag: Array("\"x\"".utf8), lastModified: 0)
            }
            if let value = head.ifModifiedSince { _ = HTTPDate.parse(UnsafeBufferPointer(rebasing: bytes[value])) }
            if case .name(let name) = RequestTarget.path(bytes, target: head.target) {
                precondition(name.first != 0x2E && !name.contains(0), "unservable name passed through")
            }
            // Incremental arrival: every strict prefix must not complete (no early answers).
            if head.length > 0 {
                let prefix = parser.parse(UnsafeBufferPointer(rebasing: bytes[0..<(head.length - 1)]))
                if case .complete = prefix { preconditionFailure("a prefix of a complete head completed") }
            }
        case .incomplete:
            // No unbounded buffering: the server only keeps waiting while the limits allow.
            precondition(
                size <= parser.maxHeaderBytes + parser.maxURIBytes + 128, "incomplete beyond the limits (\(size) bytes)"
            )
        case .failure(let failure):
            precondition([400, 414, 431, 501, 505].contains(failure.statusCode))
        }
    }
}
