import FlowCore
import FlowStore
import FlowWeb
import Foundation
import MicroHTTP

/// One breadth-first exploration: the states found, in the order found, and what was seen.
struct ExplorationRun<Step: FlowStep> {
    /// A state found, with the shortest path to it.
    struct State {
        var key: StateKey
        var snapshot: SessionSnapshot
        var tree: NavigationTree
        var path: [String]
        var node: FlowGraph.Node
        var topURL: String
        /// The state it was found from (`nil`: the start).
        var parent: Int?
        /// Its size, as the session limits measure it.
        var size: SessionSize
    }

    /// One thing a user can do in a state.
    struct Action: Hashable {
        var method: HTTPMethod
        var target: String
        var form: PageActions.Submission?
        /// The edge's kind and label (the step's name, or the kind's).
        var kind: FlowGraph.Kind
        var label: String
        /// How the path shows it.
        var description: String
        /// The route's pattern, for a deep link.
        var route: String?

        static func == (lhs: Action, rhs: Action) -> Bool {
            lhs.method == rhs.method && lhs.target == rhs.target && lhs.form == rhs.form
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(target)
            hasher.combine(form)
        }
    }

    let explorer: FlowExplorer<Step>
    private var states: [State] = []
    private var depths: [Int] = []
    private var seen: [StateKey: Int] = [:]
    private var graph = FlowGraph()
    private var findings: [ExplorationFinding] = []
    private var reported: Set<String> = []
    /// The pages whose growing paths were reported.
    private var growingPages: Set<FlowGraph.Node> = []
    /// The limits a state came near.
    private var nearLimits: Set<SessionLimit> = []
    private var reachedPages: Set<String> = []
    private var shownURLs: Set<String> = []
    private var answeredRoutes: Set<String> = []
    private var answeredDeepLinks: [String: [String]] = [:]
    /// The params each step was seen sent with, by the step's name (links' queries, forms'
    /// fields; FlowWeb's own `_` fields left out).
    private var stepParams: [String: Set<String>] = [:]
    private var requests = 0
    private var expanded = 0
    private var truncated = false

    init(explorer: FlowExplorer<Step>) { self.explorer = explorer }

    mutating func explore() async throws {
        let coordinator = Coordinator(app: explorer.app.flows, context: explorer.app.context)
        let initial = try await coordinator.start().tree
        try add(
            .initial, tree: initial, key: StateKey(tree: initial.jsonBytes(), appData: initial.appDataJSON()),
            path: [], depth: 0, parent: nil)
        var next = 0
        while next < states.count {
            let index = next
            next += 1
            guard depths[index] < explorer.bounds.depth else { continue }
            try await expand(index)
        }
        checkCoverage()
    }

    func report(duration: Duration) -> ExplorationReport {
        ExplorationReport(
            states: states.count, expanded: expanded, requests: requests, truncated: truncated, graph: graph,
            steps: stepParams.compactMap { StepSignature(probing: $0.key, params: $0.value, as: Step.self) }.sorted(),
            findings: findings, duration: duration)
    }

    // MARK: - Expanding a state

    private mutating func expand(_ index: Int) async throws {
        let state = states[index]
        expanded += 1
        let viewer = try await explorer.branch(state.snapshot)
        let page = try await explorer.send(.get, state.topURL, session: viewer)
        requests += 1
        _ = try await explorer.take(viewer)
        var actions: [Action] = []
        if page.status.code == 200, !page.body.isEmpty {
            let html = PageActions(html: String(decoding: page.body, as: UTF8.self), samples: explorer.samples.forms)
            actions += links(html.links, in: state)
            for submission in html.submissions {
                guard let step = submission.step else { continue }
                stepParams[step, default: []].formUnion(submission.fields.map(\.name).filter { !$0.hasPrefix("_") })
            }
            actions += html.submissions.map { form in
                let label = form.step ?? "form"
                let empty = form.fields.allSatisfy { $0.name.hasPrefix("_") || $0.value.isEmpty } ? " (empty)" : ""
                return Action(
                    method: .post, target: form.action, form: form, kind: form.step == nil ? .link : .step,
                    label: label,
                    description: "POST \(form.action) \(label)\(Self.describe(form))\(empty)")
            }
        } else {
            report(
                .renderError, "\(state.topURL) answered \(page.status.code) with \(page.body.count) bytes", state.path)
        }
        for url in Set(state.tree.pages.map(\.url)).sorted() where url != state.topURL {
            actions.append(Action(method: .get, target: url, kind: .visit, label: "visit", description: "visit \(url)"))
        }
        for route in explorer.app.deepLinks {
            for url in explorer.samples.deepLinks[route.pattern] ?? [route.sampleURL] {
                actions.append(
                    Action(
                        method: .get, target: url, kind: .deepLink, label: "deep link", description: "deep link \(url)",
                        route: route.pattern))
            }
        }
        // A deep link is typed, not offered: it does not count as a way out of a dead end.
        var movedOnPage = false
        var tried: Set<Action> = []
        for action in actions where tried.insert(action).inserted {
            if try await perform(action, from: index), action.route == nil { movedOnPage = true }
        }
        if !movedOnPage {
            report(
                .deadEnd, "no link, form or Back leaves \(state.node.page) (\(state.topURL))", state.path)
        }
    }

