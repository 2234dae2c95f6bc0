import FlowCore
import FlowStore
import FlowTesting
import FlowWeb
import Foundation
import MicroHTTP
import MustacheTemplates
import ServiceLifecycle
import Synchronization
import Testing

/// The web tests' app: root (single) → tabs of two lists (stacks); options (a split) presented
/// modally; help adapted to a refusal every other time; items past 100 adapted to item 100; a
/// deep link to items.
enum WebStep: FlowStep {
    case start
    case itemIsPicked(id: Int)
    case greet(name: String, times: Int)
    case optionsAreRequired
    case optionIsPicked(section: String)
    case optionsAreDone, helpIsRequired, noop
}

/// The test app's per-session app data: how many greetings this session sent.
struct WebSessionData: AppData {
    var greetings = 0
}

struct RootFlow: Flow {
    static let name = "root"
    static let container = ContainerKind.single
    mutating func navigate(to step: WebStep, context: FlowContext) -> FlowContributors<WebStep> {
        step == .start ? .one(.show(TabsFlow(), stepper: OneStepper(withSingleStep: .start))) : .none
    }
}

struct TabsFlow: Flow {
    static let name = "tabs"
    static let container = ContainerKind.tabs
    mutating func navigate(to step: WebStep, context: FlowContext) -> FlowContributors<WebStep> {
        guard step == .start else { return .none }
        return .multiple([
            .tab(ListFlow(kind: "a"), stepper: OneStepper(withSingleStep: .start)),
            .tab(ListFlow(kind: "b"), stepper: OneStepper(withSingleStep: .start)),
        ])
    }
}

struct ListFlow: Flow {
    static let name = "list"
    static let container = ContainerKind.stack
    var kind: String
    var helpRequests = 0

    func adapt(_ step: WebStep, context: FlowContext) async -> StepAdaptation<WebStep> {
        if step == .helpIsRequired, helpRequests.isMultiple(of: 2) == false { return .refuse }
        if case .itemIsPicked(let id) = step, id > 100 { return .step(.itemIsPicked(id: 100)) }
        return .step(step)
    }

    mutating func navigate(to step: WebStep, context: FlowContext) -> FlowContributors<WebStep> {
        switch step {
        case .start: return .one(.push(ListPage(kind: kind)))
        case .itemIsPicked(let id): return .one(.push(ItemPage(id: id)))
        case .greet(let name, let times):
            context.updateAppData(WebSessionData.self) { $0.greetings += 1 }
            return .one(.push(GreetingPage(name: name, times: times)))
        case .optionsAreRequired: return .one(.present(OptionsFlow(), stepper: OneStepper(withSingleStep: .start)))
        case .helpIsRequired:
            helpRequests += 1
            return .one(.present(HelpPage()))
        default: return .none
        }
    }
}

struct OptionsFlow: Flow {
    static let name = "options"
    static let container = ContainerKind.split
    mutating func navigate(to step: WebStep, context: FlowContext) -> FlowContributors<WebStep> {
        switch step {
        case .start: .one(.set([OptionsPage()]))
        case .optionIsPicked(let section): .one(.push(OptionDetailPage(section: section)))
        case .optionsAreDone: .end(forwardToParentFlowWithStep: .noop)
        default: .none
        }
    }
}

struct LinkModel: Encodable {
    var label: String
    var href: String
}

struct ListPage: WebPage {
    static let name = "list"
    static let template = "pages/list"
    var kind: String
    var path: PagePath { "/\(kind)" }
    var title: String { "List \(kind.uppercased())" }
    struct Model: Encodable {
        var kind: String
        var links: [LinkModel]
    }
    func validate(step: String, fields: [String: String]) -> [String: String] {
        guard step == "greet" else { return [:] }
        var errors: [String: String] = [:]
        if fields["name", default: ""].trimmingCharacters(in: .whitespaces).isEmpty { errors["name"] = "Enter a name." }
        if Int(fields["times", default: ""]) == nil { errors["times"] = "Enter a number." }
        return errors
    }

    func model(in context: PageContext) throws -> Model {
        Model(
            kind: kind,
            links: [
                LinkModel(label: "Item 7", href: context.link(to: WebStep.itemIsPicked(id: 7))),
                LinkModel(label: "Options", href: context.link(to: WebStep.optionsAreRequired)),
                LinkModel(label: "Help", href: context.link(to: WebStep.helpIsRequired)),
            ])
    }
}

