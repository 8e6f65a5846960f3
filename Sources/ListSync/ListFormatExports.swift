/// The published format (manifest, minisign keys and signatures, SHA-256) is part of this module's
/// API: an app pins a `MinisignPublicKey` and reads a `Manifest` in a `SyncReport` with this module alone.
@_exported import ListFormat
