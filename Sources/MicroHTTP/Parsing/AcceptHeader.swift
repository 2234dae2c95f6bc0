/// The media ranges of an `Accept` header with their quality values (RFC 9110 §12.5.1).
///
/// ```swift
/// let accept = AcceptHeader(parsing: "text/html, application/json;q=0.9")
/// accept.preferred(among: [.json, .html]) // .html
/// ```
public struct AcceptHeader: Sendable {
    /// One media range and its weight.
    public struct Range: Sendable {
        /// The range, possibly with `*` as type or subtype.
        public var mediaType: MediaType
        /// The quality, 0...1 (default 1).
        public var quality: Double
    }

    /// The ranges in the order they were sent; malformed ranges are skipped.
    public let ranges: [Range]

    /// Parses a header value; a missing or empty header accepts everything.
    public init(parsing header: String?) {
        var ranges: [Range] = []
        for item in (header ?? "").split(separator: ",") {
            guard var mediaType = try? MediaType(parsing: String(item), location: "Accept") else { continue }
            var quality = 1.0
            if let q = mediaType.parameter("q") {
                quality = min(max(Double(q) ?? 0, 0), 1)
                mediaType.parameters.removeAll { $0.name == "q" }
            }
            ranges.append(Range(mediaType: mediaType, quality: quality))
        }
        self.ranges = ranges
    }

    /// The quality the client gives `mediaType`: the most specific matching range wins;
    /// 1 when the header was empty, 0 when nothing matches.
    public func quality(of mediaType: MediaType) -> Double {
        if ranges.isEmpty { return 1 }
        var best: (specificity: Int, quality: Double)?
        for range in ranges {
            let specificity: Int
            switch (range.mediaType.type, range.mediaType.subtype) {
            case ("*", "*"): specificity = 0
            case (mediaType.type, "*"): specificity = 1
            case (mediaType.type, mediaType.subtype): specificity = 2
            default: continue
            }
            if best == nil || specificity > best!.specificity {
                best = (specificity, range.quality)
            }
        }
        return best?.quality ?? 0
    }

    /// The candidate with the highest quality (earlier candidates win ties), or `nil` when the
    /// client accepts none of them.
    public func preferred(among candidates: [MediaType]) -> MediaType? {
        var best: (MediaType, Double)?
        for candidate in candidates {
            let q = quality(of: candidate)
            if q > 0, q > (best?.1 ?? 0) { best = (candidate, q) }
        }
        return best?.0
    }
}
