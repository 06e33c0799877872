import Foundation
import Testing
@testable import TodosApp

/// The size of a recording of the app: 100,000 actions must fit in 20 MB before compression
/// (200 bytes per action). Typing, adding, toggling, moving and searching, in the
/// proportions of the recorded fixture; `TODOS_RECORDING_SIZE_ACTIONS` sets how many
/// actions (default 5,000; the README's figure is from 100,000).
private let recordingSizeActions = Int(ProcessInfo.processInfo.environment["TODOS_RECORDING_SIZE_ACTIONS"] ?? "") ?? 5_000

/// The suite's time limit grows with the knob: the app's own work per action grows with the
/// list (a debug build took 10 minutes for 100,000 actions on a loaded machine).
private let recordingSizeMinutes = max(5, recordingSizeActions / 5_000)

@MainActor
@Suite(.timeLimit(.minutes(recordingSizeMinutes))) struct RecordingSizeTests {
    @Test("A recording of todos costs at most 200 bytes per action (20 MB per 100,000)")
    func bytesPerAction() async throws {
        let actions = recordingSizeActions
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("todos-recording-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("session.jsonl")
        let values = SessionValues()
        let recorder = try SessionRecorder<AppState, AppAction>(file: file, values: values, maxFileSize: 1 << 30)
        let list = TodoList(id: UUID(), name: "Inbox")
        var state = AppState(lists: [list])
        state.ui.currentListID = list.id
        let store = Store(
            initialState: state, reducer: AppReducer(),
            environment: AppEnvironment(searchDebounce: .seconds(3600), uuid: values.uuid, now: values.now),
            middleware: [recorder], undo: TodoApp.makeUndo())
        var sent = 0
        var ids: [UUID] = []
        func send(_ action: AppAction) {
            guard sent < actions else { return }
            store.send(action)
            sent += 1
        }
        while sent < actions {
            // Typing a title, one action per key, then adding it.
            let title = "Item number \(ids.count)"
            send(.ui(.beginInput(.addItem)))
            for length in stride(from: 1, through: title.count, by: 3) { send(.ui(.draftChanged(String(title.prefix(length))))) }
            send(.ui(.endInput))
            let id = UUID()
            send(.items(.add(id: id, listID: list.id, title: title)))
            ids.append(id)
            send(.ui(.moveCursor(1)))
            send(.items(.toggle(id: ids[ids.count / 2])))
            send(.items(.move(id: id, offset: -1)))
            send(.search(.textChanged("num")))
            send(.search(.clear))
        }
        try await recorder.flush()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        let perAction = Double(size) / Double(actions)
        print("recording of \(actions) todos actions: \(size) bytes, \(String(format: "%.1f", perAction)) bytes per action, \(String(format: "%.1f", perAction * 100_000 / 1_000_000)) MB per 100,000")
        #expect(recorder.stepCount == actions)
        #expect(perAction <= 200, "100,000 actions would take \(perAction * 100_000 / 1_000_000) MB")
    }
}
