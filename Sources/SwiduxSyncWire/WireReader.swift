import Foundation

/// The one reader of the sync wire format, shared by the client (pull pages, push answers)
/// and the server (push bodies, its stored columns): it reads the messages straight from
/// their bytes, without `JSONDecoder` (decoding a page of 10,000 rows with it took seconds,
/// and two thirds of the server's time in a large push).
///
/// It is strict. JSON's grammar is read as RFC 8259 writes it (valid UTF-8, no lone
/// surrogate, no leading zero; an ``integer()`` fits `Int64` and has no fraction). A
/// message object read with ``message(_:_:)`` refuses a member it does not declare and a
/// member named twice, naming it; the one exception is the extension member
/// (``SyncProtocol/extensionMember``, `"ext"`), whose value is checked and skipped, so
/// that a newer peer can add to a message without breaking an older reader. A
/// ``SyncValue`` is read in its one wire form (``syncValue()``). Every error is a
/// ``Failure`` naming the cause and the byte offset.
///
/// The bytes must stay valid while the reader is used:
///
/// ```swift
/// let page = try WireReader.pullResponse(body)   // body: Data
///
/// let total = try bytes.withUnsafeBytes { buffer in
///     var reader = WireReader(buffer)
///     var sum: Int64 = 0
///     try reader.array { sum += try $0.integer() }   // [1, 2, 3]
///     try reader.end()
///     return sum
/// }
/// ```
public struct WireReader {
    /// Why a document could not be read, and where.
    ///
    /// ```swift
    /// catch let failure as WireReader.Failure { print(failure) }   // "an integer was expected (at byte 12)"
    /// ```
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What was expected or found, e.g. "an integer was expected".
        public let reason: String
        /// The byte offset in the document.
        public let offset: Int

        @usableFromInline
        package init(reason: String, offset: Int) {
            self.reason = reason
            self.offset = offset
        }

