import FlowCore
import FlowStore
import FlowTesting
import Foundation
import Testing

@testable import FlowWeb

@Suite("Changes that wait for a session's lock together, committed together")
struct CommitTogetherTests {
    typealias Store = SessionUpdateTests.ReadCountingStore

    /// Changes `r1`… of `renders`, each from a copy read before any of them (not confirmed by the
    /// store), queued behind a change `r0` whose commit the store holds back until `whileHeld`
    /// ran with the first commit let through: their answers, in order (`r0`'s first).
    static func queuedBehindACommit(
        _ renders: [String], of store: Store, _ service: SessionService<WebStep>, _ id: String,
        body:
            @escaping @Sendable (String) ->
            @Sendable (inout LoadedSession) async throws(WebError) ->
            SessionService<WebStep>.Change<Int> = SessionUpdateTests.remember,
        whileHeld: () throws -> Void = {}
    ) async throws -> [Result<SessionService<WebStep>.UpdatedSession<Int>, WebError>] {
        let held = try #require(try await service.loadForChange(id))
        store.allowCommits(0)
        var changes: [Task<SessionService<WebStep>.UpdatedSession<Int>, any Error>] = []
        for (index, render) in renders.enumerated() {
            changes.append(Task { try await service.update(held, body(render)) })
            if index == 0 {
                while store.heldCommits == 0 { await Task.yield() }
            } else {
                while service.locks.waiterCount(id) ?? 0 < index { await Task.yield() }
            }
        }
        store.allowCommits(1)
        while store.commits == 0 || store.heldCommits == 0 && renders.count > 1 { await Task.yield() }
        try whileHeld()
        store.allowCommits(nil)
        var answers: [Result<SessionService<WebStep>.UpdatedSession<Int>, WebError>] = []
        for change in changes {
            do { answers.append(.success(try await change.value)) } catch let error as WebError {
                answers.append(.failure(error))
            }
        }
        return answers
    }

    static func renders(_ session: LoadedSession) -> [String] { session.extra.submissions.map(\.render) }

    @Test(
        "changes queued behind a commit are applied in turn by the first of them and stored in one commit, each answered with the session as it left it"
    )
    func oneCommit() async throws {
        let (store, service, created) = try await SessionUpdateTests.createdSession()
        let id = created.record.id
        let start = created.record.version
        let answers = try await Self.queuedBehindACommit(["r0", "r1", "r2", "r3"], of: store, service, id)
        #expect(store.commits == 2, "r0 alone, then r1 to r3 together")
        for (index, answer) in answers.enumerated() {
            let updated = try answer.get()
            #expect(updated.result == start + index, "each change started where the one before left the session")
            #expect(updated.session.record.version == start + index + 1)
            #expect(Self.renders(updated.session) == Array(["r0", "r1", "r2", "r3"].prefix(index + 1)))
            #expect(updated.session.isConfirmed)
        }
        let stored = try #require(try store.inner.load(id))
        #expect(stored.version == start + 4)
        #expect(service.decoded.latest(id)?.record == stored, "the last change's session is the one cached")
    }

    @Test("a change that fails among them is answered with its error; the others are committed without it")
    func oneFails() async throws {
        let (store, service, created) = try await SessionUpdateTests.createdSession()
        let id = created.record.id
        let start = created.record.version
        let answers = try await Self.queuedBehindACommit(
            ["r0", "r1", "fail", "r3"], of: store, service, id,
            body: { render in
                { (session: inout LoadedSession) throws(WebError) in
                    guard render != "fail" else { throw .notFound("no such step") }
                    session.extra.remember(.init(render: render, step: "s", location: "/"))
                    return .init(result: session.record.version, save: true)
                }
            })
        #expect(store.commits == 2)
        #expect(throws: WebError.self) { try answers[2].get() }
        #expect(Self.renders(try answers[3].get().session) == ["r0", "r1", "r3"])
        #expect(try answers[3].get().session.record.version == start + 3)
        #expect(try store.inner.load(id)?.version == start + 3)
    }

    @Test(
        "when another instance committed meanwhile, the changes are applied again one by one to the stored session: none is lost, none applied twice"
    )
    func conflictOneByOne() async throws {
        let (store, service, created) = try await SessionUpdateTests.createdSession()
        let id = created.record.id
        var elsewhereVersion = 0
        let answers = try await Self.queuedBehindACommit(
            ["r0", "r1", "r2", "r3"], of: store, service, id,
            whileHeld: {
                // r0 is stored; r1 to r3's commit together is held: another instance commits first.
                var elsewhere = try #require(try store.inner.load(id))
                var extra = try CompactJSONDecoder().decode(SessionExtra.self, from: elsewhere.extra)
                extra.remember(.init(render: "x", step: "s", location: "/"))
                elsewhere.extra = try CompactJSONEncoder().encode(extra)
                elsewhere.version += 1
                try store.inner.commit(elsewhere, expectedVersion: elsewhere.version - 1, entries: [])
                elsewhereVersion = elsewhere.version
            })
        #expect(Self.renders(try answers[0].get().session) == ["r0"])
        #expect(Self.renders(try answers[3].get().session) == ["r0", "x", "r1", "r2", "r3"])
        #expect(try answers[3].get().session.record.version == elsewhereVersion + 3)
        let stored = try #require(try store.inner.load(id))
        #expect(stored.version == elsewhereVersion + 3)
        let extra = try CompactJSONDecoder().decode(SessionExtra.self, from: stored.extra)
        #expect(extra.submissions.map(\.render) == ["r0", "x", "r1", "r2", "r3"])
    }
}
