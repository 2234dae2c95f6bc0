import FlowCore
import FlowWeb
import MustacheTemplates

/// The settings master page.
public struct SettingsPage: WebPage {
    public static let name = "settings"
    public static let template = "pages/settings"
    public var path: PagePath { "/settings" }
    public var title: String { "Settings" }
    public struct Model: Encodable, TemplateValueConvertible {
        var login: String
        var apiKey: String
        var about: String
        var done: String
        /// The saved preferences, from the session's app data.
        var userName: String?
        var maskedAPIKey: String?

        public var templateValue: TemplateValue {
            var object = TemplateObject(capacity: 8)
            object.append("login", .string(login))
            object.append("apiKey", .string(apiKey))
            object.append("about", .string(about))
            object.append("done", .string(done))
            object.append("userName", userName.map { .string($0) } ?? .null)
            object.append("maskedAPIKey", maskedAPIKey.map { .string($0) } ?? .null)
            return .object(object)
        }
    }
    public func model(in context: PageContext) throws -> Model {
        let session = context.services.appData(DemoSession.self)
        return Model(
            login: context.link(to: DemoStep.loginIsRequired), apiKey: context.link(to: DemoStep.apiKeyIsRequired),
            about: context.link(to: DemoStep.aboutIsRequired), done: context.link(to: DemoStep.settingsAreComplete),
            userName: session.userName, maskedAPIKey: session.maskedAPIKey)
    }
}

/// A settings detail page.
public struct SettingsDetailPage: WebPage {
    /// Which detail.
    public enum Section: String, Codable, Sendable {
        case login
        case apiKey = "apikey"
        case about
    }

    public static let name = "settings-detail"
    public static let template = "pages/settings-detail"
    public var section: Section
    public var path: PagePath { "/settings/\(section.rawValue)" }
    public var title: String {
        switch section {
        case .login: "Login"
        case .apiKey: "API key"
        case .about: "About this demo"
        }
    }
    public struct Model: Encodable, TemplateValueConvertible {
        var login: Bool
        var apiKey: Bool
        var about: Bool
        /// The saved name, to prefill the login form.
        var userName: String?

        public var templateValue: TemplateValue {
            var object = TemplateObject(capacity: 7)
            object.append("login", .bool(login))
            object.append("apiKey", .bool(apiKey))
            object.append("about", .bool(about))
            object.append("userName", userName.map { .string($0) } ?? .null)
            return .object(object)
        }
    }
    public func model(in context: PageContext) throws -> Model {
        Model(
            login: section == .login, apiKey: section == .apiKey, about: section == .about,
            userName: context.services.appData(DemoSession.self).userName)
    }
    public func validate(step: String, fields: [String: String]) -> [String: String] {
        switch step {
        case "userIsLoggedIn": required("name", in: fields, message: "Enter a name.")
        case "apiKeyIsFilledIn": required("apiKey", in: fields, message: "Enter an API key.")
        default: [:]
        }
    }
}

/// The about page, presented over the wishlist.
public struct AboutPage: WebPage {
    public static let name = "about"
    public static let template = "pages/about"
    public var path: PagePath { "/about" }
    public var title: String { "About" }
    public struct Model: Encodable {}
    public func model(in context: PageContext) throws -> Model { Model() }
}

/// An alert: a message presented as a dialog.
public struct AlertPage: WebPage {
    public static let name = "alert"
    public static let template = "pages/alert"
    public var message: String
    public var path: PagePath { "/alert" }
    public var title: String { "Notice" }
    public struct Model: Encodable, TemplateValueConvertible {
        var message: String

        public var templateValue: TemplateValue {
            var object = TemplateObject(capacity: 3)
            object.append("message", .string(message))
            return .object(object)
        }
    }
    public func model(in context: PageContext) throws -> Model { Model(message: message) }
}
