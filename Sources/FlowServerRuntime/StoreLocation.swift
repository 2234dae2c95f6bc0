import ArgumentParser

/// Where sessions are kept, as given by `--store`.
public enum StoreLocation: Equatable, Sendable, CustomStringConvertible, ExpressibleByArgument {
    /// In memory: lost at exit (tests and benchmarks).
    case memory
    /// An SQLite database file (the embedded default).
    case sqlite(path: String)
    /// A PostgreSQL database, for several instances sharing sessions.
    case postgres(url: String)

    /// `sqlite:.data/flowserver.sqlite`, the embedded default.
    public static let defaultLocation = StoreLocation.sqlite(path: ".data/flowserver.sqlite")

    /// `memory`, `sqlite:PATH` or a `postgres://` URL.
    public init?(argument: String) {
        if argument == "memory" {
            self = .memory
        } else if argument.hasPrefix("sqlite:"), argument.count > "sqlite:".count {
            self = .sqlite(path: String(argument.dropFirst("sqlite:".count)))
        } else if argument.hasPrefix("postgres://") || argument.hasPrefix("postgresql://") {
            self = .postgres(url: argument)
        } else {
            return nil
        }
    }

    /// The location as `--store` takes it (a PostgreSQL URL without its credentials).
    public var description: String {
        switch self {
        case .memory: "memory"
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres: "postgres://…"
        }
    }

    /// The forms `--store` takes, as `--help` and its errors list them.
    public static var allValueStrings: [String] {
        ["memory", "sqlite:PATH", "postgres://USER:PASSWORD@HOST:PORT/DATABASE"]
    }

    /// The forms in words, for a message about a store that cannot be used.
    static var forms: String { "--store takes memory, sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE" }

    /// How `--help` shows the default.
    public var defaultValueDescription: String { description }
}
