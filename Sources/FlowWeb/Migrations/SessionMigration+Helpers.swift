import FlowCore

extension SessionMigration {
    /// The page registered as `old` is now `new`: its nodes, dismissed pages and history actions.
    public static func renamePage(_ old: String, to new: String) -> SessionMigration {
        SessionMigration(
            "rename page \(old) → \(new)",
            tree: { tree in
                tree.updateNodes { node in if node["page"] == .string(old) { node.set("page", .string(new)) } }
                tree.update("dismissed") { dismissed in
                    dismissed.updateEach { page in if page["page"] == .string(old) { page.set("page", .string(new)) } }
                }
            },
            navigation: { navigation in navigation.renameInActions(at: 2, old, to: new) })
    }

    /// The flow registered as `old` is now `new`: its nodes, and the history's actions and steps.
    public static func renameFlow(_ old: String, to new: String) -> SessionMigration {
        SessionMigration(
            "rename flow \(old) → \(new)",
            tree: { tree in
                tree.updateNodes { node in if node["flow"] == .string(old) { node.set("flow", .string(new)) } }
            },
            navigation: { navigation in
                navigation.renameInActions(at: 3, old, to: new)
                navigation.update(at: 3) { steps in
                    steps.updateEach { step in
                        step.update(at: 1) { flow in if flow == .string(old) { flow = .string(new) } }
                    }
                }
            })
    }

    /// The step case `old` is now `new` (its associated values unchanged): the steps of the
    /// history (what triggered each entry, what each flow received, what `adapt` made of them).
    public static func renameStep(_ old: String, to new: String) -> SessionMigration {
        SessionMigration(
            "rename step \(old) → \(new)",
            navigation: { navigation in
                navigation.update(at: 0) { trigger in trigger.update(at: 1) { $0.renameSingleKey(old, to: new) } }
                navigation.update(at: 3) { steps in
                    steps.updateEach { step in
                        step.update(at: 2) { $0.renameSingleKey(old, to: new) }
                        // An adaptation: {"step": {"_0": step}} or {"refuse": {}}.
                        step.update(at: 3) { adaptation in
                            adaptation.update("step") { $0.update("_0") { $0.renameSingleKey(old, to: new) } }
                        }
                    }
                }
                navigation.update(at: 6) { $0.renameSingleKey(old, to: new) }
            })
    }

    /// Flow `flow`'s state gained the field `field`: stored states without it get `value`.
    public static func addField(_ field: String, value: JSON, toFlow flow: String) -> SessionMigration {
        SessionMigration(
            "add \(field) to flow \(flow)",
            tree: { tree in tree.addField(field, value, in: "state", ofNodesWhere: "flow", is: flow) })
    }

    /// Page `page`'s params gained the field `field`: stored pages without it get `value`.
    public static func addField(_ field: String, value: JSON, toPage page: String) -> SessionMigration {
        SessionMigration(
            "add \(field) to page \(page)",
            tree: { tree in tree.addField(field, value, in: "params", ofNodesWhere: "page", is: page) })
    }

    /// The app data gained the field `field`: stored app data without it gets `value`.
    public static func addAppDataField(_ field: String, value: JSON) -> SessionMigration {
        SessionMigration(
            "add \(field) to the app data",
            appData: { appData in
                if case .object = appData, appData[field] == nil { appData.set(field, value) }
            })
    }

    /// The page registered as `page` is gone: a stored node of it is unwound to its parent — in a
    /// stack, it and the pages pushed over it are popped; presented, it is dismissed. A flow left
    /// with no page makes the tree unreadable, and such a session is started again.
    public static func removePage(_ page: String) -> SessionMigration {
        SessionMigration(
            "remove page \(page)",
            tree: { tree in
                tree.updateNodes { node in
                    node.update("children") { children in
                        guard case .array(let items) = children,
                            let first = items.firstIndex(where: { $0["page"] == .string(page) })
                        else { return }
                        children = .array(Array(items[..<first]))
                    }
                    if node["presented"]?["page"] == .string(page) { node.set("presented", .null) }
                }
                tree.update("dismissed") { dismissed in
                    guard case .array(let items) = dismissed else { return }
                    dismissed = .array(items.filter { $0["page"] != .string(page) })
                }
            })
    }
}

extension JSON {
    /// In a stored navigation record, field `field` of each action (`[kind, node, page?, flow?]`)
    /// renamed from `old` to `new`.
    fileprivate mutating func renameInActions(at field: Int, _ old: String, to new: String) {
        update(at: 2) { actions in
            actions.updateEach { action in
                action.update(at: field) { name in if name == .string(old) { name = .string(new) } }
            }
        }
    }
}

extension JSON {
    /// In a stored tree, `field` set to `value` in the object `container` (`state`, `params`) of
    /// each node whose `kind` (`flow`, `page`) is `name`, where it is missing.
    fileprivate mutating func addField(
        _ field: String, _ value: JSON, in container: String, ofNodesWhere kind: String, is name: String
    ) {
        updateNodes { node in
            guard node[kind] == .string(name) else { return }
            var object = node[container] ?? .object([])
            if object[field] == nil { object.set(field, value) }
            node.set(container, object)
        }
    }
}
