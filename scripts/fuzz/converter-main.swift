// libFuzzer's entry symbol for ConverterFuzz (kept out of the package: every fuzz target would define it).
@_cdecl("LLVMFuzzerTestOneInput")
public func converterFuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ConverterFuzz.testOneInput(data, size)
    return 0
}
