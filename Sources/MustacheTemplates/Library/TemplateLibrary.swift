import Foundation
import Synchronization

/// Templates compiled once and rendered in microseconds.
///
/// Load a directory at start; every syntax error, unknown partial and endless inclusion is
/// reported then, with file, line and column. Rendering never fails on syntax.
///
/// ```swift
/// let templates = try TemplateLibrary(directory: "Templates")   // layout.mustache, movies/detail.mustache, …
/// let html: [UInt8] = try templates.render("movies/detail", model: MoviePage(title: "Alien", year: 1979))
/// ```
///
/// Layouts use template inheritance: `movies/detail.mustache` can be
/// `{{<layout}}{{$content}}<h1>{{title}}</h1>{{/content}}{{/layout}}`.
public final class TemplateLibrary: Sendable {
    /// What to do with a partial or parent tag that names no template.
    public enum MissingTemplates: Sendable, Equatable {
        /// Refuse to load (the default: a typo is found at start).
        case error
        /// Render nothing in its place (what the Mustache spec describes).
        case renderNothing
    }

    /// Loading options.
    public struct Options: Sendable {
        /// The extension of template files in a directory.
        public var fileExtension: String
        /// Re-read the directory when a file changed (development; off by default).
        public var reloadOnChange: Bool
        /// Whether an unknown partial is an error.
        public var missingTemplates: MissingTemplates
        /// The most bytes one render writes: a render that would write more fails with a
        /// ``TemplateError`` instead of holding its output in memory. A template that includes
        /// itself for every item of a list can otherwise write gigabytes before the bound on a
        /// render's work ends it.
        public var maximumOutputBytes: Int

        /// The default ``maximumOutputBytes``: 16 MiB, far above any page.
        public static let defaultMaximumOutputBytes = 16 << 20

        /// Options; the defaults suit production.
        public init(
            fileExtension: String = "mustache", reloadOnChange: Bool = false,
            missingTemplates: MissingTemplates = .error, maximumOutputBytes: Int = defaultMaximumOutputBytes
        ) {
            self.fileExtension = fileExtension
            self.reloadOnChange = reloadOnChange
            self.missingTemplates = missingTemplates
            self.maximumOutputBytes = maximumOutputBytes
        }
    }

    private struct State {
        var set: TemplateSet
        var fingerprint: [String: Fingerprint]
    }

    /// The state of templates that reload on change.
    private final class Reloading: Sendable {
        let state: Mutex<State>
        init(_ state: State) { self.state = Mutex(state) }
    }

    private let directory: String?
    private let options: Options
    /// Templates used where the directory has no file of the same name (see
    /// ``init(directory:defaults:options:)``).
    private let defaults: [String: String]
    /// The templates loaded at start: all there is, unless they reload on change. Read without
    /// a lock: a lock every render takes is memory that every thread writes.
    private let loaded: TemplateSet
    /// With `reloadOnChange`: the templates now, and the fingerprints of the files they are from.
    private let reloading: Reloading?

    /// Loads every `*.mustache` file below `directory`; a file's name is its relative path without
    /// the extension (`movies/detail`). `defaults` are templates by name that a file of the same
    /// name replaces: what a framework ships (a layout) and an app may override.
    ///
    /// - Throws: ``TemplateError`` naming the file, line and column of the first problem.
    public init(directory: String, defaults: [String: String] = [:], options: Options = Options()) throws(TemplateError)
    {
        self.directory = directory
        self.options = options
        self.defaults = defaults
        let (sources, fingerprint) = try Self.read(
            directory: directory, fileExtension: options.fileExtension, defaults: defaults)
        loaded = try TemplateSet(sources, missingTemplates: options.missingTemplates)
        reloading = options.reloadOnChange ? Reloading(State(set: loaded, fingerprint: fingerprint)) : nil
    }

    /// Compiles templates given as text, by name.
    public init(templates: [String: String], options: Options = Options()) throws(TemplateError) {
        directory = nil
        self.options = options
        defaults = [:]
        let sources = templates.sorted { $0.key < $1.key }.map {
            TemplateSet.Source(name: $0.key, file: $0.key, bytes: Array($0.value.utf8))
        }
        loaded = try TemplateSet(sources, missingTemplates: options.missingTemplates)
        reloading = nil
    }

