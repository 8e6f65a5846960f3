import Foundation
import ManifestSigning
import OriginConfig
import OriginStore

/// Finds the key that signs the manifests of `serve` and `fetch`: `publish.signingKeyFile`, else
/// `signing-key.pem` in the state directory, generated (and its public key printed) on first use.
enum SigningSetup {
    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    static func signer(for resolved: ResolvedConfiguration, log: Log) throws -> ManifestSigner {
        let validity = resolved.configuration.publish.signatureValiditySeconds
        let key: ManifestSigningKey
        do {
            if let configured = resolved.configuration.publish.signingKeyFile {
                let path = configured.hasPrefix("/") ? configured : resolved.baseDirectory + "/" + configured
                key = try SigningKeyFile.load(path: path)
            } else {
                let path = resolved.stateDirectory + "/" + SigningKeyFile.privateKeyName
                if FileManager.default.fileExists(atPath: path) {
                    key = try SigningKeyFile.load(path: path)
                } else {
                    let written = try SigningKeyFile.generate(inDirectory: resolved.stateDirectory)
                    key = written.key
                    let notice =
                        "generated a manifest signing key in \(written.privateKeyPath) (no publish.signingKeyFile configured); "
                        + "public key \(key.keyID), pin it in apps: \(key.publicKey.base64)\n"
                    FileHandle.standardError.write(Data(notice.utf8))
                    log.info("signing key \(key.keyID) generated; public key in \(written.publicKeyPath)")
                }
            }
        } catch let error as SigningKeyError {
            throw SetupError(description: "cannot use the manifest signing key: \(error)")
        }
        return ManifestSigner(key: key, validity: validity)
    }
}
