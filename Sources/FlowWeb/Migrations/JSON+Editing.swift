import FlowCore

extension JSON {
    /// Sets `key` of an object (appending it when new); nothing for another value.
    mutating func set(_ key: String, _ value: JSON) {
        guard case .object(var fields) = self else { return }
        if let index = fields.firstIndex(where: { $0.key == key }) {
            fields[index].value = value
        } else {
            fields.append((key, value))
        }
        self = .object(fields)
    }

    /// Removes `key` of an object.
    mutating func remove(_ key: String) {
        guard case .object(let fields) = self else { return }
        self = .object(fields.filter { $0.key != key })
    }

    /// Changes the value of `key` of an object with `body`, when it has one.
    mutating func update(_ key: String, _ body: (inout JSON) throws -> Void) rethrows {
        guard var value = self[key] else { return }
        try body(&value)
        set(key, value)
    }

    /// Changes element `index` of an array with `body`, when it has one.
    mutating func update(at index: Int, _ body: (inout JSON) throws -> Void) rethrows {
        guard case .array(var items) = self, items.indices.contains(index) else { return }
        try body(&items[index])
        self = .array(items)
    }

    /// Changes each element of an array with `body`.
    mutating func updateEach(_ body: (inout JSON) throws -> Void) rethrows {
        guard case .array(var items) = self else { return }
        for index in items.indices { try body(&items[index]) }
        self = .array(items)
    }

    /// Calls `body` on every node of a stored tree (`{"root", …}`) or of a node, parents before
    /// their children: flows, their children and what they present, pages and the flows they
    /// embed.
    mutating func updateNodes(_ body: (inout JSON) throws -> Void) rethrows {
        if self["root"] != nil {
            try update("root") { try $0.updateNodes(body) }
            return
        }
        try body(&self)
        try update("children") { try $0.updateEach { try $0.updateNodes(body) } }
        try update("presented") { if $0 != .null { try $0.updateNodes(body) } }
        try update("embedded") { try $0.updateEach { try $0.updateNodes(body) } }
    }

    /// The object's single key, for a stored step (`{"name": {…}}`) or enum case.
    var singleKey: String? {
        guard case .object(let fields) = self, fields.count == 1 else { return nil }
        return fields[0].key
    }

    /// An object whose single key is `old`, renamed to `new`.
    mutating func renameSingleKey(_ old: String, to new: String) {
        guard case .object(let fields) = self, fields.count == 1, fields[0].key == old else { return }
        self = .object([(new, fields[0].value)])
    }

    /// A stored tree with every node id (and `nextNode`) moved up by `offset`.
    mutating func renumberNodes(by offset: Int) {
        update("nextNode") { if case .int(let next) = $0 { $0 = .int(next + offset) } }
        updateNodes { node in node.update("node") { if case .int(let id) = $0 { $0 = .int(id + offset) } } }
        update("dismissed") { dismissed in
            dismissed.updateEach { page in
                page.update("node") { if case .int(let id) = $0 { $0 = .int(id + offset) } }
                page.update("flow") { if case .int(let id) = $0 { $0 = .int(id + offset) } }
            }
        }
    }
}
