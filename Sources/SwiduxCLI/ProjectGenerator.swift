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
        let projectName = try SwiftName(name, role: .project)
        let dependency = try checked(dependency)
        let destination = directory.standardizedFileURL.appendingPathComponent(projectName.typeName)
        let files = ProjectTemplates.files(name: projectName, dependency: dependency)
        try FileTransaction.createDirectory(destination, files: files)
        return (destination, files.map(\.path))
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
