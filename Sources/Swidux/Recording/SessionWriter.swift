import Foundation

/// The writing side of a ``SessionRecorder``: takes the steps the main actor captured,
/// finishes their fingerprints (hashing), encodes them as JSON lines and appends them to the
/// file, in batches, off the main actor; rotates the file at its size limit.
///
/// `append` is called on the main actor (a lock, no I/O); the batches run in a detached task
/// started when the first step of a batch arrives (none while idle), or in ``flush()``.
final class SessionWriter<State, Action: Encodable & Sendable>: @unchecked Sendable {
    let url: URL
    private let partNames: [String]
    private let maxFileSize: Int
    private let keptFiles: Int
    private let delay: Duration
    private let redact: (@Sendable (Action) -> Action)?
    private let seed: UInt64
    /// Whether the first header holds the parts' values at the start.
    private let snapshot: Bool

    private struct Queue {
        var pending: [SessionStep] = []
        var scheduled = false
        /// The file is full and, with snapshots, waits for one to rotate (see ``append(_:)``).
        var snapshotWanted = false
        var error: (any Error)?
    }
    private let queue = LockedValue(Queue())

    /// Held while a batch is processed (the fields below belong to whoever holds it).
    private let processing = LockedValue(())
    private let digests: [any FingerprintDigest]
    private let hashing = Fingerprinting()
    private let encoder = JSONEncoder()
    private var handle: FileHandle?
    private var fileSize = 0
    private var nextStep = 0
    /// This file asked for its snapshot already (one rotation per full file).
    private var askedForSnapshot = false

    init(
        url: URL, fingerprint: StateFingerprint<State>, maxFileSize: Int, keptFiles: Int, delay: Duration,
        seed: UInt64, snapshot: Bool, redact: (@Sendable (Action) -> Action)?
    ) throws {
        self.snapshot = snapshot
        self.url = url
        self.partNames = fingerprint.partNames
        self.maxFileSize = max(maxFileSize, 4096)
        self.keptFiles = max(keptFiles, 0)
        self.delay = delay
        self.seed = seed
        self.redact = redact
        self.digests = fingerprint.makeDigests()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        try openFile(rotatingExisting: true)
    }

    deinit {
        try? handle?.close()
    }

    /// How many values the writer hashed (tests check the O(changed) cost with it).
    var hashedValues: Int { processing.withLock { _ in hashing.hashedValues } }

    /// The first error writing met (writing stops there), if any.
    var error: (any Error)? { queue.withLock { $0.error } }

    /// Queues a step; a batch starts `delay` after the first step queued since the last one.
    ///
    /// Returns `true` when the file is full and the writer takes snapshots: the caller then
    /// queues a snapshot of the state after this step (``SessionStep/isSnapshot``), and the
    /// writer rotates there, with the snapshot in the new file's header.
    @discardableResult
    func append(_ entry: consuming SessionStep) -> Bool {
        if entry.isSnapshot { queue.withLock { $0.snapshotWanted = false } }
        // Moved into the queue, not copied: the closure takes it out of this optional.
        var moved: SessionStep? = consume entry
        let (start, wantsSnapshot) = queue.withLock { queue in
            queue.pending.append(moved.take()!)
            defer { queue.scheduled = true }
            return (!queue.scheduled, queue.snapshotWanted)
        }
        if start {
            let delay = delay
            Task.detached(priority: .utility) { [self] in
                try? await Task.sleep(for: delay)
                drain()
            }
        }
        return wantsSnapshot
    }

    /// Writes every queued step now (on the calling thread) and returns when they are written.
    func flush() {
        processing.withLock { _ in
            let batch = queue.withLock { queue -> [SessionStep] in
                defer { queue.pending.removeAll(keepingCapacity: true) }
                return queue.pending
            }
            process(batch)
        }
    }

    /// The batch task: processes until the queue is empty, then lets the next step start one.
    private func drain() {
        processing.withLock { _ in
            while true {
                let batch = queue.withLock { queue -> [SessionStep]? in
                    if queue.pending.isEmpty {
                        queue.scheduled = false
                        return nil
                    }
                    defer { queue.pending.removeAll(keepingCapacity: true) }
                    return queue.pending
                }
                guard let batch else { return }
                process(batch)
            }
        }
    }

    private func process(_ batch: [SessionStep]) {
        guard !batch.isEmpty, error == nil else { return }
        var output = Data()
        do {
            for entry in batch {
                if entry.isSnapshot {
                    // The file is full: a new one starts here, with the state in its header.
                    try write(output)
                    output.removeAll(keepingCapacity: true)
                    try rotate(first: nextStep, fingerprint: currentFingerprint(), snapshot: entry.captures)
                    continue
                }
                // Where the session stands before this step: a new file after a rotation starts there.
                let first = nextStep, fingerprint = currentFingerprint()
                let line = try encode(entry)
                if !entry.isHeader, fileSize + output.count + line.count > maxFileSize, fileSize + output.count > 0 {
                    if snapshot {
                        // Rotated at the snapshot the recorder queues after its next step (the
                        // steps queued meanwhile still go to this file).
                        if !askedForSnapshot {
                            askedForSnapshot = true
                            queue.withLock { $0.snapshotWanted = true }
                        }
                    } else {
                        try write(output)
                        output.removeAll(keepingCapacity: true)
                        try rotate(first: first, fingerprint: fingerprint, snapshot: nil)
                    }
                }
                output.append(line)
            }
            try write(output)
        } catch {
            queue.withLock { if $0.error == nil { $0.error = error } }
        }
    }

