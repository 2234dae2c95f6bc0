import FlowCore
import MicroHTTP

/// A JSON request body read as an API call's input.
enum JSONBody {
    /// `request`'s body as `Body`.
    ///
    /// - Throws: ``WebError`` `415` when it is not JSON, `400` saying what does not fit.
    static func decode<Body: Decodable>(_ request: Request) throws(WebError) -> Body {
        let type: MediaType?
        do { type = try request.contentType } catch { throw .badRequest("\(error)") }
        guard let type, type.hasSameEssence(as: .json) else {
            throw .unsupportedMediaType("Send JSON (Content-Type: application/json).")
        }
        do {
            return try CompactJSONDecoder().decode(Body.self, from: request.body)
        } catch let error as DecodingError {
            throw .badRequest("The JSON body is not what this call takes: \(describe(error)).")
        } catch {
            throw .badRequest("The JSON body is not what this call takes: \(error).")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "missing \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.codingPath.isEmpty
                ? context.debugDescription
                : "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\": \(context.debugDescription)"
        @unknown default: "\(error)"
        }
    }
}
