import FlowCore
import FlowWeb
import MicroHTTP
import MoviesDemo
import MustacheTemplates

/// The parsers FlowServer runs on what clients send, one harness each: a harness feeds libFuzzer's
/// input to a parser and traps (a crash libFuzzer reports) when a property that must hold fails.
/// Throwing a parse error is fine; crashing, hanging or answering inconsistently is not.
enum Harness: String, CaseIterable {
    case requestTarget = "request-target"
    case forms
    case cookies
    case mediaTypes = "media-types"
    case wireStep = "wire-step"
    case json
    case mustache

    func run(_ bytes: [UInt8]) {
        switch self {
        case .requestTarget: fuzzRequestTarget(bytes)
        case .forms: fuzzForms(bytes)
        case .cookies: fuzzCookies(bytes)
        case .mediaTypes: fuzzMediaTypes(bytes)
        case .wireStep: fuzzWireStep(bytes)
        case .json: fuzzJson(bytes)
        case .mustache: fuzzMustache(bytes)
        }
    }
}

/// A request target (path and query), percent-decoded as pages, step links and visits read it.
private func fuzzRequestTarget(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let decoded = try? PercentDecoding.decode(bytes, plusAsSpace: false, location: "fuzz") {
        // Decoding never yields NUL or invalid UTF-8.
        precondition(!decoded.utf8.contains(0), "percent-decoding let a NUL through")
    }
    guard let request = try? Request(method: .get, target: text) else { return }
    _ = request.path
    _ = request.pathSegments
    _ = try? request.queryItems
}

/// A form body: `application/x-www-form-urlencoded`, or `multipart/form-data` (the first line is
/// the boundary).
private func fuzzForms(_ bytes: [UInt8]) {
    if let fields = try? URLEncodedForm.parse(bytes, maxFields: 50) {
        precondition(fields.count <= 50, "more fields than the limit")
    }
    guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return }
    let boundary = String(decoding: bytes[..<newline], as: UTF8.self)
    if let fields = try? MultipartForm.parse(Array(bytes[(newline + 1)...]), boundary: boundary, maxFields: 50) {
        precondition(fields.count <= 50, "more multipart fields than the limit")
    }
}

/// A `Cookie` header.
private func fuzzCookies(_ bytes: [UInt8]) {
    let header = String(decoding: bytes, as: UTF8.self)
    let parsed = Cookies.parse(header)
    if let value = Cookies.value(named: "flowserver_session", in: header) {
        precondition(
            parsed.contains { $0.name == "flowserver_session" && $0.value == value }, "value(named:) and parse disagree"
        )
    }
}

/// A `Content-Type` and an `Accept` header.
private func fuzzMediaTypes(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let type = try? MediaType(parsing: text) {
        // What a media type prints parses back to the same media type.
        let again = try? MediaType(parsing: type.description)
        precondition(again == type, "\(type) does not parse back")
        _ = type.hasSameEssence(as: .json)
        _ = type.parameter("boundary")
    }
    let accept = AcceptHeader(parsing: text)
    for range in accept.ranges { precondition((0...1).contains(range.quality), "a quality outside 0...1") }
    _ = accept.preferred(among: [.html, .json, .problemJSON])
}

/// A step as the JSON API sends it (input starting with `{`), or as a step link's target
/// (`/_step/<name>?…`): into the demo's typed steps, as FlowWeb decodes them.
private func fuzzWireStep(_ bytes: [UInt8]) {
    let wire: WireStep
    if bytes.first == UInt8(ascii: "{") {
        guard let decoded = try? CompactJSONDecoder().decode(WireStep.self, from: bytes) else { return }
        wire = decoded
    } else {
        guard let request = try? Request(method: .get, target: String(decoding: bytes, as: UTF8.self)),
            let name = request.pathSegments.last,
            let fields = try? URLEncodedForm.parse(Array((request.rawQuery ?? "").utf8), maxFields: 50)
        else { return }
        var params: [String: WireValue] = [:]
        for field in fields where !field.name.hasPrefix("_") { params[field.name] = .string(field.value) }
        wire = WireStep(name: name, params: params)
    }
    guard let step = try? wire.decode(as: DemoStep.self) else { return }
    // A step that decodes travels back to the same step.
    let back = try? WireStep(step).decode(as: DemoStep.self)
    precondition(back == step, "\(step) does not survive its wire form")
}

/// JSON as the API's bodies, stored trees and app data are read: parsed, printed, parsed again to
/// the same value; and decoded as the demo's app data.
private func fuzzJson(_ bytes: [UInt8]) {
    guard let value = try? JSON(parsing: bytes) else { return }
    let printed = value.bytes
    guard let again = try? JSON(parsing: printed) else {
        preconditionFailure("printed JSON does not parse: \(printed)")
    }
    precondition(again == value, "JSON does not survive printing")
    _ = try? CompactJSONDecoder().decode(DemoSession.self, from: value)
}

/// A Mustache template: compiled, and rendered with a small context (a partial `p` exists).
private func fuzzMustache(_ bytes: [UInt8]) {
    let source = String(decoding: bytes, as: UTF8.self)
    guard let library = try? TemplateLibrary(templates: ["t": source, "p": "[{{name}}]"]) else { return }
    _ = try? library.render("t", model: FuzzModel())
}

private struct FuzzModel: Encodable {
    var name = "Ada <Lovelace>"
    var items = [["name": "a"], ["name": "b"]]
    var flag = true
    var empty: [String] = []
}
