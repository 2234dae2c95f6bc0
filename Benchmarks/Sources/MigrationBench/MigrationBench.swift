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
/// With `--sqlite PATH --sessions N`, also writes N demo sessions (every hundredth one beyond
/// repair) to a new SQLite file for the demo's `sessions check` to read.
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
            flows: demo.flows, pages: MoviesDemo.pages, deepLinks: demo.deepLinks, context: demo.context, version: "2",
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
        // Rounds of each, one after the other, so that both see the same machine.
        var plain: [Double] = []
        var migrating: [Double] = []
        for _ in 0..<15 {
            plain.append(microseconds { _ = check.verdict(of: current, now: 1) })
            migrating.append(microseconds { _ = check.verdict(of: earlier, now: 1) })
        }
        let ratios = zip(migrating, plain).map { $0 / $1 }.sorted()
        print(
            "| read of a demo session (tree \(current.tree.count) B), 15 rounds | median µs | decodes: median of rounds (min–max) |"
        )
        print("| --- | --- | --- |")
        print("| at the app's level | \(format(median(plain))) | 1.00 |")
        print(
            "| stored before 3 migrations (migrated, then decoded) | \(format(median(migrating))) "
                + "| \(format(median(ratios))) (\(format(ratios[0]))–\(format(ratios[ratios.count - 1]))) |")
        if let path { try await writeSessions(count, like: current, to: path) }
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

    /// `count` sessions like `record`, as the demo itself stores them (no migrations), in a new
    /// SQLite file at `path`; every hundredth unreadable (a page the demo does not have).
    static func writeSessions(_ count: Int, like record: SessionRecord, to path: String) async throws {
        try? FileManager.default.removeItem(atPath: path)
        let store = try SQLiteSessionStore(path: path)
        let unreadable = replacing(record.tree, [(#""page":"movie""#, #""page":"reel""#)])
        for index in 0..<count {
            var session = record
            session.id = String(format: "bench-%08d", index)
            session.extra = Array(#"{"app":"1"}"#.utf8)
            if index.isMultiple(of: 100) { session.tree = unreadable }
            try await store.create(session, entries: [])
        }
        print("\n\(count) demo sessions written to \(path) (every 100th beyond repair)")
    }

    /// The time of one run of `body`, in µs, over 2,000 runs.
    static func microseconds(_ body: () -> Void) -> Double {
        let start = ContinuousClock.now
        for _ in 0..<2_000 { body() }
        let elapsed = ContinuousClock.now - start
        return (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12) / 2_000
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

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
