import FlowCore
import MicroHTTP
import Synchronization

/// The open event streams of sessions (`GET /_events`): whenever a session's version changes on
/// this instance, each of its streams gets an event `version` with the new version and top page,
/// so every open tab of the session can tell whether it still shows the current page. A comment
/// line goes to every stream every ``heartbeatInterval``, which also finds streams whose client
/// went away. Streams are bounded per session and in total.
final class SessionEvents: Sendable {
    /// How many streams one session, and all sessions, may hold open.
    struct Limits: Sendable {
        var perSession: Int
        var total: Int
    }

    private struct State {
        var streams: [String: [ObjectIdentifier: ResponseStream]] = [:]
        /// The last version each streamed session's streams were told of (or opened at).
        var versions: [String: Int] = [:]
        var total = 0
    }

    private let state = Mutex(State())
    let limits: Limits
    /// How often ``sendHeartbeats()`` should run (`LiveTabFanOut` does): a comment line on every
    /// stream keeps proxies from closing idle ones and finds clients that went away.
    static let heartbeatInterval: Duration = .seconds(15)

    init(limits: Limits) {
        self.limits = limits
    }

    /// A new stream of session `id`'s changes, which starts with the session's current version
    /// when the client's (`since`, from `Last-Event-ID` or the page) is older; `nil` when a limit
    /// is reached.
    func open(_ id: String, since: Int?, version: Int, top: PageReference) -> ResponseStream? {
        let stream = ResponseStream(bufferLimit: 64 << 10)
        let key = ObjectIdentifier(stream)
        let admitted = state.withLock { state in
            guard state.total < limits.total, state.streams[id, default: [:]].count < limits.perSession else {
                return false
            }
            state.streams[id, default: [:]][key] = stream
            state.versions[id] = max(state.versions[id] ?? 0, version)
            state.total += 1
            return true
        }
        guard admitted else { return nil }
        stream.onClose { [weak self] in self?.remove(key, of: id) }
        // The retry delay for the browser's reconnections, and the current version when newer.
        stream.send(Array("retry: 2000\n\n".utf8))
        if let since, since < version { stream.send(Self.event(version: version, top: top)) }
        return stream
    }

    /// Tells session `id`'s streams that it is at `version` now, showing `top`.
    func publish(_ id: String, version: Int, top: PageReference) {
        let streams = state.withLock { state -> [ResponseStream] in
            guard let streams = state.streams[id], version > state.versions[id] ?? 0 else { return [] }
            state.versions[id] = version
            return Array(streams.values)
        }
        guard !streams.isEmpty else { return }
        let event = Self.event(version: version, top: top)
        for stream in streams { stream.send(event) }
    }

    /// How many streams are open.
    var openCount: Int { state.withLock { $0.total } }

    /// The sessions with open streams, and the last version their streams were told of.
    var watched: [String: Int] { state.withLock { $0.versions } }

    private func remove(_ key: ObjectIdentifier, of id: String) {
        state.withLock { state in
            guard state.streams[id]?.removeValue(forKey: key) != nil else { return }
            state.total -= 1
            if state.streams[id]?.isEmpty == true {
                state.streams[id] = nil
                state.versions[id] = nil
            }
        }
    }

    /// Sends a heartbeat (a comment line) on every open stream.
    func sendHeartbeats() {
        let streams = state.withLock { state in state.streams.values.flatMap(\.values) }
        for stream in streams { stream.send(Array(": heartbeat\n\n".utf8)) }
    }

    /// The event of a version change: `event: version`, `id:` the version, and the data a page
    /// needs to tell whether it is still current: `{"version", "top": {"node", "url"}}`.
    static func event(version: Int, top: PageReference) -> [UInt8] {
        struct Data: Encodable {
            var version: Int
            var top: PageReference
        }
        let data = (try? CompactJSONEncoder().encode(Data(version: version, top: top))) ?? []
        return Array("event: version\nid: \(version)\ndata: ".utf8) + data + Array("\n\n".utf8)
    }
}

/// A page of a session's tree as an event names it.
struct PageReference: Encodable, Sendable, Equatable {
    var node: Int
    var url: String
}
