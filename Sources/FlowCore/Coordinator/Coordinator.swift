/// Applies steps and visits to trees: `(tree, step) -> (tree', navigation)`. It holds no
/// session state, only the app definition, the injected services and the observers, so one
/// coordinator serves every session.
///
/// ```swift
/// let coordinator = Coordinator(app: app, context: context)
/// var (tree, _) = try await coordinator.start()
/// let navigation = try await coordinator.apply(.movieIsPicked(withId: 42), from: tree.top?.id, to: &tree)
/// navigation.actions   // [push movie#9]
/// ```
public struct Coordinator<Step: FlowStep>: Sendable {
    /// The app's flows and pages.
    public let app: FlowApp<Step>
    /// Services flows may use.
    public var context: FlowContext
    /// Who sees every navigation.
    public var observers: [any NavigationObserver<Step>]
    /// The most steps one navigation may navigate (forwards and steppers included) before it is
    /// stopped as a loop.
    public var navigationLimit = 256

    /// A coordinator for `app`.
    public init(
        app: FlowApp<Step>, context: FlowContext = FlowContext(), observers: [any NavigationObserver<Step>] = []
    ) {
        self.app = app
        self.context = context
        self.observers = observers
    }

    /// A new tree: the root flow, navigated with its stepper's initial steps.
    ///
    /// - Throws: ``NavigationError`` when the root shows no page afterwards, or a flow
    ///   contributes something invalid.
    public func start() async throws(NavigationError) -> (tree: NavigationTree, navigation: Navigation<Step>) {
        try await start(recorded: nil)
    }

    private func start(recorded: [StepAdaptation<Step>]?) async throws(NavigationError) -> (
        tree: NavigationTree, navigation: Navigation<Step>
    ) {
        var run = makeRun(NavigationTree(root: app.root, appData: app.registry.initialAppData), recorded: recorded)
        run.actions.append(.flow(.startFlow, run.tree.root.id, app.root.name))
        for step in app.initialSteps { run.enqueue(step, for: run.tree.root.id) }
        try await run.drain()
        run.prune()
        let navigation = try finish(run, trigger: .start, outcome: .navigated, adapted: nil)
        return (run.tree, navigation)
    }

    /// Applies `step` coming from page `from`, or, without `from`, up the responder chain (the
    /// top page's flow first, then its ancestors; the first that navigates wins — RxFlow would
    /// offer it to every flow, which on the web would push the same page into every tab).
    ///
    /// A `from` page that is hidden (the user went Back, or acted in a second browser tab) is
    /// made visible first, as a visit, unless it was contributed with
    /// `allowStepWhenNotPresented`. A `from` page no longer in the tree is ignored, unless it
    /// allowed steps after dismissal: then its flow navigates the step if it still exists.
    ///
    /// `tree` is changed only when the navigation succeeds.
    public func apply(_ step: Step, from: NodeID? = nil, to tree: inout NavigationTree) async throws(NavigationError)
        -> Navigation<Step>
    {
        try await apply(step, from: from, to: &tree, recorded: nil)
    }

    private func apply(
        _ step: Step, from: NodeID?, to tree: inout NavigationTree, recorded: [StepAdaptation<Step>]?
    ) async throws(NavigationError) -> Navigation<Step> {
        let trigger = Navigation<Step>.Trigger.step(step, from: from)
        var run = makeRun(tree, recorded: recorded)
        var result = NavigationRun<Step>.Result.notHandled
        if let from {
            if let page = tree.page(from), let owner = tree.owner(ofPage: from) {
                if !tree.visiblePages.contains(from) && !page.allowStepWhenNotPresented { try run.unwind(to: from) }
                result = try await run.navigate(step, by: owner)
            } else if let dismissed = tree.dismissedPages.last(where: { $0.node == from }),
                tree.flow(dismissed.flow) != nil
            {
                result = try await run.navigate(step, by: dismissed.flow)
            } else {
                return try finish(run, trigger: trigger, outcome: .ignored, adapted: nil)
            }
        } else {
            result = try await run.navigateUpTheChain(step)
        }
        try await run.drain()
        run.prune()
        let outcome: NavigationOutcome
        var adapted: Step?
        switch result {
        case .refused: outcome = .rejected
        case .handled(let replacement?):
            outcome = .adapted
            adapted = replacement
        case .handled(nil): outcome = run.actions.isEmpty ? .unchanged : .navigated
        case .notHandled, .gone:
            // The first flow's `adapt` may have replaced the step that no flow then navigated:
            // it is recorded as adapted all the same (Docs/CONTRACT.md §3).
            if case .step(let replacement) = run.steps.first?.adaptation, replacement != step {
                outcome = .adapted
                adapted = replacement
            } else {
                outcome = run.actions.isEmpty ? .ignored : .navigated
            }
        }
        let navigation = try finish(run, trigger: trigger, outcome: outcome, adapted: adapted)
        tree = run.tree
        return navigation
    }

