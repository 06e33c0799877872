/// A key press decoded from terminal input.
enum KeyEvent: Equatable, Sendable {
    /// A printable character (any script, emoji included).
    case character(Character)
    /// Ctrl + a letter (lowercase), e.g. `.control("r")` for Ctrl-R.
    case control(Character)
    case enter, tab, backTab, backspace, delete, escape
    case up, down, left, right, home, end, pageUp, pageDown
    /// Text the terminal delivered as one paste (bracketed paste: between `ESC[200~` and
    /// `ESC[201~`): text for the field it lands in, never key commands.
    case paste(String)
    /// A paste longer than ``KeyDecoder/maxPaste`` bytes: refused whole (its size is given).
    case oversizedPaste(bytes: Int)
    /// A sequence the decoder does not know; ignored by the app.
    case unknown
}

/// Turns raw terminal bytes into ``KeyEvent``s. Stateful: a UTF-8 character or an
/// escape sequence split across two reads is completed by the next one.
///
/// ```swift
/// var decoder = KeyDecoder()
/// decoder.feed(Array("a\u{1B}[A".utf8))   // [.character("a"), .up]
/// ```
struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []
    /// The bytes of a bracketed paste received so far (`nil` outside a paste), and how many
    /// there were in all (more than are kept once the paste is over ``maxPaste``).
    private var paste: (bytes: [UInt8], count: Int)?
    /// Longest escape sequence kept waiting for more bytes before it is dropped.
    static let maxSequence = 32
    /// The largest paste taken (4 MiB): a larger one is refused whole, never cut.
    static let maxPaste = 4 << 20
    /// What a terminal sends after a pasted text (`ESC[201~`).
    private static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]

    init() {}

    /// Decodes `bytes` (appended to any incomplete input from before).
    ///
    /// A lone ESC at the end of a read is the Escape key: terminals send escape
    /// sequences in one write, so an ESC followed by nothing is a key press.
    mutating func feed(_ bytes: [UInt8]) -> [KeyEvent] {
        pending += bytes
        var events: [KeyEvent] = []
        var i = 0
        let b = pending
        decodeLoop: while i < b.count {
            if paste != nil {
                let (next, waiting) = takePaste(b, from: i, into: &events)
                i = next
                if waiting { break decodeLoop }
                continue decodeLoop
            }
            let byte = b[i]
            switch byte {
            case 0x1B:
                if i + 1 >= b.count { events.append(.escape); i += 1; break }
                let next = b[i + 1]
                if next == UInt8(ascii: "[") || next == UInt8(ascii: "O") {
                    // CSI / SS3: parameters and intermediates, then a final byte 0x40...0x7E.
                    var j = i + 2
                    while j < b.count, !(0x40...0x7E).contains(b[j]) {
                        if j - i > Self.maxSequence { break }
                        j += 1
                    }
                    if j >= b.count {
                        if j - i > Self.maxSequence { events.append(.unknown); i = b.count; break }
                        break decodeLoop   // incomplete: wait for more
                    }
                    if j - i > Self.maxSequence { events.append(.unknown); i = j + 1; break }
                    let parameters = Array(b[(i + 2)..<j])
                    i = j + 1
                    if next == UInt8(ascii: "["), b[j] == UInt8(ascii: "~"), parameters == Array("200".utf8) {
                        paste = ([], 0)   // bracketed paste: everything up to ESC[201~ is text
                        break
                    }
                    events.append(Self.sequence(introducer: next, parameters: parameters, final: b[j]))
                } else if next == 0x1B {
                    events.append(.escape); i += 1
                } else {
                    // Alt + key: report the key itself is surprising; treat as Escape then the key.
                    events.append(.escape); i += 1
                }
            case 0x0D, 0x0A: events.append(.enter); i += 1
            case 0x09: events.append(.tab); i += 1
            case 0x7F, 0x08: events.append(.backspace); i += 1
            case 0x00: i += 1
            case 0x01...0x1A:
                events.append(.control(Character(Unicode.Scalar(byte + 0x60)))); i += 1
            case 0x1C...0x1F: events.append(.unknown); i += 1
            case 0x20...0x7E:
                events.append(.character(Character(Unicode.Scalar(byte)))); i += 1
            default:
                // UTF-8 multi-byte sequence.
                let length: Int
                switch byte {
                case 0xC2...0xDF: length = 2
                case 0xE0...0xEF: length = 3
                case 0xF0...0xF4: length = 4
                default: events.append(.unknown); i += 1; continue decodeLoop
                }
                if i + length > b.count {
                    // Incomplete unless a following byte is not a continuation byte.
                    if b[(i + 1)...].allSatisfy({ $0 & 0xC0 == 0x80 }) { break decodeLoop }
                    events.append(.unknown); i += 1; continue decodeLoop
                }
                guard b[(i + 1)..<(i + length)].allSatisfy({ $0 & 0xC0 == 0x80 }) else {
                    events.append(.unknown); i += 1; continue decodeLoop
                }
                let slice = Array(b[i..<(i + length)])
                // `String(validating:as:)` needs macOS 15: decoding repairs invalid bytes, so equal bytes mean valid.
                let string = String(decoding: slice, as: UTF8.self)
                if string.utf8.elementsEqual(slice), let scalar = string.unicodeScalars.first {
                    events.append(Self.combine(scalar, into: &events))
                } else {
                    events.append(.unknown)
                }
                i += length
            }
        }
        pending = Array(b[i...])
        return events.filter { $0 != .character("\u{0}") }
    }

    /// Takes the bytes of a bracketed paste from `b[start...]`: up to the end marker (then
    /// the paste is one event), or all of them but a possible start of the marker (kept for
    /// the next read). Returns where decoding goes on, and whether it waits for more bytes.
    private mutating func takePaste(_ b: [UInt8], from start: Int, into events: inout [KeyEvent]) -> (next: Int, waiting: Bool) {
        guard var current = paste else { return (start, false) }
        let end = Self.pasteEnd
        var k = start
        var found: Int?
        while k < b.count {
            if b[k] == end[0] {
                let available = min(end.count, b.count - k)
                if b[k..<(k + available)].elementsEqual(end[0..<available]) {
                    if available == end.count { found = k; break }
                    // A possible start of the marker at the end of the read: wait for more.
                    break
                }
            }
            k += 1
        }
        let taken = b[start..<k]
        current.count += taken.count
        if current.count <= Self.maxPaste { current.bytes += taken } else { current.bytes = [] }
        guard let found else {
            paste = current
            return (k, true)
        }
        paste = nil
        events.append(current.count <= Self.maxPaste
                      ? .paste(String(decoding: current.bytes, as: UTF8.self))
                      : .oversizedPaste(bytes: current.count))
        return (found + end.count, false)
    }

    /// Appends a combining scalar to the previous character when there is one, so that
    /// "e" + U+0301 arrive as one character "é".
    private static func combine(_ scalar: Unicode.Scalar, into events: inout [KeyEvent]) -> KeyEvent {
        if DisplayWidth.isZeroWidth(scalar), case .character(let previous)? = events.last {
            events.removeLast()
            var string = String(previous)
            string.unicodeScalars.append(scalar)
            if string.count == 1, let merged = string.first { return .character(merged) }
            events.append(.character(previous))
        }
        return .character(Character(scalar))
    }

    private static func sequence(introducer: UInt8, parameters: [UInt8], final: UInt8) -> KeyEvent {
        let params = String(decoding: parameters, as: UTF8.self)
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "Z"): return .backTab
        case UInt8(ascii: "~"):
            switch params.split(separator: ";").first ?? "" {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            case "5": return .pageUp
            case "6": return .pageDown
            default: return .unknown
            }
        default: return .unknown
        }
    }
}
