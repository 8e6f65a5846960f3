import DictionaryPatch
import DictionaryPatchOrigin
import Foundation

// `dcz`: the patch encoder and decoder as a command, for the tests' child processes and the figures
// in docs/patches.md.
//   dcz encode OLD NEW OUT                 write the dcz patch from OLD to NEW
//   dcz decode OLD PATCH BYTES OUT         apply PATCH to OLD, bounded to BYTES out
//   dcz measure OLD_SET NEW_SET [LEVEL]    patch every changed list of two published sets; print sizes and time

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("dcz: \(message)\n".utf8))
    exit(code)
}

func read(_ path: String) -> Data {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    return data
}

func write(_ bytes: some DataProtocol, to path: String) {
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { fail("cannot write \(path)") }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "encode" where arguments.count == 4:
    do {
        let patch = try PatchEncoder().encode(from: Array(read(arguments[1])), to: Array(read(arguments[2])))
        write(patch, to: arguments[3])
    } catch {
        fail(error.description)
    }
case "decode" where arguments.count == 5:
    guard let bytes = Int(arguments[3]), bytes >= 0 else { fail("BYTES must be a byte count", code: 2) }
    do {
        let result = try PatchDecoder().apply(read(arguments[2]), to: read(arguments[1]), expectedBytes: bytes)
        write(result, to: arguments[4])
    } catch {
        fail(error.description)
    }
case "measure" where arguments.count == 3 || arguments.count == 4:
    let level = arguments.count == 4 ? Int32(arguments[3]) : nil
    if arguments.count == 4 && level == nil { fail("LEVEL must be a zstd level", code: 2) }
    SetMeasurement(old: arguments[1], new: arguments[2], level: level).run()
default:
    fail(
        "usage: dcz encode OLD NEW OUT | dcz decode OLD PATCH BYTES OUT | dcz measure OLD_SET NEW_SET [LEVEL]", code: 2)
}
