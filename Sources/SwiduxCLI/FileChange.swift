/// One file that a command writes, relative to the directory it works in.
public struct FileChange: Equatable, Sendable {
    /// What happens to the file.
    public enum Kind: Equatable, Sendable {
        /// A new file; applying fails if it appeared meanwhile.
        case create
        /// An edit of an existing file whose contents were `original`; applying fails if
        /// the file no longer has exactly those contents.
        case modify(original: String)
    }

    /// The path relative to the project root, with `/` separators.
    public var path: String
    /// The complete new contents.
    public var contents: String
    /// New file or edit.
    public var kind: Kind

    /// A change of `path` to `contents`.
    public init(path: String, contents: String, kind: Kind = .create) {
        self.path = path
        self.contents = contents
        self.kind = kind
    }
}
