/// The id of a page or flow node: unique within a session's tree, never reused, kept when the
/// tree is encoded. Links and forms name pages by it (`_from`).
public struct NodeID: RawRepresentable, Hashable, Comparable, Codable, Sendable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    /// The number.
    public let rawValue: Int

    /// Wraps a number.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// A literal id, for tests.
    public init(integerLiteral value: Int) { rawValue = value }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: NodeID, rhs: NodeID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}
