/// The work of one navigation: a copy of the tree, the queue of steps still to navigate, and
/// the record of what happened. Steps are navigated one after the other from the queue, so a
/// forwarded step never runs inside the navigation that forwarded it.
struct NavigationRun<Step: FlowStep> {
    enum Result: Equatable {
        /// The flow is no longer in the tree.
        case gone
        /// The flow's `adapt` refused the step.
        case refused
        /// The flow's `navigate` returned `.none`.
        case notHandled
        /// The flow navigated the step (`adapted`: the replacement, when `adapt` changed it).
        case handled(adapted: Step?)
    }

    let app: FlowApp<Step>
    let observers: [any NavigationObserver<Step>]
    let limit: Int
    var tree: NavigationTree
    /// The app data during the run; `tree.appData` follows it after each `navigate`.
    private let appData: AppDataSlot
    /// The contexts `adapt` and `navigate` get: the services and the app data.
    private let adaptContext: FlowContext
    private let navigateContext: FlowContext
    var actions: [NavigationAction] = []
    var steps: [NavigatedStep<Step>] = []
    /// Who navigates a queued step: a given flow, or the responder chain of the top page then.
    enum Target {
        case flow(NodeID)
        case topFlow
    }
    private var queue: [(target: Target, step: Step)] = []
    private var queueStart = 0
    /// Adaptations to use instead of calling `adapt` (replays).
    private let recorded: [StepAdaptation<Step>]?
    private var recordedIndex = 0

    init(
        app: FlowApp<Step>, context: FlowContext, observers: [any NavigationObserver<Step>], limit: Int,
        tree: NavigationTree, recorded: [StepAdaptation<Step>]?
    ) {
        self.app = app
        self.observers = observers
        self.limit = limit
        self.tree = tree
        self.recorded = recorded
        appData = AppDataSlot(tree.appData)
        adaptContext = context.with(appData, writable: false)
        navigateContext = context.with(appData, writable: true)
    }

    mutating func enqueue(_ step: Step, for flow: NodeID) { queue.append((.flow(flow), step)) }

    /// Navigates queued steps until none is left.
    mutating func drain() async throws(NavigationError) {
        while queueStart < queue.count {
            let (target, step) = queue[queueStart]
            queueStart += 1
            switch target {
            case .flow(let flow):
                _ = try await navigate(step, by: flow)
            case .topFlow:
                _ = try await navigateUpTheChain(step)
            }
        }
    }

    /// Offers `step` to the top page's flow, then its ancestors, until one navigates it.
    mutating func navigateUpTheChain(_ step: Step) async throws(NavigationError) -> Result {
        var result = Result.notHandled
        for flow in tree.responderChain {
            result = try await navigate(step, by: flow)
            if result != .notHandled && result != .gone { break }
        }
        return result
    }

    /// `adapt`, then `navigate`, then the contributors of flow `id` for `step`.
    mutating func navigate(_ step: Step, by id: NodeID) async throws(NavigationError) -> Result {
        guard var state = tree.flow(id)?.flow.base else { return .gone }
        let name = type(of: state).name
        guard steps.count < limit else { throw .navigationLoop(limit: limit, flow: name) }
        guard let navigator = app.navigators[name] else { throw .unknownFlow(name) }
        let adaptation: StepAdaptation<Step>
        if let recorded {
            guard recordedIndex < recorded.count else {
                throw .invalidTree("the replayed navigation recorded fewer adaptations than it now needs")
            }
            adaptation = recorded[recordedIndex]
            recordedIndex += 1
        } else {
            adaptation = await navigator.adapt(state, step, adaptContext)
        }
        steps.append(NavigatedStep(flow: id, flowName: name, step: step, adaptation: adaptation))
        guard case .step(let adapted) = adaptation else { return .refused }
        let reference = FlowReference(node: id, name: name)
        for observer in observers { observer.willNavigate(flow: reference, step: adapted) }
        let contributors = navigator.navigate(&state, adapted, navigateContext)
        tree.modifyFlow(id) { $0.flow.base = state }
        tree.appData = appData.current
        for observer in observers { observer.didNavigate(flow: reference, step: adapted) }
        guard try apply(contributors, of: id) else { return .notHandled }
        return .handled(adapted: adapted == step ? nil : adapted)
    }

