import Foundation

/// Collects one transfer's final headers and body; the cap is checked on every block so an
/// oversized body is aborted while streaming, never buffered whole.
final class CappedTransferSink {
    let limit: Int
    var body: [UInt8] = []
    var exceeded = false
    var status = 0
    /// The current hop's header fields, names lowercased.
    var headers: [(name: String, value: String)] = []
    var contentLength: Int?
    var contentEncoded = false
    /// `Location` of the last redirect response seen (kept across hops, to name a refused target).
    var location: String?

    init(limit: Int) { self.limit = limit }

    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if body.count + bytes.count > limit {
            exceeded = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// One header line (libcurl calls this per line, for every response in a redirect chain).
    func header(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            // A new response starts: forget the previous hop's headers.
            let parts = line.split(separator: " ")
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            headers.removeAll()
            contentLength = nil
            contentEncoded = false
            body.removeAll(keepingCapacity: true)
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers.append((name, value))
        switch name {
        case "location": location = value
        case "content-encoding": contentEncoded = !value.isEmpty && value.lowercased() != "identity"
        case "content-length":
            contentLength = Int(value)
            // Refuse up front what the cap would refuse later (only for the final, non-redirect answer).
            if let length = contentLength, length > limit, (200...299).contains(status) {
                exceeded = true
                return false
            }
        default: break
        }
        return true
    }
}
