/// Reads the text of a key path (`debugDescription`) to tell whether the path may read
/// through a class instance.
///
/// The tracker's gate (`SliceGroup`) skips the slices under a stored property of the state
/// when that property is provably the value it was (the same bits, or the same
/// fingerprint). That proves nothing for a slice read through a reference:
/// `\.model.value`, with `model` the same object, changed if the object did. Such a slice
/// is compared on every dispatch instead, whatever the number of readers.
///
/// The text after the stored property is walked with the current value of that property:
/// stored properties (`.title`), optional chaining (`?`, `!`), and computed components
/// (`<computed 0x… (Row)>`: subscripts and computed properties). A component applied to a
/// class instance crosses a reference. A subscript of an array is followed into its first
/// element when that element's type is the subscript's result type (the array's element
/// type is then that concrete type); anything the walk cannot follow (a computed
/// property, which may read anything; an empty array; a `nil` optional; a dictionary)
/// counts as crossing: compared every time, never missed.
enum SlicePath {
    enum Component: Equatable {
        case stored(String)
        case computed(resultType: String)
        case unwrap
    }

    /// The components of the text after the stored property (`.rows.<computed … (Row)>.title`),
    /// or `nil` if the text cannot be read.
    static func components(_ text: String) -> [Component]? {
        var result: [Component] = []
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            switch character {
            case ".":
                index = text.index(after: index)
            case "?", "!":
                result.append(.unwrap)
                index = text.index(after: index)
            case "<":
                // `<computed 0x… (Type<Generic>)>`: up to the matching `>`.
                var depth = 0
                var end = index
                while end < text.endIndex {
                    if text[end] == "<" { depth += 1 }
                    if text[end] == ">" {
                        depth -= 1
                        if depth == 0 { break }
                    }
                    end = text.index(after: end)
                }
                guard end < text.endIndex else { return nil }
                let inside = text[text.index(after: index)..<end]
                guard let open = inside.firstIndex(of: "("), let close = inside.lastIndex(of: ")"), open < close else {
                    return nil
                }
                result.append(.computed(resultType: String(inside[inside.index(after: open)..<close])))
                index = text.index(after: end)
            default:
                let name = text[index...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                guard !name.isEmpty else { return nil }
                result.append(.stored(String(name)))
                index = text.index(index, offsetBy: name.count)
            }
        }
        return result
    }

    /// `true` unless the path `text` (after a stored property whose value is `start`)
    /// provably reads through no class instance.
    static func mayCrossReference(_ text: String, from start: Any) -> Bool {
        guard let components = components(text) else { return true }
        var current = start
        for (position, component) in components.enumerated() {
            let mirror = Mirror(reflecting: current)
            switch component {
            case .unwrap:
                // A trailing `?` marks the optional result of a chain: nothing to unwrap.
                guard mirror.displayStyle == .optional else { continue }
                guard let wrapped = mirror.children.first?.value else { return true }
                current = wrapped
            case .stored(let name):
                if isReference(current, mirror) { return true }
                guard mirror.displayStyle == .struct,
                      let child = mirror.children.first(where: { $0.label == name })
                else { return true }
                current = child.value
            case .computed(let resultType):
                if isReference(current, mirror) { return true }
                guard mirror.displayStyle == .collection else { return true }
                // The element is the slice's value itself: the slice compares it.
                if position == components.count - 1 { return false }
                guard let element = mirror.children.first?.value,
                      String(describing: type(of: element)) == resultType
                else { return true }
                current = element
            }
        }
        return false
    }

    private static func isReference(_ value: Any, _ mirror: Mirror) -> Bool {
        type(of: value) is AnyClass || mirror.displayStyle == .class
    }
}
