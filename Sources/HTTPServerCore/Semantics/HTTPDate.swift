/// HTTP dates (RFC 9110 §5.6.7) as whole seconds since 1970, on bytes.
///
/// Formats IMF-fixdate only; parses all three formats a recipient must accept (IMF-fixdate,
/// obsolete RFC 850 and asctime). Pure arithmetic, no locale, no Foundation.
public enum HTTPDate {
    private static let dayNames: [[UInt8]] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"].map { Array($0.utf8) }
    private static let monthNames: [[UInt8]] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ].map { Array($0.utf8) }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ seconds: Int) -> [UInt8] {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var out = [UInt8]()
        out.reserveCapacity(29)
        out += dayNames[((days % 7) + 7) % 7]
        out += [0x2C, 0x20]
        appendTwoDigits(day, to: &out)
        out.append(0x20)
        out += monthNames[month - 1]
        out.append(0x20)
        out += Array(String(year).utf8)
        out.append(0x20)
        appendTwoDigits(secondOfDay / 3600, to: &out)
        out.append(0x3A)
        appendTwoDigits(secondOfDay / 60 % 60, to: &out)
        out.append(0x3A)
        appendTwoDigits(secondOfDay % 60, to: &out)
        out += Array(" GMT".utf8)
        return out
    }

    /// Parses an HTTP-date; nil when it is not one (then the header is ignored, RFC 9110 §13.1.3).
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var scanner = Scanner(bytes: bytes)
        // Skip the day name: letters, then either ", " (IMF-fixdate, RFC 850) or " " (asctime).
        while let byte = scanner.peek, isLetter(byte) { scanner.index += 1 }
        if scanner.consume(0x2C) {
            guard scanner.consume(0x20) else { return nil }
            guard let day = scanner.number(maxDigits: 2) else { return nil }
            if scanner.consume(0x20) {
                // IMF-fixdate: 06 Nov 1994 08:49:37 GMT
                guard let month = scanner.month(), scanner.consume(0x20),
                    let year = scanner.number(exactDigits: 4), scanner.consume(0x20),
                    let time = scanner.time(), scanner.literal(" GMT"), scanner.atEnd
                else { return nil }
                return seconds(year: year, month: month, day: day, time: time)
            }
            // RFC 850: 06-Nov-94 08:49:37 GMT
            guard scanner.consume(0x2D), let month = scanner.month(), scanner.consume(0x2D),
                let shortYear = scanner.number(exactDigits: 2), scanner.consume(0x20),
                let time = scanner.time(), scanner.literal(" GMT"), scanner.atEnd
            else { return nil }
            // RFC 9110 §5.6.7: a two-digit year more than 50 years ahead is in the past century.
            let year = shortYear + (shortYear < 70 ? 2000 : 1900)
            return seconds(year: year, month: month, day: day, time: time)
        }
        // asctime: Sun Nov  6 08:49:37 1994
        guard scanner.consume(0x20), let month = scanner.month(), scanner.consume(0x20) else { return nil }
        _ = scanner.consume(0x20)
        guard let day = scanner.number(maxDigits: 2), scanner.consume(0x20), let time = scanner.time(),
            scanner.consume(0x20), let year = scanner.number(exactDigits: 4), scanner.atEnd
        else { return nil }
        return seconds(year: year, month: month, day: day, time: time)
    }

    private static func seconds(year: Int, month: Int, day: Int, time: Int) -> Int? {
        guard (1...31).contains(day), time < 86_400 + 1 else { return nil }
        return days(fromCivil: year, month: month, day: day) * 86_400 + time
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    private static func appendTwoDigits(_ value: Int, to out: inout [UInt8]) {
        out.append(UInt8(0x30 + value / 10))
        out.append(UInt8(0x30 + value % 10))
    }

    // Howard Hinnant's days-from-civil algorithm (public domain arithmetic).
    private static func days(fromCivil year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index == bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            index += 1
            return true
        }

        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
            index += count
            return true
        }

        mutating func number(maxDigits: Int) -> Int? {
            var value = 0
            var digits = 0
            while digits < maxDigits, let byte = peek, HTTPBytes.isDigit(byte) {
                value = value * 10 + Int(byte - 0x30)
                digits += 1
                index += 1
            }
            return digits > 0 ? value : nil
        }

        mutating func number(exactDigits: Int) -> Int? {
            let before = index
            guard let value = number(maxDigits: exactDigits), index - before == exactDigits else { return nil }
            return value
        }

        mutating func month() -> Int? {
            guard index + 3 <= bytes.count else { return nil }
            for (offset, name) in HTTPDate.monthNames.enumerated()
            where bytes[index] == name[0] && bytes[index + 1] == name[1] && bytes[index + 2] == name[2] {
                index += 3
                return offset + 1
            }
            return nil
        }

        /// `HH:MM:SS` as seconds of the day (60 allowed for a leap second).
        mutating func time() -> Int? {
            guard let hours = number(exactDigits: 2), consume(0x3A), let minutes = number(exactDigits: 2),
                consume(0x3A),
                let seconds = number(exactDigits: 2), hours < 24, minutes < 60, seconds <= 60
            else { return nil }
            return hours * 3600 + minutes * 60 + seconds
        }
    }
}
