import Crypto

/// Session ids: minted by the server and signed, so that any instance sharing the secret can
/// tell an id it minted from one it did not without asking the store (a session is stored only
/// once it changes, so a missing row does not mean an unknown id).
///
/// An id is 72 lower-case hex digits: 16 random bytes, the second it was minted (4 bytes,
/// big-endian), and the first 16 bytes of HMAC-SHA256 of those 20 bytes under the secret.
/// Ids from before signing (48 hex digits, 192 random bits) still name the sessions stored
/// under them; such an id with no stored session is refused like a forgery.
struct SessionIDs: Sendable {
    /// What an id is, once checked.
    enum Kind: Sendable, Equatable {
        /// Minted and signed by an instance with this secret, at `mintedAt` (milliseconds since
        /// 1970, a whole second).
        case signed(mintedAt: Int64)
        /// An id from before signing: valid only while its session is stored.
        case unsigned
    }

    private let key: SymmetricKey

    /// Ids signed with `secret` (at least 32 bytes).
    init(secret: [UInt8]) {
        key = SymmetricKey(data: secret)
    }

    /// A new random secret, for a server whose ids need not survive it or be shared.
    static func randomSecret() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in generator.next() }
    }

    /// The length in hex digits of a signed id, and of an id from before signing.
    static let signedLength = 72
    static let unsignedLength = 48

    /// A new id, minted at `now` (milliseconds since 1970), and its minting time as the id
    /// holds it (the whole second).
    func mint(now: Int64) -> (id: String, mintedAt: Int64) {
        var payload = [UInt8](repeating: 0, count: 20)
        var generator = SystemRandomNumberGenerator()
        for index in 0..<16 { payload[index] = generator.next() }
        let second = UInt32(clamping: now / 1000)
        for index in 0..<4 { payload[16 + index] = UInt8(truncatingIfNeeded: second >> UInt32(24 - index * 8)) }
        return (Hex.string(of: payload + signature(of: payload)), Int64(second) * 1000)
    }

    /// Whether `id` has the form of a session id (72 or 48 lower-case hex digits), without
    /// checking its signature: anything else is not even looked up.
    static func isWellFormed(_ id: String) -> Bool {
        var id = id
        return id.withUTF8 { text in
            (text.count == signedLength || text.count == unsignedLength)
                && text.allSatisfy { $0 &- UInt8(ascii: "0") < 10 || $0 &- UInt8(ascii: "a") < 6 }
        }
    }

    /// What `id` is; `nil` when it is not an id this server could have minted (malformed,
    /// forged, signed with another secret, truncated).
    func check(_ id: String) -> Kind? {
        var id = id
        return id.withUTF8 { text -> Kind? in
            switch text.count {
            case Self.unsignedLength:
                return Hex.bytes(of: text) == nil ? nil : .unsigned
            case Self.signedLength:
                guard let bytes = Hex.bytes(of: text) else { return nil }
                let payload = Array(bytes[0..<20])
                guard Self.constantTimeEqual(signature(of: payload), bytes[20...]) else { return nil }
                let second = payload[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                return .signed(mintedAt: Int64(second) * 1000)
            default:
                return nil
            }
        }
    }

    /// The CSRF token of session `id`: derived from the id under the secret, so that a session
    /// not yet stored has its token too, and every instance computes the same one.
    func csrfToken(for id: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array("csrf:\(id)".utf8), using: key)
        return Hex.string(of: Array(mac.prefix(16)))
    }

    private func signature(of payload: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: payload, using: key).prefix(16))
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