    /// Makes page `page` visible (Docs/CONTRACT.md §2): pops what is above it, selects its tab,
    /// dismisses what is presented over it; flows left without pages end.
    ///
    /// - Throws: ``NavigationError`` when the page is not in the tree.
    public func visit(_ page: NodeID, in tree: inout NavigationTree) throws(NavigationError) -> Navigation<Step> {
        guard tree.page(page) != nil else { throw .unknownNode(page) }
        var run = makeRun(tree, recorded: nil)
        try run.unwind(to: page)
        run.prune()
        let navigation = try finish(
            run, trigger: .visit(page), outcome: run.actions.isEmpty ? .unchanged : .navigated, adapted: nil)
        tree = run.tree
        return navigation
    }

    /// Rebuilds a tree from recorded navigations, the first being the start, without calling
    /// `adapt` again (its recorded decisions are reused) and without notifying observers (a
    /// replay is a reconstruction, not new navigation). Gives the tree the live navigations
    /// produced.
    public func replay(_ history: [Navigation<Step>]) async throws(NavigationError) -> NavigationTree {
        guard let first = history.first, first.trigger == .start else {
            throw .invalidTree("a replayed history begins with the start navigation")
        }
        var quiet = self
        quiet.observers = []
        return try await quiet.rebuild(first: first, rest: history.dropFirst())
    }

    /// Continues a replay from `tree`, a state recorded earlier (a snapshot of a history whose
    /// older entries were folded into it), through `history`, the navigations recorded after it;
    /// as ``replay(_:)`` does after the start.
    public func replay(_ history: some Sequence<Navigation<Step>>, from tree: NavigationTree)
        async throws(NavigationError) -> NavigationTree
    {
        var quiet = self
        quiet.observers = []
        return try await quiet.rebuild(from: tree, rest: history)
    }

    private func rebuild(first: Navigation<Step>, rest: ArraySlice<Navigation<Step>>) async throws(NavigationError)
        -> NavigationTree
    {
        try await rebuild(from: try await start(recorded: first.steps.map { $0.adaptation }).tree, rest: rest)
    }

    private func rebuild(from start: NavigationTree, rest: some Sequence<Navigation<Step>>)
        async throws(NavigationError) -> NavigationTree
    {
        var tree = start
        for navigation in rest {
            switch navigation.trigger {
            case .start:
                throw .invalidTree("a history has one start navigation")
            case .step(let step, let from):
                _ = try await apply(step, from: from, to: &tree, recorded: navigation.steps.map { $0.adaptation })
            case .visit(let page):
                _ = try visit(page, in: &tree)
            }
        }
        return tree
    }

    private func makeRun(_ tree: NavigationTree, recorded: [StepAdaptation<Step>]?) -> NavigationRun<Step> {
        NavigationRun(
            app: app, context: context, observers: observers, limit: navigationLimit, tree: tree, recorded: recorded)
    }

    private func finish(
        _ run: NavigationRun<Step>, trigger: Navigation<Step>.Trigger, outcome: NavigationOutcome, adapted: Step?
    ) throws(NavigationError) -> Navigation<Step> {
        guard let top = run.tree.top else { throw .noTopPage(flow: run.tree.root.flow.name) }
        return Navigation(
            trigger: trigger, outcome: outcome, adaptedStep: adapted, actions: run.actions, steps: run.steps,
            top: top.id, topURL: top.url)
    }
}
