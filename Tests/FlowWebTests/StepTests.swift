import FlowTesting
import Foundation
import Testing

@Suite("Steps from links and forms (Docs/CONTRACT.md §3, §4)")
struct StepTests {
    private func started(_ site: TestSite) async throws -> (TestBrowser, TestResponse) {
        let browser = try await startedBrowser(site)
        return (browser, try await browser.get("/a"))
    }

    @Test("a form POST with the CSRF token decodes typed params and answers 303 (PRG)")
    func form() async throws {
        try await withSite { site in
            let (browser, list) = try await started(site)
            let fields = [
                ("_from", try #require(list.hidden("_from"))), ("_r", try #require(list.hidden("_r"))),
                ("_csrf", try #require(list.hidden("_csrf"))), ("name", "Ada <3"), ("times", "3"), ("_step", "greet"),
            ]
            let posted = try await browser.post("/_step", form: fields)
            #expect(posted.status == 303 && posted.header("Location") == "/greeting")
            let page = try await browser.get("/greeting")
            #expect(page.text.contains("<h1>Hello, Ada &lt;3 ×3</h1>"))
            let again = try await browser.post("/_step", form: fields)  // double submit
            #expect(again.header("Location") == "/greeting")
            #expect(try await API(browser: browser).history().filter { $0.source == "form" }.count == 1)
        }
    }

    @Test(
        "the session's app data changes with the navigations that change it, is stored beside the tree, and is the session's own"
    )
    func appData() async throws {
        try await withSite { site in
            let (browser, _) = try await started(site)
            for expected in 1...2 {
                let list = try await browser.get("/a")
                let fields = [
                    ("_from", try #require(list.hidden("_from"))), ("_r", try #require(list.hidden("_r"))),
                    ("_csrf", try #require(list.hidden("_csrf"))), ("name", "Ada"), ("times", "1"), ("_step", "greet"),
                ]
                #expect(try await browser.post("/_step", form: fields).status == 303)
                #expect(try await browser.get("/greeting").text.contains("greetings: \(expected)"))
            }
            let id = try #require(browser.cookie("flowserver_session"))
            let record = try #require(try site.store.load(id))
            #expect(String(decoding: record.appData, as: UTF8.self) == #"{"greetings":2}"#)
            let (other, list) = try await started(site)
            let fields = [
                ("_from", try #require(list.hidden("_from"))), ("_r", try #require(list.hidden("_r"))),
                ("_csrf", try #require(list.hidden("_csrf"))), ("name", "Bo"), ("times", "1"), ("_step", "greet"),
            ]
            _ = try await other.post("/_step", form: fields)
            #expect(try await other.get("/greeting").text.contains("greetings: 1"))
        }
    }

    @Test("a POST without the right CSRF token is refused with 403 and changes nothing")
    func csrf() async throws {
        try await withSite { site in
            let (browser, list) = try await started(site)
            let base = [
                ("_from", try #require(list.hidden("_from"))), ("_step", "greet"), ("name", "x"), ("times", "1"),
            ]
            #expect(try await browser.post("/_step", form: base).status == 403)
            #expect(try await browser.post("/_step", form: base + [("_csrf", "0123")]).status == 403)
            #expect(try await API(browser: browser).history().count == 1)
        }
    }

    @Test("a cross-site step is refused; a cross-site page visit is welcome")
    func crossSite() async throws {
        try await withSite { site in
            let (browser, list) = try await started(site)
            let link = try #require(list.link(containing: "Item 7"))
            #expect(try await browser.get(link, headers: [("Sec-Fetch-Site", "cross-site")]).status == 403)
            #expect(try await browser.get("/items/5", headers: [("Sec-Fetch-Site", "cross-site")]).status == 200)
        }
    }

    @Test(
        "an unknown step, a missing or ill-typed param gets a 400 page that says which and why",
        arguments: [
            ("/_step/fly?_from=5", "unknown step &quot;fly&quot;"),
            ("/_step/itemIsPicked?_from=5", "field &quot;id&quot;: missing"),
            ("/_step/itemIsPicked?id=seven&_from=5", "field &quot;id&quot;: expected an integer"),
            ("/_step/itemIsPicked?id=%zz", "Malformed input"),
            ("/_step/itemIsPicked?id=1&_from=x", "_from"),
        ])
    func badSteps(link: String, message: String) async throws {
        try await withSite { site in
            let (browser, _) = try await started(site)
            let response = try await browser.get(link)
            #expect(response.status == 400)
            #expect(response.text.contains(message), "\(response.text)")
            #expect(try await API(browser: browser).history().count == 1)
        }
    }

    @Test("a form with a wrong content type gets 415; too many fields 413")
    func formLimits() async throws {
        try await withSite { site in
            let (browser, list) = try await started(site)
            let csrf = try #require(list.hidden("_csrf"))
            let json = try await browser.send(
                "POST", "/_step", headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
            #expect(json.status == 415)
            let many = (0..<1_500).map { ("f\($0)", "x") }
            #expect(try await browser.post("/_step", form: [("_csrf", csrf)] + many).status == 413)
        }
    }

    @Test("adapt: every other help request is refused and recorded as rejected")
    func adapt() async throws {
        try await withSite { site in
            let (browser, list) = try await started(site)
            _ = try await browser.get(try #require(list.link(containing: ">Help<")))
            let second = try await browser.follow(">Help<", on: "/a")
            #expect(second.header("Location") == "/a")
            let outcomes = try await API(browser: browser).history().map(\.outcome)
            #expect(outcomes.suffix(3) == ["navigated", "navigated", "rejected"])
        }
    }
}

@Suite("Form validation, multipart and body limits (Docs/CONTRACT.md §3, §6)")
struct FormTests {
    @Test(
        "an invalid form is answered 303 to its page, which shows the messages and the input kept until the session changes; the tree and history do not change"
    )
    func validation() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            let list = try await browser.get("/a")
            let fields = [
                ("_from", try #require(list.hidden("_from"))), ("_r", try #require(list.hidden("_r"))),
                ("_csrf", try #require(list.hidden("_csrf"))), ("_step", "greet"), ("name", " "), ("times", "3 <b>"),
            ]
            let response = try await browser.post("/_step", form: fields)
            #expect(response.status == 303 && response.header("Location") == "/a", "no POST left in the history")
            // The page, and a Refresh of it (the fast path's), show the messages and the input.
            for _ in 0..<2 {
                let page = try await browser.get("/a")
                #expect(page.status == 200)
                #expect(page.text.contains("<span class=\"error\">Enter a name.</span>"))
                #expect(page.text.contains("<span class=\"error\">Enter a number.</span>"))
                #expect(page.text.contains("name=\"times\" value=\"3 &lt;b&gt;\""))
            }
            let api = API(browser: browser)
            #expect(try await api.history().count == 1, "no navigation recorded")
            let id = try #require(browser.cookie("flowserver_session"))
            let extra = String(decoding: try #require(try site.store.load(id)).extra, as: UTF8.self)
            #expect(!extra.contains("_csrf") && !extra.contains("_r"), "FlowServer's own fields are not kept")
            // The same submission sent again changes nothing more; the next navigation forgets it.
            #expect(try await browser.post("/_step", form: fields).header("Location") == "/a")
            _ = try await browser.follow("Item 7", on: "/a")
            _ = try await browser.get("/a")  // Back
            let again = try await browser.get("/a")
            #expect(!again.text.contains("Enter a name.") && !again.text.contains("3 &lt;b&gt;"))
            #expect(try await api.history().map(\.source) == ["start", "link", "visit"])
        }
    }

    @Test("a multipart form works like an urlencoded one")
    func multipart() async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            let list = try await browser.get("/a")
            let parts = [
                ("_from", try #require(list.hidden("_from"))), ("_csrf", try #require(list.hidden("_csrf"))),
                ("_step", "greet"), ("name", "Grace"), ("times", "2"),
            ]
            var body = ""
            for (name, value) in parts {
                body += "--XyZ\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
            }
            body += "--XyZ--\r\n"
            let response = try await browser.send(
                "POST", "/_step", headers: [("Content-Type", "multipart/form-data; boundary=XyZ")],
                body: Array(body.utf8))
            #expect(response.status == 303 && response.header("Location") == "/greeting")
            #expect(try await browser.get("/greeting").text.contains("Hello, Grace ×2"))
            let broken = try await browser.send(
                "POST", "/_step", headers: [("Content-Type", "multipart/form-data; boundary=XyZ")],
                body: Array("--XyZ\r\ngarbage".utf8))
            #expect(broken.status == 400)
        }
    }

    @Test(
        "malformed encodings are refused with 400 and the session unchanged",
        arguments: [
            "name=%FF&times=1", "name=%zz&times=1", "name=a&times=%E2%82",
        ])
    func malformedForms(body: String) async throws {
        try await withSite { site in
            let browser = try await startedBrowser(site)
            let list = try await browser.get("/a")
            let prefix = "_csrf=\(try #require(list.hidden("_csrf")))&_step=greet&"
            let response = try await browser.send(
                "POST", "/_step", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array((prefix + body).utf8))
            #expect(response.status == 400)
            #expect(try await API(browser: browser).history().count == 1)
        }
    }

    @Test("a body over the limit gets a 413 page and the process lives on")
    func oversizeBody() async throws {
        let site = try await TestSite.start(maxBody: 1024)
        let browser = try await startedBrowser(site)
        let response = try await browser.post("/_step", form: [("name", String(repeating: "x", count: 5000))])
        let alive = try await browser.get("/a").status
        await site.server.stop()
        #expect(response.status == 413)
        #expect(response.text.contains("larger than the limit of 1024 bytes"))
        #expect(alive == 200)
    }
}
