/// Compact JSON built member by member into bytes: objects whose keys come out in the order the
/// caller gives them, arrays, strings and integers. Strings use `JSONWriter`'s escaping, so every
/// JSON the package writes by hand escapes alike. For documents whose byte layout is part of a
/// format (the manifest) or whose size makes `JSONEncoder` too slow (an explanation).
public struct JSONDocument {
    public private(set) var bytes: [UInt8] = []
    /// Per open object: whether no key has been written yet (no comma before the next).
    private var openObjectIsEmpty: [Bool] = []

    public init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    public mutating func object(_ body: (inout JSONDocument) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        openObjectIsEmpty.append(true)
        body(&self)
        openObjectIsEmpty.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    /// One member of the innermost open object.
    public mutating func key(_ name: String, _ value: (inout JSONDocument) -> Void) {
        if openObjectIsEmpty[openObjectIsEmpty.count - 1] {
            openObjectIsEmpty[openObjectIsEmpty.count - 1] = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
        string(name)
        bytes.append(UInt8(ascii: ":"))
        value(&self)
    }

    public mutating func array<Element>(_ elements: [Element], _ element: (inout JSONDocument, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (position, value) in elements.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            element(&self, value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    public mutating func integer(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { JSONWriter.appendString(buffer: $0, to: &bytes) }
    }
}
