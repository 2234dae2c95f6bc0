import FlowTesting
import Foundation

/// A `flowserver` process started from the build folder, with its output captured.
public final class FlowServerProcess {
    /// The running process.
    public let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    /// What ``waitForStandardError(containing:seconds:)`` read of standard error.
    private var errorsRead = Data()

    /// The project's root folder.
    public static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The built executable, beside the test bundle.
    public static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("flowserver").path),
            directory.path != "/"
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("flowserver")
    }

    /// Starts `flowserver arguments` with the project's templates (`FLOWSERVER_*` variables of
    /// the test process are not passed on; `environment` is).
    public init(_ arguments: [String], environment: [String: String] = [:], directory: URL? = nil) throws {
        process.executableURL = Self.executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FLOWSERVER_") }
        merged["FLOWSERVER_TEMPLATES"] = Self.repository.appendingPathComponent("Templates").path
        merged.merge(environment) { $1 }
        process.environment = merged
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// The first line on standard output (waits for it, up to `seconds`).
    public func firstLine(seconds: Double = 30) -> String? {
        let handle = output.fileHandleForReading
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let data = handle.availableData
            if data.isEmpty { return nil }
            bytes += data
            if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                return String(decoding: bytes[..<newline], as: UTF8.self)
            }
        }
        return nil
    }

    /// The port of a `listening on http://HOST:PORT` line.
    public func listeningPort() -> Int? {
        guard let line = firstLine(), line.hasPrefix("listening on http://"),
            let colon = line.lastIndex(of: ":")
        else { return nil }
        return Int(line[line.index(after: colon)...])
    }

    /// Waits for exit (up to `seconds`) and returns the status, or `nil` if still running.
    public func waitForExit(seconds: Double = 15) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Reads standard error while the process runs until it holds `text` (`true`), or until
    /// `seconds` passed, when the process is stopped (`false`). What was read is kept for
    /// ``standardError``.
    public func waitForStandardError(containing text: String, seconds: Double) -> Bool {
        let process = process
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: watchdog)
        defer { watchdog.cancel() }
        let handle = errors.fileHandleForReading
        while true {
            let data = handle.availableData
            if data.isEmpty { return false }
            errorsRead += data
            if String(decoding: errorsRead, as: UTF8.self).contains(text) { return true }
        }
    }

    /// Everything written to standard output (stops the process first if it still runs).
    public var standardOutput: String {
        stopIfRunning()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Everything written to standard error (stops the process first if it still runs).
    public var standardError: String {
        stopIfRunning()
        return String(decoding: errorsRead + errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    private func stopIfRunning() {
        guard process.isRunning else { return }
        process.terminate()
        _ = waitForExit(seconds: 5)
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

}

/// A plain GET, answering the status code (0 when the connection fails).
public func statusOfGet(port: Int, path: String) -> Int {
    (try? TestConnection(port: port).request("GET", path).status) ?? 0
}
