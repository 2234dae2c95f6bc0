import FlowCore

/// A step as links, forms and the JSON API carry it: a `name` and flat `params`
/// (`{"name":"movieIsPicked","params":{"withId":42}}`).
public struct WireStep: Codable, Sendable, Hashable {
    /// The case name.
    public var name: String
    /// The associated values by label (`_0`, `_1` … for unlabeled ones).
    public var params: [String: WireValue]

    /// A wire step.
    public init(name: String, params: [String: WireValue] = [:]) {
        self.name = name
        self.params = params
    }

    private enum CodingKeys: String, CodingKey { case name, params }

    /// Decodes `{"name": …, "params": {…}}`; `params` may be left out when the step has none, but
    /// not be `null` (what the API's document does not describe is refused).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        if container.contains(.params), try container.decodeNil(forKey: .params) {
            throw DecodingError.dataCorruptedError(
                forKey: .params, in: container,
                debugDescription: "\"params\" must be an object (leave it out when the step has none), not null")
        }
        params = try container.decodeIfPresent([String: WireValue].self, forKey: .params) ?? [:]
    }

    /// `{"name": …, "params": {…}?}` read straight from `json` when every param is text, an
    /// integer or a boolean, each key once; `nil` otherwise (``init(from:)`` then says what does
    /// not fit, or reads what it can).
    init?(direct json: JSON) {
        guard case .object(let fields) = json, case .string(let name)? = json["name"] else { return nil }
        var params: [String: WireValue] = [:]
        switch json["params"] {
        case nil: guard fields.count == 1 else { return nil }
        case .object(let values)?:
            guard fields.count == 2 else { return nil }
            params.reserveCapacity(values.count)
            for (key, value) in values {
                switch value {
                case .string(let text): params[key] = .string(text)
                case .int(let number): params[key] = .int(number)
                case .bool(let flag): params[key] = .bool(flag)
                default: return nil
                }
            }
            guard params.count == values.count else { return nil }
        default: return nil
        }
        self.init(name: name, params: params)
    }

    /// The wire form of a typed step (its `Codable` form, flattened).
    ///
    /// - Throws: ``StepDecodingError`` when an associated value is not a string, number or
    ///   boolean (wire params are flat).
    public init<Step: FlowStep>(_ step: Step) throws(StepDecodingError) {
        let value: JSON
        do { value = try CompactJSONEncoder().encodeValue(step) } catch {
            throw StepDecodingError(field: nil, reason: "cannot encode \(step): \(error)")
        }
        guard case .object(let cases) = value, cases.count == 1, case .object(let fields) = cases[0].value else {
            throw StepDecodingError(field: nil, reason: "\(Step.self) does not encode as an enum case")
        }
        var params: [String: WireValue] = [:]
        for (key, field) in fields {
            guard let param = WireValue(field) else {
                throw StepDecodingError(field: key, reason: "only strings, numbers and booleans travel as step params")
            }
            params[key] = param
        }
        self.init(name: cases[0].key, params: params)
    }

    /// The typed step, or why not: an unknown name, a missing or ill-typed param.
    ///
    /// One rule for links, forms and the JSON API: a param takes its own JSON type, or the text a
    /// form field would carry (`"42"` for an integer, `"1.5"` for a number, `"true"`/`"false"`
    /// — also `on`/`off`, `yes`/`no`, `1`/`0` — for a boolean); text that spells no such value
    /// fails with the param's name and the type it needs.
    public func decode<Step: FlowStep>(as type: Step.Type) throws(StepDecodingError) -> Step {
        let value = JSON.object([(name, .object(params.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) }))])
        do {
            return try CompactJSONDecoder(lenientScalars: true).decode(Step.self, from: value)
        } catch let error as DecodingError {
            throw StepDecodingError(error, step: name)
        } catch {
            throw StepDecodingError(field: nil, reason: "\(error)")
        }
    }

    /// A canonical text of the step, for duplicate detection.
    var canonical: String {
        name + "?" + params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.formValue)" }.joined(separator: "&")
    }
}

/// A flat step param.
public enum WireValue: Codable, Sendable, Hashable {
    /// Text.
    case string(String)
    /// An integer.
    case int(Int)
    /// A number with a fraction.
    case double(Double)
    /// A boolean.
    case bool(Bool)

    init?(_ json: JSON) {
        switch json {
        case .string(let text): self = .string(text)
        case .int(let number): self = .int(number)
        case .double(let number): self = .double(number)
        case .bool(let flag): self = .bool(flag)
        default: return nil
        }
    }

    var json: JSON {
        switch self {
        case .string(let text): .string(text)
        case .int(let number): .int(number)
        case .double(let number): .double(number)
        case .bool(let flag): .bool(flag)
        }
    }

    /// The value as a form field would carry it.
    var formValue: String {
        switch self {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Int.self) {
            self = .int(number)
        } else if let number = try? container.decode(Double.self) {
            self = .double(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .int(let number): try container.encode(number)
        case .double(let number): try container.encode(number)
        case .bool(let flag): try container.encode(flag)
        }
    }
}

/// Why a step could not be built: which field and why, in words for the `400` page.
public struct StepDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The param at fault; `nil` when the step itself is unknown.
    public let field: String?
    /// What is wrong.
    public let reason: String

    init(field: String?, reason: String) {
        self.field = field
        self.reason = reason
    }

    init(_ error: DecodingError, step: String) {
        switch error {
        case .keyNotFound(let key, let context) where !context.codingPath.isEmpty:
            self.init(field: key.stringValue, reason: "missing")
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            if context.codingPath.count >= 2, let key = context.codingPath.last {
                self.init(field: key.stringValue, reason: "expected \(Self.describe(type))")
            } else {
                self.init(field: nil, reason: "unknown step \"\(step)\"")
            }
        case .dataCorrupted(let context) where context.codingPath.count >= 2:
            self.init(field: context.codingPath.last!.stringValue, reason: "invalid value")
        default:
            self.init(field: nil, reason: "unknown step \"\(step)\"")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type, is Int32.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        case is Bool.Type: "true or false"
        case is String.Type: "text"
        default: "\(type)"
        }
    }

    /// E.g. `field "withId": expected an integer`.
    public var description: String {
        if let field { return "field \"\(field)\": \(reason)" }
        return reason
    }
}