    /// Applies the entry's captures to the digests and encodes its line.
    private func encode(_ entry: SessionStep) throws -> Data {
        var line = SessionLine<Action>()
        if entry.isHeader {
            var snapshot: [String: String] = [:]
            for (part, change) in entry.captures {
                if self.snapshot, let payload = try digests[part].externalPayload(change, placed: false) { snapshot[partNames[part]] = payload }
                try digests[part].apply(change, using: hashing)
            }
            line = headerLine(first: nextStep, fingerprint: currentFingerprint())
            if self.snapshot { line.changes = snapshot }
        } else {
            var changes: [String: String] = [:]
            // With snapshots, a file may start after the steps an undo or a redo goes back
            // to: the step carries what it did, for a replay of that file alone.
            let restores = snapshot && (entry.kind == "undo" || entry.kind == "redo")
            for (part, change) in entry.captures {
                if entry.kind == "external" || restores,
                   let payload = try digests[part].externalPayload(change, placed: restores) {
                    changes[partNames[part]] = payload
                }
                try digests[part].apply(change, using: hashing)
            }
            line.kind = entry.kind
            line.source = entry.source
            line.time = entry.milliseconds
            line.action = (entry.action as? Action).map { redact?($0) ?? $0 }
            line.origin = entry.origin
            line.changes = entry.kind == "external" || restores ? changes : nil
            line.fingerprint = currentFingerprint()
            nextStep += 1
        }
        var data = try encoder.encode(line)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    private func headerLine(first: Int, fingerprint: String) -> SessionLine<Action> {
        var header = SessionLine<Action>()
        header.format = SessionLine<Action>.formatName
        header.version = SessionLine<Action>.currentVersion
        header.parts = partNames
        header.seed = String(seed, radix: 16)
        header.first = first
        header.fingerprint = fingerprint
        return header
    }

    private func currentFingerprint() -> String {
        digests.map { Fingerprinting.hex($0.value) }.joined(separator: ".")
    }

    private func write(_ data: Data) throws {
        guard !data.isEmpty else { return }
        guard let handle else { return }
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw SessionRecordingError(path: url.path, line: nil, reason: "cannot be written (\(error.localizedDescription))")
        }
        fileSize += data.count
    }

    /// The file is full: it becomes `FILE.1` (older ones `FILE.2`, … up to `keptFiles`), and
    /// a new file starts with a header holding the current fingerprint, and the parts' values
    /// when `snapshot` holds them (then a replay of that file alone starts from them).
    private func rotate(first: Int, fingerprint: String, snapshot: [(part: Int, change: any Sendable)]?) throws {
        try handle?.close()
        handle = nil
        try openFile(rotatingExisting: true)
        var line = headerLine(first: first, fingerprint: fingerprint)
        if let snapshot {
            var values: [String: String] = [:]
            // The digests already hold this state: the payloads only, nothing hashed again.
            for (part, change) in snapshot {
                if let payload = try digests[part].externalPayload(change, placed: false) { values[partNames[part]] = payload }
            }
            line.changes = values
        }
        var header = try encoder.encode(line)
        header.append(UInt8(ascii: "\n"))
        try write(header)
    }

    private func openFile(rotatingExisting: Bool) throws {
        let manager = FileManager.default
        let path = url.path
        do {
            if manager.fileExists(atPath: path) {
                if keptFiles == 0 {
                    try manager.removeItem(atPath: path)
                } else {
                    let oldest = "\(path).\(keptFiles)"
                    if manager.fileExists(atPath: oldest) { try manager.removeItem(atPath: oldest) }
                    for index in stride(from: keptFiles - 1, through: 1, by: -1) where manager.fileExists(atPath: "\(path).\(index)") {
                        try manager.moveItem(atPath: "\(path).\(index)", toPath: "\(path).\(index + 1)")
                    }
                    try manager.moveItem(atPath: path, toPath: "\(path).1")
                }
            }
            guard manager.createFile(atPath: path, contents: nil) else {
                throw SessionRecordingError(path: path, line: nil, reason: "cannot be created (is its folder missing or read-only?)")
            }
            handle = try FileHandle(forWritingTo: url)
            fileSize = 0
            askedForSnapshot = false
        } catch let error as SessionRecordingError {
            throw error
        } catch {
            throw SessionRecordingError(path: path, line: nil, reason: "cannot be opened for recording (\(error.localizedDescription))")
        }
    }
}
