import MicroHTTP

/// A responder set once, while its owner is being made, and only read after: the owner's routes
/// call back into the owner, so they can only be made once the owner exists.
final class ResponderSlot: @unchecked Sendable {
    // Written once in the owner's `init`, before the owner is handed to a server; read-only
    // from then on, so no thread ever sees it change.
    private var value: (any HTTPResponder)?

    /// The responder; set before the first request.
    var responder: any HTTPResponder { value! }

    /// Sets the responder; only from the owner's `init`.
    func set(_ responder: any HTTPResponder) {
        precondition(value == nil, "a responder slot is set once")
        value = responder
    }
}
