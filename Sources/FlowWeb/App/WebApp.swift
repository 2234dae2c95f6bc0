import FlowCore
import MicroHTTP
import MustacheTemplates
import ServiceLifecycle

/// An app as the web layer serves it: its flows, its services, its deep links and how its
/// pages render.
///
/// ```swift
/// let web = try WebApp(flows: flowApp, pages: [WishlistPage.self, MoviePage.self],
///                      deepLinks: [DeepLinkRoute("/movies/{id:int}") { v, _ in .movieIsPicked(withId: v.int("id")!) }],
///                      context: services)
/// ```
public struct WebApp<Step: FlowStep>: Sendable {
    /// The flows.
    public let flows: FlowApp<Step>
    /// Services for flows and view models.
    public let context: FlowContext
    /// Deep links, tried in order.
    public let deepLinks: [DeepLinkRoute<Step>]
    /// The site's name (document titles).
    public let siteName: String
    /// A tab's label, given its flow; by default the title of the tab's first page. Like page
    /// titles, read once per version of a session on each thread: derive it from the tree.
    public let tabTitle: (@Sendable (FlowNode, NavigationTree) -> String)?
    /// The app's own HTTP routes (JSON endpoints, webhooks, downloads), tried after FlowWeb's and
    /// before pages.
    public let routeCollections: [any WebRouteCollection<Step>]
    /// The app's middleware, in the order requests pass through it, after FlowWeb's own (metrics,
    /// security headers).
    public let middleware: [any HTTPMiddleware]
    /// The app's own background work (a queue consumer, a cache refresher) as swift-service-lifecycle
    /// services: `FlowServerRuntime` runs them beside the server and stops them after it, like
    /// FlowServer's own.
    public let backgroundServices: [any Service]
    /// The app's version, recorded with every session it stores (`"1"` unless given): what
    /// reports and logs name when sessions of two versions meet.
    public let version: String
    /// The changes to what stored sessions hold since the app's first version, oldest first (see
    /// ``SessionMigration``): append, never edit or remove one that shipped.
    public let migrations: [SessionMigration]
    /// What rendering pages needs of this app.
    let pages: WebAppPages

    /// A web app.
    ///
    /// - Throws: ``WebAppError`` when a registered page of `flows` has no ``WebPage`` type here.
    public init(
        flows: FlowApp<Step>, pages: [any WebPage.Type], deepLinks: [DeepLinkRoute<Step>] = [],
        context: FlowContext = FlowContext(),
        siteName: String = "FlowServer", tabTitle: (@Sendable (FlowNode, NavigationTree) -> String)? = nil,
        routeCollections: [any WebRouteCollection<Step>] = [], middleware: [any HTTPMiddleware] = [],
        backgroundServices: [any Service] = [], version: String = "1", migrations: [SessionMigration] = []
    ) throws(WebAppError) {
        var renderers: [String: PageRenderer] = [:]
        for type in pages { renderers[type.name] = PageRenderer(type) }
        for name in flows.registry.pageNames where renderers[name] == nil {
            throw WebAppError(message: "page \"\(name)\" is registered in the flows but has no WebPage type in `pages`")
        }
        self.flows = flows
        self.context = context
        self.deepLinks = deepLinks
        self.siteName = siteName
        self.tabTitle = tabTitle
        self.routeCollections = routeCollections
        self.middleware = middleware
        self.backgroundServices = backgroundServices
        self.version = version
        self.migrations = migrations
        self.pages = WebAppPages(renderers: renderers, siteName: siteName, tabTitle: tabTitle, services: context)
    }

    /// The renderer of `page`'s type.
    func renderer(for page: AnyPage) -> PageRenderer? { pages.renderer(for: page) }

    /// Checks that `templates` has the layout and every page's template, so that a missing file
    /// stops the app at start instead of failing its page later.
    ///
    /// - Parameters:
    ///   - templates: the templates the app renders with (e.g. ``FlowWebDefaults/templates(directory:options:)``).
    ///   - directory: where they were loaded from, named in the error.
    /// - Throws: ``WebAppError`` naming the first page without its template and the file looked for.
    public func checkTemplates(_ templates: TemplateLibrary, loadedFrom directory: String) throws(WebAppError) {
        let root = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        if !templates.contains("layout") {
            throw WebAppError(message: "no layout template: looked for \(root)/layout.mustache")
        }
        for (name, renderer) in pages.renderers.sorted(by: { $0.key < $1.key })
        where !templates.contains(renderer.template) {
            throw WebAppError(
                message:
                    "page \"\(name)\" (\(renderer.type)) has no template \"\(renderer.template)\": looked for \(root)/\(renderer.template).mustache"
            )
        }
    }
}

/// What rendering pages needs of a ``WebApp``, none of which depends on its step type: so the
/// code that renders is compiled for these types once, instead of generic code that looks up
/// the layout of `WebApp<Step>` at run time.
struct WebAppPages: Sendable {
    /// The renderers by page name.
    let renderers: [String: PageRenderer]
    /// The renderers again by page type: every page renders through several lookups, and a
    /// type is found in a fraction of the time of a name.
    private let renderersByType: TypeTable<PageRenderer>
    /// The site's name.
    let siteName: String
    /// A tab's label (see ``WebApp/tabTitle``).
    let tabTitle: (@Sendable (FlowNode, NavigationTree) -> String)?
    /// The services view models read (``PageComposer`` gives each thread its own copy).
    let services: FlowContext

    init(
        renderers: [String: PageRenderer], siteName: String,
        tabTitle: (@Sendable (FlowNode, NavigationTree) -> String)?, services: FlowContext
    ) {
        self.renderers = renderers
        renderersByType = TypeTable(renderers.values.map { ($0.type, $0) })
        self.siteName = siteName
        self.tabTitle = tabTitle
        self.services = services
    }

    /// The title of `page` (its type's name when no renderer knows the type).
    func title(of page: PageNode) -> String {
        renderer(for: page.page)?.title(page.page.base) ?? page.page.name
    }

    /// The renderer of `page`'s type (by type, or by registered name for a type registered
    /// under the same name as one in `pages`).
    func renderer(for page: AnyPage) -> PageRenderer? {
        renderersByType[type(of: page.base)] ?? renderers[page.name]
    }
}

/// A web app that cannot work as defined.
public struct WebAppError: Error, Sendable, CustomStringConvertible {
    /// What to fix.
    public let message: String
    public var description: String { message }
}
