import Foundation

/// `swidux new`: generates a complete project into a new directory, all or nothing.
public enum ProjectGenerator {
    /// Generates the project `name` as the new directory `directory/name`.
    ///
    /// The files are rendered and written to a staging directory beside the destination,
    /// then moved into place with one rename: on any error nothing is left behind.
    ///
    /// - Parameters:
    ///   - name: The project name: an UpperCamelCase Swift type name (see ``SwiftName``).
    ///   - directory: The existing directory that receives the project's directory.
    ///   - dependency: Where the project gets Swidux. A relative `.path` is resolved
    ///     against `directory`'s current working directory and checked.
    /// - Returns: The project's directory and the files written, relative to it.
    /// - Throws: ``SwiduxCLIError``.
    @discardableResult
    public static func generate(
        name: String,
        in directory: URL,
        dependency: SwiduxDependency
    ) throws -> (directory: URL, files: [String]) {
        try generate(name: name, in: directory, dependency: dependency, creatingMissing: false).result
    }

    /// ``generate(name:in:dependency:)``, and with `creatingMissing`, `directory` is made
    /// first when it does not exist (`swidux new Notes --path ~/Code` on a machine without
    /// `~/Code`); `created` is the directory made, if any. When the project cannot be
    /// written, that directory is removed again: a failure changes nothing.
    static func generate(
        name: String, in directory: URL, dependency: SwiduxDependency, creatingMissing: Bool
    ) throws -> (result: (directory: URL, files: [String]), created: URL?) {
        let projectName = try SwiftName(name, role: .project)
        let dependency = try checked(dependency)
        let base = directory.standardizedFileURL
        let destination = base.appendingPathComponent(projectName.typeName)
        let files = ProjectTemplates.files(name: projectName, dependency: dependency)
        var created: URL?
        if creatingMissing, !FileManager.default.fileExists(atPath: base.path) {
            // The topmost missing ancestor, so that a failure can take all of it back.
            var top = base
            while !FileManager.default.fileExists(atPath: top.deletingLastPathComponent().path), top.pathComponents.count > 1 {
                top = top.deletingLastPathComponent()
            }
            do {
                try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
            } catch {
                throw SwiduxCLIError.cannotWrite(base.path, reason: (error as NSError).localizedDescription)
            }
            created = top
        }
        do {
            try FileTransaction.createDirectory(destination, files: files)
        } catch {
            if let created { try? FileManager.default.removeItem(at: created) }
            throw error
        }
        return ((destination, files.map(\.path)), created.map { _ in base })
    }

    /// Makes a path dependency absolute and checks that it is the Swidux package.
    static func checked(_ dependency: SwiduxDependency) throws -> SwiduxDependency {
        guard case .path(let raw) = dependency else { return dependency }
        let url = URL(fileURLWithPath: raw).standardizedFileURL
        let manifest = url.appendingPathComponent("Package.swift")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else {
            throw SwiduxCLIError.invalidSwiduxPath(raw, reason: "there is no readable Package.swift in \(url.path)")
        }
        guard text.contains(#"name: "Swidux""#), text.contains(#""SwiduxSQLite""#) else {
            throw SwiduxCLIError.invalidSwiduxPath(raw, reason: "its Package.swift does not declare the Swidux package")
        }
        return .path(url.path)
    }
}
