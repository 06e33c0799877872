import Foundation
import SwiduxTestSupport

/// The real `swidux-sync-server` executable, run as a child process: `serve` on a loopback
/// port, and its `token` commands.
///
/// The executable is found next to the test bundle in the build products (build the
/// package first), or at `SWIDUX_SYNC_SERVER`.
///
/// ```swift
/// let url = try await PostgresCluster.shared().createDatabase()
/// let token = try await ServerProcess.createToken(postgres: url, space: "family")
/// let server = try await ServerProcess.start(postgres: url)
/// // … HTTP on server.url …
/// await server.kill()
/// ```
public final class ServerProcess: Sendable {
    /// The running child.
    public let child: ChildProcess
    /// The port it serves on (127.0.0.1).
    public let port: Int
    /// `http` or, when it serves with `--tls-certificate`, `https`.
    public let scheme: String
    /// `http://127.0.0.1:<port>` (or `https://`).
    public var url: URL { URL(string: "\(scheme)://127.0.0.1:\(port)")! }

    private init(child: ChildProcess, port: Int, scheme: String) {
        self.child = child
        self.port = port
        self.scheme = scheme
    }

    /// Starts `swidux-sync-server serve --postgres <postgres> --port <port>` (0: any free
    /// port), with more `arguments` (options), and waits until it listens.
    public static func start(postgres: String, port: Int = 0, arguments: [String] = [],
                             environment: [String: String]? = nil) async throws -> ServerProcess {
        let child = try await ChildProcess.start([try executable(), "serve", "--postgres", postgres, "--port", String(port)] + arguments,
                                                 environment: environment)
        guard let line = await child.line(containing: "listening on http"),
              let bound = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
            child.send(SIGKILL)
            _ = try? await child.wait()
            throw ProcessFailure("swidux-sync-server serve did not start:\n\(child.standardOutput)\(child.standardError)")
        }
        return ServerProcess(child: child, port: bound, scheme: line.contains("https://") ? "https" : "http")
    }

    /// Kills the server with SIGKILL and waits until it is gone.
    public func kill() async {
        child.send(SIGKILL)
        _ = try? await child.wait()
    }

    /// Stops the server with SIGTERM (graceful) and returns its exit status (-1 when
    /// swift-subprocess lost track of it: ``child``'s standard error says why).
    @discardableResult
    public func stop() async -> Int32 {
        child.send(SIGTERM)
        return (try? await child.wait()) ?? -1
    }

    /// `swidux-sync-server token create --postgres <postgres> --space <space>`: the new token.
    public static func createToken(postgres: String, space: String) async throws -> String {
        let result = try await ChildProcess.capture([try executable(), "token", "create", "--postgres", postgres, "--space", space])
        guard result.status == 0 else { throw ProcessFailure("token create failed (\(result.status)): \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `swidux-sync-server token revoke --postgres <postgres> --token <token>`.
    public static func revokeToken(postgres: String, token: String) async throws {
        let result = try await ChildProcess.capture([try executable(), "token", "revoke", "--postgres", postgres, "--token", token])
        guard result.status == 0 else { throw ProcessFailure("token revoke failed (\(result.status)): \(result.stderr)") }
    }

    /// The built executable: `SWIDUX_SYNC_SERVER`, or `swidux-sync-server` next to the running test bundle.
    public static func executable() throws -> String {
        if let override = ProcessInfo.processInfo.environment["SWIDUX_SYNC_SERVER"], !override.isEmpty { return override }
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        let bundle = Bundle.main.bundleURL
        candidates += [bundle, bundle.deletingLastPathComponent(), bundle.deletingLastPathComponent().deletingLastPathComponent()]
        for directory in candidates {
            let path = directory.appendingPathComponent("swidux-sync-server").path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: path) {
                return path
            }
        }
        throw ProcessFailure("the swidux-sync-server executable was not found in \(candidates.map(\.path)); "
                             + "run `swift build --package-path Server` first, or set SWIDUX_SYNC_SERVER")
    }
}
