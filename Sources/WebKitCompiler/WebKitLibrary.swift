import CWebKitShim
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// WebKitGTK's content-filter compiler loaded into this process with dlopen: the same
/// ContentExtensions compiler as Safari's `WKContentRuleListStore`.
///
/// Only the compile helper process (`listserver webkit-compile`) uses this directly. WebKit binds its
/// main run loop to the first thread that calls it and prints a rejected regex's detail on file
/// descriptor 2, so every call must come from that one thread, and capturing the detail means
/// redirecting the whole process's stderr for the duration of a compile: neither is acceptable
/// inside the server, both are harmless in a process that does nothing else.
final class WebKitLibrary {
    private let handle: OpaquePointer
    private let storeDirectory: URL
    let version: String

    /// Loads `library` and opens a filter store in a fresh temporary directory.
    init(library: String) throws(WebKitCompileFailure) {
        storeDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "listserver-webkit-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: storeDirectory, withIntermediateDirectories: true)
        } catch {
            throw .unavailable("cannot create a filter store directory: \(error.localizedDescription)")
        }
        var reason = [CChar](repeating: 0, count: 1024)
        guard let handle = shim_webkit_open(library, storeDirectory.path, &reason, reason.count) else {
            try? FileManager.default.removeItem(at: storeDirectory)
            throw .unavailable(String(cString: reason))
        }
        self.handle = handle
        var major: UInt32 = 0
        var minor: UInt32 = 0
        var micro: UInt32 = 0
        shim_webkit_version(handle, &major, &minor, &micro)
        version = "\(major).\(minor).\(micro)"
    }

    /// WebKit's verdict on one list: nil when it compiled, else its error (with the regex detail
    /// WebKit printed, when it printed one), and the wall-clock seconds the compile took.
    func compile(_ json: [UInt8], timeout: Double) -> (error: String?, seconds: Double, timedOut: Bool) {
        let capture = StderrCapture()
        let start = DispatchTime.now().uptimeNanoseconds
        var message: UnsafeMutablePointer<CChar>?
        let milliseconds = UInt32(max(1, min(Double(UInt32.max), timeout * 1000)))
        let status = json.withUnsafeBufferPointer {
            shim_webkit_compile(handle, "list", $0.baseAddress, $0.count, milliseconds, &message)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let detail = capture.finish()
        defer { shim_webkit_free_message(message) }
        switch status {
        case SHIM_WEBKIT_COMPILED:
            return (nil, seconds, false)
        case SHIM_WEBKIT_TIMED_OUT:
            return ("timed out after \(Int(timeout)) s", seconds, true)
        default:
            var error = message.map { String(cString: $0) } ?? "WebKit rejected the list"
            if let detail { error += " (\(detail))" }
            return (error, seconds, false)
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: storeDirectory)
    }
}

/// Points file descriptor 2 at a temporary file while WebKit compiles, then back; keeps the last
/// line WebKit wrote there (the regex parser's "Error while parsing …").
private struct StderrCapture {
    private let saved: Int32
    private let file: UnsafeMutablePointer<FILE>?

    init() {
        fflush(stderr)
        file = tmpfile()
        saved = dup(2)
        if let file { dup2(fileno(file), 2) }
    }

    func finish() -> String? {
        fflush(stderr)
        if saved >= 0 {
            dup2(saved, 2)
            close(saved)
        }
        guard let file else { return nil }
        defer { fclose(file) }
        rewind(file)
        var bytes = [UInt8](repeating: 0, count: 64 * 1024)
        let count = fread(&bytes, 1, bytes.count, file)
        let text = String(decoding: bytes[0..<count], as: UTF8.self)
        let last = text.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) }
        return last?.isEmpty == false ? last : nil
    }
}
