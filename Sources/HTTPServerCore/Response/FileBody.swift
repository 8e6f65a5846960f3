import CNIOShim
import Glibc

/// A large response body kept in an anonymous memory file (memfd) and sent with sendfile(2).
///
/// Why: with hundreds of concurrent downloads of the same 100 KB+ chunk, copying the body from
/// user memory into every socket doubles memory traffic; sendfile lets the kernel attach the
/// file's pages to the socket instead (what nginx's `sendfile on` does with the page cache).
/// The file is written once at install time and never changed afterwards.
final class FileBody: @unchecked Sendable {
    /// Bodies smaller than this are cheaper to send from memory with the head in one writev.
    static let minimumSize = 16 * 1024

    let fd: Int32
    let count: Int

    /// nil when the memory file cannot be created or filled (the body is then sent from memory).
    init?(_ bytes: [UInt8], name: String) {
        let fd = shim_memfd_create(name)
        guard fd >= 0 else { return nil }
        let complete = bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
        guard complete else {
            close(fd)
            return nil
        }
        self.fd = fd
        count = bytes.count
    }

    deinit {
        close(fd)
    }
}
