import FlowServer

/// Help, presented over whichever page asked for it; Close goes back to that page.
public struct HelpPage: WebPage {
    public static let name = "help"
    public static let template = "pages/help"
    public var path: PagePath { "/help" }
    public var title: String { "Help" }

    /// A new help page.
    public init() {}

    /// The help template needs nothing.
    public struct Model: Encodable {}

    public func model(in context: PageContext) throws -> Model { Model() }
}

/// A short message presented over the page (the cart is empty).
public struct NoticePage: WebPage {
    public static let name = "notice"
    public static let template = "pages/notice"
    /// What it says.
    public var message: String
    public var path: PagePath { "/notice" }
    public var title: String { "Notice" }

    /// A notice saying `message`.
    public init(message: String) { self.message = message }

    /// What the notice template shows.
    public struct Model: Encodable {
        var message: String
    }

    public func model(in context: PageContext) throws -> Model { Model(message: message) }
}
