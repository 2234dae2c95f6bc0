/// Content types of static files by file-name extension.
public enum ContentTypes {
    private static let byExtension: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8", "json": "application/json",
        "map": "application/json", "txt": "text/plain; charset=utf-8",
        "md": "text/markdown; charset=utf-8", "xml": "application/xml",
        "yaml": "application/yaml", "yml": "application/yaml",
        "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
        "gif": "image/gif", "webp": "image/webp", "avif": "image/avif", "ico": "image/x-icon",
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        "pdf": "application/pdf", "wasm": "application/wasm",
        "webmanifest": "application/manifest+json",
    ]

    /// The media type for `fileName` by its extension (case-insensitive);
    /// `application/octet-stream` when unknown.
    public static func forFileName(_ fileName: String) -> MediaType {
        let ext =
            fileName.split(separator: ".").count > 1
            ? fileName.split(separator: ".").last.map { $0.lowercased() } : nil
        let text = ext.flatMap { byExtension[$0] } ?? "application/octet-stream"
        return (try? MediaType(parsing: text)) ?? MediaType(type: "application", subtype: "octet-stream")
    }
}
