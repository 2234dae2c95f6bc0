import FlowCore
import FlowWeb
import Foundation

/// The login form of onboarding.
public struct LoginPage: WebPage {
    public static let name = "login"
    public static let template = "pages/login"
    public var path: PagePath { "/onboarding/login" }
    public var title: String { "Welcome" }
    public static var modalClosable: Bool { false }
    public struct Model: Encodable {}
    public func model(in context: PageContext) throws -> Model { Model() }
    public func validate(step: String, fields: [String: String]) -> [String: String] {
        required("name", in: fields, message: "Enter your name to continue.")
    }
}

/// The API key form of onboarding.
public struct APIKeyPage: WebPage {
    public static let name = "apikey"
    public static let template = "pages/apikey"
    public var path: PagePath { "/onboarding/apikey" }
    public var title: String { "Your API key" }
    public static var modalClosable: Bool { false }
    public struct Model: Encodable {}
    public func model(in context: PageContext) throws -> Model { Model() }
    public func validate(step: String, fields: [String: String]) -> [String: String] {
        required("apiKey", in: fields, message: "Enter an API key (any text will do in the demo).")
    }
}