    /// Applies what a flow returned; `false` for `.none`.
    private mutating func apply(_ contributors: FlowContributors<Step>, of id: NodeID) throws(NavigationError) -> Bool {
        switch contributors {
        case .none:
            return false
        case .one(let contributor):
            try apply(contributor, of: id)
        case .multiple(let contributors):
            for contributor in contributors { try apply(contributor, of: id) }
        case .end(let step):
            guard id != tree.root.id, let parent = tree.parent(ofFlow: id) else { return true }
            removeFlow(id)
            enqueue(step, for: parent)
        case .triggerParentFlow(let step):
            if let parent = tree.parent(ofFlow: id) { enqueue(step, for: parent) }
        }
        return true
    }

    private mutating func apply(_ contributor: FlowContributor<Step>, of id: NodeID) throws(NavigationError) {
        guard let node = tree.flow(id) else { return }
        let name = node.flow.name
        switch contributor.effect {
        case .push(let page):
            try app.registry.check(page)
            switch node.container {
            case .tabs:
                throw .invalidContribution(flow: name, "a tabs flow holds flows, not pages: push in a tab's flow")
            case .stack:
                break
            case .split:
                if node.children.count >= 2 { removeChildren(of: id, from: 1) }
            case .single:
                removeChildren(of: id, from: 0)
            }
            addPage(page, to: id, contributor)
        case .set(let pages):
            guard node.container != .tabs else {
                throw .invalidContribution(flow: name, "a tabs flow holds flows, not pages")
            }
            let maximum = node.container == .single ? 1 : node.container == .split ? 2 : Int.max
            guard !pages.isEmpty, pages.count <= maximum else {
                throw .invalidContribution(
                    flow: name,
                    "a \(node.container.rawValue) flow holds 1...\(maximum == Int.max ? "n" : String(maximum)) pages, got \(pages.count)"
                )
            }
            for page in pages { try app.registry.check(page) }
            removeChildren(of: id, from: 0)
            for page in pages { addPage(page, to: id, contributor) }
        case .presentPage(let page):
            try app.registry.check(page)
            dismissPresented(of: id)
            let pageNode = makePage(page, contributor)
            tree.modifyFlow(id) { $0.presented = .page(pageNode) }
            actions.append(.page(.present, pageNode.id, page.name))
            enqueueInitialSteps(of: contributor, for: id)
        case .presentFlow(let flow):
            try app.registry.check(flow)
            dismissPresented(of: id)
            let child = FlowNode(id: tree.makeID(), flow: flow)
            tree.modifyFlow(id) { $0.presented = .flow(child) }
            actions.append(.flow(.startFlow, child.id, flow.name))
            actions.append(.flow(.present, child.id, flow.name))
            enqueueInitialSteps(of: contributor, for: child.id)
        case .show(let flow):
            guard node.container == .single else {
                throw .invalidContribution(
                    flow: name, "only a single flow shows a child flow in its slot; present it instead")
            }
            try app.registry.check(flow)
            removeChildren(of: id, from: 0)
            startChild(flow, of: id, contributor) { $0.children.append(.flow($1)) }
        case .tab(let flow):
            guard node.container == .tabs else {
                throw .invalidContribution(flow: name, "only a tabs flow has tabs")
            }
            try app.registry.check(flow)
            startChild(flow, of: id, contributor) { $0.children.append(.flow($1)) }
        case .embed(let flow):
            try app.registry.check(flow)
            guard case .page(let host)? = node.children.last else {
                throw .invalidContribution(flow: name, "embed needs a page to embed into: push or set one first")
            }
            startChild(flow, of: id, contributor) { parent, child in
                guard case .page(var page) = parent.children[parent.children.count - 1], page.id == host.id else {
                    return
                }
                page.embedded.append(child)
                parent.children[parent.children.count - 1] = .page(page)
            }
        case .pop:
            guard node.container != .tabs else {
                throw .invalidContribution(flow: name, "a tabs flow has nothing to pop")
            }
            if !node.children.isEmpty { removeChildren(of: id, from: node.children.count - 1) }
        case .popTo(let pageName):
            let target = node.children.lastIndex { child in
                if case .page(let page) = child { return page.page.name == pageName }
                return false
            }
            if let target { removeChildren(of: id, from: target + 1) }
        case .popToRoot:
            removeChildren(of: id, from: 1)
        case .dismiss:
            dismissPresented(of: id)
        case .select(let index):
            guard node.container == .tabs, node.children.indices.contains(index) else {
                throw .invalidContribution(flow: name, "no tab \(index) to select (it has \(node.children.count))")
            }
            select(tab: index, of: id)
        case .forwardToCurrentFlow(let step):
            enqueue(step, for: id)
        case .forwardToParentFlow(let step):
            if let parent = tree.parent(ofFlow: id) { enqueue(step, for: parent) }
        case .forwardToTopFlow(let step):
            queue.append((.topFlow, step))
        }
    }

