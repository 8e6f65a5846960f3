extension ListFamily {
    /// WebKit compile CPU per byte of `LayoutInput.bytes(_:)` for this family, in hundredths of
    /// that of host blocks. Spare lists go where they split the most compile work, not the most
    /// bytes: a device recompiles each changed list whole. Measured in WebKitGTK 2.50 on the
    /// 2020-10-29 set (docs/device-cost.md): `||host/path` blocks and the exceptions about their
    /// hosts cost about 2.5× the CPU per JSON byte of `||host^` blocks; site hiding rules about
    /// 1×, and generic hiding about 0.6×, per JSON byte, of which `bytes` counts three.
    var compileWeight: Int {
        switch self {
        case .networkHosts, .networkSites, .networkNavigation, .cosmeticGeneric, .cosmeticSites: return 100
        case .networkHostPaths, .networkPaths: return 250
        }
    }
}
