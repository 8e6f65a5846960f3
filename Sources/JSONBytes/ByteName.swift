/// Comparing decoded JSON bytes (a `JSONCursor` key or string) with a known name in place, without
/// building a String.
public enum ByteName {
    /// Length first, then the bytes: most keys differ in length from the name they are tested against.
    @inlinable @inline(__always)
    public static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        guard let actual = bytes.baseAddress else { return true }
        let expected = name.utf8Start
        for index in 0..<bytes.count where actual[index] != expected[index] { return false }
        return true
    }

    /// Index of the name in `names` equal to `bytes`, or nil.
    @inlinable @inline(__always)
    public static func index(of bytes: UnsafeBufferPointer<UInt8>, in names: [StaticString]) -> Int? {
        for index in names.indices where equals(bytes, names[index]) { return index }
        return nil
    }
}
