import Foundation

/// Everything the `swidux` tool refuses to do, each with a message that says what is
/// wrong and what to do about it. Printed on standard error; the exit status is non-zero.
public enum SwiduxCLIError: Error, Equatable, CustomStringConvertible {
    /// The name is not usable as a Swift type name (the reason says why).
    case invalidName(String, reason: String)
    /// The directory that would be created already exists.
    case destinationExists(String)
    /// A directory the command needs does not exist.
    case directoryNotFound(String)
    /// A path that must be a directory is something else.
    case notADirectory(String)
    /// Writing failed (permissions, read-only file system, full disk, ...).
    case cannotWrite(String, reason: String)
    /// A file exists but cannot be read.
    case cannotRead(String, reason: String)
    /// No `.swidux.json` marker in the directory or any of its parents.
    case notASwiduxProject(String)
    /// The `.swidux.json` marker exists but cannot be read.
    case invalidMarker(String, reason: String)
    /// A file `add feature` must edit has lost its `// swidux:` insertion anchor.
    case missingAnchor(anchor: String, file: String)
    /// A file `add feature` must edit does not exist.
    case missingFile(String)
    /// The feature (or a file it would create) is already there.
    case featureExists(String, reason: String)
    /// `--swidux-path` does not point at the Swidux package.
    case invalidSwiduxPath(String, reason: String)
    /// A file changed while the command was preparing its edits.
    case concurrentModification(String)

    /// The message printed after `Error: `.
    public var description: String {
        switch self {
        case .invalidName(let name, let reason):
            "'\(name)' is not a valid name: \(reason)."
        case .destinationExists(let path):
            "'\(path)' already exists; choose another name or --path (nothing was written)."
        case .directoryNotFound(let path):
            "the directory '\(path)' does not exist."
        case .notADirectory(let path):
            "'\(path)' is not a directory."
        case .cannotWrite(let path, let reason):
            "cannot write to '\(path)': \(reason) (nothing was written)."
        case .cannotRead(let path, let reason):
            "cannot read '\(path)': \(reason)."
        case .notASwiduxProject(let path):
            "'\(path)' is not a Swidux project: no \(ProjectMarker.fileName) in it or its parents (create one with `swidux new <Name>`)."
        case .invalidMarker(let path, let reason):
            "cannot read the project marker '\(path)': \(reason)."
        case .missingAnchor(let anchor, let file):
            "'\(file)' has no '\(anchor)' line, where `swidux add feature` inserts code; put the line back (nothing was changed)."
        case .missingFile(let path):
            "'\(path)' is missing; `swidux add feature` needs to edit it (nothing was changed)."
        case .featureExists(let name, let reason):
            "the feature '\(name)' already exists: \(reason) (nothing was changed)."
        case .invalidSwiduxPath(let path, let reason):
            "--swidux-path '\(path)' is not the Swidux package: \(reason)."
        case .concurrentModification(let path):
            "'\(path)' changed while the command ran; run it again (nothing was changed)."
        }
    }
}

extension SwiduxCLIError: LocalizedError {
    /// The same message as ``description``.
    public var errorDescription: String? { description }
}
