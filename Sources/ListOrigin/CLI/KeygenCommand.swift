import ManifestSigning

/// `listserver keygen --out DIR`: makes the Ed25519 key that signs manifests. Writes the private key as
/// PKCS#8 PEM (mode 0600) and the public key in minisign's format, and prints the public key and key id,
/// which an app pins. Never overwrites an existing key.
enum KeygenCommand: Command {
    static let name = "keygen"
    static let summary = "make an Ed25519 manifest-signing key pair (PKCS#8 PEM private key, minisign public key)"
    static let synopsis = "--out DIR"
    static let flags: [FlagSpec] = [
        FlagSpec(
            name: "--out", takesValue: true,
            help:
                "directory for \(SigningKeyFile.privateKeyName) (0600) and \(SigningKeyFile.publicKeyName); created if missing"
        )
    ]

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        guard let directory = arguments.value("--out") else {
            throw UsageError(description: "give --out DIR, the directory for the new key pair")
        }
        print(report(try SigningKeyFile.generate(inDirectory: directory)))
        return 0
    }

    /// What keygen prints: the files, the key id and the public key, never the private key.
    static func report(_ written: SigningKeyFile.Written) -> String {
        [
            "private key: \(written.privateKeyPath) (mode 0600; keep it secret, never log or commit it)",
            "public key:  \(written.publicKeyPath)",
            "key id:      \(written.key.keyID)",
            "",
            "Apps pin this public key; verify a manifest with:",
            "  minisign -V -P \(written.key.publicKey.base64) -m manifest.json -x SIGNATURE",
            "",
            written.key.publicKey.base64,
        ].joined(separator: "\n")
    }
}
