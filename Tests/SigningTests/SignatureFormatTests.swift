import Foundation
import ListSync
import ManifestSigning
import TestSupport
import Testing

/// The file forms and the errors a malformed or unusable signature or key gets.
@Suite struct SignatureFormatTests {
    let key: ManifestSigningKey
    let manifest = sampleManifest()
    init() throws { key = try ManifestSigningKey.generate() }

    func lines(_ signature: MinisignSignature) -> [String] {
        String(decoding: signature.fileBytes, as: UTF8.self).components(separatedBy: "\n")
    }

    @Test func signatureFileHasMinisignsFourLines() throws {
        let signature = try key.sign(manifest, trustedComment: "generation:5")
        let text = lines(signature)
        #expect(text.count == 5 && text[4].isEmpty)
        #expect(text[0] == "untrusted comment: signature from listserver key \(key.keyID)")
        #expect(text[2] == "trusted comment: generation:5")
        let line2 = try #require(Data(base64Encoded: text[1]))
        #expect(line2.count == 74)
        #expect(line2.prefix(2) == Data("Ed".utf8))
        #expect(line2.dropFirst(2).prefix(8) == key.keyID.bytes)
        #expect(try MinisignSignature(parsing: signature.fileBytes) == signature)
        // CRLF line ends and trailing blank lines are read the same.
        let crlf =
            Data(String(decoding: signature.fileBytes, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8)
            + Data("\n\n".utf8)
        #expect(try MinisignSignature(parsing: crlf) == signature)
    }

    @Test func malformedSignatureFilesSayWhatIsWrong() throws {
        let verifier = try SignatureVerifier(trustedKeys: [key.publicKey])
        let good = lines(try key.sign(manifest, trustedComment: "generation:5"))
        func refusal(_ text: [String]) -> String {
            do {
                _ = try verifier.verify(manifest, signatureFile: Data(text.joined(separator: "\n").utf8))
                return "accepted"
            } catch let error as SignatureError {
                if case .malformedSignature = error { return error.description }
                return "wrong error: \(error)"
            } catch { return "wrong error: \(error)" }
        }
        #expect(refusal(Array(good.prefix(3))).contains("expected 4 lines"))
        #expect(refusal([good[0], "!!not base64!!", good[2], good[3]]).contains("line 2 is not base64"))
        #expect(refusal([good[0], String(good[1].dropLast(4)), good[2], good[3]]).contains("line 2"))
        #expect(
            refusal(["comment: x", good[1], good[2], good[3]]).contains(
                "line 1 does not start with \"untrusted comment: \""))
        #expect(
            refusal([good[0], good[1], "generation:5", good[3]]).contains(
                "line 3 does not start with \"trusted comment: \""))
        #expect(refusal([good[0], good[1], good[2], "AAAA"]).contains("line 4"))
        #expect(refusal([String(repeating: "x", count: MinisignSignature.maximumFileBytes + 1)]).contains("at most"))
    }

    @Test func trustedCommentBytesAreKeptExactly() throws {
        let verifier = try SignatureVerifier(trustedKeys: [key.publicKey])
        for comment in ["\u{FEFF}generation:5", "générations ✓", "\ttab  and  spaces "] {
            let file = try key.sign(manifest, trustedComment: comment).fileBytes
            #expect(try verifier.verify(manifest, signatureFile: file).trustedComment == comment)
        }
        var invalid = lines(try key.sign(manifest, trustedComment: "generation:5"))
        invalid[2] = "trusted comment: \u{FFFD}"
        var bytes = Data(invalid.joined(separator: "\n").utf8)
        let at = try #require(bytes.firstRange(of: Data("\u{FFFD}".utf8)))
        bytes.replaceSubrange(at, with: [0xC3, 0x28])  // a lead byte and no continuation: not UTF-8
        #expect(throws: SignatureError.malformedSignature("line 3 is not UTF-8")) {
            try verifier.verify(manifest, signatureFile: bytes)
        }
    }

    @Test func commentsMustBeOneLine() throws {
        for comment in ["a\nb", "a\rb", "a\u{0}b"] {
            #expect(throws: SignatureError.self) { try key.sign(manifest, trustedComment: comment) }
        }
        #expect(throws: SignatureError.self) {
            try key.sign(manifest, trustedComment: String(repeating: "g", count: 8176))
        }
        #expect(
            try key.sign(manifest, trustedComment: String(repeating: "g", count: 8175)).trustedComment.count == 8175)
    }

    @Test func trustedKeysAreChecked() throws {
        #expect(throws: SignatureError.noTrustedKeys) { try SignatureVerifier(trustedKeys: [MinisignPublicKey]()) }
        let impostor = try MinisignPublicKey(keyID: key.keyID, key: ManifestSigningKey.generate().publicKey.key)
        #expect(throws: SignatureError.conflictingKeyID(key.keyID)) {
            try SignatureVerifier(trustedKeys: [key.publicKey, impostor])
        }
        #expect(try SignatureVerifier(trustedKeys: [key.publicKey, key.publicKey]).trustedKeys == [key.publicKey])
        for bad in [
            "", "RWQ", "not base64 at all",
            Data("Ed".utf8 + [UInt8](repeating: 1, count: 40)).base64EncodedString().replacingOccurrences(
                of: "RWQ", with: "RUQ"),
        ] {
            #expect(throws: SignatureError.self) { try MinisignPublicKey(bad) }
        }
    }

    @Test func keyIDIsTheStartOfTheSHA256OfThePublicKey() throws {
        let scratch = ScratchDirectory("signing")
        let path = try scratch.write("pk.bin", key.publicKey.key)
        let digest = try ExternalTool.openssl(["dgst", "-sha256", "-r", path])
        let hex = String(String(decoding: digest.stdout, as: UTF8.self).prefix(16))
        #expect(key.keyID.bytes.map { String(format: "%02x", $0) }.joined() == hex)
    }
}
