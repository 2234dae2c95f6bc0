import FlowCore
import MicroHTTP
import MustacheTemplates

/// Renders a session's top page inside the layout: its content, the Back link, the tab bar, a
/// presented page as a modal over the dimmed page below (with a Close link to it), the pages of
/// flows embedded in it, and a notice.
///
/// Templates: `layout` (the document) receives `title`, `siteName`, `notice`, `main`
/// (`html`, `back`, `title`), `tabBar` (`null`, or `tabs`: `title`, `url`, `selected`),
/// `modal` (`html`, `title`, `close`, `back`) and `csrf`; each page's own template renders a fragment
/// from its view model.
///
/// A class: one reference for every page's call, not a count for each of its references
/// (rule 4 of FlowWeb.docc/Performance.md).
final class PageComposer: Sendable {
    /// A form its page found invalid, shown again with messages: the input to keep and the
    /// messages (``LoadedSession/failedForm``).
    struct FormState: Sendable {
        var page: NodeID
        var values: [String: String]
        var errors: [String: String]
    }

    /// The headers of HTML pages (the page path reads its thread's copy).
    private let htmlPageHeaders: HTTPHeaders

    /// What the app gives rendering.
    let app: WebAppPages
    let templates: TemplateLibrary

    /// What every page reads from memory the threads share, copied for each thread: the
    /// services view models read (with a table of their own, see
    /// `FlowContext.withOwnStorage()` here in Rendering/), the site's name and the HTML headers. Read from one
    /// shared copy, each page wrote their reference counts from every thread.
    private let threadCopies: PerThread<ThreadCopies>

    /// One thread's copies.
    private final class ThreadCopies {
        let services: FlowContext
        let siteName: String
        let htmlPageHeaders: HTTPHeaders

        init(services: FlowContext, siteName: String, headers: SecurityHeaders) {
            self.services = services.withOwnStorage()
            self.siteName = siteName.ownCopy
            htmlPageHeaders = headers.page
        }
    }

    /// A composer of `app`'s pages with `templates`.
    init<Step: FlowStep>(app: WebApp<Step>, templates: TemplateLibrary, headers: SecurityHeaders) {
        self.app = app.pages
        self.templates = templates
        htmlPageHeaders = headers.page
        let (services, siteName) = (app.pages.services, app.pages.siteName)
        threadCopies = PerThread { ThreadCopies(services: services, siteName: siteName, headers: headers) }
    }

    /// The HTML of the session's top page, around it `chrome`, the chrome of the session's tree
    /// (made from the tree when not given), with `form` (by default the session's failed form)
    /// shown again on its page.
    func render(
        _ session: LoadedSession, notice: String?, status: HTTPStatus = .ok, form givenForm: FormState? = nil,
        chrome given: PageChrome? = nil
    ) throws(WebError) -> Response {
        let form = givenForm ?? session.failedForm
        let chrome: PageChrome
        if let given { chrome = given } else { chrome = try self.chrome(of: session) }
        var modal: TemplateValue = .null
        if var fields = chrome.modal {
            fields.append("html", .string(try fragment(chrome.top, session, form: form)))
            modal = .object(fields)
        }
        // Objects are built field by field: a literal would build a temporary array first.
        var main = TemplateObject(capacity: 3)
        main.append("html", .string(try fragment(chrome.base, session, form: form)))
        main.append("title", .string(chrome.baseTitle))
        main.append("back", chrome.baseBack)
        var context = TemplateObject(capacity: 8)
        let copies = threadCopies.current
        context.append("siteName", .string(copies.siteName))
        context.append("title", .string(chrome.documentTitle))
        context.append("notice", (notice ?? session.notice).map { .string($0) } ?? .null)
        context.append("main", .object(main))
        context.append("tabBar", chrome.tabBar)
        context.append("modal", modal)
        context.append("csrf", .string(session.record.csrfToken))
        context.append("version", .int(session.record.version))
        let html: [UInt8]
        do { html = try templates.render("layout", context: .object(context)) } catch {
            throw .internalError("the layout cannot render: \(error)")
        }
        return Response(
            status: status, headers: copies.htmlPageHeaders, body: html)
    }

