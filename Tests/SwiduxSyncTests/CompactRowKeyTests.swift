import Foundation
import GRDB
@testable import SwiduxSync
import Testing
import SwiduxTesting

/// The keys a push's sets hold (issue 31) must be equal exactly when the rows' ``RowKey``s
/// are, and hash alike when equal: otherwise a row is pushed twice in one request, or a
/// row in flight is sent again.
@Suite("CompactRowKey is equal exactly when RowKey is")
struct CompactRowKeyTests {
    static let tables = ["item", "list", "caf\u{E9}", "other"]
    /// `caf\u{E9}` and `cafe\u{301}` are one table for `String`; `other` and `gone` are not synced.
    static let spellings = ["item", "list", "caf\u{E9}", "cafe\u{301}", "gone", "other"]
    static let synced = ["item", "list", "caf\u{E9}"]

    static func id(_ random: inout SeededRandomNumberGenerator) -> DatabaseValue {
        let bytes = (0..<Int(random.next() % 20)).map { _ in UInt8(random.next() % 3) }
        switch random.next() % 7 {
        case 0: return .null
        case 1: return Int64(random.next() % 4).databaseValue
        case 2: return [0.0, -0.0, 1.0, 2.0, 0.5, 1e19, -1e19][Int(random.next() % 7)].databaseValue
        case 3: return Data(bytes.prefix(Int(random.next() % 3))).databaseValue
        case 4: return Data(bytes).databaseValue
        case 5: return ["1", "caf\u{E9}", "cafe\u{301}", ""][Int(random.next() % 4)].databaseValue
        default: return [Int64.max, Int64.min, 1 << 53].map(\.databaseValue)[Int(random.next() % 3)]
        }
    }

    @Test("Random keys: integers, integral and other reals, blobs of 0 to 19 bytes, texts, nulls, canonically equivalent names, tables not synced")
    func equalExactlyWhenRowKeysAre() throws {
        let indexes = Dictionary(Self.synced.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var random = SeededRandomNumberGenerator(seed: 31)
        var compactEqual = 0
        for _ in 0..<20_000 {
            let a = RowKey(table: Self.spellings[Int(random.next() % 6)], id: Self.id(&random))
            let b = random.next() % 4 == 0 ? a : RowKey(table: Self.spellings[Int(random.next() % 6)], id: Self.id(&random))
            let compactA = CompactRowKey(a, table: indexes[a.table])
            let compactB = CompactRowKey(b, table: indexes[b.table])
            #expect((compactA == compactB) == (a == b), "\(a) and \(b)")
            if compactA == compactB {
                #expect(compactA.hashValue == compactB.hashValue, "\(a) and \(b)")
                if case .other = compactA {} else { compactEqual += 1 }
            }
        }
        // The test reaches the compact forms, not only the fallback.
        #expect(compactEqual > 1000)
        // Blobs that differ only by trailing zero bytes are different rows.
        #expect(CompactRowKey(RowKey(table: "item", id: Data([1]).databaseValue), table: 0)
                != CompactRowKey(RowKey(table: "item", id: Data([1, 0]).databaseValue), table: 0))
        // An integral real is its integer, as for `DatabaseValue`.
        #expect(CompactRowKey(RowKey(table: "item", id: 2.0.databaseValue), table: 0)
                == CompactRowKey(RowKey(table: "item", id: 2.databaseValue), table: 0))
    }
}
