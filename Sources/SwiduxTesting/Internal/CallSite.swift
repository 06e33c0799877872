import IssueReporting

/// Where a test step was written, so that failures are reported at the caller's line.
struct CallSite: Sendable {
    let fileID: StaticString
    let filePath: StaticString
    let line: UInt
    let column: UInt

    func report(_ message: String) {
        reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// A warning: shown with the test's results; fails an XCTest test, not a Swift Testing one.
    func warn(_ message: String) {
        reportIssue(message, severity: .warning, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    func report(_ error: any Error, _ message: String) {
        reportIssue(error, message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}
