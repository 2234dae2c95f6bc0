import Foundation
import MicroHTTP
import Testing

/// A responder that answers immediately with "fast" (when `immediate`) and otherwise with "slow".
private struct TwoSpeedResponder: HTTPResponder {
    var immediate = true

    func respond(to request: Request) async -> Response { .text("slow \(request.path)") }
    func immediateResponse(to request: Request) -> Response? { immediate ? .text("fast \(request.path)") : nil }
}

/// Answers later (from another thread) what it answers at all: paths under `/later/`.
private struct LaterResponder: HTTPResponder {
    func respond(to request: Request) async -> Response { .text("task \(request.path)") }
    func answerLater(to request: Request, answer: @escaping @Sendable (Response) -> Void) -> Bool {
        guard request.path.hasPrefix("/later/") else { return false }
        Thread.detachNewThread { answer(.text("later \(request.path)")) }
        return true
    }
}

/// What `chain` answers later to `target`, or `nil` when it declines.
private func answeredLater(_ chain: some HTTPResponder, _ target: String) async throws -> Response? {
    let request = try Request(method: .get, target: target)
    let answers = AsyncStream<Response>.makeStream()
    guard chain.answerLater(to: request, answer: { answers.continuation.yield($0) }) else { return nil }
    for await response in answers.stream { return response }
    return nil
}

/// Appends its name to `X-Trail` on the way out, in both paths.
private struct Trail: HTTPMiddleware {
    let name: String

    func respond(to request: Request, next: some HTTPResponder) async -> Response {
        var response = await next.respond(to: request)
        response.headers.add("X-Trail", name)
        return response
    }

    func immediateResponse(to request: Request, next: some HTTPResponder) -> Response? {
        guard var response = next.immediateResponse(to: request) else { return nil }
        response.headers.add("X-Trail", name)
        return response
    }
}

/// Notes the path before and writes it on the answer after: one method for both paths.
private struct Stamp: SynchronousMiddleware {
    func before(_ request: Request) -> String { request.path }
    func after(_ response: inout Response, to request: Request, from path: String) {
        response.headers.add("X-Trail", "stamp \(path)")
    }
}

/// Answers `/blocked` itself; knows nothing of immediate answers.
private struct Blocker: HTTPMiddleware {
    func respond(to request: Request, next: some HTTPResponder) async -> Response {
        request.path == "/blocked" ? .text("blocked", status: .forbidden) : await next.respond(to: request)
    }
}

private struct ItemRoutes: RouteCollection {
    func register(on router: inout Router) {
        router.add(.get, "/items/{id}/parts/{part}") { _, parameters in
            .text("\(parameters["id"] ?? "?")/\(parameters["part"] ?? "?") \(parameters.values.count)")
        }
        router.add(.get, "/files/**") { _, parameters in .text("file \(parameters["**"] ?? "?")") }
    }
}

private func body(_ response: Response?) -> String? {
    response.map { String(decoding: $0.body, as: UTF8.self) }
}

