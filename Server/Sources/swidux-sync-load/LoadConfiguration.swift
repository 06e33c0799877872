import Foundation

/// The load's size and targets, from environment variables (each with a modest default, so
/// that a CI run stays short; Benchmarks/README.md gives the full-size command):
///
/// - `SWIDUX_LOAD_POLLERS` (default 200): open long polls in all, spread over the servers.
/// - `SWIDUX_LOAD_PUSHERS` (default 20): clients pushing one row each per second.
/// - `SWIDUX_LOAD_SECONDS` (default 10): how long the pushers push.
/// - `SWIDUX_LOAD_SERVERS` (default `1`): server processes on the one database; a list
///   (`1,2`) runs the load once per entry, each on a new database.
/// - `SWIDUX_LOAD_SPACES` (default: the pushers): spaces the clients belong to; poller `i`
///   and pusher `i` are in space `i % spaces`, so a push wakes its space's pollers only.
/// - `SWIDUX_LOAD_WAIT` (default 25): the long poll's `wait` in seconds.
/// - `SWIDUX_LOAD_POSTGRES`: an existing database (URL) instead of a throwaway cluster.
/// - `SWIDUX_LOAD_SERVER_URLS`: running servers (`http://127.0.0.1:8080,…`) on that database
///   instead of starting them; `SWIDUX_LOAD_SERVER_PIDS` names their processes for RSS.
///
/// ```swift
/// let configuration = try LoadConfiguration(environment: ProcessInfo.processInfo.environment)
/// ```
struct LoadConfiguration: Sendable {
    var pollers = 200
    var pushers = 20
    var seconds = 10
    var serverCounts = [1]
    var spaces: Int?
    var wait = 25
    var postgres: String?
    var serverURLs: [URL] = []
    var serverPIDs: [Int32] = []
    /// Targets: the long-poll return latency's p95 and each server's peak RSS.
    let p95TargetMilliseconds = 100.0
    let rssTargetMiB = 256.0

    init(environment: [String: String]) throws {
        func number(_ name: String, _ value: inout Int, minimum: Int) throws {
            guard let text = environment[name], !text.isEmpty else { return }
            guard let parsed = Int(text), parsed >= minimum else {
                throw LoadError("\(name)=\(text) is not a whole number of at least \(minimum)")
            }
            value = parsed
        }
        try number("SWIDUX_LOAD_POLLERS", &pollers, minimum: 1)
        try number("SWIDUX_LOAD_PUSHERS", &pushers, minimum: 1)
        try number("SWIDUX_LOAD_SECONDS", &seconds, minimum: 1)
        try number("SWIDUX_LOAD_WAIT", &wait, minimum: 1)
        var spaceCount = 0
        try number("SWIDUX_LOAD_SPACES", &spaceCount, minimum: 1)
        spaces = spaceCount > 0 ? spaceCount : nil
        if let text = environment["SWIDUX_LOAD_SERVERS"], !text.isEmpty {
            serverCounts = try text.split(separator: ",").map { part in
                guard let count = Int(part.trimmingCharacters(in: .whitespaces)), count >= 1 else {
                    throw LoadError("SWIDUX_LOAD_SERVERS=\(text) is not a list of server counts (1,2)")
                }
                return count
            }
        }
        postgres = environment["SWIDUX_LOAD_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
        if let text = environment["SWIDUX_LOAD_SERVER_URLS"], !text.isEmpty {
            serverURLs = try text.split(separator: ",").map { part in
                guard let url = URL(string: String(part)), url.host != nil, url.port != nil else {
                    throw LoadError("SWIDUX_LOAD_SERVER_URLS: \(part) is not http://host:port")
                }
                return url
            }
            guard postgres != nil else {
                throw LoadError("SWIDUX_LOAD_SERVER_URLS needs SWIDUX_LOAD_POSTGRES (the servers' database, to create the tokens)")
            }
            serverCounts = [serverURLs.count]
        }
        if let text = environment["SWIDUX_LOAD_SERVER_PIDS"], !text.isEmpty {
            serverPIDs = try text.split(separator: ",").map { part in
                guard let pid = Int32(part) else { throw LoadError("SWIDUX_LOAD_SERVER_PIDS: \(part) is not a process id") }
                return pid
            }
        }
    }

    /// The spaces of a run.
    var spaceCount: Int { spaces ?? pushers }
}
