import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Calls `onChange` when another process writes the database file or its `-wal` (a commit):
/// an inotify watch on the file's directory on Linux, filtered by name. Elsewhere it does
/// nothing, and the slow poll of ``ChangeFeed`` and of the sync client's push loop finds
/// other processes' commits. Idle, it costs no wake-up: the kernel reports writes only.
///
/// A write is reported as it happens, which for a commit is **before** readers can see it:
/// SQLite appends the transaction's frames to the `-wal` (the events), syncs the file, and
/// only then publishes the commit in the wal-index, shared memory that reports nothing. A
/// waiter woken by the event and checking at once may find nothing new, and no further event
/// comes. So each batch of events is followed by echoes — `onChange` again 1, 3, 7, …, 255 ms
/// after it (the sequence starts over with each new batch) — and a commit becomes visible to
/// a waiter at most about twice its publishing delay after its last write. (An app that keeps
/// its database open commits this way every time; a process that closes its database after
/// writing makes further events, its checkpoint, which hid the delay.)
final class FileChangeWatch: @unchecked Sendable {
    #if canImport(Glibc)
    private let source: (any DispatchSourceRead)?
    private let echoes: (any DispatchSourceTimer)?
    #endif

    /// The delay before the first echo; each next echo doubles it.
    static var firstEcho: Int { 1 }   // milliseconds
    /// How many echoes follow a batch of events.
    static var echoCount: Int { 8 }

    init(path: String, onChange: @escaping @Sendable () -> Void) {
        #if canImport(Glibc)
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        let names: Set<String> = [name, name + "-wal", name + "-journal"]
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0,
              inotify_add_watch(descriptor, url.deletingLastPathComponent().path, UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)) >= 0
        else {
            if descriptor >= 0 { close(descriptor) }
            source = nil
            echoes = nil
            return
        }
        // One serial queue: the event handler and the echo timer share `sent`.
        let queue = DispatchQueue(label: "swidux.file-change-watch", qos: .utility)
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        let echoes = DispatchSource.makeTimerSource(queue: queue)
        let sent = EchoCount()
        source.setEventHandler {
            guard Self.drain(descriptor, names: names) else { return }
            onChange()
            sent.value = 0
            echoes.schedule(deadline: .now() + .milliseconds(Self.firstEcho))
        }
        echoes.setEventHandler {
            onChange()
            sent.value += 1
            let next = sent.value < Self.echoCount ? Self.firstEcho << sent.value : nil
            echoes.schedule(deadline: next.map { .now() + .milliseconds($0) } ?? .distantFuture)
        }
        source.setCancelHandler { close(descriptor) }
        echoes.schedule(deadline: .distantFuture)
        echoes.resume()
        source.resume()
        self.source = source
        self.echoes = echoes
        #endif
    }

    func cancel() {
        #if canImport(Glibc)
        source?.cancel()
        echoes?.cancel()
        #endif
    }

    deinit { cancel() }

    #if canImport(Glibc)
    /// Reads the pending events; `true` when one names the database's files.
    private static func drain(_ descriptor: Int32, names: Set<String>) -> Bool {
        var matched = false
        let size = 4096
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, size)
            guard count > 0 else { return matched }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let length = Int(event.len)
                if length > 0 {
                    let start = buffer.advanced(by: offset + header).assumingMemoryBound(to: CChar.self)
                    if names.contains(String(cString: start)) { matched = true }
                }
                offset += header + length
            }
        }
    }
    #endif
}

/// The echoes sent since the last batch of events (used on the watch's queue only).
private final class EchoCount: @unchecked Sendable {
    var value = 0
}
