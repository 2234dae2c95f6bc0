import ArgumentParser

/// Where sessions are kept, as given by `--store`.
enum StoreLocation: Equatable, CustomStringConvertible, ExpressibleByArgument {
    /// In memory: lost at exit (tests and benchmarks).
    case memory
    /// An SQLite database file (the embedded default).
    case sqlite(path: String)
    /// A PostgreSQL database, for several instances sharing sessions.
    case postgres(url: String)

    static let defaultLocation = StoreLocation.sqlite(path: ".data/flowserver.sqlite")

    init?(argument: String) {
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

    var description: String {
        switch self {
        case .memory: "memory"
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres: "postgres://…"
        }
    }

    var defaultValueDescription: String { description }
}
