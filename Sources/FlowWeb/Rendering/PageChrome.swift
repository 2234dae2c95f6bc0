import FlowCore
import MustacheTemplates

/// What the layout shows around a session's page contents, all derived from the tree: the top
/// page and, under a modal, the page it is presented over (which carries the chrome), their
/// titles, the Back and Close links, and the tab bar.
///
/// A value of one version of a session's tree: every rendering of that version has the same
/// chrome, so the page path keeps it per thread (``ShownSession``) instead of walking the
/// tree and asking each tab's first page for its title again. Page titles and
/// ``WebApp/tabTitle`` are read once per version on each thread; they derive from the pages'
/// params and the tree, as their documentation asks.
///
/// A class: one count to take per page, not a dozen (rule 4 of FlowWeb.docc/Performance.md).
final class PageChrome: Sendable {
    /// The page on top: the page itself, or the modal's page.
    let top: PageNode
    /// The page that carries the chrome: `top`, or the page under the modal.
    let base: PageNode
    /// The document's title: the top page's title and the site's name.
    let documentTitle: String
    /// The base page's title.
    let baseTitle: String
    /// The base page's Back link (`null` when it has none).
    let baseBack: TemplateValue
    /// The tab bar of the nearest tabs flow above the base page, or `null`.
    let tabBar: TemplateValue
    /// The modal's `title`, `close` and `back` fields, when `top` is presented over `base`
    /// (its `html` is added for each rendering).
    let modal: TemplateObject?

    /// The chrome of `tree`'s top page, with `app`'s titles.
    init(_ tree: NavigationTree, app: WebAppPages) throws(WebError) {
        // The top page and the flows above it, in one walk.
        var topAncestry: [(flow: FlowNode, via: Attachment)] = []
        topAncestry.reserveCapacity(8)
        guard let top = tree.root.topPage(path: &topAncestry) else { throw .internalError("the session shows no page") }
        let topTitle = app.title(of: top)
        var base = top
        var baseTitle = topTitle
        var baseAncestry = topAncestry
        var modal: TemplateObject?
        if let presenter = topAncestry.lastIndex(where: { $0.via == .presented }) {
            var belowAncestry = Array(topAncestry[..<presenter])
            if let below = topAncestry[presenter].flow.topPage(ignoringPresented: true, path: &belowAncestry) {
                (base, baseTitle, baseAncestry) = (below, app.title(of: below), belowAncestry)
                var fields = TemplateObject(capacity: 4)
                fields.append("title", .string(topTitle))
                fields.append("close", app.renderer(for: top.page)?.modalClosable == false ? .null : .string(below.url))
                fields.append("back", Self.backURL(of: top, owner: topAncestry.last?.flow))
                modal = fields
            }
        }
        self.top = top
        self.base = base
        self.documentTitle = topTitle + " · " + app.siteName
        self.baseTitle = baseTitle
        self.baseBack = Self.backURL(of: base, owner: baseAncestry.last?.flow)
        self.tabBar = Self.tabBar(in: baseAncestry, of: tree, app: app)
        self.modal = modal
    }

    /// The previous page in the stack of `owner`, the page's flow (a split's master for its
    /// detail), or `null`.
    private static func backURL(of page: PageNode, owner: FlowNode?) -> TemplateValue {
        guard let owner, owner.container == .stack || owner.container == .split,
            let index = owner.children.lastIndex(where: { $0.id == page.id }), index > 0,
            case .page(let previous) = owner.children[index - 1]
        else { return .null }
        return .string(previous.url)
    }

    /// The tab bar of the nearest tabs flow above the page, or `null`.
    private static func tabBar(
        in ancestry: [(flow: FlowNode, via: Attachment)], of tree: NavigationTree, app: WebAppPages
    ) -> TemplateValue {
        guard let tabsFlow = ancestry.last(where: { $0.flow.container == .tabs })?.flow else { return .null }
        var tabs: [TemplateValue] = []
        tabs.reserveCapacity(tabsFlow.children.count)
        for (index, child) in tabsFlow.children.enumerated() {
            guard case .flow(let tab) = child, let visible = tab.containerTopPage else { continue }
            var fields = TemplateObject(capacity: 3)
            fields.append(
                "title", .string(app.tabTitle?(tab, tree) ?? firstPageTitle(of: tab, app: app) ?? tab.flow.name))
            fields.append("url", .string(visible.url))
            fields.append("selected", .bool(index == tabsFlow.selected))
            tabs.append(.object(fields))
        }
        var bar = TemplateObject(capacity: 1)
        bar.append("tabs", .list(tabs))
        return .object(bar)
    }

    private static func firstPageTitle(of flow: FlowNode, app: WebAppPages) -> String? {
        switch flow.children.first {
        case .page(let page)?: app.title(of: page)
        case .flow(let inner)?: firstPageTitle(of: inner, app: app)
        case nil: nil
        }
    }
}
