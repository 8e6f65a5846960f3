import Foundation
import ProcessRunner

/// The pipe protocol between `WebKitCompiler` and its helper process: length-prefixed frames (a
/// 4-byte big-endian length, then the bytes). The helper first sends a `Hello`; then each request is
/// a `Request` frame followed by the list's JSON bytes as a frame, answered by a `Reply` frame.
enum CompileFrames {
    /// Larger than any list WebKit accepts (150,000 rules), small enough to refuse garbage lengths.
    static let maximumLength = 1 << 30

    struct Hello: Codable {
        /// WebKitGTK's version when it loaded; nil with `unavailable` set when it did not.
        var webkit: String?
        var unavailable: String?
    }

    struct Request: Codable {
        var timeout: Double
    }

    struct Reply: Codable {
        var error: String?
        var seconds: Double
        /// The helper stops after a timeout (WebKit may still be busy with the list).
        var timedOut: Bool
    }

    static func write(_ bytes: [UInt8], to fd: Int32) -> Bool {
        let length = UInt32(bytes.count)
        let header: [UInt8] = [
            UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff),
        ]
        return header.withUnsafeBytes { PipeIO.writeAll(fd, $0) } && bytes.withUnsafeBytes { PipeIO.writeAll(fd, $0) }
    }

    static func write<Value: Encodable>(message value: Value, to fd: Int32) -> Bool {
        guard let data = try? JSONEncoder().encode(value) else { return false }
        return write(Array(data), to: fd)
    }

    /// The next frame; nil at end of file. Throws `PipeIO.TimedOut` past `deadline`.
    static func read(from fd: Int32, deadline: Date? = nil) throws -> [UInt8]? {
        guard let header = try PipeIO.readExactly(fd, 4, deadline: deadline) else { return nil }
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard length <= maximumLength else { return nil }
        return try PipeIO.readExactly(fd, length, deadline: deadline)
    }

    static func read<Value: Decodable>(_ type: Value.Type, from fd: Int32, deadline: Date? = nil) throws -> Value? {
        guard let frame = try read(from: fd, deadline: deadline) else { return nil }
        return try? JSONDecoder().decode(type, from: Data(frame))
    }
}
