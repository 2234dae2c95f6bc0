import FlowCore

extension SessionService {
    /// The State of `session` (Docs/CONTRACT.md §5), copying from the last one this instance
    /// wrote of it (of any version); when it has long stacks, what it wrote is kept with the
    /// session's version for the next State to copy from.
    func state(of session: LoadedSession) throws(WebError) -> StateDocument {
        let id = session.record.id
        var session = session
        if session.encodedState == nil { session.encodedState = decoded.keptState(of: id) }
        let document = try StateDocument(session)
        if session.isStored, document.root.recordsStacks {
            decoded.keepState(document.root, of: id, version: session.record.version)
        }
        return document
    }
}
