import FlowCore

/// A stored session this build of the app cannot read back: its tree names a page or flow the
/// app no longer registers, a flow's state or a page's params no longer decode, or its app data
/// or bookkeeping does not, even after the app's migrations. Such a session is set aside and
/// started again (see ``SessionService/restart(_:because:attempts:)``), never answered with an
/// error — unless a later version of the app wrote it (``Cause/newerVersion``): then it is left
/// as it is and the request answered `503`, for another instance to serve.
struct UnreadableSession: Error, Sendable, CustomStringConvertible {
    /// What kind of change made it unreadable: a label for metrics, logs and reports.
    enum Cause: String, Sendable, CaseIterable {
        case unknownPage = "unknown-page"
        case unknownFlow = "unknown-flow"
        /// A flow's state or a page's params (a field added, a type changed).
        case state
        case appData = "app-data"
        /// The tree's shape (not one this build writes).
        case tree
        /// The web layer's bookkeeping.
        case bookkeeping
        /// One of the app's migrations threw.
        case migration
        /// A later version of the app stored it (it has had migrations this build does not
        /// know): not this build's to read, rewrite or set aside.
        case newerVersion = "newer-version"
    }

    let session: String
    let cause: Cause
    /// What failed, in words.
    let reason: String

    var description: String { "session \(session.prefix(8))… cannot be read back (\(cause.rawValue)): \(reason)" }

    /// The answer when the session cannot be started again here (another instance keeps writing
    /// it in a form this build cannot read, as during a rolling deploy): try again shortly.
    var webError: WebError {
        .unavailable("This session was saved by another version of the app; try again in a moment.")
    }
}
