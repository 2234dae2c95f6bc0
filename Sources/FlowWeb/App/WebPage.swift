import FlowCore
import MustacheTemplates

/// A page the web layer can render: a `FlowCore` `Page` with a template and a view model.
///
/// ```swift
/// struct MoviePage: WebPage {
///     static let name = "movie"
///     static let template = "pages/movie"
///     var id: Int
///     var path: PagePath { "/movies/\(id)" }
///     var title: String { "Movie" }
///     func model(in context: PageContext) throws -> MovieModel {
///         let movie = context.services[MovieCatalog.self]!.movie(id)!
///         return MovieModel(title: movie.title, castLinks: movie.cast.map { context.link(to: DemoStep.castIsPicked(withId: $0.id)) })
///     }
/// }
/// ```
public protocol WebPage: Page {
    /// The page's view model, encoded for its template by `TemplateValueEncoder`; a model that
    /// is also `TemplateValueConvertible` builds its template value itself, which is faster.
    associatedtype Model: Encodable
    /// The name of the template that renders the page's content (a fragment; the layout wraps it).
    static var template: String { get }
    /// The page's title: the document title, and a tab's name when the page leads a tab.
    ///
    /// Derive it from the page's params (and constants): like everything else the tree decides
    /// around a page (Back, Close, the tab bar), it is read once per version of a session on each
    /// server thread and reused while the session stays at that version. Data that changes
    /// under an unchanged session belongs in the view model, which is built for every rendering.
    var title: String { get }
    /// Whether the page, shown in a modal, offers a Close link to the page below (default
    /// `true`; onboarding turns it off).
    static var modalClosable: Bool { get }
    /// The view model to render, built from the page's params and the services.
    func model(in context: PageContext) throws -> Model
    /// Checks a form sent from this page before it becomes a step: messages by field name
    /// (`["name": "Enter your name."]`). Any message sends the browser back to this page (a
    /// `303`, so no POST stays in its history), rendered again with its model getting
    /// `form.values` (the input) and `form.errors` (the messages); the tree does not change. By
    /// default every form is valid.
    func validate(step: String, fields: [String: String]) -> [String: String]
}

extension WebPage {
    public func validate(step: String, fields: [String: String]) -> [String: String] { [:] }
    public static var modalClosable: Bool { true }
}

/// What a page's view model may use: services, and links and form fields for steps that come
/// from this page's rendering.
public struct PageContext: Sendable {
    /// The app's services, and the session's app data (read-only: `services.appData(MyData.self)`).
    public let services: FlowContext
    /// The page's node.
    public let node: NodeID
    /// This rendering's id (`_r`), which makes a double submit detectable.
    public let renderID: String
    /// The session's CSRF token.
    public let csrfToken: String

    /// A link that sends `step` from this page: `/_step/<name>?<params>&_from=<node>&_r=<render>`.
    public func link<Step: FlowStep>(to step: Step) -> String {
        let base = StepLinkCache.shared.link(for: step) { step in
            guard let wire = try? WireStep(step) else { return "/_step?" }
            let query = wire.params.sorted { $0.key < $1.key }
                .map { "\(FormEncoding.escape($0.key))=\(FormEncoding.escape($0.value.formValue))&" }.joined()
            return "/_step/\(FormEncoding.escape(wire.name))?" + query
        }
        return Self.link(base, from: node.rawValue, render: renderID)
    }

    /// `base` followed by `_from=<node>&_r=<render>`.
    static func link(_ base: String, from node: Int, render: String) -> String {
        ExactText.make { text in
            text.append(base)
            text.append("_from=" as StaticString)
            text.append(node)
            text.append("&_r=" as StaticString)
            text.append(render)
        }
    }

    /// Hidden form fields for a POST to `/_step` from this page: `_from`, `_r` and `_csrf`.
    /// Put them inside the form with a triple mustache: `{{{formFields}}}`.
    public var formFields: String {
        ExactText.make { html in
            html.append(#"<input type="hidden" name="_from" value=""# as StaticString)
            html.append(node.rawValue)
            html.append(#""><input type="hidden" name="_r" value=""# as StaticString)
            html.append(renderID)
            html.append(#""><input type="hidden" name="_csrf" value=""# as StaticString)
            html.append(csrfToken)
            html.append(#"">"# as StaticString)
        }
    }
}

/// Renders the pages of one type; built once per registered type, so rendering needs no casts
/// to protocols with associated types.
///
/// A value holding only the page's type: reading one out of the app's table costs no reference
/// count (a shared object's count, written by every thread that renders, was cross-core traffic
/// on every page).
struct PageRenderer: Sendable {
    let type: any WebPage.Type

    init(_ type: any WebPage.Type) {
        self.type = type
    }

    /// The name of the template that renders the page's content.
    var template: String { type.template }
    /// Whether the page, shown in a modal, offers a Close link.
    var modalClosable: Bool { type.modalClosable }

    /// The title of `page`, a page of this type.
    func title(_ page: any Page) -> String { type.title(of: page) }

    /// The view model of `page`, a page of this type, encoded for its template.
    func model(_ page: any Page, _ context: PageContext) throws -> TemplateValue {
        try type.encodedModel(of: page, context)
    }

    /// The messages for a form sent from `page`, a page of this type.
    func validate(_ page: any Page, _ step: String, _ fields: [String: String]) -> [String: String] {
        type.validate(page, step: step, fields: fields)
    }
}

/// What ``PageRenderer`` calls on a page type it holds as `any WebPage.Type`.
extension WebPage {
    static func title(of page: any Page) -> String { concrete(page).title }

    static func encodedModel(of page: any Page, _ context: PageContext) throws -> TemplateValue {
        try TemplateValueEncoder().encode(concrete(page).model(in: context))
    }

    static func validate(_ page: any Page, step: String, fields: [String: String]) -> [String: String] {
        concrete(page).validate(step: step, fields: fields)
    }

    /// `page`, which is of this type, as this type: the renderer holding this type was found by
    /// the page's type, so comparing the types replaces a dynamic cast, which searches
    /// conformances (several per page).
    private static func concrete(_ page: any Page) -> Self {
        func open<P: Page>(_ page: P) -> Self {
            precondition(P.self == Self.self, "a page of type \(P.self) was given to the renderer of \(Self.self)")
            return withUnsafePointer(to: page) { $0.withMemoryRebound(to: Self.self, capacity: 1) { $0.pointee } }
        }
        return open(page)
    }
}
