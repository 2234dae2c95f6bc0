import FlowCore
import FlowWeb

/// Hello as a web app: its flow, started on the name form, and its two pages.
enum HelloApp {
    static let pages: [any WebPage.Type] = [NamePage.self, GreetingPage.self]

    static func webApp() throws -> WebApp<HelloStep> {
        let flows = try FlowApp(
            root: HelloFlow(), stepper: OneStepper(withSingleStep: HelloStep.nameIsRequired), flows: [HelloFlow.self],
            pages: pages)
        return try WebApp(flows: flows, pages: pages, siteName: "Hello")
    }
}
