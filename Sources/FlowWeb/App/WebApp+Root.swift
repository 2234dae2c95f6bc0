import FlowCore
import MicroHTTP
import ServiceLifecycle

extension WebApp {
    /// A web app made from its root flow and its pages, each listed once: the `FlowApp` is
    /// derived from them (build one yourself for a root started by a `Stepper` of its own).
    ///
    /// ```swift
    /// let app = try WebApp(root: HelloFlow(), start: [.nameIsRequired], pages: [NamePage.self, GreetingPage.self])
    /// ```
    ///
    /// - Parameters:
    ///   - root: the root flow, as every session starts with it.
    ///   - start: the steps the root takes when a session starts, in order.
    ///   - flows: the other flow types a tree may hold (the root's type is always one).
    ///   - pages: every page type a tree may hold, for navigation and rendering alike.
    ///   - appData: the type of each session's app data (none by default).
    ///   - deepLinks: deep links, tried in order.
    ///   - context: services for flows and view models.
    ///   - siteName: the site's name (document titles).
    ///   - tabTitle: a tab's label, given its flow (by default its first page's title).
    ///   - routeCollections: the app's own HTTP routes.
    ///   - middleware: the app's middleware, after FlowWeb's own.
    ///   - backgroundServices: the app's own background work.
    ///   - version: the app's version, recorded with every session it stores.
    ///   - migrations: the changes to what stored sessions hold, oldest first.
    /// - Throws: ``WebAppError`` when two flow or page types share a name.
    public init<Root: Flow<Step>>(
        root: Root, start: [Step], flows: [any Flow<Step>.Type] = [], pages: [any WebPage.Type],
        appData: any AppData.Type = NoAppData.self, deepLinks: [DeepLinkRoute<Step>] = [],
        context: FlowContext = FlowContext(), siteName: String = "FlowServer",
        tabTitle: (@Sendable (FlowNode, NavigationTree) -> String)? = nil,
        routeCollections: [any WebRouteCollection<Step>] = [], middleware: [any HTTPMiddleware] = [],
        backgroundServices: [any Service] = [], version: String = "1", migrations: [SessionMigration] = []
    ) throws(WebAppError) {
        let flowApp: FlowApp<Step>
        do {
            flowApp = try FlowApp(
                root: root, stepper: StartSteps(initialSteps: start),
                flows: [Root.self] + flows.filter { $0.name != Root.name }, pages: pages.map { $0 }, appData: appData)
        } catch {
            throw WebAppError(message: "\(error)")
        }
        try self.init(
            flows: flowApp, pages: pages, deepLinks: deepLinks, context: context, siteName: siteName,
            tabTitle: tabTitle, routeCollections: routeCollections, middleware: middleware,
            backgroundServices: backgroundServices, version: version, migrations: migrations)
    }
}

/// The steps a derived app's root starts with.
private struct StartSteps<Step: FlowStep>: Stepper {
    let initialSteps: [Step]
}
