// The journal of a `ChangeSet`: recording, indexing, draining and compacting its entries
// (the public API and the storage notes are in ChangeSet.swift).
extension ChangeSet {
    /// The kind of `id`'s live record, if any. O(1) by id; by slot (a store's own change set,
    /// read in place), a walk of the journal.
    @inlinable
    func kind(of id: ID) -> Kind? {
        guard bySlot else { return places[id].map { journal[$0].kind } }
        for entry in journal.reversed() where entry.kind != .stale && entry.id == id { return entry.kind }
        return nil
    }

    /// Switches to finding entries by id: hashes every live entry not in `places` yet.
    /// O(live entries) the first time, O(1) after.
    @inlinable
    mutating func indexAll() {
        guard bySlot else { return }
        bySlot = false
        guard liveCount > 0 else { return }
        places.reserveCapacity(liveCount)
        for index in journal.indices where journal[index].kind != .stale {
            places[journal[index].id] = index
        }
    }

    /// Hashes the live deletion entries recorded by slot since the last call.
    @inlinable
    mutating func indexDeletions() {
        var index = unindexedFrom
        while index < journal.count {
            if journal[index].kind == .deletion { places[journal[index].id] = index }
            index += 1
        }
        unindexedFrom = journal.count
    }

    /// By slot, `true` when some live entry is an insertion or update: only then can a
    /// stamp name one (deletions and insertions of new ids need not read it otherwise).
    @inlinable
    var mayHaveStampedUpserts: Bool { liveCount > liveDeletions }

    /// The index of `id`'s live insertion or update entry if `stamp` (its slot's) names one.
    @inlinable
    func stampedEntry(of id: ID, stamp: UInt32) -> Int? {
        let place = Int(stamp) &- 1
        guard place >= 0, place < journal.count else { return nil }
        let entry = journal[place]
        guard entry.kind == .insertion || entry.kind == .update, entry.id == id else { return nil }
        return place
    }

    /// Records an insertion (`isNew`: the store did not have the id) or an update of `id`,
    /// whose entity is now in `slot` of the store's storage, where `stamp` is stamped.
    /// Returns the stamp to put in that slot instead, if any.
    @inlinable
    mutating func recordUpsert(_ id: ID, isNew: Bool, slot: Int, stamp: UInt32) -> UInt32? {
        let kind: Kind = isNew ? .insertion : .update
        guard bySlot, journal.count < Int(UInt32.max) - 1 else {
            // By id: one hash, the slot noted in the entry all the same.
            record(id, kind, slot: slot)
            return nil
        }
        if !isNew, let place = stampedEntry(of: id, stamp: stamp) {
            // An update after an upsert keeps its place and kind.
            journal[place].slot = slot
            return nil
        }
        var staled = false
        if isNew, liveDeletions > 0 {
            // Maybe added again after a recorded deletion: then it moved to the end.
            indexDeletions()
            if let place = places.removeValue(forKey: id) {
                journal[place].kind = .stale
                liveDeletions -= 1
                liveCount -= 1
                _orderChanged = true
                staled = true
            }
        }
        let place = journal.count
        appendToJournal(id, kind, slot: slot)
        liveCount += 1
        if staled { didStale() }
        // A compaction (by id from then on) leaves the stamp unused: harmless.
        return UInt32(truncatingIfNeeded: place + 1)
    }

    /// Records the deletion of `id`, whose entity was in a slot stamped `stamp`.
    @inlinable
    mutating func recordDeletion(_ id: ID, stamp: UInt32) {
        guard bySlot, journal.count < Int(UInt32.max) - 1 else {
            record(id, .deletion)
            return
        }
        let staled = stampedEntry(of: id, stamp: stamp)
        appendToJournal(id, .deletion)
        liveDeletions += 1
        if let place = staled {
            journal[place].kind = .stale
            didStale()
        } else {
            liveCount += 1
        }
    }

    /// Appends an entry. Not inlined: inlined after the branches of its callers, the
    /// compiler stores a `UUID` id byte by byte (about 50 more instructions).
    @inlinable @inline(never)
    mutating func appendToJournal(_ id: ID, _ kind: Kind, slot: Int = -1) {
        journal.append(Entry(id: id, kind: kind, slot: slot))
    }

    /// Counts a new stale entry; compacts the journal when they outnumber the live ones.
    @inlinable
    mutating func didStale() {
        staleCount += 1
        if staleCount > 16, staleCount > journal.count / 2 {
            indexAll()
            compact()
        }
    }

