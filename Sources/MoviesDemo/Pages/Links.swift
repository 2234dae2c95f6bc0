import FlowWeb
import MustacheTemplates

/// A link in a view model.
public struct LinkModel: Encodable, Sendable, TemplateValueConvertible {
    /// What it says.
    public var label: String
    /// Where it goes.
    public var href: String
    /// A second line (a year, a role).
    public var detail: String?

    public var templateValue: TemplateValue {
        var object = TemplateObject(capacity: 3)
        object.append("label", .string(label))
        object.append("href", .string(href))
        object.append("detail", detail.map { .string($0) } ?? .null)
        return .object(object)
    }
}

extension TemplateValue {
    /// An object whose one field, `key`, lists `links` (with room for the fields FlowWeb adds).
    static func links(_ links: [LinkModel], as key: String) -> TemplateValue {
        var object = TemplateObject(capacity: 3)
        object.append(key, .list(links.map(\.templateValue)))
        return .object(object)
    }
}

extension PageContext {
    /// Links to cast members.
    func castLinks(_ members: some Sequence<MovieCatalog.CastMember>) -> [LinkModel] {
        members.map { LinkModel(label: $0.name, href: link(to: DemoStep.castIsPicked(withId: $0.id))) }
    }

    /// Links to movies.
    func movieLinks(_ movies: [MovieCatalog.Movie]) -> [LinkModel] {
        movies.map {
            LinkModel(label: $0.title, href: link(to: DemoStep.movieIsPicked(withId: $0.id)), detail: String($0.year))
        }
    }

    /// The catalog the demo was given (the shipped one by default).
    var catalog: MovieCatalog { services[MovieCatalog.self] ?? .demo }
}

/// A form's model: the hidden fields are added by FlowWeb as `formFields`, the input and
/// messages of a form its page found invalid as `form`.
func required(_ field: String, in fields: [String: String], message: String) -> [String: String] {
    fields[field, default: ""].trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? [field: message] : [:]
}
