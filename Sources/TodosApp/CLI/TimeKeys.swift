import ArgumentParser
import Foundation

extension TodosCommand {
    /// In-process timings for the benchmarks (`Benchmarks/`, target `TodosKeys`): opening
    /// the database and hydrating, the first frame, then keys as the terminal UI handles
    /// them (key map, reduce, derived state, render of an 80×24 screen): cursor moves
    /// (alternately down and up) and toggles of the highlighted item. Prints one line of
    /// medians in milliseconds. Toggles are written (twice each: the file ends as it was).
    struct TimeKeys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "time-keys", abstract: "Time keys in process (benchmarks).", shouldDisplay: false)
        @ParentCommand var parent: TodosCommand
        @OptionGroup var options: DatabaseOptions
        var databasePath: String { DatabaseLocation.resolve(option: options.db ?? parent.options.db) }
        @Option(help: "Keys of each kind (even).") var count = 200

        @MainActor
        func run() async throws {
            let clock = ContinuousClock()
            let size = TerminalIO.Size(columns: 80, rows: 24)
            let start = clock.now
            let app = try openApp(path: databasePath)
            let opened = clock.now
            _ = Render.screen(app.store.state, size: size)
            let firstFrame = clock.now
            func milliseconds(_ duration: Duration) -> Double {
                Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
            }
            @MainActor func time(_ key: KeyEvent) -> Double {
                let before = clock.now
                for command in KeyMap.commands(for: key, state: app.store.state, makeID: app.environment.uuid) {
                    app.perform(command)
                }
                _ = Render.screen(app.store.state, size: size)
                return milliseconds(clock.now - before)
            }
            var moves: [Double] = [], toggles: [Double] = []
            for index in 0..<count {
                moves.append(time(.character(index % 2 == 0 ? "j" : "k")))
                await Task.yield()
            }
            for _ in 0..<count {
                toggles.append(time(.character(" ")))
                await Task.yield()
            }
            try await app.flush()
            try? app.database.close()
            func median(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.sorted()[values.count / 2] }
            let fields = [
                ("items", "\(app.store.state.items.count)"),
                ("open_ms", String(format: "%.2f", milliseconds(opened - start))),
                ("first_frame_ms", String(format: "%.2f", milliseconds(firstFrame - opened))),
                ("cursor_ms", String(format: "%.3f", median(moves))),
                ("cursor_max_ms", String(format: "%.3f", moves.max() ?? .nan)),
                ("toggle_ms", String(format: "%.3f", median(toggles))),
                ("toggle_max_ms", String(format: "%.3f", toggles.max() ?? .nan)),
            ]
            print(fields.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
        }
    }
}
