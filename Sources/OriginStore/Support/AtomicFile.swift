import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Crash-safe file writes: temp file in the same directory, fsync, rename, fsync the directory.
/// A reader (or a restart after kill -9) sees the old bytes or the new bytes, never a mix.
package enum AtomicFile {
    package struct WriteError: Error, CustomStringConvertible {
        package let path: String
        package let operation: String
        package let code: Int32
        package var description: String {
            "\(operation) \(path): \(String(cString: strerror(code)))"
        }
    }

    package static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temp = (directory.isEmpty ? "." : directory) + "/.\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw WriteError(path: temp, operation: "create", code: errno) }
        var ok = false
        defer {
            if !ok { unlink(temp) }
        }
        do {
            try bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        let code = errno
                        close(fd)
                        throw WriteError(path: temp, operation: "write", code: code)
                    }
                    offset += written
                }
            }
        }
        if fsync(fd) != 0 {
            let code = errno
            close(fd)
            throw WriteError(path: temp, operation: "fsync", code: code)
        }
        if close(fd) != 0 { throw WriteError(path: temp, operation: "close", code: errno) }
        if rename(temp, path) != 0 { throw WriteError(path: path, operation: "rename into", code: errno) }
        ok = true
        try syncDirectory(directory.isEmpty ? "." : directory)
    }

    /// fsync on a directory makes the renames inside it durable.
    static func syncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw WriteError(path: directory, operation: "open directory", code: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw WriteError(path: directory, operation: "fsync directory", code: errno) }
    }
}
