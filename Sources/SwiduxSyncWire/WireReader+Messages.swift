import Foundation

extension WireReader {
    /// A pull page (``PullResponse``), read strictly from its bytes: the members the message
    /// declares, each once, and the extension member; anything else is a ``Failure``.
    ///
    /// ```swift
    /// let page = try WireReader.pullResponse(body)
    /// ```
    public static func pullResponse(_ data: Data) throws -> PullResponse {
        try data.withUnsafeBytes { bytes in
            var reader = WireReader(bytes)
            let page = try reader.pullResponse()
            try reader.end()
            return page
        }
    }

    /// A pull page (``PullResponse``) at the reader's position.
    ///
    /// ```swift
    /// let page = try reader.pullResponse()
    /// ```
    public mutating func pullResponse() throws -> PullResponse {
        var page = PullResponse(rows: [], cursor: 0, hasMore: false)
        var sawCursor = false, sawRows = false, sawMore = false
        try message("a pull answer") { reader, key in
            switch key {
            case "rows":
                sawRows = true
                try reader.array { reader in page.rows.append(try reader.syncRow()) }
            case "cursor": page.cursor = try reader.integer(); sawCursor = true
            case "hasMore": page.hasMore = try reader.bool(); sawMore = true
            case "end": page.end = try reader.isNull() ? nil : reader.integer()
            case "scope": page.scope = try reader.isNull() ? nil : reader.string()
            case "conflicts": page.conflicts = try reader.isNull() ? nil : reader.integer()
            default: return false
            }
            return true
        }
        guard sawRows, sawCursor, sawMore else { throw failure("a pull answer without rows, cursor or hasMore") }
        return page
    }

    /// A row (``SyncRow``): a pull page's, or a push result's current row.
    ///
    /// ```swift
    /// let row = try reader.syncRow()
    /// ```
    public mutating func syncRow() throws -> SyncRow {
        var table: String?, id: SyncValue?, version: Int64?, deleted: Bool?
        var columns: [String: SyncValue]?
        try message("a row") { reader, key in
            switch key {
            case "table": table = try reader.string()
            case "id": id = try reader.syncValue()
            case "version": version = try reader.integer()
            case "deleted": deleted = try reader.bool()
            case "columns": columns = try reader.syncColumns()
            default: return false
            }
            return true
        }
        guard let table, let id, let version, let deleted else { throw failure("a row without table, id, version or deleted") }
        return SyncRow(table: table, id: id, version: version, deleted: deleted, columns: columns)
    }
}
