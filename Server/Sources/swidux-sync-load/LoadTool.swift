import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import PostgresTestSupport
import SwiduxSyncServer
import SwiduxSyncWire
#if canImport(Glibc)
import Glibc
#endif

/// Devices per server: real `swidux-sync-server` processes on one
/// PostgreSQL (a throwaway cluster), `SWIDUX_LOAD_POLLERS` long polls each on its own TCP
/// connection, and `SWIDUX_LOAD_PUSHERS` other clients pushing one row a second each, for
/// `SWIDUX_LOAD_SECONDS`. Prints the push → long-poll return latency (from the push's
/// answer to each poller's answer holding that row: p50, p95, p99), each server's peak RSS
/// (VmHWM) and CPU, and every error (a non-2xx answer, a failed or closed connection, a row
/// some poller never got). The full size (Benchmarks/README.md):
///
///     SWIDUX_LOAD_POLLERS=2000 SWIDUX_LOAD_SECONDS=60 SWIDUX_LOAD_SERVERS=1,2 \
///         swift run -c release --package-path Server swidux-sync-load
///
/// Every connection comes from 127.0.0.1 and a few tokens stand for all the clients, so the
/// servers run with `--max-connections-per-address`, `--max-requests-per-user` and
/// `--max-requests-per-space` above the client count; the soft limit of open files is
/// raised to the hard one (servers started here inherit it). Other knobs: ``LoadConfiguration``.
@main
struct LoadTool {
    static func main() async throws {
        let configuration = try LoadConfiguration(environment: ProcessInfo.processInfo.environment)
        let files = try raiseFileLimit(needed: configuration.pollers + configuration.pushers + 256)
        print("swidux-sync-load: \(configuration.pollers) long polls, \(configuration.pushers) pushers (1 push/s each), "
              + "\(configuration.seconds) s, \(configuration.spaceCount) spaces, wait=\(configuration.wait) s; "
              + "open files limit \(files); \(ProcessInfo.processInfo.activeProcessorCount) cores")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        var logger = Logger(label: "swidux-sync-load")
        logger.logLevel = .error
        var failed = false
        if let postgres = configuration.postgres {
            for servers in configuration.serverCounts {
                failed = try await LoadRun(configuration: configuration, servers: servers, postgres: postgres, group: group, logger: logger).run() || failed
            }
        } else {
            let cluster = try await PostgresCluster.start()
            do {
                for servers in configuration.serverCounts {
                    let postgres = try await cluster.createDatabase()
                    failed = try await LoadRun(configuration: configuration, servers: servers, postgres: postgres, group: group, logger: logger).run() || failed
                }
                await cluster.stop()
            } catch {
                await cluster.stop()
                throw error
            }
        }
        try await group.shutdownGracefully()
        if failed { exit(1) }
    }

    /// Raises the soft limit of open files to the hard one; throws when even that is below `needed`.
    static func raiseFileLimit(needed: Int) throws -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw LoadError("getrlimit failed: errno \(errno)") }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw LoadError("setrlimit failed: errno \(errno)") }
        }
        guard Int(limit.rlim_cur) >= needed else {
            throw LoadError("the open files limit is \(limit.rlim_cur) (hard \(limit.rlim_max)), below the \(needed) needed: raise it (ulimit -Hn)")
        }
        return Int(limit.rlim_cur)
    }
}
