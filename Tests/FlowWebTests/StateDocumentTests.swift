import FlowCore
import Testing

@testable import FlowWeb

@Suite("The API's State of a session")
struct StateDocumentTests {
    @Test(
        "the State of a long stack copies the pages it still starts with from the last State written, and reads as one written afresh"
    )
    func copiesFromTheLastState() async throws {
        let (_, service, created) = try await SessionUpdateTests.createdSession()
        var session = created
        /// `session` after item `id` is pushed on its visible list.
        func push(_ id: Int) async throws {
            session = try await service.navigate(session, source: .api) {
                (current: inout LoadedSession) async throws(WebError) in
                .init(result: (), navigation: try await service.apply(.itemIsPicked(id: id), to: &current))
            }.session
        }
        /// The State `service` answers, checked against one written afresh.
        func state() throws -> StateDocument {
            let answered = try service.state(of: session)
            let fresh = try StateDocument(
                session: session.record.id, version: session.record.version, tree: session.tree)
            #expect(answered.bytes == fresh.bytes)
            return answered
        }
        for id in 1...20 { try await push(id) }
        #expect(try state().root.copiedPages == 0, "nothing written before")
        try await push(21)
        #expect(try state().root.copiedPages >= 20, "the stack's start is copied")
        // A short session keeps nothing: there is nothing to copy.
        let (_, other, short) = try await SessionUpdateTests.createdSession()
        _ = try other.state(of: short)
        #expect(other.decoded.latest(short.record.id)?.encodedState == nil)
    }
}
