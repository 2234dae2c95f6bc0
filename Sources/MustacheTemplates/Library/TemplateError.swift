/// A template that cannot be loaded or rendered, with where and why.
///
/// Syntax errors carry the file (or template name), line and column, e.g.
/// `Templates/movies/detail.mustache:12:5: unclosed section "cast" (add {{/cast}})`.
public struct TemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The template file or name the error is about.
    public let file: String
    /// The 1-based line, when the error has a position.
    public let line: Int?
    /// The 1-based column (in bytes), when the error has a position.
    public let column: Int?
    /// What is wrong and how to fix it.
    public let message: String

    /// An error at a position, or about a whole file when `line` is `nil`.
    public init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message`.
    public var description: String {
        if let line, let column { return "\(file):\(line):\(column): \(message)" }
        return "\(file): \(message)"
    }
}
