/// How the web layer treats sessions and input.
public struct WebConfiguration: Sendable {
    /// Idle seconds before a session expires (counted from its last change).
    public var sessionTTL: Int
    /// Whether the session cookie carries `Secure`.
    public var secureCookies: Bool
    /// The directory served under `/public/` (`nil`: none).
    public var publicDirectory: String?
    /// The most form or query fields accepted (more: `413`).
    public var maxFields: Int

    /// A configuration with safe defaults.
    public init(sessionTTL: Int = 86_400, secureCookies: Bool = false, publicDirectory: String? = nil, maxFields: Int = 1000) {
        self.sessionTTL = sessionTTL
        self.secureCookies = secureCookies
        self.publicDirectory = publicDirectory
        self.maxFields = maxFields
    }

    /// The session cookie's name.
    public static let cookieName = "flowserver_session"
}
