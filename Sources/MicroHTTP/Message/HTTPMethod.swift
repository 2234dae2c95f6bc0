/// An HTTP request method such as `GET` or `POST`, compared exactly (methods are case-sensitive).
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method token as sent on the request line.
    public let rawValue: String

    /// Wraps a method token.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// `GET`
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD`, answered like `GET` without a body.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `POST`
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `OPTIONS`
    public static let options = HTTPMethod(rawValue: "OPTIONS")
}
