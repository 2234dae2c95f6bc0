/// A page in the tree.
///
/// What never changes about a page (its id, params, URL and the start of its JSON form) is kept
/// in one shared, immutable box: the tree's walks copy a page node with two references, however
/// large its params.
public struct PageNode: Sendable, Hashable {
    /// The parts of a page node that never change.
    private final class Fixed: Sendable {
        let id: NodeID
        let page: AnyPage
        let url: String
        /// The start of the stored JSON form, then the start of the API's (`stateHeadStart` on).
        let heads: [UInt8]
        /// Where the stored form's start ends (`nil`: the params did not encode).
        let jsonHeadEnd: Int?
        /// Where the API form's start begins.
        let stateHeadStart: Int

        init(id: NodeID, page: AnyPage, params: JSON?) {
            self.id = id
            self.page = page
            url = page.path
            var heads = (try? TreeJSONWriter.head(of: id, page, params: params)) ?? []
            jsonHeadEnd = heads.isEmpty ? nil : heads.count
            stateHeadStart = heads.count
            heads.append(contentsOf: #"{"node":"#.utf8)
            JSONWriter.writeInteger(id.rawValue, into: &heads)
            heads.append(contentsOf: #","page":"#.utf8)
            JSONWriter.writeString(page.name, into: &heads)
            heads.append(contentsOf: #","url":"#.utf8)
            JSONWriter.writeString(url, into: &heads)
            self.heads = heads
        }
    }

    private let fixed: Fixed
    /// The URL's hash, compared before the text when pages are looked up by URL: kept in the node,
    /// so that a walk of a stack's pages reads their array and no page's box.
    private let urlHash: Int
    /// Steps from this page while it is hidden are navigated without unwinding to it.
    public internal(set) var allowStepWhenNotPresented: Bool
    /// Steps from this page still count after it left the tree.
    public internal(set) var allowStepWhenDismissed: Bool
    /// Child flows shown inside this page (`.embed`); they end when the page leaves.
    public internal(set) var embedded: [FlowNode]

    /// The node's id.
    public var id: NodeID { fixed.id }
    /// The page and its params.
    public var page: AnyPage { fixed.page }
    /// The page's URL path, derived from its params once (every request looks pages up by URL).
    public var url: String { fixed.url }
    /// Whether the page's URL is `url`.
    func has(_ url: PageURL) -> Bool { mayHave(url) && fixed.url == url.text }
    /// Whether the page's URL may be `url`: whether their hashes are the same (a comparison
    /// without a call).
    func mayHave(_ url: PageURL) -> Bool { urlHash == url.hash }
    /// The start of the page's JSON form, `{"node":…,"page":…` and its `"params"` when not
    /// empty: what never changes, written once rather than at every commit (`nil` when the
    /// params did not encode; the commit then says why).
    var jsonHead: ArraySlice<UInt8>? { fixed.jsonHeadEnd.map { fixed.heads[..<$0] } }
    /// The start of the page's form in the API's State, `{"node":…,"page":…,"url":…`: written
    /// once, as the start of its stored form is.
    public var stateHead: ArraySlice<UInt8> { fixed.heads[fixed.stateHeadStart...] }
    /// The identity of the unchanging parts with the two flags in its low bits (an object's
    /// address is aligned to at least 8); 0 when the params did not encode.
    var identityKey: UInt { fixed.jsonHeadEnd != nil ? identityBits : 0 }
    /// ``identityKey`` when the params encoded, read without following the reference: a key
    /// that is not 0 and equals it names this page's unchanging parts.
    var identityBits: UInt {
        UInt(bitPattern: ObjectIdentifier(fixed)) | (allowStepWhenNotPresented ? 1 : 0)
            | (allowStepWhenDismissed ? 2 : 0)
    }

    /// A page node; `params` is the JSON the params were read from, when they were.
    init(
        id: NodeID, page: AnyPage, allowStepWhenNotPresented: Bool, allowStepWhenDismissed: Bool, embedded: [FlowNode],
        params: JSON? = nil
    ) {
        fixed = Fixed(id: id, page: page, params: params)
        urlHash = fixed.url.hashValue
        self.allowStepWhenNotPresented = allowStepWhenNotPresented
        self.allowStepWhenDismissed = allowStepWhenDismissed
        self.embedded = embedded
    }

    public static func == (lhs: PageNode, rhs: PageNode) -> Bool {
        (lhs.fixed === rhs.fixed || (lhs.id == rhs.id && lhs.page == rhs.page))
            && lhs.allowStepWhenNotPresented == rhs.allowStepWhenNotPresented
            && lhs.allowStepWhenDismissed == rhs.allowStepWhenDismissed && lhs.embedded == rhs.embedded
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(page)
        hasher.combine(allowStepWhenNotPresented)
        hasher.combine(allowStepWhenDismissed)
        hasher.combine(embedded)
    }
}

/// A URL looked up among a tree's pages, with its hash: a walk of a thousand pages compares
/// the text of only those whose hash is the same.
struct PageURL {
    /// The URL's path.
    let text: String
    /// `text`'s hash.
    let hash: Int

    init(_ text: String) {
        self.text = text
        hash = text.hashValue
    }
}

/// A flow in the tree: its state, what its container holds, and what it presents.
public struct FlowNode: Sendable, Hashable {
    /// The node's id.
    public let id: NodeID
    /// The flow and its state.
    public internal(set) var flow: AnyFlow
    /// Stack: pages, bottom first. Split: master, then detail. Tabs: one flow per tab.
    /// Single: one page or flow.
    public internal(set) var children: NodeList
    /// The selected tab (tabs only; 0 otherwise).
    public internal(set) var selected: Int
    /// What this flow presents modally: a flow or a single page (an alert), at most one.
    public internal(set) var presented: TreeNode?

    /// The flow's container kind.
    public var container: ContainerKind { flow.container }

    init(id: NodeID, flow: AnyFlow) {
        self.id = id
        self.flow = flow
        children = []
        selected = 0
        presented = nil
    }
}

/// A page or a flow. A page is held in place (a stack of pages is one array of them, walked
/// without a pointer to follow per page); a flow, which holds nodes, in a box of its own.
public enum TreeNode: Sendable, Hashable {
    /// A page.
    case page(PageNode)
    /// A flow.
    indirect case flow(FlowNode)

    /// The node's id.
    public var id: NodeID {
        switch self {
        case .page(let page): page.id
        case .flow(let flow): flow.id
        }
    }
}

/// A page that left the tree but allowed steps after dismissal, and the flow that receives them.
public struct DismissedPage: Codable, Sendable, Hashable {
    /// The page's node id.
    public var node: NodeID
    /// The page's registered name.
    public var page: String
    /// The flow the page belonged to.
    public var flow: NodeID

    /// A record of a dismissed page.
    public init(node: NodeID, page: String, flow: NodeID) {
        self.node = node
        self.page = page
        self.flow = flow
    }
}

/// A session's coordinator tree: the value that *is* the navigation state.
public struct NavigationTree: Sendable, Hashable {
    /// The app's root flow.
    public internal(set) var root: FlowNode
    /// The next node id to give out (ids are never reused).
    public internal(set) var nextNodeID: Int
    /// Recently removed pages that allow steps after dismissal (the newest last, at most
    /// ``dismissedPagesLimit``).
    public internal(set) var dismissedPages: [DismissedPage]
    /// The session's ``AppData``, kept beside the nodes: flows change it in `navigate`, and it is
    /// not part of the tree's JSON or `Codable` forms (stores keep ``appDataJSON()`` apart).
    public internal(set) var appData: AnyAppData

    /// How many dismissed pages are remembered.
    public static var dismissedPagesLimit: Int { 32 }

    init(root flow: AnyFlow, appData: AnyAppData) {
        root = FlowNode(id: NodeID(rawValue: 1), flow: flow)
        nextNodeID = 2
        dismissedPages = []
        self.appData = appData
    }

    /// The app data as compact JSON (what stores keep beside the tree).
    public func appDataJSON() throws -> [UInt8] { try CompactJSONEncoder().encode(appData.base) }

    mutating func makeID() -> NodeID {
        defer { nextNodeID += 1 }
        return NodeID(rawValue: nextNodeID)
    }
}
