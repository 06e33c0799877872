import GRDB

extension SwiduxDatabase {
    /// A feed of what other connections and processes commit to `tables` (see ``ChangeFeed``).
    /// Installs the change journal for them first when it is missing (a write); the first
    /// batch is then a re-hydration, since changes made before were not journaled.
    ///
    /// ```swift
    /// let feed = try database.changeFeed(for: AppDatabase.lists, AppDatabase.items)
    /// for await batch in feed.batches {
    ///     if let items = batch.changes(in: AppDatabase.items) { print(items.upserts.map(\.entity)) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - tables: The tables to follow.
    ///   - cursor: The journal sequence to replay from (a ``ChangeFeedBatch/cursor``). By
    ///     default, the sequence the earliest hydration through this database read; without
    ///     one, the first batch is a re-hydration.
    ///   - interval: How often to check for commits.
    /// - Throws: ``SwiduxDatabaseError``: ``SwiduxDatabaseError/Cause/readOnly`` when the
    ///   journal is missing and the database is read-only.
    public func changeFeed<each Entity>(
        for tables: repeat EntityTable<each Entity>,
        from cursor: Int64? = nil,
        every interval: Duration = ChangeFeed.defaultInterval
    ) throws -> ChangeFeed {
        var feedTables: [FeedTable] = []
        for table in repeat each tables { feedTables.append(FeedTable(table)) }
        let installed = try installJournal(feedTables)
        journal.beginFeed()
        let journal = self.journal
        let feed = ChangeFeed(
            database: self, tables: feedTables, writers: nil, cursor: installed ? nil : cursor ?? journal.replayCursor,
            interval: interval, keepRunning: { true }, onEnd: { journal.endFeed() })
        return feed
    }

    /// Installs the journal and the triggers of `tables` where missing; `true` if anything
    /// was created.
    func installJournal(_ tables: [FeedTable]) throws -> Bool {
        try guarded {
            let (missing, stale) = try writer.read { db in
                (try tables.contains { table in
                     // Triggers a sync engine made for a table no store followed yet do not
                     // journal the rows it writes from the server: missing for a follower.
                     try !ChangeJournal.isInstalled(in: db, table: table.name)
                         || LoggedTables.entry(table.name, in: db).map { $0.positionColumn == nil } == true
                 },
                 try tables.contains { table in
                     try !ChangeJournal.isCurrent(in: db, table: table.name, idColumn: table.idColumn,
                                                  positionColumn: table.positionColumn)
                 })
            }
            guard missing || stale else { return false }
            if access == .readOnly {
                // Triggers without their registry entry or of an older layout (a file of an
                // older version) still log every change: they are made again at the next
                // writable open.
                if !missing { return false }
                throw SwiduxDatabaseError(path: path, cause: .readOnly)
            }
            return try writer.write { db in
                var created = false
                for table in tables {
                    if try ChangeJournal.install(in: db, table: table.name, idColumn: table.idColumn, positionColumn: table.positionColumn) {
                        created = true
                    }
                }
                return created
            }
        }
    }
}

extension SwiduxDatabase {
    /// How many commits to the file this process has noticed so far: its own (every
    /// `SwiduxDatabase` on the file in this process) and, on Linux, other processes'
    /// writes. Pass it to ``waitForCommit(after:timeout:)``.
    ///
    /// ```swift
    /// let seen = database.commitCount
    /// checkForWork()
    /// await database.waitForCommit(after: seen, timeout: .seconds(1))
    /// ```
    public var commitCount: UInt64 { commits?.current ?? 0 }

    /// Waits until a commit was noticed after `count` (at once if one already was), for at
    /// most `timeout`, or until the task is cancelled. What wakes it: a commit of this
    /// process to the file; on Linux a write of another process to the file or its `-wal`
    /// (inotify). Other processes' commits on other platforms are found by the caller's
    /// next check after `timeout`. In memory it only waits for the timeout.
    ///
    /// ```swift
    /// while !Task.isCancelled {
    ///     let seen = database.commitCount
    ///     try pushPendingChanges()
    ///     await database.waitForCommit(after: seen, timeout: .seconds(1))
    /// }
    /// ```
    public func waitForCommit(after count: UInt64, timeout: Duration) async {
        if let commits {
            await commits.wait(after: count, timeout: timeout)
        } else {
            try? await Task.sleep(for: timeout)
        }
    }
}
