import FlowCore
import ServiceLifecycle

/// What keeps live tabs' event streams going, as a service (one of
/// ``FlowWebResponder/services``): a heartbeat on every stream every 15 s, and, with a shared
/// store, the changes other instances commit, read every half second (see
/// `SessionService.publishRemoteChanges()`). It runs until graceful shutdown or cancellation.
struct LiveTabFanOut<Step: FlowStep>: Service {
    let sessions: SessionService<Step>

    func run() async {
        await cancelWhenGracefulShutdown { [sessions] in
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: SessionEvents.heartbeatInterval)
                        sessions.events.sendHeartbeats()
                    }
                }
                guard sessions.store.isShared else { return }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: SessionService<Step>.remoteChangeInterval)
                        await sessions.publishRemoteChanges()
                    }
                }
            }
        }
    }
}
