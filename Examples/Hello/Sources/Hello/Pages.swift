import FlowCore
import FlowWeb

/// The form that asks for a name.
struct NamePage: WebPage {
    static let name = "name"
    static let template = "pages/name"
    var path: String { "/name" }
    var title: String { "Your name" }

    struct Model: Encodable {}
    func model(in context: PageContext) throws -> Model { Model() }

    func validate(step: String, fields: [String: String]) -> [String: String] {
        fields["name", default: ""].isEmpty ? ["name": "Enter your name."] : [:]
    }
}

/// The greeting, at `/hello/<name>`.
struct GreetingPage: WebPage {
    static let name = "greeting"
    static let template = "pages/greeting"
    var name: String
    var path: String { "/hello/\(name)" }
    var title: String { "Hello" }

    struct Model: Encodable {
        var name: String
        var again: String
    }

    func model(in context: PageContext) throws -> Model {
        Model(name: name, again: context.link(to: HelloStep.nameIsRequired))
    }
}
