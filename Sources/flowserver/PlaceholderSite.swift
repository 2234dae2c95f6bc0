import MicroHTTP

/// What `flowserver` serves until the Movies demo exists: `/healthz`, `/public/...`, and a
/// page at `/` that says plainly that the demo is not built yet.
enum PlaceholderSite {
    static func router(publicDirectory: String) -> Router {
        var router = Router()
        router.add(.get, "/healthz") { _, _ in .text("ok") }
        router.add(.get, "/public/**", responder: StaticFiles(directory: publicDirectory, urlPrefix: "/public"))
        router.add(.get, "/") { _, _ in
            var response = Response.html(page)
            response.headers["Cache-Control"] = "no-store"
            return response
        }
        return router
    }

    private static let page = """
        <!doctype html>
        <html lang="en">
        <head><meta charset="utf-8"><title>FlowServer</title>
        <meta name="viewport" content="width=device-width, initial-scale=1"></head>
        <body>
        <main>
        <h1>FlowServer is running</h1>
        <p>The HTTP server works; the Movies demo's flows are not built yet.
        <a href="/healthz">/healthz</a> answers the health check.</p>
        </main>
        </body>
        </html>
        """
}