struct ItemPage: WebPage {
    static let name = "item"
    static let template = "pages/item"
    var id: Int
    var path: PagePath { "/items/\(id)" }
    var title: String { "Item \(id)" }
    struct Model: Encodable {
        var id: Int
        var next: String
    }
    func model(in context: PageContext) throws -> Model {
        Model(id: id, next: context.link(to: WebStep.itemIsPicked(id: id + 1)))
    }
}

struct GreetingPage: WebPage {
    static let name = "greeting"
    static let template = "pages/greeting"
    var name: String
    var times: Int
    var path: PagePath { "/greeting" }
    var title: String { "Greeting" }
    struct Model: Encodable {
        var name: String
        var times: Int
        var greetings: Int
    }
    func model(in context: PageContext) throws -> Model {
        Model(name: name, times: times, greetings: context.services.appData(WebSessionData.self).greetings)
    }
}

struct HelpPage: WebPage {
    static let name = "help"
    static let template = "pages/help"
    var path: PagePath { "/help" }
    var title: String { "Help" }
    struct Model: Encodable {}
    func model(in context: PageContext) throws -> Model { Model() }
}

struct OptionsPage: WebPage {
    static let name = "options"
    static let template = "pages/options"
    var path: PagePath { "/options" }
    var title: String { "Options" }
    struct Model: Encodable {
        var login: String
        var done: String
    }
    func model(in context: PageContext) throws -> Model {
        Model(
            login: context.link(to: WebStep.optionIsPicked(section: "login")),
            done: context.link(to: WebStep.optionsAreDone))
    }
}

struct OptionDetailPage: WebPage {
    static let name = "option-detail"
    static let template = "pages/option-detail"
    var section: String
    var path: PagePath { "/options/\(section)" }
    var title: String { "Option \(section)" }
    struct Model: Encodable { var section: String }
    func model(in context: PageContext) throws -> Model { Model(section: section) }
}

/// The templates, written to a temporary directory.
enum TestTemplates {
    static let files: [String: String] = [
        "layout.mustache": """
        <!doctype html><html><head><title>{{title}}</title></head><body>
        {{#notice}}<p class="notice">{{notice}}</p>{{/notice}}
        {{#tabBar}}<nav class="tabs">{{#tabs}}<a class="tab{{#selected}} selected{{/selected}}" href="{{url}}">{{title}}</a>{{/tabs}}</nav>{{/tabBar}}
        <main>{{#main.back}}<a class="back" href="{{main.back}}">Back</a>{{/main.back}}{{{main.html}}}</main>
        {{#modal}}<div class="modal"><a class="close" href="{{close}}">Close</a>{{#back}}<a class="back" href="{{back}}">Back</a>{{/back}}{{{html}}}</div>{{/modal}}
        </body></html>
        """,
        "pages/list.mustache":
            "<h1>List {{kind}}</h1><ul>{{#links}}<li><a href=\"{{href}}\">{{label}}</a></li>{{/links}}</ul><form method=\"post\" action=\"/_step\">{{{formFields}}}<input name=\"name\" value=\"{{form.values.name}}\">{{#form.errors.name}}<span class=\"error\">{{form.errors.name}}</span>{{/form.errors.name}}<input name=\"times\" value=\"{{form.values.times}}\">{{#form.errors.times}}<span class=\"error\">{{form.errors.times}}</span>{{/form.errors.times}}<button name=\"_step\" value=\"greet\">Greet</button></form>",
        "pages/item.mustache": "<h1>Item {{id}}</h1><a class=\"next\" href=\"{{next}}\">Next</a>",
        "pages/greeting.mustache": "<h1>Hello, {{name}} ×{{times}}</h1><p class=\"count\">greetings: {{greetings}}</p>",
        "pages/help.mustache": "<h1>Help</h1>",
        "pages/options.mustache":
            "<h1>Options</h1><a class=\"login\" href=\"{{login}}\">Login</a><a class=\"done\" href=\"{{done}}\">Done</a>",
        "pages/option-detail.mustache": "<h2>Option {{section}}</h2>",
    ]