    /// The links worth following: this site's, not the page itself, not the skipped paths.
    private mutating func links(_ hrefs: [String], in state: State) -> [Action] {
        var perStep: [String: Int] = [:]
        return hrefs.compactMap { href in
            let target = String(href.prefix { $0 != "#" })
            guard target.hasPrefix("/"), !target.hasPrefix("//"), target != state.topURL,
                !explorer.samples.skippedPaths.contains(where: { target.hasPrefix($0) })
            else { return nil }
            let path = String(target.prefix { $0 != "?" })
            if path.hasPrefix("/_step/") {
                let step = String(path.dropFirst("/_step/".count))
                let query = target.drop { $0 != "?" }.dropFirst()
                stepParams[step, default: []].formUnion(
                    query.split(separator: "&").map { String($0.prefix { $0 != "=" }) }.filter { !$0.hasPrefix("_") })
                perStep[step, default: 0] += 1
                if let most = explorer.bounds.linksPerStep, perStep[step, default: 0] > most { return nil }
                return Action(
                    method: .get, target: target, kind: .step, label: step,
                    description: "link \(Self.shortened(target))")
            }
            let kind: FlowGraph.Kind = state.tree.page(at: path) != nil ? .visit : .link
            return Action(
                method: .get, target: target, kind: kind, label: kind.rawValue,
                description: "\(kind.rawValue) \(target)")
        }
    }

    /// Sends `action` in a copy of state `index`; whether it led to another state.
    private mutating func perform(_ action: Action, from index: Int) async throws -> Bool {
        let state = states[index]
        let session = try await explorer.branch(state.snapshot)
        let answer = try await explorer.send(
            action.method, action.target, session: session, form: action.form?.fields.map { ($0.name, $0.value) })
        requests += 1
        let path = state.path + [action.description]
        if answer.status.code >= 500 {
            let cause =
                explorer.failures.take(answeredWith: answer.body).map { "\($0.detail) (reference \($0.reference))" }
                ?? String(decoding: answer.body.prefix(300), as: UTF8.self)
            report(.serverError, "\(action.description) answered \(answer.status.code): \(cause)", path)
        }
        if let route = action.route, answer.status.code != 404 {
            answeredRoutes.insert(route)
            if answeredDeepLinks[action.target] == nil { answeredDeepLinks[action.target] = path }
        }
        let snapshot = try await explorer.take(session, keeping: true)
        let (tree, key) = try decoded(snapshot)
        if key == state.key {
            explorer.forget(session)
            return false
        }
        let isNew = seen[key] == nil
        var replays = true
        if isNew, let mismatch = try await explorer.replayMismatch(session) {
            report(
                .replayMismatch,
                "the history of the state after \(action.description) replays to another tree:\n\(mismatch)",
                path)
            replays = false
        }
        explorer.forget(session)
        let target = seen[key].map { states[$0].node } ?? Self.node(of: tree)
        if let target {
            graph.edges.insert(FlowGraph.Edge(from: state.node, to: target, kind: action.kind, label: action.label))
        }
        if isNew {
            guard states.count < explorer.bounds.states else {
                truncated = true
                return true
            }
            // A state that does not replay is reported once, not again for every state after it.
            try add(
                snapshot, tree: tree, key: key, path: path, depth: replays ? depths[index] + 1 : Int.max, parent: index)
        }
        return true
    }

    private func decoded(_ snapshot: SessionSnapshot) throws -> (NavigationTree, StateKey) {
        switch snapshot {
        case .initial:
            return (states[0].tree, states[0].key)
        case .stored(let record, _):
            let tree = try NavigationTree(
                json: record.tree, appData: record.appData, registry: explorer.app.flows.registry)
            return (tree, try StateKey(tree: record.tree, appData: record.appData))
        }
    }

    private mutating func add(
        _ snapshot: SessionSnapshot, tree: NavigationTree, key: StateKey, path: [String], depth: Int, parent: Int?
    )
        throws
    {
        guard let node = Self.node(of: tree), let top = tree.top else {
            report(.renderError, "a state without a top page", path)
            return
        }
        seen[key] = states.count
        let bytes: Int
        switch snapshot {
        case .initial: bytes = try tree.jsonBytes().count
        case .stored(let record, _): bytes = record.tree.count
        }
        states.append(
            State(
                key: key, snapshot: snapshot, tree: tree, path: path, node: node, topURL: top.url, parent: parent,
                size: SessionSize(tree.size, stateBytes: bytes)))
        checkLimits(of: states.count - 1)
        let size = tree.pages.count + tree.flows.count
        var depth = depth
        if size > explorer.bounds.nodesPerTree, depth != Int.max {
            report(.treeTooLarge, "\(size) nodes in the tree, more than \(explorer.bounds.nodesPerTree)", path)
            depth = Int.max  // not explored further
        }
        depths.append(depth)
        graph.nodes.insert(node)
        if parent == nil { graph.start = node }
        reachedPages.formUnion(tree.pages.map(\.page.name))
        shownURLs.insert(top.url)
    }

