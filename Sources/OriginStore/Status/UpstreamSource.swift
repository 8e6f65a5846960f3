/// Values of `OperatorStatus.UpstreamStatus.source`.
package enum UpstreamSource {
    package static let upstream = "upstream"
    package static let bundledSnapshot = "bundled-snapshot"
}
