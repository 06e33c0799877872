import Foundation

/// One item as `todos list --json` prints it.
public struct ItemJSON: Codable, Equatable, Sendable {
    public var id: String
    public var title: String
    public var list: String
    public var done: Bool
    public var tags: [String]
    public var createdAt: Date

    public init(item: TodoItem, state: AppState) {
        id = item.id.uuidString.lowercased()
        title = item.title
        list = state.lists[item.listID]?.name ?? ""
        done = item.isDone
        tags = state.tags(of: item.id).map(\.name)
        createdAt = item.createdAt
    }

    /// The items of `listID` (every list when `nil`), in list then stored order.
    public static func items(in state: AppState, listID: UUID?) -> [ItemJSON] {
        let lists = listID.map { [$0] } ?? state.lists.map(\.id)
        return lists.flatMap { id in state.items(inList: id).map { ItemJSON(item: $0, state: state) } }
    }

    /// A JSON array, keys sorted, dates in ISO 8601.
    public static func encode(_ items: [ItemJSON]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(items), as: UTF8.self)
    }

    /// The human-readable line: short id, check box, title, tags, list. Control characters
    /// of stored text are shown as "?" (as the terminal UI does), never sent to the terminal raw.
    public static func line(_ item: ItemJSON) -> String {
        let tags = item.tags.isEmpty ? "" : "  " + item.tags.map { "#\($0)" }.joined(separator: " ")
        return ControlCharacters.neutralize("\(item.id.prefix(8))  [\(item.done ? "x" : " ")] \(item.title)\(tags)  (\(item.list))")
    }
}
