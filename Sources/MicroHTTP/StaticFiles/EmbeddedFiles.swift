/// Serves files held in memory (compiled into the program) under a URL prefix, as
/// ``StaticFiles`` serves a directory: their content type, a strong `ETag` (from the content),
/// `304 Not Modified` for a matching `If-None-Match`, `Cache-Control` and `nosniff`.
///
/// ```swift
/// let defaults = EmbeddedFiles(files: ["site.css": Array("body { margin: 0 }".utf8)], urlPrefix: "/public")
/// ```
public struct EmbeddedFiles: HTTPResponder {
    /// One file: its bytes and the headers every answer for it carries.
    private struct File: Sendable {
        let body: [UInt8]
        let etag: String
        let contentType: String
    }

    private let files: [String: File]
    private let prefixCount: Int
    private let cacheControl: String

    /// Serves `files` (by name; a name may contain `/` for a subfolder) under `urlPrefix`.
    public init(files: [String: [UInt8]], urlPrefix: String = "/public", cacheControl: String = "no-cache") {
        var table: [String: File] = [:]
        for (name, body) in files {
            let fileName = name.split(separator: "/").last.map(String.init) ?? name
            table[name] = File(
                body: body, etag: "\"\(String(Self.fingerprint(body), radix: 16))\"",
                contentType: ContentTypes.forFileName(fileName).description)
        }
        self.files = table
        prefixCount = urlPrefix.split(separator: "/").count
        self.cacheControl = cacheControl
    }

    /// The names of the files served.
    public var names: [String] { files.keys.sorted() }

    /// Whether `request` names one of the files (whatever its method).
    public func serves(_ request: Request) -> Bool { file(for: request) != nil }

    public func respond(to request: Request) async -> Response {
        guard request.method == .get || request.method == .head else {
            var response = Response.text("Only GET and HEAD are allowed here", status: .methodNotAllowed)
            response.headers["Allow"] = "GET, HEAD"
            return response
        }
        guard let file = file(for: request) else { return .text("Not found: \(request.path)", status: .notFound) }
        var headers: HTTPHeaders = [
            "ETag": file.etag, "Cache-Control": cacheControl, "X-Content-Type-Options": "nosniff",
        ]
        if let condition = request.headers["If-None-Match"],
            condition.split(separator: ",").contains(where: {
                $0.trimmingSpaces() == "*" || $0.trimmingSpaces() == file.etag
            })
        {
            return Response(status: .notModified, headers: headers)
        }
        headers["Content-Type"] = file.contentType
        return Response(status: .ok, headers: headers, body: file.body)
    }

    private func file(for request: Request) -> File? {
        guard request.pathSegments.count > prefixCount else { return nil }
        return files[request.pathSegments[prefixCount...].joined(separator: "/")]
    }

    /// FNV-1a of `bytes`, 64 bits: the content's fingerprint for its `ETag`.
    private static func fingerprint(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }
}
