/// Whether `rhs` is a `Value` equal to `lhs`: the comparison of two type-erased values (flow
/// states, pages, app data) by one cast. Comparing two `AnyHashable`s instead boxes both values
/// first, and every commit compares the app data it started from with the one it ends with.
func isEqual<Value: Equatable>(_ lhs: Value, to rhs: Any) -> Bool {
    guard let rhs = rhs as? Value else { return false }
    return lhs == rhs
}
