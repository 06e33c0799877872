import Benchmark
import BenchmarkSupport
import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The `todos` app at 100,000 items (the "todos at 100,000 items" issue), end to end, on
// the release executable (`swift build -c release --product todos` in the main package
// first; or set TODOS_EXECUTABLE):
// a. key to screen in a pseudo-terminal (80×24): time from writing the key to the last
//    byte of the frame it causes, for a cursor move (j/k alternately) and a toggle
//    (space), 100,000 items ÷ 6 items, the two sessions interleaved key by key;
// b. start to first frame of the UI, and `todos list --json` (to /dev/null), at 100,000;
// c. in-process time per key (`todos time-keys`: key map, reduce, derived state, render).
//
// The databases are made here: one list, every third item done, every tenth tagged.

func todosExecutable() -> URL {
    if let path = ProcessInfo.processInfo.environment["TODOS_EXECUTABLE"], !path.isEmpty {
        return URL(fileURLWithPath: path)
    }
    let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    for candidate in ["../.build/release/todos", ".build/release/todos", "../../.build/release/todos"] {
        let url = here.appendingPathComponent(candidate).standardizedFileURL
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    fatalError("build the release todos first (swift build -c release --product todos) or set TODOS_EXECUTABLE")
}

/// Runs `todos arguments`; returns its standard output and the wall time in ms.
@discardableResult
func runTodos(_ arguments: [String], discardOutput: Bool = false) throws -> (output: String, ms: Double) {
    let process = Process()
    process.executableURL = todosExecutable()
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = discardOutput ? FileHandle(forWritingAtPath: "/dev/null") : pipe
    process.standardError = FileHandle(forWritingAtPath: "/dev/null")
    let start = ContinuousClock.now
    try process.run()
    let data = discardOutput ? Data() : pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let elapsed = ContinuousClock.now - start
    precondition(process.terminationStatus == 0, "todos \(arguments) failed")
    return (String(decoding: data, as: UTF8.self), milliseconds(elapsed))
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

/// A database with one list of `count` items.
func makeDatabase(items count: Int) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("todos-keys-\(count)-\(getpid()).sqlite").path
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    try runTodos(["--db", path, "add", "first"])   // the schema and the list "Inbox"
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in
        try db.execute(sql: "DELETE FROM todoItem")
        let listID = try DatabaseValue.fetchOne(db, sql: "SELECT id FROM todoList")!
        var generator = SplitMix64(seed: 7)
        func uuid() -> UUID {
            let a = generator.next(), b = generator.next()
            return withUnsafeBytes(of: (a, b)) { UUID(uuid: $0.load(as: uuid_t.self)) }
        }
        var tags: [UUID] = []
        for (index, name) in ["work", "home", "urgent"].enumerated() {
            let id = uuid()
            tags.append(id)
            try db.execute(sql: "INSERT INTO tag (id, position, name) VALUES (?, ?, ?)", arguments: [id, index, name])
        }
        let item = try db.makeStatement(sql: "INSERT INTO todoItem (id, position, listID, title, isDone, createdAt) VALUES (?, ?, ?, ?, ?, ?)")
        let link = try db.makeStatement(sql: "INSERT INTO itemTag (id, position, itemID, tagID) VALUES (?, ?, ?, ?)")
        let date = Date(timeIntervalSince1970: 1_790_000_000)
        for index in 0..<count {
            let id = uuid()
            try item.execute(arguments: [id, index, listID, "Item number \(index) to do", index % 3 == 0, date])
            if index % 10 == 0 {
                let tag = tags[index % 3]
                try link.execute(arguments: ["\(id.uuidString)/\(tag.uuidString)", index / 10, id, tag])
            }
        }
    }
    try queue.close()
    return path
}

/// The UI on a pseudo-terminal of 80×24.
final class Session {
    let process = Process()
    let master: Int32
    private var buffer = [UInt8](repeating: 0, count: 65_536)
    var received = Data()

    init(database: String) throws {
        var master: Int32 = 0, slave: Int32 = 0
        var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { fatalError("openpty failed") }
        self.master = master
        process.executableURL = todosExecutable()
        process.arguments = ["--db", database]
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm-256color"
        process.environment = environment
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        close(slave)
    }

    /// Reads what arrives within `timeout` ms; the time of the last byte, if any.
    func drain(quiet: Int32 = 40, until deadline: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        var last: ContinuousClock.Instant?
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, quiet)
            if ready <= 0 {
                if last != nil { return last }
                continue
            }
            let n = read(master, &buffer, buffer.count)
            if n <= 0 { return last }
            received.append(contentsOf: buffer[0..<n])
            last = .now
        }
        return last
    }

    /// Waits until the output contains `text`; the time it arrived.
    func waitFor(_ text: String, timeout: Duration = .seconds(30)) -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + timeout
        let needle = Data(text.utf8)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let n = read(master, &buffer, buffer.count)
            if n <= 0 { break }
            received.append(contentsOf: buffer[0..<n])
            if received.range(of: needle) != nil { return .now }
        }
        fatalError("the UI never showed \(text)")
    }

    /// Key to screen in ms: from writing `key` to the last byte of the frame.
    func press(_ key: String) -> Double {
        let bytes = Array(key.utf8)
        let start = ContinuousClock.now
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress!, $0.count) }
        guard let last = drain(until: start + .seconds(10)) else { fatalError("no frame after \(key)") }
        return milliseconds(last - start)
    }

    func quit() {
        _ = "q".utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress!, 1) }
        process.waitUntilExit()
        close(master)
    }
}