    /// The chrome of `session`'s top page.
    func chrome(of session: LoadedSession) throws(WebError) -> PageChrome {
        try PageChrome(session.tree, app: app)
    }

    /// The fragment of the page on top of `session`'s tree (a presented page's when one is).
    func topFragment(of session: LoadedSession) throws(WebError) -> String {
        try fragment(try chrome(of: session).top, session)
    }

    /// A page's fragment, with the fragments of the flows embedded in it appended.
    private func fragment(_ page: PageNode, _ session: LoadedSession, form: FormState? = nil) throws(WebError) -> String
    {
        guard let renderer = app.renderer(for: page.page) else {
            throw .internalError("page \(page.page.name) has no renderer")
        }
        let context = PageContext(
            services: threadCopies.current.services.reading(session.tree.appData), node: page.id,
            renderID: RenderID.next(),
            csrfToken: session.record.csrfToken)
        do {
            var model = try renderer.model(page.page.base, context)
            var embedded: [TemplateValue] = []
            for flow in page.embedded {
                if let inner = flow.topPage {
                    embedded.append(["html": .string(try fragment(inner, session)), "flow": .string(flow.flow.name)])
                }
            }
            if case .object(var object) = model {
                model = .null  // so that `object` is the only reference and grows in place
                object["embedded"] = .list(embedded)
                object["formFields"] = .string(context.formFields)
                if let form, form.page == page.id {
                    object["form"] = [
                        "values": .object(TemplateObject(form.values.mapValues { .string($0) })),
                        "errors": .object(TemplateObject(form.errors.mapValues { .string($0) })),
                    ]
                }
                model = .object(object)
            }
            return try templates.renderText(renderer.template, context: model)
        } catch let error as WebError {
            throw error
        } catch {
            throw .internalError("page \(page.page.name) cannot render: \(error)")
        }
    }

    /// Any HTML inside the layout (the inspector).
    func layout(title: String, html: String, session: LoadedSession) -> Response {
        let context: TemplateValue = [
            "siteName": .string(app.siteName), "title": .string("\(title) · \(app.siteName)"), "notice": .null,
            "main": ["html": .string(html), "title": .string(title), "back": .null],
            "tabBar": .null, "modal": .null, "csrf": .string(session.record.csrfToken),
        ]
        let body = (try? templates.render("layout", context: context)) ?? Array(html.utf8)
        return Response(status: .ok, headers: htmlPageHeaders, body: body)
    }

    /// The error page, in the layout when it can render, plain otherwise.
    func errorPage(_ error: WebError, topURL: String?) -> Response {
        let fragment = errorFragment(error, topURL: topURL)
        let context: TemplateValue = [
            "siteName": .string(app.siteName), "title": .string("\(error.title) · \(app.siteName)"), "notice": .null,
            "main": ["html": .string(fragment), "title": .string(error.title), "back": .null],
            "tabBar": .null, "modal": .null, "csrf": .string(""),
        ]
        let body = (try? templates.render("layout", context: context)) ?? Array(fragment.utf8)
        var response = Response(status: error.status, headers: htmlPageHeaders, body: body)
        for field in error.headers { response.headers.add(field.name, field.value) }
        return response
    }

    /// The error's content: the `error` template (FlowWeb's default or the app's), or plain
    /// HTML when it cannot render.
    private func errorFragment(_ error: WebError, topURL: String?) -> String {
        let back: TemplateValue = [
            "url": .string(topURL ?? "/"), "label": .string(topURL == nil ? "Home" : "Back to where you were"),
        ]
        let context: TemplateValue = ["title": .string(error.title), "detail": .string(error.detail), "back": back]
        if let html = try? templates.renderText("error", context: context) { return html }
        let link =
            "<p><a href=\"\(Self.escape(topURL ?? "/"))\">\(topURL == nil ? "Home" : "Back to where you were")</a></p>"
        return
            "<section class=\"error-page\"><h1>\(Self.escape(error.title))</h1><p>\(Self.escape(error.detail))</p>\(link)</section>"
    }

    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
