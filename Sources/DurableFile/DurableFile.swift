import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The package's one crash-safe file write: a temp file in the target's directory with exactly the
/// requested mode (fchmod, so the umask neither widens nor narrows it), fsync, then rename (replace)
/// or link (create, never clobbering), then fsync the directory so the new name survives a power
/// loss. A reader, or a restart after kill -9, sees the old bytes or the new bytes, never a mix.
/// Foundation and libc only, so the device library can use it too.
public enum DurableFile {
    /// What to do when the target name exists.
    public enum Placement: Sendable {
        /// Replace it atomically (rename(2)).
        case replace
        /// Fail with `DurableFileError.exists` (link(2)): a file that appears at the name, even
        /// after any check, is kept.
        case createNew
    }

    /// The marker in every temp name: `.<name>.tmp-<pid>-<random>`.
    public static let tempMarker = ".tmp-"

    /// True for a name this type gives its temp files, which a killed writer may leave behind.
    public static func isTempName(_ name: String) -> Bool {
        name.hasPrefix(".") && name.contains(tempMarker)
    }

    /// Writes `bytes` to `path` durably; throws `DurableFileError` naming the path and the step.
    public static func write<Bytes: ContiguousBytes>(
        _ bytes: Bytes, to path: String, mode: mode_t = 0o644,
        placement: Placement = .replace
    ) throws {
        let directory = directoryPath(of: path)
        let temp =
            directory + "/." + (path as NSString).lastPathComponent + tempMarker
            + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DurableFileError.failed(path: temp, operation: "create", errno: errno) }
        var placed = false
        defer { if !placed { unlink(temp) } }
        func fail(_ operation: String) -> DurableFileError {
            let error = DurableFileError.failed(path: temp, operation: operation, errno: errno)
            close(fd)
            return error
        }
        guard fchmod(fd, mode) == 0 else { throw fail("chmod") }
        let wrote = bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                #if canImport(Glibc)
                    let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                #else
                    let written = Darwin.write(fd, raw.baseAddress! + offset, raw.count - offset)
                #endif
                if written < 0, errno == EINTR { continue }
                guard written >= 0 else { return false }
                offset += written
            }
            return true
        }
        guard wrote else { throw fail("write") }
        guard fsync(fd) == 0 else { throw fail("fsync") }
        guard close(fd) == 0 else { throw DurableFileError.failed(path: temp, operation: "close", errno: errno) }
        switch placement {
        case .replace:
            guard rename(temp, path) == 0 else {
                throw DurableFileError.failed(path: path, operation: "rename into", errno: errno)
            }
            placed = true
        case .createNew:
            guard link(temp, path) == 0 else {
                if errno == EEXIST { throw DurableFileError.exists(path: path) }
                throw DurableFileError.failed(path: path, operation: "link into", errno: errno)
            }
            placed = true
            unlink(temp)
        }
        try syncDirectory(directory)
    }

    /// fsync on a directory makes the renames, links and unlinks inside it durable.
    public static func syncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw DurableFileError.failed(path: directory, operation: "open directory", errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else {
            throw DurableFileError.failed(path: directory, operation: "fsync directory", errno: errno)
        }
    }

    /// Removes the temp files a killed writer left in `directory`. Call only while no other writer
    /// uses the directory.
    public static func removeStaleTempFiles(in directory: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where isTempName(name) { unlink(directory + "/" + name) }
    }

    private static func directoryPath(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }
}

/// Why a durable write failed, naming the file and the step.
public enum DurableFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `Placement.createNew` found a file at the name; it was left as it was.
    case exists(path: String)
    /// A system call failed: `operation` on `path` (the temp file, the target or the directory).
    case failed(path: String, operation: String, errno: Int32)

    public var path: String {
        switch self {
        case .exists(let path), .failed(let path, _, _): return path
        }
    }

    /// The step and the system's reason, without the path: "rename into: No space left on device".
    public var reason: String {
        switch self {
        case .exists: return "already exists"
        case .failed(_, let operation, let code): return "\(operation): \(String(cString: strerror(code)))"
        }
    }

    public var description: String {
        switch self {
        case .exists(let path): return "\(path) already exists"
        case .failed(let path, let operation, let code):
            return "\(operation) \(path): \(String(cString: strerror(code)))"
        }
    }
}