@Suite("Router")
struct RouterTests {
    @Test("a mounted responder keeps its immediate answers; routes without one, and misses, answer nil")
    func immediateForwarding() async throws {
        var router = Router()
        router.add(.get, "/plain") { _, _ in .text("plain") }
        router.add(.get, "/late/**", responder: TwoSpeedResponder(immediate: false))
        router.add(.get, "/**", responder: TwoSpeedResponder())
        #expect(
            body(router.immediateResponse(to: try Request(method: .get, target: "/movies/1"))) == "fast /movies/1\n")
        #expect(
            body(router.immediateResponse(to: try Request(method: .head, target: "/movies/1"))) == "fast /movies/1\n")
        #expect(router.immediateResponse(to: try Request(method: .get, target: "/plain")) == nil)
        #expect(router.immediateResponse(to: try Request(method: .get, target: "/late/x")) == nil)
        #expect(router.immediateResponse(to: try Request(method: .post, target: "/movies/1")) == nil)
        #expect(body(await router.respond(to: try Request(method: .get, target: "/late/x"))) == "slow /late/x\n")
        #expect(body(await router.respond(to: try Request(method: .get, target: "/plain"))) == "plain\n")
    }

    @Test("a collection's routes, with parameters read on demand and the rest of a path under **")
    func collections() async throws {
        var router = Router()
        router.add(ItemRoutes())
        #expect(body(await router.respond(to: try Request(method: .get, target: "/items/7/parts/a"))) == "7/a 2\n")
        #expect(body(await router.respond(to: try Request(method: .get, target: "/files/a/b.txt"))) == "file a/b.txt\n")
        #expect(body(await router.respond(to: try Request(method: .get, target: "/files"))) == "file \n")
        #expect(await router.respond(to: try Request(method: .get, target: "/items/7/parts")).status == .notFound)
        #expect(router.hasRoute(for: try Request(method: .delete, target: "/items/7/parts/a")))
        #expect(!router.hasRoute(for: try Request(method: .get, target: "/items")))
    }

    @Test("an integer parameter matches an integer written the canonical way; its value reads as one")
    func integerParameters() throws {
        let pattern = RoutePattern("/movies/{id:int}/cast/{name}")
        #expect(
            pattern.segments == [
                .literal("movies"), .parameter("id", integer: true), .literal("cast"),
                .parameter("name", integer: false),
            ])
        #expect(pattern.match(["movies", "42", "cast", "ann"])?.int("id") == 42)
        #expect(pattern.match(["movies", "42", "cast", "ann"])?["name"] == "ann")
        #expect(
            pattern.match(["movies", "042", "cast", "ann"]) == nil
                && pattern.match(["movies", "x", "cast", "a"]) == nil)
        #expect(pattern.match(["movies", "-3", "cast", "a"])?.int("id") == -3)
        var router = Router()
        router.add(.get, "/movies/{id:int}", label: "movie") { _, _ in .text("movie") }
        #expect(router.label(for: try Request(method: .get, target: "/movies/7")) == "movie")
        #expect(router.label(for: try Request(method: .get, target: "/movies/seven")) == nil)
    }

    @Test("a route's label is the one it was registered with; a collection's routes without one get the collection's")
    func labels() throws {
        var router = Router()
        router.add(.get, "/healthz", label: "healthz") { _, _ in .text("ok") }
        router.add(ItemRoutes(), label: "items")
        router.labeling("api") { router in
            router.add(.get, "/api/own", label: "own") { _, _ in .text("own") }
            router.addForAnyMethod("/api/**") { _, _ in .text("none", status: .notFound) }
        }
        router.add(.get, "/unlabeled") { _, _ in .text("plain") }
        let label = { (method: HTTPMethod, target: String) in
            router.label(for: try Request(method: method, target: target))
        }
        #expect(try label(.get, "/healthz") == "healthz")
        #expect(try label(.head, "/healthz") == "healthz", "HEAD is answered by the GET route")
        #expect(try label(.get, "/items/7/parts/a") == "items" && label(.get, "/files/a") == "items")
        #expect(try label(.get, "/api/own") == "own", "a route's own label wins")
        #expect(try label(.post, "/api/other") == "api")
        #expect(try label(.get, "/unlabeled") == nil)
        #expect(try label(.get, "/nowhere") == nil && label(.post, "/healthz") == nil, "404 and 405 have no route")
    }

    @Test("a route for any method answers what earlier routes do not, but never turns a 405 into its answer")
    func anyMethodFallback() async throws {
        var router = Router(methodNotAllowed: { _, allow in
            .text("not with this method; \(allow)", status: .methodNotAllowed)
        })
        router.add(.get, "/api/thing") { _, _ in .text("thing") }
        router.addForAnyMethod("/api/**") { request, _ in .text("no API call \(request.path)", status: .notFound) }
        router.add(.post, "/**") { _, _ in .text("anything else") }
        #expect(
            body(await router.respond(to: try Request(method: .post, target: "/api/other")))
                == "no API call /api/other\n")
        let wrongMethod = await router.respond(to: try Request(method: .post, target: "/api/thing"))
        #expect(wrongMethod.status == .methodNotAllowed)
        #expect(body(wrongMethod) == "not with this method; GET, HEAD\n")
        #expect(body(await router.respond(to: try Request(method: .post, target: "/elsewhere"))) == "anything else\n")
    }

    @Test("a router answers rejected requests its own way when told, else in plain text")
    func rejections() {
        let rejection = RequestRejection(status: .contentTooLarge, message: "too big")
        #expect(Router().response(for: rejection).status == .contentTooLarge)
        let custom = Router(rejected: { .text("custom \($0.message)", status: $0.status) })
        #expect(body(custom.response(for: rejection)) == "custom too big\n")
        // Through middleware (an existential chain), the innermost responder still decides.
        #expect(body(custom.wrapped(in: [Trail(name: "a")]).response(for: rejection)) == "custom too big\n")
    }

    @Test("middleware runs in the order given, the first outermost, on both paths")
    func middlewareOrder() async throws {
        var router = Router()
        router.add(.get, "/**", responder: TwoSpeedResponder())
        let chain = router.wrapped(in: [Trail(name: "outer"), Trail(name: "inner")])
        let slow = await chain.respond(to: try Request(method: .get, target: "/a"))
        #expect(slow.headers.values(for: "X-Trail") == ["inner", "outer"])
        let fast = try #require(chain.immediateResponse(to: try Request(method: .get, target: "/a")))
        #expect(fast.headers.values(for: "X-Trail") == ["inner", "outer"])
    }

    @Test("a middleware without an immediate answer sends every request the slow way, and may answer itself")
    func middlewareWithoutImmediate() async throws {
        var router = Router()
        router.add(.get, "/**", responder: TwoSpeedResponder())
        let chain = router.wrapped(in: [Trail(name: "outer"), Blocker()])
        #expect(chain.immediateResponse(to: try Request(method: .get, target: "/a")) == nil)
        let blocked = await chain.respond(to: try Request(method: .get, target: "/blocked"))
        #expect(blocked.status == .forbidden)
        #expect(blocked.headers.values(for: "X-Trail") == ["outer"])
        #expect(body(await chain.respond(to: try Request(method: .get, target: "/a"))) == "slow /a\n")
    }

    @Test("a SynchronousMiddleware, written once, works on immediate and task answers alike")
    func synchronousMiddleware() async throws {
        var router = Router()
        router.add(.get, "/fast/**", responder: TwoSpeedResponder())
        router.add(.get, "/slow/**", responder: TwoSpeedResponder(immediate: false))
        let chain = router.wrapped(in: [Trail(name: "outer"), Stamp()])
        let fast = try #require(chain.immediateResponse(to: try Request(method: .get, target: "/fast/a")))
        #expect(body(fast) == "fast /fast/a\n" && fast.headers.values(for: "X-Trail") == ["stamp /fast/a", "outer"])
        let task = await chain.respond(to: try Request(method: .get, target: "/fast/a"))
        #expect(body(task) == "slow /fast/a\n" && task.headers.values(for: "X-Trail") == ["stamp /fast/a", "outer"])
        #expect(chain.immediateResponse(to: try Request(method: .get, target: "/slow/b")) == nil)
        let slow = await chain.respond(to: try Request(method: .get, target: "/slow/b"))
        #expect(slow.headers.values(for: "X-Trail") == ["stamp /slow/b", "outer"])
    }

    @Test(
        "an answer given later keeps its route, its mounted responder and its SynchronousMiddleware; others decline it")
    func answersLater() async throws {
        var router = Router()
        router.add(.get, "/plain/**") { _, _ in .text("plain") }
        router.add(.get, "/**", responder: LaterResponder())
        let later = try #require(try await answeredLater(router.wrapped(in: [Stamp()]), "/later/a"))
        #expect(body(later) == "later /later/a\n" && later.headers.values(for: "X-Trail") == ["stamp /later/a"])
        // Declined: a path the responder does not answer later, a route without a later answer,
        // and a chain with a middleware that knows nothing of later answers (its work would be skipped).
        #expect(try await answeredLater(router, "/other") == nil)
        #expect(try await answeredLater(router, "/plain/x") == nil)
        #expect(try await answeredLater(router.wrapped(in: [Trail(name: "outer")]), "/later/a") == nil)
        #expect(body(await router.respond(to: try Request(method: .get, target: "/later/a"))) == "task /later/a\n")
    }
}
