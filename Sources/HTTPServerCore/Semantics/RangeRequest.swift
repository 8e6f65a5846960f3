/// Interprets `Range` (RFC 9110 §14.2) for one representation of known length.
///
/// Only a single `bytes` range is served as 206; several ranges get the full 200 (allowed by
/// §14.2: a server may ignore Range), as does anything unparseable or a unit other than bytes.
public enum RangeRequest {
    public enum Outcome: Equatable, Sendable {
        /// Serve the whole representation.
        case full
        /// Serve `bytes[range]` as 206.
        case partial(Range<Int>)
        /// 416 with `Content-Range: bytes */length`.
        case unsatisfiable
    }

    public static func evaluate(_ bytes: UnsafeBufferPointer<UInt8>, value: Range<Int>, length: Int) -> Outcome {
        let field = UnsafeBufferPointer(rebasing: bytes[value])
        guard field.count > 6,
            HTTPBytes.equalsLowercase(UnsafeBufferPointer(rebasing: field[0..<6]), "bytes=")
        else { return .full }
        var index = 6
        while index < field.count, field[index] == 0x20 { index += 1 }
        if field[index...].contains(0x2C) { return .full }
        let first = number(field, &index)
        guard index < field.count, field[index] == 0x2D else { return .full }
        index += 1
        let last = number(field, &index)
        while index < field.count, field[index] == 0x20 { index += 1 }
        guard index == field.count else { return .full }
        switch (first, last) {
        case (let start?, let end?):
            guard start <= end else { return .full }
            guard start < length else { return .unsatisfiable }
            return .partial(start..<min(end + 1, length))
        case (let start?, nil):
            guard start < length else { return .unsatisfiable }
            return .partial(start..<length)
        case (nil, let suffix?):
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - suffix)..<length)
        case (nil, nil):
            return .full
        }
    }

    private static func number(_ field: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Int? {
        var value = 0
        var digits = 0
        while index < field.count, HTTPBytes.isDigit(field[index]) {
            if digits < 18 { value = value * 10 + Int(field[index] - 0x30) }
            digits += 1
            index += 1
        }
        return digits > 0 ? (digits > 18 ? Int.max / 2 : value) : nil
    }
}
