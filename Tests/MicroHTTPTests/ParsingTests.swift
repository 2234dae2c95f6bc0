import FlowTesting
import MicroHTTP
import Testing

@Suite("Strict parsing helpers")
struct ParsingTests {
    @Test("percent-decoding accepts valid escapes and refuses malformed ones with their offset")
    func percentDecoding() throws {
        #expect(try PercentDecoding.decode(Array("caf%C3%A9+x".utf8), plusAsSpace: false, location: "t") == "café+x")
        #expect(try PercentDecoding.decode(Array("a+b".utf8), plusAsSpace: true, location: "t") == "a b")
        #expect(try PercentDecoding.decode(Array("/movies-42".utf8), plusAsSpace: true, location: "t") == "/movies-42")
        #expect(try PercentDecoding.decode(Array("café".utf8), plusAsSpace: false, location: "t") == "café")
        #expect(throws: HTTPParseError(.invalidPercentEncoding, in: "t", at: 2)) {
            try PercentDecoding.decode(Array("ab%4".utf8), plusAsSpace: false, location: "t")
        }
        #expect(throws: HTTPParseError(.invalidPercentEncoding, in: "t", at: 0)) {
            try PercentDecoding.decode(Array("%zz".utf8), plusAsSpace: false, location: "t")
        }
        #expect(throws: HTTPParseError(.invalidUTF8, in: "t")) {
            try PercentDecoding.decode(Array("%C3%28".utf8), plusAsSpace: false, location: "t")
        }
        #expect(throws: HTTPParseError(.invalidUTF8, in: "t")) {
            try PercentDecoding.decode(Array("a%00b".utf8), plusAsSpace: false, location: "t")
        }
        #expect(throws: HTTPParseError(.invalidUTF8, in: "t")) {
            try PercentDecoding.decode([0x61, 0xFF], plusAsSpace: false, location: "t")
        }
    }

    @Test("urlencoded forms keep order, skip empty pieces, name the bad field, and cap the field count")
    func forms() throws {
        let fields = try URLEncodedForm.parse(Array("b=2&a=1&&a=3&flag&e=".utf8))
        #expect(fields.map(\.name) == ["b", "a", "a", "flag", "e"])
        #expect(fields.map(\.value) == ["2", "1", "3", "", ""])
        #expect(try URLEncodedForm.parse(Array("k=a%3Db%26c".utf8)) == [FormField(name: "k", value: "a=b&c")])
        do {
            _ = try URLEncodedForm.parse(Array("ok=1&name=%E2%82".utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidUTF8)
            #expect(error.description == "invalid UTF-8 in form field \"name\"")
        }
        #expect(throws: HTTPParseError.self) {
            try URLEncodedForm.parse(Array("a=1&b=2&c=3".utf8), maxFields: 2)
        }
        do {
            _ = try URLEncodedForm.parse(Array("a=1&b=2&c=3".utf8), maxFields: 2)
        } catch {
            #expect(error.code == .tooManyFields)
        }
    }

    @Test("request targets split the raw path before decoding, so %2F stays inside its segment")
    func requestTargets() throws {
        let request = try Request(method: .get, target: "/a%2Fb/c%20d/?x=1#frag")
        #expect(request.pathSegments == ["a/b", "c d", ""])
        #expect(request.rawPath == "/a%2Fb/c%20d/")
        #expect(request.rawQuery == "x=1")
        #expect(request.path == "/a/b/c d/")
        for (target, path) in [
            ("/", "/"), ("//", "//"), ("/a?x=/y", "/a"), ("/movies/42/", "/movies/42/"), ("http://example.com", "/"),
        ] {
            #expect(try Request(method: .get, target: target).path == path)
        }
        #expect(try Request(method: .get, target: "/").pathSegments == [])
        #expect(try Request(method: .get, target: "//").pathSegments == ["", ""])
        #expect(try Request(method: .get, target: "/a?x=/y").pathSegments == ["a"])
        #expect(try Request(method: .get, target: "http://example.com/x?y").pathSegments == ["x"])
        #expect(try Request(method: .get, target: "http://example.com").pathSegments == [])
        #expect(throws: HTTPParseError.self) { try Request(method: .get, target: "*") }
        #expect(throws: HTTPParseError(.invalidPercentEncoding, in: "path", at: 3)) {
            try Request(method: .get, target: "/ab%g1")
        }
        #expect(throws: HTTPParseError(.invalidPercentEncoding, in: "path", at: 5)) {
            try Request(method: .get, target: "/ab/c%zz?q=%zz")
        }
        let tricky = try Request(method: .get, target: "/a/%F0%9F%8E%AC//b?x=1?y#z?w")
        #expect(tricky.pathSegments == ["a", "🎬", "", "b"])
        #expect(tricky.rawPath == "/a/%F0%9F%8E%AC//b" && tricky.rawQuery == "x=1?y")
        #expect(try Request(method: .get, target: "/x#?y").rawQuery == nil)
    }

    @Test("cookies: pairs in order, quotes removed, malformed pieces skipped")
    func cookies() throws {
        let parsed = Cookies.parse("a=1; b=\"two\";bad; =x; c=3=4;  d = 5 ")
        #expect(parsed.map(\.name) == ["a", "b", "c", "d"])
        #expect(parsed.map(\.value) == ["1", "two", "3=4", "5"])
        let request = try Request(method: .get, target: "/", headers: ["Cookie": "x=1; y=2", "cookie": "x=3"])
        #expect(request.cookie("x") == "1")
        #expect(request.cookie("y") == "2")
        #expect(request.cookie("z") == nil)
        // Names match whole, not as prefixes; a non-token name is skipped; a lone quote stays.
        let edges = "session_x=1; a b=2; session=3; e=; q=\"; ;;"
        #expect(Cookies.parse(edges).map { "\($0.name)=\($0.value)" } == ["session_x=1", "session=3", "e=", "q=\""])
        #expect(Cookies.value(named: "session", in: edges) == "3")
        #expect(Cookies.value(named: "e", in: edges) == "")
        #expect(Cookies.value(named: "", in: edges) == nil)
        #expect(Cookies.parse("").isEmpty && Cookies.parse(";").isEmpty)
        let cookie = SetCookie(name: "s", value: "v", maxAge: 0, secure: true, sameSite: .strict)
        #expect(cookie.headerValue == "s=v; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict")
    }

    @Test("media types: case-insensitive essence, parameters, refusals")
    func mediaTypes() throws {
        let type = try MediaType(parsing: "Text/HTML; Charset=\"UTF-8\"; level=1")
        #expect(type.type == "text" && type.subtype == "html")
        #expect(type.parameter("charset") == "UTF-8")
        #expect(type.parameter("LEVEL") == "1")
        #expect(type.hasSameEssence(as: .html))
        #expect(try MediaType(parsing: "multipart/form-data; boundary=----x").parameter("boundary") == "----x")
        // Quoted values keep their `;` and escapes, and print quoted so that they parse back (a
        // value with a comma and a trailing space printed bare did not: found by fuzzing).
        let quoted = try MediaType(parsing: #"multipart/form-data; boundary="a;b \"c\" ,"; format="pfl,ow ""#)
        #expect(quoted.parameter("boundary") == #"a;b "c" ,"# && quoted.parameter("format") == "pfl,ow ")
        #expect(try MediaType(parsing: quoted.description) == quoted)
        #expect(quoted.description == #"multipart/form-data; boundary="a;b \"c\" ,"; format="pfl,ow ""#)
        // A prepended concatenation mark (U+0604) joins the next scalar into one character: read
        // by characters, the closing quote after it went unseen (found by fuzzing).
        let marked = try MediaType(parsing: "text/plain; format=\"fld\"; q=02\u{604}")
        #expect(marked.parameter("q") == "02\u{604}")
        #expect(marked.description == "text/plain; format=fld; q=\"02\u{604}\"")
        #expect(try MediaType(parsing: marked.description) == marked)
        let quotedMark = MediaType(type: "text", subtype: "plain", parameters: [("a", "x\u{604}\"y")])
        #expect(try MediaType(parsing: quotedMark.description).parameter("a") == "x\u{604}\"y")
        // `type/subtype` alone is read by a shorter path, to the same answers.
        #expect(try MediaType(parsing: "Application/X-WWW-Form-URLEncoded") == .urlEncodedForm)
        #expect(try MediaType(parsing: " text/html ").hasSameEssence(as: .html))
        for bad in [
            "text", "text/", "/html", "te xt/html", "text/html; charset", "text/html; a=\"unclosed",
            #"text/html; a="x"y"#, "text/html/x", "text/ht ml", "text/é", "text//html",
        ] {
            #expect(throws: HTTPParseError.self, "\(bad)") { try MediaType(parsing: bad) }
        }
        let request = try Request(
            method: .post, target: "/", headers: ["content-type": "application/x-www-form-urlencoded"])
        #expect(try request.contentType?.hasSameEssence(as: .urlEncodedForm) == true)
    }

    @Test("Accept: quality values, specificity, and the preferred candidate")
    func accept() {
        let browser = AcceptHeader(parsing: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
        #expect(browser.quality(of: .html) == 1)
        #expect(browser.quality(of: .json) == 0.8)
        #expect(browser.preferred(among: [.json, .html]) == .html)
        let api = AcceptHeader(parsing: "application/json, text/*;q=0.5")
        #expect(api.preferred(among: [.html, .json]) == .json)
        #expect(api.quality(of: .plainText) == 0.5)
        #expect(AcceptHeader(parsing: "image/png").preferred(among: [.html]) == nil)
        #expect(AcceptHeader(parsing: nil).preferred(among: [.html]) == .html)
        #expect(AcceptHeader(parsing: "text/html;q=0").quality(of: .html) == 0)
    }

    @Test("headers: case-insensitive, multi-valued, validity check")
    func headers() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain"]
        headers.add("Set-Cookie", "a=1")
        headers.add("set-cookie", "b=2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["Content\rType"] == nil, "only letters match across case")
        #expect(headers["Content-Typf"] == nil && headers["Content-Typ"] == nil)
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        headers["Set-Cookie"] = nil
        #expect(!headers.contains("set-cookie"))
        #expect(HTTPHeaders.isValid(name: "X-Ok", value: "fine value"))
        #expect(!HTTPHeaders.isValid(name: "X-Bad", value: "a\r\nb"))
        #expect(!HTTPHeaders.isValid(name: "Bad Name", value: "x"))
        #expect(!HTTPHeaders.isValid(name: "", value: "x"))
    }

    @Test("content types by extension")
    func contentTypes() {
        #expect(ContentTypes.forFileName("a.CSS").description == "text/css; charset=utf-8")
        #expect(ContentTypes.forFileName("openapi.yaml").description == "application/yaml")
        #expect(ContentTypes.forFileName("README").description == "application/octet-stream")
    }
}
