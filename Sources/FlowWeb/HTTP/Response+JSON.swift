import FlowCore
import MicroHTTP

extension Response {
    /// `value` as compact JSON (`application/json`), not cached.
    ///
    /// - Throws: ``WebError`` (`500`) when `value` cannot be encoded.
    public static func json(_ value: some Encodable, status: HTTPStatus = .ok) throws(WebError) -> Response {
        let body: [UInt8]
        do { body = try CompactJSONEncoder().encode(value) } catch {
            throw .internalError("cannot encode the answer: \(error)")
        }
        return json(text: body, status: status)
    }

    /// `text`, a document already written as compact JSON (`application/json`), not cached.
    static func json(text: [UInt8], status: HTTPStatus = .ok) -> Response {
        Response(
            status: status, headers: ["Content-Type": MediaType.json.description, "Cache-Control": "no-store"],
            body: text)
    }
}
