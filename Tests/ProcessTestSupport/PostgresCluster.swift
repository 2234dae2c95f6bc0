import Foundation

/// A throwaway PostgreSQL cluster for tests: `initdb` in a temporary directory, `pg_ctl` on a
/// free port of 127.0.0.1 (as the `postgres` user when the tests run as root), stopped at the end.
///
/// Async tests make, stop and start it with ``started()``, ``stopped()`` and ``restarted()``,
/// which wait for the tools on a thread of their own: `initdb` and `pg_ctl -w` take seconds, and
/// holding one of Swift's cooperative threads (two on two cores) meanwhile stalled every other
/// test's server, whose timings then failed.
public final class PostgresCluster: Sendable {
    /// The cluster's folder (data, log, socket).
    public let directory: URL
    /// Its port on 127.0.0.1.
    public let port: Int
    private let binaries: URL
    private let runAs: String?

    /// The URL of its test database, as `--store` takes it.
    public var url: String { "postgres://flow:flow@127.0.0.1:\(port)/flowtest" }

    /// A cluster made and started on a thread of its own (see ``init()``).
    public static func started() async throws -> PostgresCluster {
        try await onOwnThread {
            // The port was free when picked, but a connection or a server of another test may
            // take it before PostgreSQL binds it: then a cluster on another port is made.
            for _ in 1..<3 {
                if let cluster = try? PostgresCluster() { return cluster }
            }
            return try PostgresCluster()
        }
    }

    /// ``stop()``, waited for on a thread of its own.
    public func stopped() async throws {
        try await Self.onOwnThread { try self.stop() }
    }

    /// ``start()``, waited for on a thread of its own.
    public func restarted() async throws {
        try await Self.onOwnThread { try self.start() }
    }

    /// `body` run on a new thread, not one of Swift's cooperative threads.
    private static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Creates and starts a cluster with a `flowtest` database owned by `flow` (password `flow`),
    /// blocking the calling thread for seconds: async code calls ``started()``.
    public init() throws {
        guard let version = try FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql").sorted().last
        else {
            throw ClusterError(message: "PostgreSQL is not installed (make test installs Debian's postgresql)")
        }
        binaries = URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin")
        directory = URL(fileURLWithPath: "/tmp/flowserver-pg-\(UUID().uuidString.prefix(8))")
        runAs = getuid() == 0 ? "postgres" : nil
        port = freeLocalPort()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let runAs { try run("/bin/chown", [runAs, directory.path]) }
        let data = directory.appendingPathComponent("data").path
        let password = directory.appendingPathComponent("password").path
        try "flow".write(toFile: password, atomically: true, encoding: .utf8)
        if let runAs { try run("/bin/chown", [runAs, password]) }
        try postgres("initdb", ["-D", data, "-U", "flow", "--pwfile", password, "-A", "md5", "--no-sync"])
        try postgres(
            "pg_ctl",
            [
                "-D", data, "-l", directory.appendingPathComponent("log").path, "-w", "-o",
                "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off", "start",
            ])
        try postgres(
            "createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "flow", "flowtest"],
            environment: ["PGPASSWORD": "flow"])
    }

    /// Stops the server (`immediate`: like a crash) — `start()` brings it back.
    public func stop() throws {
        try postgres("pg_ctl", ["-D", directory.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"])
    }

    /// Starts the stopped server again.
    public func start() throws {
        try postgres(
            "pg_ctl",
            [
                "-D", directory.appendingPathComponent("data").path, "-l", directory.appendingPathComponent("log").path,
                "-w", "-o", "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off", "start",
            ])
    }

    deinit {
        try? stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private func postgres(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let path = binaries.appendingPathComponent(tool).path
        if let runAs {
            let env = environment.map { "\($0.key)=\($0.value)" }
            try run("/usr/sbin/runuser", ["-u", runAs, "--", "/usr/bin/env"] + env + [path] + arguments)
        } else {
            try run(path, arguments, environment: environment)
        }
    }

    /// Runs a program to its end with `posix_spawn` and `waitpid` (Foundation's `Process` did not
    /// reap these children from an async test here), its output to the cluster's log.
    private func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let log = directory.appendingPathComponent("tools.log").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp =
            ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [
                nil
            ]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        guard posix_spawn(&pid, executable, &actions, nil, argv, envp) == 0 else {
            throw ClusterError(message: "cannot start \(executable)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw ClusterError(
                message: "\(executable) \(arguments.joined(separator: " ")) failed: \(output.suffix(600))")
        }
    }
}

/// A cluster that could not be made or run, with the tool's output.
public struct ClusterError: Error, CustomStringConvertible {
    /// What failed.
    public var message: String
    public var description: String { message }
}
