import MicroHTTP

/// What a request is counted under in ``WebMetrics``: the label its route was registered with
/// (`page`, `step`, `api`, `inspector`, `events`, `app`, `healthz`, `metrics`, `public`), or
/// `unmatched` when no route answers it.
struct RequestLabels: Sendable {
    /// The router whose routes carry the labels.
    let router: Router
    /// The label of a request no route answers.
    let unmatched: String

    /// The label of `request`.
    func label(of request: Request) -> String {
        router.label(for: request) ?? unmatched
    }
}
