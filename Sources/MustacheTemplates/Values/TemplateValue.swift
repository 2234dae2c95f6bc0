/// A value that templates render: the context type of ``TemplateLibrary``.
///
/// Build it directly, or from any `Encodable` view model with ``TemplateValueEncoder``:
///
/// ```swift
/// let context: TemplateValue = ["title": "Movies", "movies": [["title": "Alien", "year": 1979]]]
/// let same = try TemplateValueEncoder().encode(MoviesPage(title: "Movies", movies: [...]))
/// ```
///
/// Truthiness in sections: `null`, `false` and an empty list are falsey; everything else
/// (an empty string included) is truthy.
public enum TemplateValue: Sendable, Hashable {
    /// Nothing: renders as the empty string and is falsey.
    case null
    /// A boolean.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// A floating-point number, rendered in its shortest exact form (`1.21`).
    case double(Double)
    /// Text, HTML-escaped by `{{name}}`, raw in `{{{name}}}` and `{{&name}}`.
    case string(String)
    /// A list: a section repeats for each element.
    case list([TemplateValue])
    /// Named values: a section pushes it on the context stack.
    case object(TemplateObject)

    /// Whether a section renders for this value (not `null`, `false` or an empty list).
    public var isTruthy: Bool {
        switch self {
        case .null, .bool(false): false
        case .list(let items): !items.isEmpty
        default: true
        }
    }

    /// The value of `key` when this is an object.
    public subscript(key: String) -> TemplateValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }
}

extension TemplateValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: TemplateValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        var object = TemplateObject(capacity: elements.count)
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
    public init(nilLiteral: ()) { self = .null }
}
