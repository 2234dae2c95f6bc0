@_exported import FlowExplorer
import Testing

extension ExplorationReport {
    /// Records each finding as a test issue (with the path that leads to it), so that one
    /// `report.expectNoFindings()` fails a test for every problem the explorer found.
    public func expectNoFindings(sourceLocation: SourceLocation = #_sourceLocation) {
        for finding in findings { Issue.record("\(finding)", sourceLocation: sourceLocation) }
    }
}
