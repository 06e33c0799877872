// Foundation API of Apple's platforms that swift-corelibs-foundation lacks on Linux, for the
// type-check of Apple-only code (scripts/check-snippets.sh copies this file into every
// module it builds). Declarations only, as in Apple's SDK; never run.
#if !canImport(Darwin)
import Foundation

extension URL {
    /// `URL.applicationSupportDirectory` (macOS 13, iOS 16).
    static var applicationSupportDirectory: URL { fatalError("Apple platforms only") }
}

extension FileManager {
    /// `containerURL(forSecurityApplicationGroupIdentifier:)`: an App Group's container.
    func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        fatalError("Apple platforms only")
    }
}
#endif