struct KeysResult: Sendable {
    var cursorLarge = 0.0, cursorSmall = 0.0, toggleLarge = 0.0, toggleSmall = 0.0
    var firstFrameLarge = 0.0, firstFrameSmall = 0.0, listLarge = 0.0, listSmall = 0.0
    var inProcessLarge = "", inProcessSmall = ""
}

func measureTodos(large: Int, small: Int, keys: Int) throws -> KeysResult {
    let big = try makeDatabase(items: large), little = try makeDatabase(items: small)
    var result = KeysResult()
    // Start to first frame ("shown of" is on the filter line), interleaved, 3 times each.
    var starts: [[Double]] = [[], []]
    var sessions: [Session] = []
    for round in 0..<3 {
        for k in 0..<2 {
            let v = (k + round) % 2
            let start = ContinuousClock.now
            let session = try Session(database: v == 0 ? big : little)
            starts[v].append(milliseconds(session.waitFor("shown of") - start))
            if round < 2 { session.quit() } else { sessions.append(session) }
        }
    }
    result.firstFrameLarge = median(starts[0])
    result.firstFrameSmall = median(starts[1])
    let (bigSession, littleSession) = sessions[0].process.arguments?.last == big ? (sessions[0], sessions[1]) : (sessions[1], sessions[0])
    for session in [bigSession, littleSession] { _ = session.drain(until: .now + .seconds(2)) }
    // Keys, interleaved between the two sizes.
    var samples: [[Double]] = [[], [], [], []]
    for index in 0..<keys {
        let key = index % 2 == 0 ? "j" : "k"
        if index % 2 == 0 {
            samples[0].append(bigSession.press(key)); samples[1].append(littleSession.press(key))
        } else {
            samples[1].append(littleSession.press(key)); samples[0].append(bigSession.press(key))
        }
    }
    for index in 0..<keys {
        if index % 2 == 0 {
            samples[2].append(bigSession.press(" ")); samples[3].append(littleSession.press(" "))
        } else {
            samples[3].append(littleSession.press(" ")); samples[2].append(bigSession.press(" "))
        }
    }
    bigSession.quit()
    littleSession.quit()
    result.cursorLarge = median(samples[0]); result.cursorSmall = median(samples[1])
    result.toggleLarge = median(samples[2]); result.toggleSmall = median(samples[3])
    // `list --json`, interleaved, 3 times each.
    var lists: [[Double]] = [[], []]
    for round in 0..<3 {
        for k in 0..<2 {
            let v = (k + round) % 2
            lists[v].append(try runTodos(["--db", v == 0 ? big : little, "list", "--json"], discardOutput: true).ms)
        }
    }
    result.listLarge = median(lists[0]); result.listSmall = median(lists[1])
    result.inProcessLarge = try runTodos(["--db", big, "time-keys", "--count", "200"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    result.inProcessSmall = try runTodos(["--db", little, "time-keys", "--count", "200"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    for path in [big, little] { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    return result
}

enum Metrics {
    static let cursor = BenchmarkMetric.custom("cursor key ratio ×1000")
    static let toggle = BenchmarkMetric.custom("toggle key ratio ×1000")
    static let firstFrame = BenchmarkMetric.custom("100k first frame ms", useScalingFactor: false)
    static let list = BenchmarkMetric.custom("100k list --json ms", useScalingFactor: false)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock],
        warmupIterations: 0,
        maxDuration: .seconds(120),
        maxIterations: 1
    )

    Benchmark(
        "todos: key to screen 100,000 ÷ 6 items, first frame and list --json at 100,000",
        configuration: .init(metrics: [Metrics.cursor, Metrics.toggle, Metrics.firstFrame, Metrics.list])
    ) { benchmark in
        let r = try measureTodos(large: 100_000, small: 6, keys: 60)
        benchmark.measurement(Metrics.cursor, permille(r.cursorLarge / r.cursorSmall))
        benchmark.measurement(Metrics.toggle, permille(r.toggleLarge / r.toggleSmall))
        benchmark.measurement(Metrics.firstFrame, Int(r.firstFrameLarge.rounded()))
        benchmark.measurement(Metrics.list, Int(r.listLarge.rounded()))
        report("todos-keys", [
            "cursor_100k_ms": format(r.cursorLarge), "cursor_6_ms": format(r.cursorSmall),
            "cursor_ratio": format(r.cursorLarge / r.cursorSmall, 3),
            "toggle_100k_ms": format(r.toggleLarge), "toggle_6_ms": format(r.toggleSmall),
            "toggle_ratio": format(r.toggleLarge / r.toggleSmall, 3),
            "first_frame_100k_ms": format(r.firstFrameLarge), "first_frame_6_ms": format(r.firstFrameSmall),
            "list_json_100k_ms": format(r.listLarge), "list_json_6_ms": format(r.listSmall),
        ])
        report("todos-in-process-100k", ["time-keys": r.inProcessLarge])
        report("todos-in-process-6", ["time-keys": r.inProcessSmall])
    }
}
