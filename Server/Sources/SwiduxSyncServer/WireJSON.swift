import Foundation
import SwiduxSyncWire

/// The JSON the server stores for ids and columns: the wire form of ``SyncValue``, kept
/// verbatim in `json` columns and decoded again for pulls. One per request (not Sendable).
struct WireJSON {
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()

    func text<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try decoder.decode(type, from: Data(text.utf8))
    }
}
