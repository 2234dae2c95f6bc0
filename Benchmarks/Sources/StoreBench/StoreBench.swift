import FlowCore
import FlowStore
import FlowStorePostgres
import FlowStoreSQLite
import FlowTesting
import FlowWeb
import Foundation
import MoviesDemo

/// The stores' benchmark (issues #7 and #8): the median time to load a session of 20 pages and
/// 100 history entries from each store (the store read, and the read plus decoding the tree, as
/// a request does), and, with `--scale N`, the median load of one of N onboarded sessions three
/// pages deep from the SQLite store.
///
/// `StoreBench [--postgres URL] [--scale N] [--directory DIR]`; prints Markdown.
@main
enum StoreBench {
    static func main() async throws {
        var arguments = CommandLine.arguments.dropFirst()
        var postgres: String?
        var scale: Int?
        var directory = FileManager.default.temporaryDirectory.appendingPathComponent("flowserver-storebench").path
        while let argument = arguments.popFirst() {
            switch argument {
            case "--postgres": postgres = arguments.popFirst()
            case "--scale": scale = arguments.popFirst().flatMap { Int($0) }
            case "--directory": directory = arguments.popFirst() ?? directory
            default:
                throw BenchError(
                    "unknown argument \(argument); usage: StoreBench [--postgres URL] [--scale N] [--directory DIR]")
            }
        }
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let options = (postgres: postgres, scale: scale, directory: directory)
        try await Task.detached {
            try await run(postgres: options.postgres, scale: options.scale, directory: options.directory)
        }.value
    }

    static func run(postgres: String?, scale: Int?, directory: String) async throws {
        let app = try MoviesDemo.webApp()
        let session = try await StoredSession.make(app: app.flows, pages: 20, entries: 100)
        var stores: [(String, any SessionStore)] = [
            ("memory", MemorySessionStore()), ("SQLite", try SQLiteSessionStore(path: directory + "/load.sqlite")),
        ]
        if let postgres { stores.append(("PostgreSQL", try PostgresSessionStore(url: postgres))) }
        let scaleStore = try scale.map { _ in try SQLiteSessionStore(path: directory + "/scale.sqlite") }
        // The stores' background work (PostgreSQL's pool, SQLite's checkpoints) runs as in a server.
        try await withRunningServices(stores.flatMap(\.1.services) + (scaleStore?.services ?? [])) {
            for (_, store) in stores { try await store.prepare() }
            try await measure(stores, scale: scale, scaleStore: scaleStore, app: app, session: session)
        }
    }

    static func measure(
        _ stores: [(String, any SessionStore)], scale: Int?, scaleStore: SQLiteSessionStore?, app: WebApp<DemoStep>,
        session: StoredSession
    ) async throws {

        print(
            "Loading one session of \(session.pages) pages (tree \(session.record.tree.count) bytes) and \(session.entries.count) history entries, among 1,000 such sessions; median of 2,000 loads (spread of 20 rounds)."
        )
        print("")
        print("| store | load (µs, median) | spread | load + decode tree (µs, median) | spread |")
        print("| --- | --- | --- | --- | --- |")
        for (name, store) in stores {
            let ids = try await fill(store, with: session, count: 1_000)
            let read = try await measure(ids) { _ = try await store.load($0) }
            let decoded = try await measure(ids) { id in
                guard let record = try await store.load(id) else { throw BenchError("session \(id) is missing") }
                _ = try NavigationTree(json: record.tree, appData: record.appData, registry: app.flows.registry)
            }
            print("| \(name) | \(read.median) | \(read.spread) | \(decoded.median) | \(decoded.spread) |")
        }

        if let scale, let store = scaleStore {
            let small = try await StoredSession.make(app: app.flows, pages: 3, entries: 5)
            let ids = try await fill(store, with: small, count: scale)
            let decoded = try await measure(ids) { id in
                guard let record = try await store.load(id) else { throw BenchError("session \(id) is missing") }
                _ = try NavigationTree(json: record.tree, appData: record.appData, registry: app.flows.registry)
            }
            let size =
                (try? FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int) ?? 0
            print("")
            print(
                "SQLite with \(scale.formatted()) onboarded sessions three pages deep (\(size / 1_048_576) MB file): load + decode one, median **\(decoded.median) µs** (spread \(decoded.spread))."
            )
        }
    }

    /// Creates `count` copies of `session` under new ids, with their history.
    static func fill(_ store: any SessionStore, with session: StoredSession, count: Int) async throws -> [String] {
        var ids: [String] = []
        ids.reserveCapacity(count)
        for index in 0..<count {
            var record = session.record
            record.id = String(format: "%048x", index + 1)
            try await store.create(record, entries: session.entries)
            ids.append(record.id)
        }
        return ids
    }

    /// Median per call over 20 rounds of 100 calls on random ids, in microseconds, with the spread.
    static func measure(_ ids: [String], _ body: (String) async throws -> Void) async throws -> (
        median: String, spread: String
    ) {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 { try await body(ids.randomElement(using: &generator)!) }
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<20 {
            let start = clock.now
            for _ in 0..<100 { try await body(ids.randomElement(using: &generator)!) }
            let elapsed = (clock.now - start) / 100
            samples.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
        }
        samples.sort()
        func format(_ value: Double) -> String { String(format: "%.1f", value) }
        return (format(samples[samples.count / 2]), "\(format(samples[0]))–\(format(samples[samples.count - 1]))")
    }
}

/// A realistic stored session of the demo: a tree reached by real navigations, and history
/// entries the size of real ones.
struct StoredSession {
    var record: SessionRecord
    var entries: [HistoryRecord]
    var pages: Int

    /// An onboarded session whose wishlist stack holds `pages` pages in all (the wishlist, then
    /// movies and cast members picked one after the other), with `entries` history entries.
    static func make(app: FlowApp<DemoStep>, pages: Int, entries count: Int) async throws -> StoredSession {
        let coordinator = Coordinator(app: app)
        var (tree, start) = try await coordinator.start()
        var navigations = [start]
        navigations.append(try await coordinator.apply(.userIsLoggedIn(name: "Ada"), from: tree.top?.id, to: &tree))
        navigations.append(try await coordinator.apply(.apiKeyIsFilledIn(apiKey: "key"), from: tree.top?.id, to: &tree))
        var pick = 0
        while tree.pages(at: "/wishlist").isEmpty == false, stackDepth(tree) < pages {
            let step: DemoStep =
                pick.isMultiple(of: 2) ? .movieIsPicked(withId: pick / 2 % 12 + 1) : .castIsPicked(withId: 1)
            navigations.append(try await coordinator.apply(step, from: tree.top?.id, to: &tree))
            pick += 1
        }
        let encoder = CompactJSONEncoder()
        var entries: [HistoryRecord] = []
        for seq in 1...count {
            entries.append(
                HistoryRecord(seq: seq, entry: try encoder.encode(navigations[(seq - 1) % navigations.count])))
        }
        let record = SessionRecord(
            id: "", version: count, tree: try tree.jsonBytes(), appData: try tree.appDataJSON(),
            csrfToken: String(repeating: "c", count: 32),
            lastSeq: count, createdAt: 0, lastUsedAt: 0, expiresAt: Int64.max / 2)
        return StoredSession(record: record, entries: entries, pages: stackDepth(tree))
    }

    /// How many pages the tree's top stack holds.
    static func stackDepth(_ tree: NavigationTree) -> Int {
        guard let top = tree.top?.id, let owner = tree.owner(ofPage: top), let flow = tree.flow(owner) else { return 0 }
        return flow.children.count
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