        /// The reason and the offset, e.g. "an integer was expected (at byte 12)".
        public var description: String { "\(reason) (at byte \(offset))" }
    }

    /// The lexical layer: tokens, strings and numbers.
    @usableFromInline var scanner: JSONScanner

    /// A reader at the start of `bytes`.
    ///
    /// ```swift
    /// var reader = WireReader(buffer)   // buffer: UnsafeRawBufferPointer
    /// ```
    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer) {
        scanner = JSONScanner(bytes)
    }

    @inlinable
    init(scanner: JSONScanner) {
        self.scanner = scanner
    }

    /// The offset of the next byte to read.
    ///
    /// ```swift
    /// let start = reader.offset; try reader.skipValue(); let value = start..<reader.offset
    /// ```
    @inlinable public var offset: Int { scanner.offset }

    /// A ``Failure`` at the current offset.
    ///
    /// ```swift
    /// throw reader.failure("a meta entry of 3 numbers")
    /// ```
    public func failure(_ reason: String) -> Failure {
        scanner.failure(reason)
    }

    // MARK: Structure

    /// The next byte after white space, not consumed; `nil` at the end.
    ///
    /// ```swift
    /// if reader.peek() == UInt8(ascii: "{") { /* an object */ }
    /// ```
    @inlinable
    public mutating func peek() -> UInt8? {
        scanner.peek()
    }

    /// Throws unless only white space is left.
    ///
    /// ```swift
    /// try reader.end()
    /// ```
    public mutating func end() throws {
        try scanner.end()
    }

    /// An object of any members (a row's columns): `member` reads each member's value,
    /// given its name, in the document's order. Names are not checked here: a message's
    /// members are read with ``message(_:_:)``.
    ///
    /// ```swift
    /// try reader.object { reader, name in columns[name] = try reader.syncValue() }
    /// ```
    @inlinable
    public mutating func object(_ member: (inout WireReader, String) throws -> Void) throws {
        try scanner.object { scanner, name in
            var reader = WireReader(scanner: scanner)
            defer { scanner = reader.scanner }
            try member(&reader, name)
        }
    }

    /// A message object, strictly: `member` reads the value of each member it knows and
    /// answers `true`, or answers `false` for a name the message does not declare, which is
    /// then an error naming it. A member named twice is an error; the extension member
    /// (``SyncProtocol/extensionMember``) is checked and skipped without reaching `member`.
    ///
    /// ```swift
    /// try reader.message("a pull answer") { reader, name in
    ///     switch name {
    ///     case "cursor": cursor = try reader.integer()
    ///     default: return false
    ///     }
    ///     return true
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The message, as errors name it ("a pull answer").
    ///   - member: Reads the value of the member it is given by name and answers `true`, or
    ///     answers `false` for a name the message does not declare.
    @inlinable
    public mutating func message(_ name: @autoclosure () -> String, _ member: (inout WireReader, String) throws -> Bool) throws {
        // A message has a handful of members: a linear search beats a set.
        var seen: [String] = []
        try object { reader, key in
            if seen.contains(key) { throw reader.failure("the member \"\(key)\" appears twice in \(name())") }
            seen.append(key)
            if key == SyncProtocol.extensionMember {
                try reader.skipValue()
            } else if try !member(&reader, key) {
                throw reader.failure("\(name()) has no member \"\(key)\" (a newer peer's additions go under \"\(SyncProtocol.extensionMember)\")")
            }
        }
    }

    /// An array: `element` reads each element.
    ///
    /// ```swift
    /// try reader.array { ids.append(try $0.integer()) }
    /// ```
    @inlinable
    public mutating func array(_ element: (inout WireReader) throws -> Void) throws {
        try scanner.array { scanner in
            var reader = WireReader(scanner: scanner)
            defer { scanner = reader.scanner }
            try element(&reader)
        }
    }

    /// Whether the next value is `null`; consumed if so.
    ///
    /// ```swift
    /// let scope = try reader.isNull() ? nil : reader.string()
    /// ```
    @inlinable
    public mutating func isNull() throws -> Bool {
        try scanner.isNull()
    }

    /// Skips any value, checked as strictly as reading it, without making its strings or
    /// numbers.
    ///
    /// ```swift
    /// try reader.skipValue()
    /// ```
    public mutating func skipValue() throws {
        try scanner.skipValue()
    }

    // MARK: Values

    /// `true` or `false`.
    ///
    /// ```swift
    /// let deleted = try reader.bool()
    /// ```
    public mutating func bool() throws -> Bool {
        try scanner.bool()
    }

    /// An integer written as plain digits (`-?(0|[1-9][0-9]*)`) that fits `Int64`.
    ///
    /// ```swift
    /// let version = try reader.integer()
    /// ```
    @inlinable
    public mutating func integer() throws -> Int64 {
        try scanner.integer()
    }

    /// A finite number in JSON's grammar.
    ///
    /// ```swift
    /// let real = try reader.number()   // -1.25E+2 → -125
    /// ```
    public mutating func number() throws -> Double {
        try scanner.number()
    }

    /// A string, its escapes decoded.
    ///
    /// ```swift
    /// let table = try reader.string()
    /// ```
    @inlinable
    public mutating func string() throws -> String {
        try scanner.string()
    }

    /// One ``SyncValue`` in its wire form, strictly: `null`, an integer (plain digits that
    /// fit `Int64`), a string, `{"real":n}` (a finite number) or `{"blob":"<base64>"}`,
    /// each object with that one member.
    ///
    /// ```swift
    /// let value = try reader.syncValue()   // {"real":1.5} → .real(1.5)
    /// ```
    ///
    /// - Throws: ``Failure`` for anything else (`true`, `1.5`, `{"real":1,"blob":""}`…).
    public mutating func syncValue() throws -> SyncValue {
        try scanner.syncValue()
    }

    /// Reads one ``SyncValue`` in its wire form and appends it to `bytes` exactly as
    /// ``WireWriter/value(_:)`` writes that value: copied as it is when it already has that
    /// form (a plain integer, a string without escapes), written again otherwise (`-0`, an
    /// escaped string, a real, a blob). The same value therefore always gives the same
    /// bytes (the server stores a pushed row's columns this way).
    ///
    /// ```swift
    /// try reader.syncValue(appendingTo: &bytes)   // "caf\u00e9" is appended as "café"
    /// ```
    ///
    /// - Throws: ``Failure`` as ``syncValue()``; `bytes` may then hold part of the value.
    public mutating func syncValue(appendingTo bytes: inout [UInt8]) throws {
        try scanner.syncValue(appendingTo: &bytes)
    }

    /// A row's columns (`null` or an object of sync values), each name once.
    ///
    /// ```swift
    /// let columns = try reader.syncColumns()   // {"title":"Buy milk"} → ["title": .text("Buy milk")]
    /// ```
    public mutating func syncColumns() throws -> [String: SyncValue]? {
        guard try !isNull() else { return nil }
        var values: [String: SyncValue] = [:]
        try object { reader, name in
            let value = try reader.syncValue()
            // `String`'s equality is canonical equivalence: two spellings of a name that differ
            // in their bytes are two columns to the databases, of which a dictionary keeps the
            // first (as `JSONDecoder` does); the same bytes twice are a duplicate.
            guard let index = values.index(forKey: name) else { return values[name] = value }
            if values[index].key.utf8.elementsEqual(name.utf8) {
                throw reader.failure("the column \"\(name)\" appears twice in a row")
            }
        }
        return values
    }
}
