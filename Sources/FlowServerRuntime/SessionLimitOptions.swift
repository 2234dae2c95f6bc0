import ArgumentParser
import FlowWeb

/// How large one session may grow (`SessionLimits`), on the command line of the server and of
/// `explore`, which reports an app whose sessions can reach these limits.
public struct SessionLimitOptions: ParsableArguments, Sendable {
    /// The defaults of `SessionLimits`.
    public init() {}

    /// `--max-session-nodes`: the most pages and flows one session's tree may hold.
    @Option(
        name: .customLong("max-session-nodes"), parsing: .unconditional,
        help: "The most pages and flows one session's tree may hold; a step past it is refused (409).")
    public var maxSessionNodes = SessionLimits().nodes

    /// `--max-stack-depth`: the most pages or flows on one stack of a session.
    @Option(
        name: .customLong("max-stack-depth"), parsing: .unconditional,
        help: "The most pages or flows on one stack of a session; a push past it is refused (409).")
    public var maxStackDepth = SessionLimits().stackDepth

    /// `--max-session-state`: the most bytes of one session's stored navigation state.
    @Option(
        name: .customLong("max-session-state"), parsing: .unconditional,
        help: "The most bytes of one session's stored navigation state (its tree's JSON); a step past it is refused.")
    public var maxSessionState = SessionLimits().stateBytes

    /// `--max-app-data`: the most bytes of one session's stored app data.
    @Option(
        name: .customLong("max-app-data"), parsing: .unconditional,
        help: "The most bytes of one session's stored app data (its JSON); a step past it is refused (409).")
    public var maxAppData = SessionLimits().appDataBytes

    /// The session limits the flags set.
    public var sessionLimits: SessionLimits {
        SessionLimits(
            nodes: maxSessionNodes, stackDepth: maxStackDepth, stateBytes: maxSessionState,
            appDataBytes: maxAppData)
    }

    /// Refuses a limit below 1.
    public func validate() throws {
        for (flag, value) in [
            ("--max-session-nodes", maxSessionNodes), ("--max-stack-depth", maxStackDepth),
            ("--max-session-state", maxSessionState), ("--max-app-data", maxAppData),
        ] where value < 1 {
            throw ValidationError("\(flag) must be at least 1, got \(value)")
        }
    }
}
