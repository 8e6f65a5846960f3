// libFuzzer's entry point around `fuzzHTTPRequest` (Sources/HTTPFuzz). run-http-fuzz.sh compiles
// this file together with the HTTPFuzz sources; the seed-corpus test calls the same function.

@_cdecl("LLVMFuzzerTestOneInput")
public func httpFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzHTTPRequest(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
