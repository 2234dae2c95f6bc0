import ArgumentParser
import FlowCore
import FlowStore
import FlowWeb
import Foundation
import Logging

/// `<app> sessions check|migrate|restore`: reads every session of the configured store with this
/// build of the app, a page at a time. `check` prints how many read as they are, migrate, would be
/// reset (by cause, with sample ids) or come from a later version, and exits 1 when any would be
/// reset — a gate before a deploy; `migrate` also stores the migrated form of those that migrate;
/// `restore` brings back the sessions an earlier build set aside, where this one reads them.
struct SessionsCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "\(AppCommandDescription.current.name) sessions",
            abstract:
                "Checks the stored sessions against this build of the app before a deploy, migrates them, or restores those set aside.",
            discussion: """
                check: reads every stored session as this build would and prints how many read as \
                they are, migrate, would be reset (by cause, with sample ids) or come from a later \
                version; the exit status is 1 when any would be reset. migrate: the same, and stores \
                the migrated form of each session that migrates (a session changed meanwhile is left \
                to migrate when next read). restore: the same, and brings back each session an earlier \
                build set aside (it could not read it) where this build reads it, over what the visitor \
                did since, which its history keeps.
                """)
    }

    /// What to do.
    enum Action: String, ExpressibleByArgument, CaseIterable {
        case check, migrate, restore
    }

    /// How to print the report.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: "check, migrate or restore.")
    var action: Action

    @Option(help: "The session store (default: FLOWSERVER_STORE, else the server's default).")
    var store: StoreLocation?

    @Option(help: "How the report is written.")
    var format = Format.text

    @Option(name: .customLong("page-size"), parsing: .unconditional, help: "Sessions read at a time.")
    var pageSize = 500

    @Option(parsing: .unconditional, help: "Sample ids shown per cause.")
    var samples = 5

    func validate() throws {
        guard pageSize >= 1 else { throw ValidationError("--page-size must be at least 1, got \(pageSize)") }
        guard samples >= 0 else { throw ValidationError("--samples must not be negative, got \(samples)") }
    }
}

/// What `sessions check` found.
struct SessionsReport: Encodable {
    /// One kind of reset: how many, and the first ids (their first 8 characters).
    struct Resets: Encodable {
        var count = 0
        var samples: [String] = []
    }

    var appVersion: String
    var migrations: Int
    var sessions = 0
    var readAsIs = 0
    var migrate = 0
    var migrated = 0
    var reset = 0
    var resetsByCause: [String: Resets] = [:]
    var newerVersion = 0
    var gone = 0
    /// Sessions set aside by an earlier build and brought back (`restore`).
    var restored = 0
    /// Sessions set aside that this build cannot read either, or that changed while restored.
    var notRestored = 0
    /// The app versions that stored the sessions that migrate, and how many each.
    var migrateFrom: [String: Int] = [:]

    var text: String {
        var lines = [
            "\(sessions) stored sessions read by app version \(appVersion) (\(migrations) migrations):",
            "  \(readAsIs) read as they are",
            "  \(migrate) migrate"
                + (migrateFrom.isEmpty
                    ? ""
                    : " (stored by \(migrateFrom.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")))")
                + (migrated > 0 ? ", \(migrated) migrated now" : ""),
            "  \(reset) would be reset",
        ]
        for (cause, resets) in resetsByCause.sorted(by: { $0.key < $1.key }) {
            lines.append("    \(cause): \(resets.count) (\(resets.samples.map { "\($0)…" }.joined(separator: ", ")))")
        }
        lines.append("  \(newerVersion) stored by a later version (left alone)")
        lines.append("  \(gone) expired or deleted, not purged yet")
        if restored + notRestored > 0 {
            lines.append("  \(restored) restored from the quarantine, \(notRestored) left there")
        }
        return lines.joined(separator: "\n")
    }
}

