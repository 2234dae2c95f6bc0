/// Turns `FLOWSERVER_<NAME>` environment variables into command-line flags placed *before*
/// the real arguments, so a flag given on the command line wins (the last value counts).
enum EnvironmentArguments {
    /// The value options that an environment variable may set, by flag name.
    static let options = [
        "host", "port", "store", "templates", "public", "session-ttl", "history-limit", "max-session-nodes",
        "max-stack-depth",
        "max-session-state", "max-app-data", "threads", "max-body",
        "max-connections",
        "max-connections-per-client", "read-timeout", "idle-timeout", "session-secret", "new-sessions-per-minute",
        "new-session-burst",
        "trusted-proxy", "max-event-streams", "max-event-streams-per-session", "log-level",
    ]
    /// The on/off flags that an environment variable may set.
    static let flags = ["secure-cookies"]
    /// The flags that are on by default, which an environment variable may switch off
    /// (`FLOWSERVER_INSPECTOR=0` → `--no-inspector`) or on.
    static let onByDefault = ["inspector", "metrics"]

    /// The environment's flags followed by `arguments`: the server's options and flags, and
    /// `appOptions` and `appFlags` (an app's own, by flag name).
    ///
    /// - Throws: ``Failure`` when a boolean variable holds something other than
    ///   `1/0/true/false/yes/no/on/off`.
    static func merged(
        _ environment: [String: String], with arguments: [String], appOptions: [String] = [], appFlags: [String] = []
    ) throws(Failure) -> [String] {
        var result: [String] = []
        for name in options + appOptions {
            if let value = environment[variable(for: name)] { result += ["--\(name)", value] }
        }
        for name in flags + appFlags {
            guard let value = environment[variable(for: name)] else { continue }
            switch value.lowercased() {
            case "1", "true", "yes", "on": result.append("--\(name)")
            case "0", "false", "no", "off", "": break
            default: throw Failure(variable: variable(for: name), value: value)
            }
        }
        for name in onByDefault {
            guard let value = environment[variable(for: name)] else { continue }
            switch value.lowercased() {
            case "1", "true", "yes", "on": result.append("--\(name)")
            case "0", "false", "no", "off", "": result.append("--no-\(name)")
            default: throw Failure(variable: variable(for: name), value: value)
            }
        }
        return result + arguments
    }

    /// `session-ttl` → `FLOWSERVER_SESSION_TTL`.
    static func variable(for flag: String) -> String {
        "FLOWSERVER_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// A boolean environment variable with a value that is not a boolean.
    struct Failure: Error, CustomStringConvertible {
        let variable: String
        let value: String
        var description: String { "\(variable)=\(value) is not a boolean (use 1 or 0)" }
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
