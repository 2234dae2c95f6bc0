#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Serves the files of one directory under a URL prefix, e.g. `Public/` at `/public/...`,
/// with their content type, a strong `ETag` (size and modification time), `304 Not Modified`
/// for a matching `If-None-Match`, and `Cache-Control`.
///
/// It never serves a file outside its directory: each decoded path segment must be a plain
/// name (no `..`, `.`, empty, `/`, `\` or NUL, whatever the encoding), and the resolved real
/// path, symlinks followed, must still lie inside the directory's real path. Hidden files
/// (names starting with `.`) are not served.
///
/// ```swift
/// router.add(.get, "/public/**", responder: StaticFiles(directory: "Public", urlPrefix: "/public"))
/// ```
public struct StaticFiles: HTTPResponder {
    /// The directory's real path, resolved once; `nil` when it does not exist.
    private let root: String?
    private let prefixCount: Int
    private let cacheControl: String
    /// Files larger than this are answered `500`; public assets are small.
    private let maximumFileSize = 64 << 20

    /// Serves `directory` (relative to the working directory, or absolute) under `urlPrefix`.
    /// `cacheControl` defaults to `no-cache`: browsers keep the file and revalidate it with its
    /// `ETag`, so a changed stylesheet is seen at once and an unchanged one costs a `304`.
    public init(directory: String, urlPrefix: String = "/public", cacheControl: String = "no-cache") {
        root = directory.withCString { pointer in
            guard let resolved = realpath(pointer, nil) else { return nil }
            defer { free(resolved) }
            return String(cString: resolved)
        }
        prefixCount = urlPrefix.split(separator: "/").count
        self.cacheControl = cacheControl
    }

    public func respond(to request: Request) async -> Response {
        guard request.method == .get || request.method == .head else {
            var response = Response.text("Only GET and HEAD are allowed here", status: .methodNotAllowed)
            response.headers["Allow"] = "GET, HEAD"
            return response
        }
        guard let root, request.pathSegments.count > prefixCount else { return notFound(request) }
        let names = request.pathSegments[prefixCount...]
        guard names.allSatisfy(Self.isPlainName) else { return notFound(request) }
        guard let file = resolve(root: root, names: names) else { return notFound(request) }
        var info = stat()
        guard stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return notFound(request) }
        guard Int(info.st_size) <= maximumFileSize else {
            return .text("\(request.path) is too large to serve", status: .internalServerError)
        }
        let etag =
            "\"\(String(UInt64(info.st_size), radix: 16))-\(String(Self.modificationNanoseconds(info), radix: 16))\""
        var headers: HTTPHeaders = [
            "ETag": etag, "Cache-Control": cacheControl, "X-Content-Type-Options": "nosniff",
        ]
        if let condition = request.headers["If-None-Match"], Self.matches(condition, etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        guard let body = Self.readFile(file) else {
            return .text("\(request.path) could not be read", status: .internalServerError)
        }
        headers["Content-Type"] = ContentTypes.forFileName(names.last!).description
        return Response(status: .ok, headers: headers, body: body)
    }

    private func notFound(_ request: Request) -> Response {
        .text("Not found: \(request.path)", status: .notFound)
    }

    /// The real path of `root/names...`, or `nil` when it is missing or lies outside `root`.
    private func resolve(root: String, names: ArraySlice<String>) -> String? {
        let joined = root + "/" + names.joined(separator: "/")
        guard let resolved = realpath(joined, nil) else { return nil }
        defer { free(resolved) }
        let real = String(cString: resolved)
        return real.hasPrefix(root + "/") ? real : nil
    }

    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".")
            && !name.utf8.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") || $0 == 0 }
    }

    private static func matches(_ condition: String, etag: String) -> Bool {
        condition.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingSpaces()
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            return tag == etag
        }
    }

    private static func modificationNanoseconds(_ info: stat) -> UInt64 {
        #if canImport(Darwin)
        UInt64(info.st_mtimespec.tv_sec) &* 1_000_000_000 &+ UInt64(info.st_mtimespec.tv_nsec)
        #else
        UInt64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ UInt64(info.st_mtim.tv_nsec)
        #endif
    }

    private static func readFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 { return nil }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