    private mutating func makePage(_ page: AnyPage, _ contributor: FlowContributor<Step>) -> PageNode {
        PageNode(
            id: tree.makeID(), page: page, allowStepWhenNotPresented: contributor.allowStepWhenNotPresented,
            allowStepWhenDismissed: contributor.allowStepWhenDismissed || type(of: page.base).allowsStepsWhenDismissed,
            embedded: [])
    }

    private mutating func addPage(_ page: AnyPage, to id: NodeID, _ contributor: FlowContributor<Step>) {
        let pageNode = makePage(page, contributor)
        tree.modifyFlow(id) { $0.children.append(.page(pageNode)) }
        actions.append(.page(.push, pageNode.id, page.name))
        enqueueInitialSteps(of: contributor, for: id)
    }

    private mutating func startChild(
        _ flow: AnyFlow, of id: NodeID, _ contributor: FlowContributor<Step>,
        attach: (inout FlowNode, FlowNode) -> Void
    ) {
        let child = FlowNode(id: tree.makeID(), flow: flow)
        tree.modifyFlow(id) { attach(&$0, child) }
        actions.append(.flow(.startFlow, child.id, flow.name))
        enqueueInitialSteps(of: contributor, for: child.id)
    }

    private mutating func enqueueInitialSteps(of contributor: FlowContributor<Step>, for id: NodeID) {
        for step in contributor.initialSteps { enqueue(step, for: id) }
    }

    mutating func select(tab index: Int, of id: NodeID) {
        let selected: TreeNode? =
            tree.modifyFlow(id) { flow in
                guard flow.selected != index else { return nil }
                flow.selected = index
                return flow.children[index]
            } ?? nil
        if case .flow(let tab)? = selected { actions.append(.flow(.select, tab.id, tab.flow.name)) }
    }

    // MARK: Removing

    /// Removes flow `id`'s children from `index` on, topmost first, recording pops and ends.
    mutating func removeChildren(of id: NodeID, from index: Int) {
        let removed = tree.modifyFlow(id) { $0.removeChildren(from: index) } ?? []
        for node in removed { recordRemoval(node, owner: id) }
    }

    /// Dismisses what flow `id` presents, recording it.
    mutating func dismissPresented(of id: NodeID) {
        guard let presented = tree.modifyFlow(id, { $0.takePresented() }) ?? nil else { return }
        switch presented {
        case .page(let page):
            actions.append(.page(.dismiss, page.id, page.page.name))
            rememberDismissal(of: page, owner: id)
            for flow in page.embedded { recordEnd(of: flow) }
        case .flow(let flow):
            actions.append(.flow(.dismiss, flow.id, flow.flow.name))
            recordEnd(of: flow)
        }
    }

