import MicroHTTP
import MustacheTemplates

/// What every FlowServer app gets without writing it: the layout its pages render in, the error
/// page, the stylesheet, the script of live tabs and restored pages, the API's OpenAPI document
/// and an icon. All are compiled into the program; an app replaces any of them with a file of the
/// same name in its own `Templates/` (`layout.mustache`, `error.mustache`) or `Public/`
/// (`site.css`, `site.js`, `openapi.yaml`, `favicon.svg`).
public enum FlowWebDefaults {
    /// The default templates by name: `layout` (the document around every page), `error` (an
    /// error page's content: `title`, `detail`, `back` with `url` and `label`), and the
    /// inspector's pages (`inspector/page`, `inspector/entry`, `inspector/graph`, with their
    /// partials `inspector/tree` and `inspector/history`).
    public static let templates: [String: String] = [
        "layout": String(decoding: PackageResources.layout_mustache, as: UTF8.self),
        "error": String(decoding: PackageResources.error_mustache, as: UTF8.self),
        "inspector/page": String(decoding: PackageResources.inspector_page_mustache, as: UTF8.self),
        "inspector/entry": String(decoding: PackageResources.inspector_entry_mustache, as: UTF8.self),
        "inspector/graph": String(decoding: PackageResources.inspector_graph_mustache, as: UTF8.self),
        "inspector/tree": String(decoding: PackageResources.inspector_tree_mustache, as: UTF8.self),
        "inspector/history": String(decoding: PackageResources.inspector_history_mustache, as: UTF8.self),
    ]

    /// The default public files by name, served under `/public/` when the app's public
    /// directory has no file of that name.
    public static let publicFiles: [String: [UInt8]] = [
        "site.css": PackageResources.site_css,
        "site.js": PackageResources.site_js,
        "openapi.yaml": PackageResources.openapi_yaml,
        "favicon.svg": PackageResources.favicon_svg,
    ]

    /// The templates below `directory` over the default ones: what an app's pages render with.
    ///
    /// - Throws: `TemplateError` naming the file, line and column of the first problem, or the
    ///   directory when it does not exist.
    public static func templates(directory: String, options: TemplateLibrary.Options = .init()) throws(TemplateError)
        -> TemplateLibrary
    {
        try TemplateLibrary(directory: directory, defaults: templates, options: options)
    }

    /// The default public files as a responder under `/public`.
    static let publicResponder = EmbeddedFiles(files: publicFiles, urlPrefix: "/public")
}
