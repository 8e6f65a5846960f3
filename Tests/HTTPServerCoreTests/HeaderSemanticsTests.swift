import Foundation
import HTTPServerCore
import Testing

/// The request fields HTTPServerCore interprets for content negotiation, through the real parser:
/// `Accept-Encoding` (gzip and RFC 9842 `dcz`), `Available-Dictionary` and `Accept`.
@Suite struct HeaderSemanticsTests {
    /// SHA-256 of "abc" (RFC 6234's test vector) and its RFC 8941 Byte Sequence.
    static let digest: [UInt8] = Array(Data(base64Encoded: "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")!)
    static let field = ":ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:"

    /// Parses a GET with `name: value` and hands the head and its bytes to `body`.
    func withHead<T>(_ name: String, _ value: String?, _ body: (UnsafeBufferPointer<UInt8>, HTTPRequestHead) -> T) -> T
    {
        let field = value.map { "\(name): \($0)\r\n" } ?? ""
        let bytes = Array("GET /a.json HTTP/1.1\r\nHost: x\r\n\(field)\r\n".utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            guard case .complete(let head) = HTTPRequestParser(maxHeaderBytes: 16_384, maxURIBytes: 2_048).parse(buffer)
            else {
                Issue.record("head did not parse: \(String(decoding: bytes, as: UTF8.self))")
                return body(buffer, HTTPRequestHead())
            }
            return body(buffer, head)
        }
    }

    func acceptsDCZ(_ value: String?) -> Bool {
        withHead("Accept-Encoding", value) { ContentNegotiation.accepts($0, header: $1.acceptEncoding, coding: "dcz") }
    }

    func offeredBase64(_ value: String) -> String? {
        withHead("Available-Dictionary", value) { buffer, head in
            head.availableDictionary.flatMap { range in
                AvailableDictionaryField.base64Content(UnsafeBufferPointer(rebasing: buffer[range]))
                    .map { String(decoding: $0, as: UTF8.self) }
            }
        }
    }

    @Test func dczOnlyWhenAcceptEncodingGivesItAPositiveQuality() {
        let accepted = [
            "dcz", "gzip, dcz", "gzip,dcz,br", "DCZ", "dcz;q=0.5", "dcz ; Q=0.001", "dcz;q=1.000", "*",
            "gzip;q=0.5, *;q=0.1", ", ,dcz",
        ]
        let refused = [
            "gzip", "dcz;q=0", "dcz;q=0.000", "dcz; q=0.0", "*;q=0", "dcz;q=0, *", "dcz;q=1.5",
            "dcz;q=0.0001", "dczx", "gzip;q=1, identity",
        ]
        for value in accepted { #expect(acceptsDCZ(value), "\(value)") }
        for value in refused { #expect(!acceptsDCZ(value), "\(value)") }
        #expect(!acceptsDCZ(nil))
    }

    @Test func availableDictionaryIsOneByteSequenceComparedAsBase64() {
        #expect(AvailableDictionaryField.fieldValue(sha256: Self.digest) == Self.field)
        let unpadded = "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0"
        for value in [Self.field, "  \(Self.field) ", "\t\(Self.field)", ":\(unpadded):", "\(Self.field);a=1"] {
            #expect(offeredBase64(value) == unpadded, "\(value)")
        }
        for value in [
            "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=", ":\(unpadded)", "\"\(Self.field)\"",
            "\(Self.field) x", ":ungW v48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:",
            ":ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=:",
        ] {
            #expect(offeredBase64(value) == nil, "\(value)")
        }
    }

    @Test(
        arguments: [
            (nil, false), ("*/*", false), ("application/json", false), ("text/html", true), ("TEXT/HTML", true),
            ("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8", true),
            ("application/json, text/html;q=0.5", false), ("text/html;q=0.5, application/json", false),
            ("text/*", true), ("text/html;q=0", false), ("text/html, application/json", false),
            ("application/json;q=0.2, text/html", true),
        ] as [(String?, Bool)])
    func htmlOnlyWhenAcceptRanksItAboveJSON(_ accept: String?, _ html: Bool) {
        let parsed = withHead("Accept", accept) { buffer, head in
            head.accept.map { String(decoding: buffer[$0], as: UTF8.self) }
        }
        #expect(parsed == accept?.trimmingCharacters(in: .whitespaces))
        #expect(MediaTypeNegotiation.prefersHTMLOverJSON(accept: parsed) == html)
    }
}
