/// A view model that builds its own ``TemplateValue``, which ``TemplateValueEncoder`` then uses
/// instead of encoding it through `Encodable`.
///
/// Encoding goes through `Encoder`'s containers, generic over every key type and value: for a
/// view model rendered on every request it can cost more than rendering the template. A model
/// that builds its value itself skips all of that:
///
/// ```swift
/// struct MovieModel: Encodable, TemplateValueConvertible {
///     var title: String
///     var year: Int
///     var templateValue: TemplateValue {
///         var object = TemplateObject(capacity: 2)
///         object.append("title", .string(title))
///         object.append("year", .int(year))
///         return .object(object)
///     }
/// }
/// ```
///
/// The encoder asks only the value it was given (the top-level model), not the values nested
/// in an encoded model: a model that converts itself converts its nested values too. Keep the
/// value equal to what encoding would give (same keys, `null` for a `nil` optional), so that
/// templates render the same either way; a test comparing the two keeps them in step.
public protocol TemplateValueConvertible {
    /// The template value of this model.
    var templateValue: TemplateValue { get }
}

extension TemplateValueConvertible {
    /// The template value of the model of this type at `pointer`.
    static func templateValue(at pointer: UnsafeRawPointer) -> TemplateValue {
        pointer.assumingMemoryBound(to: Self.self).pointee.templateValue
    }
}