    /// Removes flow `id` from wherever it hangs, recording its end (and dismissal if presented).
    mutating func removeFlow(_ id: NodeID) {
        guard let path = tree.path(to: id), let last = path.last else { return }
        switch last.via {
        case .presented:
            dismissPresented(of: last.flow)
        case .child(let index):
            let removed: FlowNode? =
                tree.modifyFlow(last.flow) { parent in
                    switch parent.children[index] {
                    case .flow(let flow) where flow.id == id:
                        _ = parent.removeChild(at: index)
                        return flow
                    case .page(var page):
                        guard let position = page.embedded.firstIndex(where: { $0.id == id }) else { return nil }
                        let flow = page.embedded.remove(at: position)
                        parent.children[index] = .page(page)
                        return flow
                    default:
                        return nil
                    }
                } ?? nil
            if let removed { recordEnd(of: removed) }
        }
    }

    private mutating func recordRemoval(_ node: TreeNode, owner: NodeID) {
        switch node {
        case .page(let page):
            actions.append(.page(.pop, page.id, page.page.name))
            rememberDismissal(of: page, owner: owner)
            for flow in page.embedded { recordEnd(of: flow) }
        case .flow(let flow):
            recordEnd(of: flow)
        }
    }

    /// Records `endFlow` for `flow` and every flow below it, the deepest first.
    private mutating func recordEnd(of flow: FlowNode) {
        for child in flow.children {
            switch child {
            case .flow(let nested): recordEnd(of: nested)
            case .page(let page): for nested in page.embedded { recordEnd(of: nested) }
            }
        }
        switch flow.presented {
        case .flow(let nested)?: recordEnd(of: nested)
        case .page(let page)?: for nested in page.embedded { recordEnd(of: nested) }
        case nil: break
        }
        actions.append(.flow(.endFlow, flow.id, flow.flow.name))
    }

    private mutating func rememberDismissal(of page: PageNode, owner: NodeID) {
        guard page.allowStepWhenDismissed else { return }
        tree.dismissedPages.append(DismissedPage(node: page.id, page: page.page.name, flow: owner))
        if tree.dismissedPages.count > NavigationTree.dismissedPagesLimit { tree.dismissedPages.removeFirst() }
    }

    // MARK: Visiting and pruning

    /// Makes page `id` visible: along its path, dismisses what is presented over it, selects its
    /// tabs and pops what is above it in its stack (or a split's detail above its master).
    mutating func unwind(to id: NodeID) throws(NavigationError) {
        guard let path = tree.path(to: id) else { throw .unknownNode(id) }
        for (flowID, via) in path {
            guard case .child(let index) = via, let flow = tree.flow(flowID) else { continue }
            dismissPresented(of: flowID)
            switch flow.container {
            case .stack: removeChildren(of: flowID, from: index + 1)
            case .split: if index == 0 { removeChildren(of: flowID, from: 1) }
            case .tabs: select(tab: index, of: flowID)
            case .single: break
            }
        }
    }

    /// Whether `action` may leave a flow without pages: anything but a push, a tab selection or
    /// a page presented.
    private static func mayLeaveAnEmptyFlow(_ action: NavigationAction) -> Bool {
        switch action.kind {
        case .push, .select: false
        case .present: action.page == nil
        default: true
        }
    }

    /// Ends every flow left without pages, with its subtree (rule 8); the root stays. Only a
    /// page or flow leaving, or a flow starting, can leave a flow without pages: a run of pushes,
    /// tab selections and pages presented needs no look at the tree.
    mutating func prune() {
        guard actions.contains(where: Self.mayLeaveAnEmptyFlow),
            tree.root.containsEmptyFlow
        else { return }
        while let empty = tree.flows.dropFirst().first(where: { !$0.hasPages }) {
            removeFlow(empty.id)
        }
    }
}
