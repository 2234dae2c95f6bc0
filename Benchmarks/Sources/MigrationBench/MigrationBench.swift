import FlowCore
import FlowStore
import FlowStoreSQLite
import FlowWeb
import Foundation
import MoviesDemo

/// What reading a session stored by an earlier version costs (issue "Sessions survive a deploy",
/// point 8): the median time of `SessionCheck.verdict` — a read as a request makes it, migrations
/// and decoding — on a demo session stored at the app's level, and on the same session stored
/// before three migrations (a page and a flow renamed, a field added), in "decodes" of the first.
/// With `--sqlite PATH --sessions N`, also writes N such sessions (every hundredth one beyond
/// repair) to a new SQLite file for `sessions check` to read.
///
/// `MigrationBench [--sqlite PATH --sessions N]`; prints Markdown.
@main
enum MigrationBench {
    static func main() async throws {
        var arguments = CommandLine.arguments.dropFirst()
        var path: String?
        var count = 100_000
        while let argument = arguments.popFirst() {
            switch argument {
            case "--sqlite": path = arguments.popFirst()
            case "--sessions": count = arguments.popFirst().flatMap { Int($0) } ?? count
            default: throw BenchError("usage: MigrationBench [--sqlite PATH --sessions N]")
            }
        }
        let demo = try MoviesDemo.webApp()
        let app = try WebApp(
            flows: demo.flows, pages: MoviesDemo.pages, routes: demo.routes, context: demo.context, version: "2",
            migrations: [
                .renamePage("film", to: "movie"), .renameFlow("seen", to: "watched"),
                .addField("aboutRequests", value: .int(0), toFlow: "wishlist"),
            ])
        let current = try await onboardedRecord(demo.flows, level: app.migrations.count)
        let earlier = SessionRecord(
            id: current.id, version: current.version,
            tree: replacing(
                current.tree,
                [
                    (#""page":"movie""#, #""page":"film""#), (#""flow":"watched""#, #""flow":"seen""#),
                    (#""aboutRequests":0"#, #""aboutRequests0":0"#),
                ]),
            appData: current.appData, csrfToken: current.csrfToken, lastSeq: current.lastSeq,
            extra: Array(#"{"app":"1"}"#.utf8), createdAt: 0, lastUsedAt: 0, expiresAt: current.expiresAt)
        let check = SessionCheck(app: app)
        guard check.verdict(of: current, now: 1) == .readsAsIs, case .migrates = check.verdict(of: earlier, now: 1)
        else { throw BenchError("the sample sessions do not read as expected") }
        let plain = median { _ = check.verdict(of: current, now: 1) }
        let migrating = median { _ = check.verdict(of: earlier, now: 1) }
        print("| read of a demo session (tree \(current.tree.count) B) | median µs | decodes |")
        print("| --- | --- | --- |")
        print("| at the app's level | \(format(plain)) | 1.00 |")
        print(
            "| stored before 3 migrations (migrated, then decoded) | \(format(migrating)) | \(format(migrating / plain)) |"
        )
        if let path { try await writeSessions(count, like: current, broken: earlier, to: path) }
    }

    /// An onboarded demo session three pages deep, as stored at migration level `level`.
    static func onboardedRecord(_ flows: FlowApp<DemoStep>, level: Int) async throws -> SessionRecord {
        let coordinator = Coordinator(app: flows)
        var (tree, _) = try await coordinator.start()
        for step: DemoStep in [
            .userIsLoggedIn(name: "Ada"), .apiKeyIsFilledIn(apiKey: "key"), .movieIsPicked(withId: 3),
            .castIsPicked(withId: 1),
        ] {
            _ = try await coordinator.apply(step, from: tree.top?.id, to: &tree)
        }
        return SessionRecord(
            id: "s", version: 5, tree: try tree.jsonBytes(), appData: try tree.appDataJSON(),
            csrfToken: String(repeating: "c", count: 32), lastSeq: 5,
            extra: Array(#"{"level":\#(level),"levels":[[1,\#(level)]],"app":"2"}"#.utf8), createdAt: 0, lastUsedAt: 0,
            expiresAt: Int64.max / 2)
    }

    /// `count` sessions like `record` in a new SQLite file at `path`; every hundredth unreadable
    /// (a page no migration knows), every tenth stored by the earlier version (`earlier`).
    static func writeSessions(_ count: Int, like record: SessionRecord, broken earlier: SessionRecord, to path: String)
        async throws
    {
        try? FileManager.default.removeItem(atPath: path)
        let store = try SQLiteSessionStore(path: path)
        let unreadable = replacing(record.tree, [(#""page":"movie""#, #""page":"reel""#)])
        for index in 0..<count {
            var session = index.isMultiple(of: 10) ? earlier : record
            session.id = String(format: "bench-%08d", index)
            if index.isMultiple(of: 100) { session.tree = unreadable }
            try await store.create(session, entries: [])
        }
        print(
            "\n\(count) sessions written to \(path) (every 10th stored before the migrations, every 100th beyond repair)"
        )
    }

    /// The median of 9 rounds of 2,000 runs of `body`, in µs a run.
    static func median(_ body: () -> Void) -> Double {
        var rounds: [Double] = []
        for _ in 0..<9 {
            let start = ContinuousClock.now
            for _ in 0..<2_000 { body() }
            let elapsed = ContinuousClock.now - start
            rounds.append(
                Double(elapsed.components.attoseconds) / 1e12 / 2_000 + Double(elapsed.components.seconds) * 1e6 / 2_000
            )
        }
        return rounds.sorted()[rounds.count / 2]
    }

    static func replacing(_ bytes: [UInt8], _ replacements: [(String, String)]) -> [UInt8] {
        var text = String(decoding: bytes, as: UTF8.self)
        for (old, new) in replacements { text = text.replacing(old, with: new) }
        return Array(text.utf8)
    }

    static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