    // MARK: - Checks

    private mutating func checkCoverage() {
        for page in explorer.app.flows.registry.pageNames where !reachedPages.contains(page) {
            report(.unreachedPage, "page \(page) is registered, but no explored state shows it", [])
        }
        let skipped = Set(explorer.samples.deepLinks.filter { $0.value.isEmpty }.keys)
        for route in explorer.app.deepLinks
        where !answeredRoutes.contains(route.pattern) && !skipped.contains(route.pattern) {
            report(.unreachedRoute, "route \(route.pattern) answered 404 to every sample from every state", [])
        }
        for (url, path) in answeredDeepLinks.sorted(by: { $0.key < $1.key }) where !shownURLs.contains(url) {
            report(.deepLinkTargetNeverShown, "the deep link \(url) answered, but no explored state shows it", path)
        }
    }

    /// Reports state `index` when it holds four fifths of a session limit or more, or when the
    /// path to it grows the session without end: its last actions, offered by the pages, are the
    /// ones before them (params aside) and lead back to the same page of the same flow as the
    /// two times before, each time adding the same nodes.
    private mutating func checkLimits(of index: Int) {
        let state = states[index]
        let limits = explorer.limits
        if let near = SessionLimit.allCases.first(where: { state.size[$0] * 5 >= limits[$0] * 4 }) {
            // Once per limit: the first such state, on the shortest path.
            if nearLimits.insert(near).inserted {
                let what = "\(state.size[near]) of at most \(limits[near]) (\(near.rawValue))"
                report(.limitReachable, "the session at \(state.topURL) holds \(what)", state.path)
            }
            return
        }
        var earlier: [State] = []
        var cursor = state.parent
        while let ancestor = cursor, earlier.count < 2 {
            if states[ancestor].node == state.node { earlier.append(states[ancestor]) }
            cursor = states[ancestor].parent
        }
        guard earlier.count == 2, !growingPages.contains(state.node) else { return }
        let (last, first) = (earlier[0], earlier[1])
        let length = state.path.count - last.path.count
        let growth = state.size.minus(last.size)
        // The same offered actions (deep links are typed, not offered), params aside.
        let actions = state.path.suffix(2 * length).map { $0.prefix { $0 != "?" } }
        guard length == last.path.count - first.path.count, actions.count == 2 * length,
            actions.prefix(length).elementsEqual(actions.suffix(length)),
            !actions.contains(where: { $0.hasPrefix("deep link") }), growth.nodes > 0 || growth.stackDepth > 0,
            growth.nodes == last.size.minus(first.size).nodes,
            growth.stackDepth == last.size.minus(first.size).stackDepth
        else { return }
        let reached = SessionLimit.allCases.filter { growth[$0] > 0 }.map { limit in
            (limit: limit, repetitions: (limits[limit] - state.size[limit] + growth[limit] - 1) / growth[limit])
        }
        guard let first = reached.min(by: { $0.repetitions < $1.repetitions }) else { return }
        growingPages.insert(state.node)
        report(
            .limitReachable,
            "the last \(length) action(s) of this path lead back to \(state.node.page) (\(state.topURL)) adding \(growth.nodes) pages and flows, as the two times before: repeated about \(first.repetitions) more times, the session reaches its limit of \(limits[first.limit]) (\(first.limit.rawValue))",
            state.path)
    }

    /// Records a finding, once per kind and message.
    private mutating func report(_ kind: ExplorationFinding.Kind, _ message: String, _ path: [String]) {
        guard reported.insert("\(kind.rawValue) \(message)").inserted else { return }
        findings.append(ExplorationFinding(kind: kind, message: message, path: path))
    }

    private static func node(of tree: NavigationTree) -> FlowGraph.Node? {
        guard let top = tree.top, let owner = tree.owner(ofPage: top.id).flatMap({ tree.flow($0) }) else { return nil }
        return FlowGraph.Node(flow: owner.flow.name, page: top.page.name)
    }

    private static func describe(_ form: PageActions.Submission) -> String {
        let shown = form.fields.filter { !$0.name.hasPrefix("_") }.map { "\($0.name)=\($0.value)" }
        return shown.isEmpty ? "" : " {" + shown.joined(separator: ", ") + "}"
    }

    /// A step link without the page bookkeeping (`_from`, `_r`), which changes every render.
    private static func shortened(_ target: String) -> String {
        guard let query = target.split(separator: "?", maxSplits: 1).dropFirst().first else { return target }
        let kept = query.split(separator: "&").filter { !$0.hasPrefix("_from=") && !$0.hasPrefix("_r=") }
        let path = target.prefix { $0 != "?" }
        return kept.isEmpty ? String(path) : "\(path)?\(kept.joined(separator: "&"))"
    }
}
