import Foundation
import ListSync
import TestSupport
import Testing

@testable import ListOrigin
@testable import ManifestSigning

#if canImport(Glibc)
    import Glibc
#endif

/// The key on disk: PKCS#8 PEM that openssl reads, strict modes, never overwritten.
@Suite struct SigningKeyFileTests {
    static func mode(_ path: String) -> UInt32 {
        var info = stat()
        return stat(path, &info) == 0 ? UInt32(info.st_mode & 0o7777) : 0
    }

    @Test func opensslReadsOurPrivateKeyAndAgreesOnThePublicKey() throws {
        let scratch = ScratchDirectory("signing")
        let written = try SigningKeyFile.generate(inDirectory: scratch.sub("keys"))
        let check = try ExternalTool.openssl(["pkey", "-in", written.privateKeyPath, "-noout"])
        #expect(check.status == 0, "openssl pkey could not read our key: \(check.output)")
        let text = try ExternalTool.openssl(["pkey", "-in", written.privateKeyPath, "-noout", "-text"])
        #expect(text.output.contains("ED25519 Private-Key"), "\(text.output)")
        // The SubjectPublicKeyInfo DER of an Ed25519 key ends with the raw 32-byte key.
        let der = try ExternalTool.openssl(["pkey", "-in", written.privateKeyPath, "-pubout", "-outform", "DER"])
        #expect(der.status == 0)
        #expect(der.stdout.suffix(32) == written.key.publicKey.key)
        #expect(Self.mode(written.privateKeyPath) == 0o600)
        #expect(Self.mode(written.publicKeyPath) == 0o644)
        #expect(
            String(decoding: try scratch.read("keys/\(SigningKeyFile.publicKeyName)"), as: UTF8.self)
                == written.key.publicKey.fileText)
    }

    @Test func aKeyFromOpensslGenpkeyLoadsAndSignsWhatMinisignAccepts() throws {
        let scratch = ScratchDirectory("signing")
        let keyPath = scratch.sub("openssl.pem")
        let made = try ExternalTool.openssl(["genpkey", "-algorithm", "ed25519", "-out", keyPath])
        try #require(made.status == 0, "\(made.output)")
        chmod(keyPath, 0o600)
        let key = try SigningKeyFile.load(path: keyPath)
        let manifest = sampleManifest()
        let manifestPath = try scratch.write("manifest.json", manifest)
        let signaturePath = try scratch.write(
            "m.minisig", try key.sign(manifest, trustedComment: "generation:1").fileBytes)
        let verified = try ExternalTool.minisign([
            "-V", "-P", key.publicKey.base64, "-m", manifestPath, "-x", signaturePath,
        ])
        #expect(verified.status == 0, "\(verified.output)")
    }

    @Test func savedKeyLoadsBackAsTheSameKey() throws {
        let scratch = ScratchDirectory("signing")
        let written = try SigningKeyFile.generate(inDirectory: scratch.path)
        let loaded = try SigningKeyFile.load(path: written.privateKeyPath)
        #expect(loaded.publicKey == written.key.publicKey)
        let manifest = sampleManifest()
        let signature = try loaded.sign(manifest, trustedComment: "generation:7").fileBytes
        #expect(
            try SignatureVerifier(trustedKeys: [written.key.publicKey]).verify(manifest, signatureFile: signature)
                .trustedComment == "generation:7")
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660]) func aKeyOthersCanAccessIsRefusedWithTheFix(mode: Int) throws {
        let scratch = ScratchDirectory("signing")
        let written = try SigningKeyFile.generate(inDirectory: scratch.path)
        try #require(chmod(written.privateKeyPath, mode_t(mode)) == 0)
        let error = #expect(throws: SigningKeyError.self) { try SigningKeyFile.load(path: written.privateKeyPath) }
        #expect(error == .tooOpen(path: written.privateKeyPath, mode: UInt32(mode)))
        let message = error?.description ?? ""
        #expect(message.contains("mode \(String(mode, radix: 8))"))
        #expect(message.contains("chmod 600 \(written.privateKeyPath)"))
    }

    @Test func aKeyIsNeverOverwritten() throws {
        let scratch = ScratchDirectory("signing")
        let first = try SigningKeyFile.generate(inDirectory: scratch.path)
        let before = try scratch.read(SigningKeyFile.privateKeyName)
        #expect(throws: SigningKeyError.exists(path: first.privateKeyPath)) {
            try SigningKeyFile.generate(inDirectory: scratch.path)
        }
        #expect(try scratch.read(SigningKeyFile.privateKeyName) == before)
        // No temp file is left beside it.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == [
                SigningKeyFile.privateKeyName, SigningKeyFile.publicKeyName,
            ])
    }

    /// link(2), not rename(2): a file that appears at the name is kept, even one made after any check.
    @Test func createFileNeverReplacesAnExistingFile() throws {
        let scratch = ScratchDirectory("signing")
        let path = try scratch.write("taken", Data("first".utf8))
        #expect(throws: SigningKeyError.exists(path: path)) {
            try SigningKeyFile.createFile(path, bytes: Array("second".utf8), mode: 0o600)
        }
        #expect(try scratch.read("taken") == Data("first".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["taken"])
    }

    /// A stray public key file stops keygen before it writes a private key that nothing would match.
    @Test func aStrayPublicKeyStopsKeygenBeforeItWritesAPrivateKey() throws {
        let scratch = ScratchDirectory("signing")
        let stray = try scratch.write(SigningKeyFile.publicKeyName, Data("stale\n".utf8))
        #expect(throws: SigningKeyError.exists(path: stray)) { try SigningKeyFile.generate(inDirectory: scratch.path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == [SigningKeyFile.publicKeyName])
    }

    @Test func otherKeysAndGarbageAreRefusedWithAReason() throws {
        let scratch = ScratchDirectory("signing")
        let ecPath = scratch.sub("ec.pem")
        let made = try ExternalTool.openssl([
            "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", ecPath,
        ])
        try #require(made.status == 0, "\(made.output)")
        chmod(ecPath, 0o600)
        #expect(throws: SigningKeyError.inFile(path: ecPath, .notEd25519)) { try SigningKeyFile.load(path: ecPath) }
        let junkPath = try scratch.write("junk.pem", Data("not a key\n".utf8))
        chmod(junkPath, 0o600)
        #expect(throws: SigningKeyError.inFile(path: junkPath, .notPEM)) { try SigningKeyFile.load(path: junkPath) }
        #expect(throws: SigningKeyError.unreadable(path: scratch.sub("absent.pem"), errno: ENOENT)) {
            try SigningKeyFile.load(path: scratch.sub("absent.pem"))
        }
    }

    @Test func keygenCommandWritesTheKeyPairAndRefusesToRunTwice() throws {
        let scratch = ScratchDirectory("signing")
        let out = scratch.sub("state/keys")
        #expect(ListServerCommandLine.run(["keygen", "--out", out]) == 0)
        let key = try SigningKeyFile.load(path: (out as NSString).appendingPathComponent(SigningKeyFile.privateKeyName))
        let publicText = String(decoding: try scratch.read("state/keys/\(SigningKeyFile.publicKeyName)"), as: UTF8.self)
        #expect(try MinisignPublicKey(publicText) == key.publicKey)
        #expect(Self.mode(out) == 0o700)
        #expect(ListServerCommandLine.run(["keygen", "--out", out]) == 1)
        #expect(ListServerCommandLine.run(["keygen"]) == 2)
        #expect(ListServerCommandLine.topLevelUsage.contains("  keygen "))
    }

    @Test func keygenReportShowsThePublicKeyAndIDButNoSecret() throws {
        let scratch = ScratchDirectory("signing")
        let written = try SigningKeyFile.generate(inDirectory: scratch.path)
        let report = KeygenCommand.report(written)
        #expect(report.contains(written.key.publicKey.base64))
        #expect(report.contains("key id:      \(written.key.keyID)"))
        let pem = String(decoding: try scratch.read(SigningKeyFile.privateKeyName), as: UTF8.self)
        let secretLine = try #require(pem.split(separator: "\n").dropFirst().first)
        #expect(!report.contains(secretLine))
    }
}
