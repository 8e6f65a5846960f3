import CNIOShim

/// glibc malloc settings for a process that converts lists.
///
/// Why: by default glibc raises its mmap threshold each time a large mapped block (a list's JSON,
/// the rule arrays) is freed, up to 32 MB, so later large blocks come from the heap and stay
/// there after they are freed (the trim threshold rises with it). A conversion frees many such
/// blocks: its peak RSS was about 104 MB. A fixed 256 KB mmap threshold keeps big buffers in
/// their own mappings, returned on free: about 96 MB, at the same speed (measured alternating
/// runs of `convert --dry-run` and a full convert on the 2025-10 lists), and the server gives the
/// memory of each daily refresh back.
public enum MemoryTuning {
    static let mmapThresholdBytes: Int32 = 256 << 10

    /// Applies the settings; call once, before any conversion.
    public static func apply() {
        _ = shim_malloc_set_mmap_threshold(mmapThresholdBytes)
    }

    /// Gives the free pages of every malloc arena back to the system. After a burst that freed
    /// much more than it keeps (an explain engine load parses every list into objects it then
    /// drops; a refresh converts), the small blocks left scattered through the heap otherwise
    /// keep those pages resident.
    package static func releaseFreeMemory() {
        _ = shim_malloc_trim()
    }
}
