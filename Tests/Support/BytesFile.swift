import Foundation

extension Array where Element == UInt8 {
    /// Writes the bytes to `path`, replacing what is there: fixtures and upstream bodies for the tests.
    public func write(to path: String) throws { try Data(self).write(to: URL(fileURLWithPath: path)) }
}
