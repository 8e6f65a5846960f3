import CNIOShim

/// glibc malloc settings for a process that converts lists.
///
/// Why: by default glibc raises its mmap and trim thresholds each time a large block (a list's
/// JSON, the rule arrays) is freed, up to 32 and 64 MB, and then keeps that much freed memory in
/// the heap instead of returning it. A conversion frees several such blocks, so its peak RSS was
/// about 103 MB; a fixed 4 MB trim threshold (which also turns the adjustment off) gives about
/// 88 MB for the same work and the same time (`scripts/bench/convert.sh`), and lets the server give
/// memory back after each daily refresh.
enum MemoryTuning {
    static let trimThresholdBytes: Int32 = 4 << 20

    /// Applies the settings; call once, before any conversion.
    static func apply() {
        _ = shim_malloc_set_trim_threshold(trimThresholdBytes)
    }
}
