import FlowCore

/// What identifies a state for the explorer: the tree's value (flow states, pages and their
/// params, tab selections, recent dismissals) with its node ids numbered in the order they
/// appear, and the app data. Node ids only grow within a session, so a page pushed, popped and
/// pushed again is the same state under a new id; renumbering makes it one.
struct StateKey: Hashable {
    private let text: String

    /// The key of a tree encoded as `tree` (``NavigationTree/jsonBytes()``) with app data
    /// `appData`.
    init(tree: [UInt8], appData: [UInt8]) throws {
        var numbers: [Int: Int] = [:]
        let canonical = Self.renumbered(try JSON(parsing: tree), &numbers)
        text = String(decoding: canonical.bytes, as: UTF8.self) + "|" + String(decoding: appData, as: UTF8.self)
    }

    private static func renumbered(_ value: JSON, _ numbers: inout [Int: Int]) -> JSON {
        switch value {
        case .array(let items):
            return .array(items.map { renumbered($0, &numbers) })
        case .object(let fields):
            var result: [(key: String, value: JSON)] = []
            for field in fields where field.key != "nextNode" {
                if field.key == "node" || (field.key == "flow" && Self.isInt(field.value)),
                    case .int(let id) = field.value
                {
                    let number = numbers[id] ?? numbers.count + 1
                    numbers[id] = number
                    result.append((field.key, .int(number)))
                } else if field.key == "state" || field.key == "params" {
                    result.append(field)  // the app's own values
                } else {
                    result.append((field.key, renumbered(field.value, &numbers)))
                }
            }
            return .object(result)
        default:
            return value
        }
    }

    private static func isInt(_ value: JSON) -> Bool {
        if case .int = value { return true }
        return false
    }
}