    /// The names of the loaded templates, sorted.
    public var names: [String] { currentTemplates.indexByName.keys.sorted() }

    /// Whether a template named `name` is loaded.
    public func contains(_ name: String) -> Bool { currentTemplates.indexByName[name] != nil }

    /// The templates now, without checking the files for changes.
    private var currentTemplates: TemplateSet { reloading?.state.withLock { $0.set } ?? loaded }

    /// Renders template `name` with `context`.
    ///
    /// - Throws: ``TemplateError`` when no template has that name; when the render would write
    ///   more than ``Options/maximumOutputBytes`` or do more than 20,000,000 steps of work
    ///   (each list item and partial counts its instructions times the contexts its names may be
    ///   searched in: a template that includes itself for every item of a list); or, with
    ///   `reloadOnChange`, when a changed file no longer compiles.
    public func render(_ name: String, context: TemplateValue) throws(TemplateError) -> [UInt8] {
        try render(name, context) { $0.bytes() }
    }

    /// Renders template `name` with `context` as text: a fragment to put into another template's
    /// context, without first making the bytes an array.
    ///
    /// - Throws: as ``render(_:context:)``.
    public func renderText(_ name: String, context: TemplateValue) throws(TemplateError) -> String {
        try render(name, context) { $0.string() }
    }

    private func render<Output>(_ name: String, _ context: TemplateValue, _ finish: (borrowing OutputBuffer) -> Output)
        throws(TemplateError) -> Output
    {
        let set: TemplateSet
        if let reloading { set = try currentSet(reloading.state) } else { set = loaded }
        guard let index = set.indexByName[name] else {
            throw TemplateError(
                file: name,
                message:
                    "no template named \"\(name)\" (known: \(set.indexByName.keys.sorted().joined(separator: ", ")))")
        }
        let rendered = Renderer.render(
            set.program, template: index, context: context, capacity: set.templates[index].estimatedSize,
            limit: options.maximumOutputBytes, finish)
        switch rendered {
        case .success(let output): return output
        case .failure(let stop): throw error(stop, rendering: name, in: set)
        }
    }

    /// What `stop` means to whoever wrote template `name` of `set`.
    private func error(_ stop: Renderer.Stop, rendering name: String, in set: TemplateSet) -> TemplateError {
        let culprit = set.templates[stop.template].name
        let within = culprit == name ? "" : " (in template \"\(culprit)\")"
        let bound =
            switch stop.reason {
            case .work:
                "it would do more than \(Renderer.maximumWork) steps of work (each list item and partial counts its instructions times the contexts its names may be searched in)\(within)"
            case .output:
                "its output would pass \(options.maximumOutputBytes) bytes (TemplateLibrary.Options.maximumOutputBytes)\(within)"
            }
        return TemplateError(
            file: set.templates[stop.template].file,
            message:
                "rendering \"\(name)\" stopped: \(bound); does a partial include itself for every item of a list, or a section repeat a large list inside itself?"
        )
    }

    /// Renders template `name` with an `Encodable` view model (see ``TemplateValueEncoder``).
    public func render<Model: Encodable>(_ name: String, model: Model) throws(TemplateError) -> [UInt8] {
        let context: TemplateValue
        do {
            context = try TemplateValueEncoder().encode(model)
        } catch {
            throw TemplateError(file: name, message: "cannot encode the view model \(Model.self): \(error)")
        }
        return try render(name, context: context)
    }

    /// The templates now, read again first when a file changed.
    private func currentSet(_ reloaded: borrowing Mutex<State>) throws(TemplateError) -> TemplateSet {
        guard let directory else { return reloaded.withLock { $0.set } }
        let known = reloaded.withLock { $0.fingerprint }
        if Self.fingerprint(directory: directory, fileExtension: options.fileExtension) == known {
            return reloaded.withLock { $0.set }
        }
        let (sources, fingerprint) = try Self.read(
            directory: directory, fileExtension: options.fileExtension, defaults: defaults)
        let set = try TemplateSet(sources, missingTemplates: options.missingTemplates)
        reloaded.withLock { $0 = State(set: set, fingerprint: fingerprint) }
        return set
    }
}
