import Foundation

/// Writes generated files so that a command either happens completely or not at all:
/// everything is rendered first, written to a staging directory next to the destination
/// (same file system), re-checked for conflicts, then moved into place with renames.
enum FileTransaction {
    /// Creates the directory `destination` holding `files`, in one rename.
    ///
    /// The destination is claimed with an exclusive `mkdir` (fails if anything is there,
    /// even a race winner), then the complete staged tree replaces that empty directory
    /// with one `rename`: the directory is either absent or complete.
    static func createDirectory(_ destination: URL, files: [FileChange]) throws {
        let fileManager = FileManager.default
        let parent = destination.deletingLastPathComponent()
        try requireDirectory(parent)
        guard !itemExists(destination) else { throw SwiduxCLIError.destinationExists(destination.path) }

        let staging = try makeStagingDirectory(in: parent, for: destination.lastPathComponent)
        defer { try? fileManager.removeItem(at: staging) }
        try write(files, under: staging, reportingAs: parent)

        guard mkdir(destination.path, 0o755) == 0 else {
            let code = errno
            if code == EEXIST { throw SwiduxCLIError.destinationExists(destination.path) }
            throw SwiduxCLIError.cannotWrite(parent.path, reason: String(cString: strerror(code)))
        }
        guard rename(staging.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            rmdir(destination.path)
            throw SwiduxCLIError.cannotWrite(destination.path, reason: reason)
        }
    }

    /// Applies `changes` under `root`: stages them, checks that every new file is still
    /// absent and every edited file still has the contents it was rendered from, then
    /// moves each staged file into place. If a move fails, the ones done are undone.
    static func apply(_ changes: [FileChange], under root: URL) throws {
        let fileManager = FileManager.default
        try requireDirectory(root)
        let staging = try makeStagingDirectory(in: root, for: "edit")
        defer { try? fileManager.removeItem(at: staging) }

        let staged = changes.indices.map { staging.appendingPathComponent("file-\($0)") }
        for (change, url) in zip(changes, staged) {
            try writeFile(change.contents, to: url, reportingAs: root)
        }

        // Re-check for conflicts now that everything rendered and staged.
        for change in changes {
            let target = root.appendingPathComponent(change.path)
            switch change.kind {
            case .create:
                // Absent when the command checked, present now: someone else wrote it.
                if itemExists(target) { throw SwiduxCLIError.concurrentModification(change.path) }
            case .modify(let original):
                guard let current = try? String(contentsOf: target, encoding: .utf8) else {
                    throw SwiduxCLIError.missingFile(change.path)
                }
                if current != original { throw SwiduxCLIError.concurrentModification(change.path) }
            }
        }

        // Move into place, remembering how to undo each step.
        var undo: [() -> Void] = []
        do {
            for (index, (change, source)) in zip(changes, staged).enumerated() {
                let target = root.appendingPathComponent(change.path)
                switch change.kind {
                case .create:
                    undo += try createMissingDirectories(for: target)
                    // link(2) never replaces an existing file: a late arrival is not overwritten.
                    guard link(source.path, target.path) == 0 else { throw posixError(target) }
                    undo.append { _ = unlink(target.path) }
                case .modify:
                    let backup = staging.appendingPathComponent("backup-\(index)")
                    guard link(target.path, backup.path) == 0 else { throw posixError(target) }
                    guard rename(source.path, target.path) == 0 else { throw posixError(target) }
                    undo.append { _ = rename(backup.path, target.path) }
                }
            }
        } catch {
            for step in undo.reversed() { step() }
            throw error
        }
    }

    // MARK: - Helpers

    static func itemExists(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0
    }

    static func requireDirectory(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw SwiduxCLIError.directoryNotFound(url.path)
        }
        guard isDirectory.boolValue else { throw SwiduxCLIError.notADirectory(url.path) }
    }

    private static func makeStagingDirectory(in parent: URL, for name: String) throws -> URL {
        let staging = parent.appendingPathComponent(".swidux-staging-\(name)-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            throw SwiduxCLIError.cannotWrite(parent.path, reason: reason(for: error))
        }
        return staging
    }

    private static func write(_ files: [FileChange], under directory: URL, reportingAs reported: URL) throws {
        for file in files {
            try writeFile(file.contents, to: directory.appendingPathComponent(file.path), reportingAs: reported)
        }
    }

    private static func writeFile(_ contents: String, to url: URL, reportingAs reported: URL) throws {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
        } catch {
            throw SwiduxCLIError.cannotWrite(reported.path, reason: reason(for: error))
        }
    }

    /// Creates the missing parents of `file`, returning the steps that remove them again.
    private static func createMissingDirectories(for file: URL) throws -> [() -> Void] {
        var missing: [URL] = []
        var directory = file.deletingLastPathComponent()
        while !itemExists(directory) {
            missing.append(directory)
            directory = directory.deletingLastPathComponent()
        }
        var undo: [() -> Void] = []
        for directory in missing.reversed() {
            guard mkdir(directory.path, 0o755) == 0 else { throw posixError(directory) }
            undo.append { _ = rmdir(directory.path) }
        }
        return undo
    }

    /// The error for the failed system call on `url`; call it right after the call.
    private static func posixError(_ url: URL) -> SwiduxCLIError {
        let reason = String(cString: strerror(errno))
        return .cannotWrite(url.path, reason: reason)
    }

    private static func reason(for error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
           let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        if nsError.domain == NSCocoaErrorDomain {
            switch CocoaError.Code(rawValue: nsError.code) {
            case .fileWriteNoPermission: return "permission denied"
            case .fileWriteVolumeReadOnly: return "read-only file system"
            case .fileWriteOutOfSpace: return "no space left on the device"
            default: break
            }
        }
        return nsError.localizedDescription
    }
}
