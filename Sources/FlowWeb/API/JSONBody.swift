import FlowCore
import MicroHTTP

/// A JSON request body read as an API call's input.
enum JSONBody {
    /// `request`'s body as `Body`.
    ///
    /// - Throws: ``WebError`` `415` when it is not JSON, `400` saying what does not fit.
    static func decode<Body: Decodable>(_ request: Request) throws(WebError) -> Body {
        let json = try parse(request)
        if let Direct = Body.self as? any DirectJSONBody.Type, let body = Direct.init(direct: json) as? Body {
            return body
        }
        do {
            return try CompactJSONDecoder().decode(Body.self, from: json)
        } catch let error as DecodingError {
            throw .badRequest("The JSON body is not what this call takes: \(describe(error)).")
        } catch {
            throw .badRequest("The JSON body is not what this call takes: \(error).")
        }
    }

    /// `request`'s body as JSON.
    private static func parse(_ request: Request) throws(WebError) -> JSON {
        let type: MediaType?
        do { type = try request.contentType } catch { throw .badRequest("\(error)") }
        guard let type, type.hasSameEssence(as: .json) else {
            throw .unsupportedMediaType("Send JSON (Content-Type: application/json).")
        }
        do { return try JSON(parsing: request.body) } catch {
            throw .badRequest("The JSON body is not what this call takes: \(error.description).")
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

/// A body ``JSONBody`` reads straight from its JSON when it has the usual shape, without
/// `Codable`'s generic machinery (an API step's largest cost after the session's own work).
protocol DirectJSONBody: Decodable {
    /// The body `json` holds when it has the usual shape; `nil` sends it through `Codable`,
    /// whose errors say what does not fit.
    init?(direct json: JSON)
}