    /// The templates in a new temporary directory, `extra` files besides (or instead).
    static func directory(extra: [String: String] = [:]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flowweb-templates-\(UUID().uuidString)")
        for (name, text) in files.merging(extra, uniquingKeysWith: { $1 }) {
            let url = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }
}

/// A clock tests can move forward.
final class TestClock: Sendable {
    private let milliseconds = Atomic<Int64>(1_800_000_000_000)
    var now: Int64 { milliseconds.load(ordering: .relaxed) }
    func advance(seconds: Int64) { milliseconds.add(seconds * 1000, ordering: .relaxed) }
}

/// A live server running the test app on a free port.
struct TestSite {
    let server: HTTPServer
    let responder: FlowWebResponder<WebStep>
    let store: MemorySessionStore
    let clock: TestClock
    let app: WebApp<WebStep>
    var port: Int { server.port }

    static func webApp(
        routeCollections: [any WebRouteCollection<WebStep>] = [], middleware: [any HTTPMiddleware] = [],
        backgroundServices: [any Service] = [], version: String = "1", migrations: [SessionMigration] = []
    ) throws -> WebApp<WebStep> {
        try WebApp(
            root: RootFlow(), start: [.start], flows: [TabsFlow.self, ListFlow.self, OptionsFlow.self],
            pages: [
                ListPage.self, ItemPage.self, GreetingPage.self, HelpPage.self, OptionsPage.self, OptionDetailPage.self,
            ],
            appData: WebSessionData.self,
            deepLinks: [
                DeepLinkRoute("/items/{id:int}") { values, _ in
                    guard let id = values.int("id"), id <= 100 else { return nil }
                    return .itemIsPicked(id: id)
                }
            ],
            siteName: "Test site", routeCollections: routeCollections, middleware: middleware,
            backgroundServices: backgroundServices, version: version, migrations: migrations)
    }

    /// A site on a free port; `configure` adjusts its web configuration, `store` is where its
    /// sessions go (one store may serve two sites: two instances).
    static func start(
        sessionTTL: Int = 3600, maxBody: Int = 1 << 20, secureCookies: Bool = false,
        store: MemorySessionStore = MemorySessionStore(),
        templates extraTemplates: [String: String] = [:], app givenApp: WebApp<WebStep>? = nil,
        configure: (inout WebConfiguration) -> Void = { _ in }
    ) async throws -> TestSite {
        let directory = try TestTemplates.directory(extra: extraTemplates)
        let templates = try FlowWebDefaults.templates(directory: directory.path)
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("Public"), withIntermediateDirectories: true)
        try "body { margin: 0 }".write(
            to: directory.appendingPathComponent("Public/site.css"), atomically: true, encoding: .utf8)
        let clock = TestClock()
        let app = try givenApp ?? webApp()
        var configuration = WebConfiguration(
            sessionTTL: sessionTTL, secureCookies: secureCookies,
            publicDirectory: directory.appendingPathComponent("Public").path)
        configure(&configuration)
        let responder = FlowWebResponder(
            app: app, store: store, templates: templates, configuration: configuration, clock: { clock.now })
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, maxBodySize: maxBody), responder: responder)
        try server.start()
        return TestSite(server: server, responder: responder, store: store, clock: clock, app: app)
    }
}

/// Runs `body` with a started site and stops it afterwards.
func withSite(
    sessionTTL: Int = 3600, app: WebApp<WebStep>? = nil, configure: (inout WebConfiguration) -> Void = { _ in },
    _ body: (TestSite) async throws -> Void
) async throws {
    let site = try await TestSite.start(sessionTTL: sessionTTL, app: app, configure: configure)
    do {
        try await body(site)
        await site.server.stop()
    } catch {
        await site.server.stop()
        throw error
    }
}

/// A browser on `site` with a new session (it has fetched `/`), not stored yet.
func startedBrowser(_ site: TestSite) async throws -> TestBrowser {
    let browser = TestBrowser(port: site.port)
    _ = try await browser.get("/")
    return browser
}

/// A browser on `site` whose session is stored: it followed Item 7's link from `/a`; its
/// top page is `/items/7`.
func storedBrowser(_ site: TestSite) async throws -> TestBrowser {
    let browser = try await startedBrowser(site)
    _ = try await browser.follow("Item 7", on: "/a")
    return browser
}
