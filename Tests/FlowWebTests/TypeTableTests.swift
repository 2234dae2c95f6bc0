import Testing

@testable import FlowWeb

@Suite("TypeTable")
struct TypeTableTests {
    private struct A {}
    private struct B {}
    private enum C {}
    private final class D {}

    @Test("finds every type it was built with, and nothing else; the first entry of a type wins")
    func lookups() {
        let types: [Any.Type] = [
            A.self, B.self, C.self, D.self, Int.self, String.self, [Int].self, Double.self, Bool.self,
        ]
        let table = TypeTable(types.enumerated().map { ($0.element, $0.offset) } + [(A.self, 99)])
        for (index, type) in types.enumerated() { #expect(table[type] == index) }
        #expect(table[Float.self] == nil)
        #expect(table[[String].self] == nil)
        #expect(TypeTable<Int>([])[A.self] == nil)
    }

    @Test("stays correct when many types collide in a small table")
    func manyTypes() {
        // Tuples of distinct arities and element types give many distinct metadata addresses.
        let types: [Any.Type] = [
            (Int, Int).self, (Int, String).self, (String, Int).self, (Int, Int, Int).self, (Bool, Int).self,
            (Int, Bool).self, (Double, Int).self, (Int, Double).self, (Bool, Bool).self, (String, String).self,
            (Int8, Int).self, (Int16, Int).self, (Int32, Int).self, (Int64, Int).self, (UInt, Int).self,
            (UInt8, Int).self, (UInt16, Int).self,
        ]
        let table = TypeTable(types.enumerated().map { ($0.element, $0.offset) })
        for (index, type) in types.enumerated() { #expect(table[type] == index) }
        #expect(table[(UInt32, Int).self] == nil)
    }
}
