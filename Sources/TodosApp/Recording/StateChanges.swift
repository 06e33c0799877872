import CustomDump
import Foundation

/// What a replayed step changed, one line per change — `todos replay` prints these by
/// default (a step that types one character is one line, not the whole state tree):
///
/// ```
/// + items[1F3A…]: TodoItem(id: 1F3A…, listID: …, title: "Buy milk", isDone: false, …)
/// ~ items[1F3A…].isDone: false → true
/// − itemTags[…]
/// ~ ui.draft: "Bu" → "Buy"
/// ```
///
/// ```swift
/// StateChanges.lines(from: before, to: after)   // ["~ ui.draft: \"Bu\" → \"Buy\""]
/// ```
enum StateChanges {
    /// The changes from `before` to `after`, in the order lists, tags, items, item tags, UI.
    static func lines(from before: AppState, to after: AppState) -> [String] {
        let (old, new) = (StateView(before), StateView(after))
        var lines: [String] = []
        lines += entities("lists", old.lists, new.lists)
        lines += entities("tags", old.tags, new.tags)
        lines += entities("items", old.items, new.items)
        lines += entities("itemTags", old.itemTags, new.itemTags)
        lines += fields("ui", old.ui, new.ui)
        return lines.map(ControlCharacters.neutralize)
    }

    private static func entities<Entity: Identifiable & Equatable>(_ part: String, _ old: [Entity], _ new: [Entity]) -> [String] {
        guard old != new else { return [] }
        let oldByID = Dictionary(old.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let newIDs = Set(new.map(\.id))
        var lines: [String] = []
        for entity in new {
            let key = "\(part)[\(entity.id)]"
            if let previous = oldByID[entity.id] {
                if previous != entity { lines += fields(key, previous, entity) }
            } else {
                lines.append("+ \(key): \(oneLine(entity))")
            }
        }
        for entity in old where !newIDs.contains(entity.id) { lines.append("− \(part)[\(entity.id)]") }
        let kept = old.map(\.id).filter(newIDs.contains)
        if kept != new.map(\.id).filter({ oldByID[$0] != nil }) { lines.append("~ \(part): order changed") }
        return lines
    }

    /// One line per stored property of `new` that differs from `old`.
    private static func fields<Value>(_ path: String, _ old: Value, _ new: Value) -> [String] {
        let oldChildren = Mirror(reflecting: old).children.map { ($0.label ?? "?", oneLine($0.value)) }
        let newChildren = Mirror(reflecting: new).children.map { ($0.label ?? "?", oneLine($0.value)) }
        guard oldChildren.count == newChildren.count, !oldChildren.isEmpty else {
            let (a, b) = (oneLine(old), oneLine(new))
            return a == b ? [] : ["~ \(path): \(a) → \(b)"]
        }
        return zip(oldChildren, newChildren).compactMap { previous, current in
            previous.1 == current.1 ? nil : "~ \(path).\(current.0): \(previous.1) → \(current.1)"
        }
    }

    /// A value's dump on one line.
    static func oneLine(_ value: Any) -> String {
        var line = ""
        for raw in String(customDumping: value).split(separator: "\n") {
            let part = raw.drop { $0 == " " }
            let tight = line.isEmpty || line.hasSuffix("(") || line.hasSuffix("[") || part.hasPrefix(")") || part.hasPrefix("]")
            line += (tight ? "" : " ") + part
        }
        return line
    }
}
