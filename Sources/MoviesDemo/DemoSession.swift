import FlowCore

/// What the demo keeps per session beside the tree (its ``FlowCore/AppData``): whether the user
/// went through onboarding, and the preferences the login and API key forms set.
public struct DemoSession: AppData {
    /// Whether the session went through onboarding.
    public var onboarded = false
    /// The user's name, from the login form (onboarding or settings).
    public var userName: String?
    /// The API key, from the API key form (onboarding or settings).
    public var apiKey: String?

    /// A new session's data: not onboarded, no preferences.
    public init() {}

    /// The API key with all but its last four characters hidden, for display.
    public var maskedAPIKey: String? {
        guard let apiKey else { return nil }
        return String(repeating: "•", count: max(0, min(apiKey.count - 4, 12))) + apiKey.suffix(4)
    }
}