    @inlinable
    mutating func resetCounts() {
        staleCount = 0
        liveCount = 0
        bySlot = true
        unindexedFrom = 0
        liveDeletions = 0
        _orderChanged = false
        _rehydrated = false
    }

    /// The ids of the live entries whose kind passes `include`, in journal order.
    @inlinable
    func ids(_ include: (Kind) -> Bool) -> [ID] {
        var result: [ID] = []
        for entry in journal where include(entry.kind) { result.append(entry.id) }
        return result
    }

    /// Records `kind` for `id` (the rules in the type's documentation), hashing `id` once.
    /// `slot`, for an upsert, is noted in the live entry as the writer's hint (-1: unknown).
    @inlinable
    mutating func record(_ id: ID, _ kind: Kind, slot: Int = -1) {
        if bySlot { indexAll() }
        let before = journal.count
        let staled = Self.record(kind, of: id, slot: slot, place: &places[id, default: -1], journal: &journal,
                                 orderChanged: &_orderChanged)
        if !staled, journal.count > before { liveCount += 1 }
        if staled { didStale() }
    }

    /// Applies a record to `id`'s place (-1: not recorded yet). Returns `true` if it left a
    /// stale entry behind.
    @inlinable
    static func record(_ kind: Kind, of id: ID, slot: Int, place: inout Int, journal: inout [Entry], orderChanged: inout Bool) -> Bool {
        guard place >= 0 else {
            place = journal.count
            journal.append(Entry(id: id, kind: kind, slot: kind == .deletion ? -1 : slot))
            return false
        }
        let current = journal[place].kind
        switch (current, kind) {
        case (.insertion, .insertion), (.insertion, .update), (.update, .update):
            // An upsert after an upsert keeps its place; an update after an insertion stays one.
            if slot >= 0 { journal[place].slot = slot }
            return false
        case (.update, .insertion):
            journal[place].kind = .insertion
            if slot >= 0 { journal[place].slot = slot }
            return false
        case (.deletion, .insertion), (.deletion, .update):
            // Re-inserted after a deletion: it moved to the end.
            orderChanged = true
            journal[place].kind = .stale
            place = journal.count
            journal.append(Entry(id: id, kind: .insertion, slot: slot))
            return true
        default:
            // A deletion takes the latest place.
            journal[place].kind = .stale
            place = journal.count
            journal.append(Entry(id: id, kind: .deletion))
            return true
        }
    }

    /// Forgets every record after a drain. Small buffers are kept (the next dispatch records
    /// into them without allocating); large ones are released (clearing a large table on
    /// every drain would cost its size).
    @inlinable
    mutating func removeAllAfterDrain() {
        if !places.isEmpty {
            if places.capacity <= 64 {
                places.removeAll(keepingCapacity: true)
            } else {
                places = [:]
            }
        }
        if journal.capacity <= 64 {
            if journal.count <= 4 {
                journal.removeAllOneByOne()
            } else {
                journal.removeAll(keepingCapacity: true)
            }
        } else {
            journal = []
        }
        resetCounts()
    }

    /// Makes room for `additional` more records without rehashing.
    @inlinable
    mutating func reserveCapacity(_ additional: Int) {
        // Geometric, so that repeated small reservations stay amortized O(1).
        if !bySlot {
            let needed = places.count + additional
            if places.capacity < needed { places.reserveCapacity(Swift.max(needed, 2 * places.count)) }
        }
        let entries = journal.count + additional
        if journal.capacity < entries { journal.reserveCapacity(Swift.max(entries, 2 * journal.count)) }
    }

    /// The Swidux 1.0 `upserts` setter: forgets the upserts not in `ids`, records the new ones.
    mutating func replaceUpserts(with ids: Set<ID>) {
        indexAll()
        for id in upserted where !ids.contains(id) { forget(id) }
        for id in ids where !isUpserted(id) { recordUpsert(id) }
    }

    /// Forgets `id`'s record (Swidux 1.0 set-style edits).
    mutating func forget(_ id: ID) {
        indexAll()
        guard let place = places.removeValue(forKey: id) else { return }
        journal[place].kind = .stale
        liveCount -= 1
        didStale()
    }

    /// Drops the stale entries of the journal. O(live entries); amortized O(1) per record.
    @usableFromInline
    mutating func compact() {
        indexAll()
        var kept: [Entry] = []
        kept.reserveCapacity(journal.count - staleCount)
        for entry in journal where entry.kind != .stale {
            places[entry.id] = kept.count
            kept.append(entry)
        }
        journal = kept
        staleCount = 0
    }
}
