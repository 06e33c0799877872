import Foundation

/// The `.swidux.json` file at the root of a generated project: it marks the directory as
/// a Swidux project for `swidux add feature` and lists the features added so far, in
/// order (which is also their writers' registration order).
///
/// ```json
/// { "features" : [ "Tag", "Todo" ], "formatVersion" : 1, "generator" : "swidux", "name" : "Notes" }
/// ```
public struct ProjectMarker: Codable, Equatable, Sendable {
    /// The marker's file name.
    public static let fileName = ".swidux.json"
    /// The format this tool writes and reads.
    public static let currentFormatVersion = 1

    /// Always `"swidux"`.
    public var generator: String
    /// The marker's format.
    public var formatVersion: Int
    /// The project (and main module) name.
    public var name: String
    /// The features added with `swidux add feature`, in the order they were added.
    public var features: [String]

    /// A marker for a new project with no features.
    public init(name: String, features: [String] = []) {
        self.generator = "swidux"
        self.formatVersion = Self.currentFormatVersion
        self.name = name
        self.features = features
    }

    /// The marker as written to disk: pretty, sorted keys, trailing newline.
    public func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // Encoding a struct of strings and ints cannot fail.
        let data = (try? encoder.encode(self)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Reads and checks the marker at `url`.
    /// - Throws: ``SwiduxCLIError/invalidMarker(_:reason:)``.
    public static func read(from url: URL) throws -> ProjectMarker {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw SwiduxCLIError.invalidMarker(url.path, reason: "it cannot be read")
        }
        let marker: ProjectMarker
        do { marker = try JSONDecoder().decode(ProjectMarker.self, from: data) } catch {
            throw SwiduxCLIError.invalidMarker(url.path, reason: "it is not valid JSON of the expected shape")
        }
        guard marker.generator == "swidux" else {
            throw SwiduxCLIError.invalidMarker(url.path, reason: "its generator is '\(marker.generator)', not 'swidux'")
        }
        guard marker.formatVersion == currentFormatVersion else {
            throw SwiduxCLIError.invalidMarker(url.path, reason: "format version \(marker.formatVersion) is not supported by this swidux (it reads \(currentFormatVersion))")
        }
        return marker
    }

    /// The nearest directory at or above `start` that holds a marker.
    /// - Throws: ``SwiduxCLIError/notASwiduxProject(_:)`` if there is none.
    public static func findProjectRoot(from start: URL) throws -> URL {
        var directory = start.standardizedFileURL
        while true {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent(fileName).path) {
                return directory
            }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { throw SwiduxCLIError.notASwiduxProject(start.path) }
            directory = parent
        }
    }
}
