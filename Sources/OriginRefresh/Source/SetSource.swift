/// What the server is composed with: the side that produces the sets it serves, by converting
/// upstream lists (`RefreshSource`) or by mirroring a primary's signed set (`FollowSource`). Both
/// run on a `SerialJob`; the server only installs what they hand it and relays the admin trigger.
package protocol SetSource: AnyObject, Sendable {
    /// Names the work in log lines ("refresh", "follow poll").
    var workName: String { get }
    /// Starts producing sets.
    func start()
    /// One more run now (`POST /admin/refresh`), coalesced with one already waiting.
    func trigger()
    /// No run starts after this; one in progress finishes.
    func stop()
    /// Waits at most `seconds` for a run in progress; false when it still runs then.
    func waitUntilIdle(timeout seconds: Double) -> Bool
}
