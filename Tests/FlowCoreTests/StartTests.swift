import FlowCore
import FlowTesting
import Testing

@Suite("Starting an app")
struct StartTests {
    @Test("the root flow navigates its stepper's initial steps; child flows start with theirs")
    func start() async throws {
        let store = try await startedStore()
        #expect(store.tree.outline == startedTree)
        #expect(
            store.history[0].actions.map(\.description) == [
                "startFlow app#1", "startFlow dashboard#2", "startFlow movies#3", "startFlow movies#4",
                "startFlow trending#5",
                "push list#6", "push list#7", "push trending#8", "startFlow embedded-list#9",
                "startFlow embedded-list#10",
                "push list#11", "push list#12",
            ])
    }

    @Test("a new session that is not onboarded shows onboarding presented over the dashboard")
    func onboardingFirst() async throws {
        let store = try await startedStore(onboarded: false)
        #expect(store.tree.top?.url == "/onboarding/login")
        #expect(store.tree.outline.contains("  presented onboarding#3 stack"))
    }
}
