import Foundation
import ListSync
import ManifestSigning
import TestSupport
import Testing

/// A second verifier, written here and sharing no code with ours: Python's `cryptography` (Debian's
/// python3-cryptography) parses the .minisig and .pub files itself and checks both signatures.
@Suite struct IndependentVerifierTests {
    static let script = #"""
        import base64, sys
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
        from cryptography.exceptions import InvalidSignature
        pub_path, message_path, sig_path = sys.argv[1:4]
        pub = base64.b64decode(open(pub_path, "rb").read().splitlines()[1], validate=True)
        assert len(pub) == 42 and pub[:2] == b"Ed", "not an Ed public key"
        lines = open(sig_path, "rb").read().split(b"\n")
        assert lines[0].startswith(b"untrusted comment: ") and lines[2].startswith(b"trusted comment: ")
        line2 = base64.b64decode(lines[1], validate=True)
        assert len(line2) == 74 and line2[:2] == b"Ed", "not a legacy Ed signature"
        assert line2[2:10] == pub[2:10], "key id differs"
        key = Ed25519PublicKey.from_public_bytes(pub[10:])
        signature, comment = line2[10:], lines[2][len(b"trusted comment: "):]
        try:
            key.verify(signature, open(message_path, "rb").read())
        except InvalidSignature:
            print("message signature invalid"); sys.exit(3)
        try:
            key.verify(base64.b64decode(lines[3], validate=True), signature + comment)
        except InvalidSignature:
            print("trusted comment signature invalid"); sys.exit(4)
        print("ok " + comment.decode())
        """#

    func check(_ scratch: ScratchDirectory) throws -> ChildRun {
        let script = try scratch.write("verify.py", Data(Self.script.utf8))
        return try ExternalTool.run(
            "/usr/bin/python3",
            [script, scratch.sub("key.pub"), scratch.sub("manifest.json"), scratch.sub("m.minisig")])
    }

    @Test func pythonCryptographyVerifiesBothSignatures() throws {
        let scratch = ScratchDirectory("signing")
        let probe = try ExternalTool.run("/usr/bin/python3", ["-c", "import cryptography"])
        try #require(probe.status == 0, "python3-cryptography is missing: run scripts/setup.sh test")
        let key = try ManifestSigningKey.generate()
        let manifest = sampleManifest()
        try scratch.write("key.pub", Data(key.publicKey.fileText.utf8))
        try scratch.write("manifest.json", manifest)
        let signature = try key.sign(manifest, trustedComment: "generation:42\texpires:2026-12-15T00:00:00Z")
        try scratch.write("m.minisig", signature.fileBytes)
        let good = try check(scratch)
        #expect(good.status == 0, "\(good.output)")
        #expect(good.output == "ok generation:42\texpires:2026-12-15T00:00:00Z\n")

        let changed = String(decoding: signature.fileBytes, as: UTF8.self).replacingOccurrences(
            of: "generation:42", with: "generation:99")
        try scratch.write("m.minisig", Data(changed.utf8))
        let comment = try check(scratch)
        #expect(comment.status == 4, "\(comment.output)")

        try scratch.write("m.minisig", signature.fileBytes)
        try scratch.write("manifest.json", flippingOneByte(manifest))
        let message = try check(scratch)
        #expect(message.status == 3, "\(message.output)")
    }
}
