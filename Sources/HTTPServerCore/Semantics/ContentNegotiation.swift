/// Chooses between the identity and gzip representations from `Accept-Encoding`
/// (RFC 9110 §12.5.3), on bytes.
///
/// Policy: no header → identity (what every cache and old client expects); gzip when its qvalue is
/// positive and not lower than identity's (ties go to the smaller gzip body); `x-gzip` counts as
/// gzip (§8.4.1.3). When identity is refused (`identity;q=0`, or `*;q=0` with no identity entry)
/// and gzip is not acceptable either, the answer is 406 — the RFC allows 406 in exactly this case,
/// and sending a coding the client has ruled out would only fail later in its decoder.
public enum ContentNegotiation {
    public enum Choice: Equatable, Sendable {
        case identity, gzip, notAcceptable
    }

    public static func choose(
        _ bytes: UnsafeBufferPointer<UInt8>, header: HTTPRequestHead.ListValue, gzipAvailable: Bool
    ) -> Choice {
        guard header.isPresent else { return .identity }
        // Qvalues in thousandths; nil = not mentioned.
        var gzipQ: Int?
        var identityQ: Int?
        var starQ: Int?
        forEachCoding(bytes, header) { coding, q in
            if HTTPBytes.equalsLowercase(coding, "gzip") || HTTPBytes.equalsLowercase(coding, "x-gzip") {
                gzipQ = max(gzipQ ?? 0, q)
            } else if HTTPBytes.equalsLowercase(coding, "identity") {
                identityQ = q
            } else if coding.count == 1, coding[0] == 0x2A {
                starQ = q
            }
        }
        let effectiveGzip = gzipAvailable ? (gzipQ ?? starQ ?? 0) : 0
        // Identity is acceptable unless explicitly excluded.
        let effectiveIdentity = identityQ ?? (starQ == 0 ? 0 : (starQ ?? 1000))
        if effectiveGzip > 0, effectiveGzip >= effectiveIdentity { return .gzip }
        if effectiveIdentity > 0 { return .identity }
        return .notAcceptable
    }

    /// Whether `Accept-Encoding` allows `coding` (a lowercase literal): its own entry, else `*`'s,
    /// has a positive qvalue. Used for RFC 9842 `dcz`, which is never sent unasked.
    public static func accepts(
        _ bytes: UnsafeBufferPointer<UInt8>, header: HTTPRequestHead.ListValue, coding wanted: StaticString
    ) -> Bool {
        var explicitQ: Int?
        var starQ: Int?
        forEachCoding(bytes, header) { coding, q in
            if HTTPBytes.equalsLowercase(coding, wanted) {
                explicitQ = min(explicitQ ?? q, q)
            } else if coding.count == 1, coding[0] == 0x2A {
                starQ = q
            }
        }
        return (explicitQ ?? starQ ?? 0) > 0
    }

    /// Each `coding *( OWS ";" OWS param )` element with its qvalue in thousandths (1000 when absent).
    @inline(__always)
    private static func forEachCoding(
        _ bytes: UnsafeBufferPointer<UInt8>, _ header: HTTPRequestHead.ListValue,
        _ body: (UnsafeBufferPointer<UInt8>, Int) -> Void
    ) {
        for line in header {
            var index = line.lowerBound
            while index < line.upperBound {
                // One element up to a comma.
                while index < line.upperBound, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x2C {
                    index += 1
                }
                let codingStart = index
                while index < line.upperBound, HTTPBytes.isTokenByte(bytes[index]) { index += 1 }
                let coding = UnsafeBufferPointer(rebasing: bytes[codingStart..<index])
                var q = 1000
                while index < line.upperBound, bytes[index] != 0x2C {
                    if bytes[index] == 0x3B {
                        index += 1
                        while index < line.upperBound, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
                        if index + 1 < line.upperBound, HTTPBytes.lower(bytes[index]) == 0x71, bytes[index + 1] == 0x3D
                        {
                            index += 2
                            let valueStart = index
                            while index < line.upperBound, bytes[index] != 0x2C, bytes[index] != 0x3B,
                                bytes[index] != 0x20
                            { index += 1 }
                            q = parseQValue(UnsafeBufferPointer(rebasing: bytes[valueStart..<index])) ?? 0
                            continue
                        }
                    }
                    index += 1
                }
                if !coding.isEmpty { body(coding, q) }
            }
        }
    }

    /// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ) (RFC 9110 §12.4.2), in thousandths.
    public static func parseQValue(_ value: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = value.first, first == 0x30 || first == 0x31, value.count <= 5 else { return nil }
        var result = Int(first - 0x30) * 1000
        if value.count == 1 { return result }
        guard value[1] == 0x2E else { return nil }
        var scale = 100
        for index in 2..<value.count {
            guard HTTPBytes.isDigit(value[index]) else { return nil }
            result += Int(value[index] - 0x30) * scale
            scale /= 10
        }
        return result <= 1000 ? result : nil
    }
}
