import FlowCore
import MicroHTTP

extension Request {
    /// The path in the form pages give theirs (`PagePath`): each decoded segment
    /// percent-encoded the one way a page's values are, so `/hello/x%3fy` and `/hello/x%3Fy` both
    /// find the page at `/hello/x%3Fy`.
    var pagePath: String {
        // A path of bytes a segment keeps as they are is its own form (nearly every request).
        if rawPath.utf8.allSatisfy({ $0 == UInt8(ascii: "/") || PagePath.isKept($0) }) { return rawPath }
        var path = ""
        path.reserveCapacity(rawPath.utf8.count + 8)
        for segment in pathSegments {
            path += "/"
            path += PagePath.encodeSegment(segment)
        }
        return path.isEmpty ? "/" : path
    }
}
