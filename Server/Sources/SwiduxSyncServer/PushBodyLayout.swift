import Foundation
import NIOCore
import SwiduxSyncWire

/// What the server checks in a push body that ``PushBody`` leaves to `JSONDecoder`, before
/// and after decoding it: `JSONDecoder` silently keeps one of two members of the same name,
/// and its dictionaries merge canonically equivalent column names (`"caf\u{E9}"` and
/// `"cafe\u{301}"`), which the databases keep apart.
///
/// Reading the layout refuses (400, naming the member and where it is) an object anywhere
/// in the body that names a member twice, byte for byte, and notes where each change's
/// columns are. ``received(_:)`` then takes each change's columns from those bytes, as the
/// hand-written reader does, so that every name is kept as it was written. A document that
/// is not JSON is refused here (400, naming the cause and the byte), strictly as RFC 8259
/// reads it; one nested deeper than the scanner goes is left to `JSONDecoder`.
///
/// ```swift
/// let layout = try PushBodyLayout(buffer)
/// let received = try layout.received(JSONDecoder().decode(PushRequest.self, from: data))
/// ```
struct PushBodyLayout {
    /// A change's place: its mutation's index and its own.
    private struct Place: Hashable {
        var mutation: Int
        var change: Int
    }

    /// Where each change's columns object is, and how many members it has.
    private var columns: [Place: (range: Range<Int>, members: Int)] = [:]
    private let buffer: ByteBuffer

    /// Deeper documents are left to `JSONDecoder` (which refuses them).
    private static let maxDepth = 512

    /// Not JSON, or too deep: left to `JSONDecoder`.
    private struct Unreadable: Error {}

    /// What a value is in a push body.
    private enum Role {
        case request, mutations, mutation(Int), changes(Int), change(Place), columns(Place), other
    }

    /// Reads the layout of `buffer`.
    ///
    /// - Throws: a 400 ``RequestFailure`` naming a member an object holds twice, or where the
    ///   document stops being JSON.
    init(_ buffer: ByteBuffer) throws {
        self.buffer = buffer
        var found: [Place: (range: Range<Int>, members: Int)] = [:]
        do {
            try buffer.withUnsafeReadableBytes { bytes in
                var scanner = WireReader(bytes)
                var path: [String] = []
                try Self.value(&scanner, role: .request, path: &path, depth: 0, columns: &found)
                try scanner.end()
            }
        } catch is Unreadable {
            found = [:]
        } catch let failure as WireReader.Failure {
            // Refused here, not left to `JSONDecoder`: it does not read the strings of members it
            // skips, so an invalid escape or a control character in an unknown member passes.
            throw RequestFailure.badRequest("malformed PushRequest JSON: \(failure)")
        }
        columns = found
    }

    /// `request` as the server applies it, each change's columns read from the body's
    /// bytes (names kept byte for byte); from the decoded dictionary only when those bytes
    /// are not in the plain form (`1.0` for an integer, say) and no two names merged in it.
    func received(_ request: PushRequest) throws -> ReceivedPush {
        try ReceivedPush(request) { mutation, change in
            guard let place = columns[Place(mutation: mutation, change: change)] else { return nil }
            let decoded = request.mutations[mutation].changes[change]
            let read: String? = try buffer.withUnsafeReadableBytes { bytes in
                var scanner = WireReader(UnsafeRawBufferPointer(rebasing: bytes[place.range]))
                do { return try scanner.columns() } catch let long as PushBody.LongName {
                    throw ReceivedPush.longName(long.name, of: decoded.table, id: decoded.id)
                } catch {
                    return nil
                }
            }
            if let read { return read }
            guard (decoded.columns?.count ?? 0) == place.members else {
                throw RequestFailure.badRequest("cannot read the columns of \(decoded.table) \(decoded.id.key): two of their names are canonically equivalent spellings, which are two columns, and a value is not in its plain form (an integer as digits, a real as {\"real\":n}, a blob as {\"blob\":\"<base64>\"}, each alone)")
            }
            return nil
        }
    }

    private static func value(_ scanner: inout WireReader, role: Role, path: inout [String], depth: Int,
                              columns: inout [Place: (range: Range<Int>, members: Int)]) throws {
        guard depth < maxDepth else { throw Unreadable() }
        switch scanner.peek() {
        case UInt8(ascii: "{"):
            let start = scanner.offset
            var names: [String] = []
            try scanner.object { scanner, name in
                names.append(name)
                path.append(".\(name)")
                defer { path.removeLast() }
                try value(&scanner, role: member(name, of: role), path: &path, depth: depth + 1, columns: &columns)
            }
            if names.count > 1 {
                let sorted = names.sorted(by: Bytewise.less)
                for index in 1..<sorted.count where Bytewise.equal(sorted[index - 1], sorted[index]) {
                    let place = path.isEmpty ? "the request" : String(path.joined().dropFirst())
                    throw RequestFailure.badRequest("malformed PushRequest JSON: the member \"\(sorted[index])\" appears twice in \(place) (a name may appear once per object)")
                }
            }
            if case .columns(let place) = role { columns[place] = (start..<scanner.offset, names.count) }
        case UInt8(ascii: "["):
            var index = 0
            try scanner.array { scanner in
                path.append("[\(index)]")
                defer { path.removeLast() }
                try value(&scanner, role: element(index, of: role), path: &path, depth: depth + 1, columns: &columns)
                index += 1
            }
        default:
            try scanner.skipValue()
        }
    }

    private static func member(_ name: String, of role: Role) -> Role {
        switch (role, name) {
        case (.request, "mutations"): .mutations
        case (.mutation(let index), "changes"): .changes(index)
        case (.change(let place), "columns"): .columns(place)
        default: .other
        }
    }

    private static func element(_ index: Int, of role: Role) -> Role {
        switch role {
        case .mutations: .mutation(index)
        case .changes(let mutation): .change(Place(mutation: mutation, change: index))
        default: .other
        }
    }
}
