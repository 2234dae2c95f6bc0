import FlowCore
import MustacheTemplates
import Testing

@testable import FlowWeb
@testable import MoviesDemo

/// The demo's view models build their template values themselves (``TemplateValueConvertible``);
/// these must equal what encoding them gives, or a page would render differently from its
/// `Encodable` form.
@Suite("Demo view models")
struct ViewModelTests {
    /// Encodes a model through `Encodable` even when it converts itself: the encoder asks only
    /// the top-level value, which here is this wrapper.
    private struct Encoded<Model: Encodable>: Encodable {
        let model: Model
        func encode(to encoder: any Encoder) throws { try model.encode(to: encoder) }
    }

    private func compare<P: WebPage>(_ page: P, appData: DemoSession, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        var services = FlowContext()
        services.register(MovieCatalog.demo)
        let context = PageContext(
            services: services.reading(AnyAppData(appData)), node: NodeID(rawValue: 7), renderID: "0123456789abcdef",
            csrfToken: "t")
        let model = try page.model(in: context)
        let convertible = try #require(
            model as? any TemplateValueConvertible, "\(P.name)'s model builds no template value",
            sourceLocation: sourceLocation)
        let encoded = try TemplateValueEncoder().encode(Encoded(model: model))
        #expect(convertible.templateValue == encoded, "\(P.name)", sourceLocation: sourceLocation)
        #expect(try TemplateValueEncoder().encode(model) == encoded, "\(P.name)", sourceLocation: sourceLocation)
    }

    @Test("every model with fields builds the value its encoding gives, with and without the optional fields")
    func directValuesMatchEncoding() throws {
        var preferences = DemoSession()
        preferences.userName = "Ada"
        preferences.apiKey = "secret-key"
        for appData in [DemoSession(), preferences] {
            try compare(WishlistPage(), appData: appData)
            try compare(WatchedPage(), appData: appData)
            try compare(MoviePage(id: 1), appData: appData)
            try compare(MoviePage(id: 999), appData: appData)
            try compare(CastPage(id: 1), appData: appData)
            try compare(TrendingMoviesPage(), appData: appData)
            try compare(CastListPage(), appData: appData)
            try compare(SettingsPage(), appData: appData)
            for section in [SettingsDetailPage.Section.login, .apiKey, .about] {
                try compare(SettingsDetailPage(section: section), appData: appData)
            }
            try compare(AlertPage(message: "Nope <b>"), appData: appData)
        }
    }

    @Test("a movie's links carry their detail line, or null without one")
    func linkDetail() throws {
        let with = LinkModel(label: "Alien", href: "/x", detail: "1979").templateValue
        let without = LinkModel(label: "Alien", href: "/x", detail: nil).templateValue
        #expect(with["detail"] == "1979")
        #expect(without["detail"] == .null)
    }
}
