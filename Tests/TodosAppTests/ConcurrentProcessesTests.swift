import Foundation
import Testing
@testable import TodosApp
import SwiduxTesting

/// A size knob from the environment (`SWIDUX_…`), with a modest default.
func knob(_ name: String, default value: Int) -> Int {
    ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? value
}

/// Issue 18 items 1 and 3, and the randomized multi-process test: several `todos`
/// processes on one file at once.
extension ProcessTests { @Suite struct ConcurrentProcessesTests {
    // MARK: Item 3: get-or-create of a list is atomic; parallel first opens work

    /// `SWIDUX_PARALLEL_ADDS` processes add to the list "Work" at once: one list, every item in it.
    @Test func parallelAddsToOneListNameMakeOneList() async throws {
        let count = knob("SWIDUX_PARALLEL_ADDS", default: 50)
        let box = try Sandbox()
        _ = try await box.add("Seed")   // an existing file: only the list is contended
        let results = try await withThrowingTaskGroup(of: RunResult.self) { group in
            for index in 0..<count { group.addTask { try await box.run("add", "item \(index)", "--list", index % 2 == 0 ? "Work" : " work ") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        let items = try await box.listJSON()
        let lists = Set(items.map(\.list))
        // One list, spelled as the process that created it wrote it ("Work" or "work").
        #expect(lists.count == 2 && Set(lists.map(ListName.key)) == ["inbox", "work"], "\(lists)")
        #expect(items.filter { ListName.key($0.list) == "work" }.count == count)
        #expect(try await box.run("check").stdout == "ok\n")
    }

    /// Parallel adds on a file that does not exist yet: every first open succeeds (no
    /// "table already exists"), and one "Inbox" holds every item.
    @Test func parallelFirstOpensMakeOneDefaultList() async throws {
        let count = knob("SWIDUX_PARALLEL_ADDS", default: 50) / 2
        let box = try Sandbox()
        let results = try await withThrowingTaskGroup(of: RunResult.self) { group in
            for index in 0..<count { group.addTask { try await box.run("add", "first \(index)") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        let items = try await box.listJSON()
        #expect(Set(items.map(\.list)) == ["Inbox"])
        #expect(items.count == count)
    }

    // MARK: Item 1: delete wins over a concurrent `done`

    /// `done` and `rm` of one item at once, `SWIDUX_RACE_ROUNDS` times: the item never comes
    /// back, and a `done` that lost reports "no item" with a non-zero exit.
    @Test func rmRacingDoneNeverResurrects() async throws {
        let rounds = knob("SWIDUX_RACE_ROUNDS", default: 20)
        let box = try Sandbox()
        _ = try await box.add("keeper")
        for round in 0..<rounds {
            let id = try await box.add("victim \(round)", "--tag", "tagged")
            async let done = box.run("done", id)
            async let rm = box.run("rm", id)
            let (doneResult, rmResult) = try await (done, rm)
            #expect(rmResult.status == 0, "round \(round): \(rmResult.stderr)")
            if doneResult.status != 0 {
                #expect(doneResult.stderr.contains("no item"), "round \(round): \(doneResult.stderr)")
            }
            let ids = try await box.listJSON().map(\.id)
            #expect(!ids.contains(id), "round \(round): rm acknowledged, the item is back (done exit \(doneResult.status))")
        }
    }

    @Test func doneOrRmOfAnItemDeletedMeanwhileSaysNoItem() async throws {
        let box = try Sandbox()
        let id = try await box.add("gone")
        #expect(try await box.run("rm", id).status == 0)
        for command in ["done", "rm"] {
            let result = try await box.run(command, id)
            #expect(result.status != 0 && result.stderr.contains("no item"), "\(command): \(result.stderr)")
        }
        #expect(try await box.listJSON().isEmpty)
    }

    // MARK: The randomized multi-process test

    /// `SWIDUX_RANDOM_WORKERS` workers, each a sequence of `SWIDUX_RANDOM_STEPS` `todos`
    /// processes issuing random add / done / undo / rm on shared lists. Afterwards: list
    /// names are unique; no id whose `rm` was acknowledged is listed; every other added id
    /// is listed, in the list it was added to, with the done state of the last acknowledged
    /// `done` / `done --undo` (only the worker that added an id toggles it, so that its
    /// commands on it are ordered; any worker may remove any id).
    @Test func randomCommandsFromManyProcessesStayConsistent() async throws {
        let workers = knob("SWIDUX_RANDOM_WORKERS", default: 4)
        let steps = knob("SWIDUX_RANDOM_STEPS", default: 12)
        let seed = UInt64(knob("SWIDUX_RANDOM_SEED", default: Int(UInt32.random(in: 1...UInt32.max))))
        let box = try Sandbox()
        let ledger = Ledger()
        let lists = ["Work", "Home", "work ", " HOME", "Errands"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var random = SeededRandomNumberGenerator(seed: seed &+ UInt64(worker) &* 0x9E37_79B9)
                    var own: [String] = []
                    for step in 0..<steps {
                        let roll = random.next() % 10
                        if own.isEmpty || roll < 4 {
                            let list = lists[Int(random.next() % UInt64(lists.count))]
                            let result = try await box.run("add", "w\(worker) s\(step)", "--list", list)
                            if result.status == 0 {
                                let id = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                                own.append(id)
                                await ledger.added(id, list: ListName.clean(list))
                            } else {
                                await ledger.fail("add: \(result.stderr)")
                            }
                        } else if roll < 8 {
                            let id = own[Int(random.next() % UInt64(own.count))]
                            let done = roll < 6
                            let result = try await box.run(arguments: done ? ["done", id] : ["done", "--undo", id])
                            if result.status == 0 { await ledger.done(id, done) }
                            else if !result.stderr.contains("no item") { await ledger.fail("done: \(result.stderr)") }
                        } else {
                            let pool = await ledger.allIDs
                            let id = pool[Int(random.next() % UInt64(pool.count))]
                            let result = try await box.run("rm", id)
                            if result.status == 0 { await ledger.removed(id) }
                            else if !result.stderr.contains("no item") { await ledger.fail("rm: \(result.stderr)") }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let failures = await ledger.failures
        #expect(failures.isEmpty, "seed \(seed): \(failures)")
        let listed = try await box.listJSON()
        let byID = Dictionary(listed.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byID.count == listed.count, "seed \(seed): an id is listed twice")
        let listNames = listed.map(\.list)
        #expect(Set(listNames.map(ListName.key)).count == Set(listNames).count, "seed \(seed): duplicate list names \(Set(listNames))")
        for (id, entry) in await ledger.entries {
            if entry.removed {
                #expect(byID[id] == nil, "seed \(seed): \(id) was removed and is listed again")
            } else {
                let item = byID[id]
                #expect(item != nil, "seed \(seed): \(id) is missing")
                #expect(item?.done == entry.done, "seed \(seed): \(id) done should be \(entry.done)")
                #expect(item.map { ListName.key($0.list) } == ListName.key(entry.list), "seed \(seed): \(id) in \(item?.list ?? "-")")
            }
        }
        #expect(try await box.run("check").stdout == "ok\n")
    }
}
}

/// What the randomized test's workers were told (acknowledged commands only).
actor Ledger {
    struct Entry { var list: String; var done = false; var removed = false }
    private(set) var entries: [String: Entry] = [:]
    private(set) var allIDs: [String] = []
    private(set) var failures: [String] = []

    func added(_ id: String, list: String) { entries[id] = Entry(list: list); allIDs.append(id) }
    func done(_ id: String, _ done: Bool) { entries[id]?.done = done }
    func removed(_ id: String) { entries[id]?.removed = true }
    func fail(_ message: String) { failures.append(message) }
}