extension FlowServerRuntime {
    /// Runs `sessions` for `app` with `arguments` (after the word `sessions`); returns only by
    /// exiting: 0, or 1 when a session would be reset or the store cannot be used, 2 for a bad flag.
    static func sessions<Step: FlowStep>(
        _ command: Command, arguments: [String], environment: [String: String], app makeApp: () throws -> WebApp<Step>
    ) async -> Never {
        let options = parseSubcommand(SessionsCommand.self, arguments, named: "sessions", of: command)
        let fail = { (message: String) -> Never in stop(printing: "\(command.name) sessions: \(message)", status: 1) }
        let location: StoreLocation
        if let given = options.store {
            location = given
        } else if let variable = environment["FLOWSERVER_STORE"] {
            guard let parsed = StoreLocation(argument: variable) else {
                stop(
                    printing:
                        "\(command.name) sessions: FLOWSERVER_STORE: not a store: \(variable) (\(StoreLocation.forms)) (see \(command.name) sessions --help)",
                    status: 2)
            }
            location = parsed
        } else {
            location = .defaultLocation
        }
        let app: WebApp<Step>
        do { app = try makeApp() } catch { fail("the app cannot start: \(error)") }
        let store: any SessionStore
        do { store = try openStore(location, level: .warning, for: command) } catch {
            fail(cannotOpen(error))
        }
        let report: SessionsReport
        do {
            report = try await withStoreServices(store) {
                try await store.prepare()
                return try await readAll(store, app: app, options: options)
            }
        } catch {
            fail("\(error)")
        }
        switch options.format {
        case .text: print(report.text)
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: (try? encoder.encode(report)) ?? Data(), as: UTF8.self))
        }
        exit(report.reset > 0 ? 1 : 0)
    }

    /// Every session of `store` read by `app`'s build, a page at a time; migrated when asked.
    private static func readAll<Step: FlowStep>(_ store: any SessionStore, app: WebApp<Step>, options: SessionsCommand)
        async throws -> SessionsReport
    {
        let check = SessionCheck(app: app)
        var report = SessionsReport(appVersion: app.version, migrations: app.migrations.count)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var after: String?
        while true {
            let page = try await store.sessions(after: after, limit: options.pageSize)
            for record in page {
                report.sessions += 1
                if options.action == .restore, check.wasRestarted(record) {
                    try await restore(record, from: store, with: check, now: now, into: &report)
                }
                switch check.verdict(of: record, now: now) {
                case .readsAsIs: report.readAsIs += 1
                case .migrates(let writer):
                    report.migrate += 1
                    report.migrateFrom[writer ?? "unknown", default: 0] += 1
                    if options.action == .migrate, let migrated = check.migrated(record),
                        try await commitUnlessChanged(migrated, over: record, in: store)
                    {
                        report.migrated += 1
                    }
                case .resets(let cause, _):
                    report.reset += 1
                    report.resetsByCause[cause, default: .init()].count += 1
                    if report.resetsByCause[cause]!.samples.count < options.samples {
                        report.resetsByCause[cause]!.samples.append(String(record.id.prefix(8)))
                    }
                case .newerVersion: report.newerVersion += 1
                case .gone: report.gone += 1
                }
            }
            guard page.count == options.pageSize, let last = page.last else { return report }
            after = last.id
        }
    }

    /// `record`'s quarantined copy brought back over it, when this build reads the copy.
    private static func restore<Step: FlowStep>(
        _ record: SessionRecord, from store: any SessionStore, with check: SessionCheck<Step>, now: Int64,
        into report: inout SessionsReport
    ) async throws {
        guard let copy = try await store.quarantined(record.id).last(where: { $0.record.version < record.version }),
            let restoration = check.restored(copy, over: record, now: now)
        else {
            report.notRestored += 1
            return
        }
        // Changed meanwhile: a later run restores it.
        if try await commitUnlessChanged(restoration.record, over: record, entries: restoration.entries, in: store) {
            report.restored += 1
        } else {
            report.notRestored += 1
        }
    }

    /// Commits `next` over `record` with `entries`; `false` when the session changed since `record`
    /// was read (a request got there first: it is migrated or restored by a later read or run).
    private static func commitUnlessChanged(
        _ next: SessionRecord, over record: SessionRecord, entries: [HistoryRecord] = [], in store: any SessionStore
    ) async throws -> Bool {
        do {
            try await store.commit(next, expectedVersion: record.version, entries: entries)
            return true
        } catch {
            if error.isConflict { return false }
            throw error
        }
    }

    /// `body`'s result with `store`'s services running (PostgreSQL's connection pool), stopped after.
    private static func withStoreServices<T: Sendable>(
        _ store: any SessionStore, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            for service in store.services {
                group.addTask {
                    try await service.run()
                    return nil
                }
            }
            group.addTask { try await body() }
            while let result = try await group.next() {
                if let result {
                    group.cancelAll()
                    return result
                }
            }
            throw StoreError.unavailable("the store stopped before it was read")
        }
    }
}
