import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Calls `onChange` when another process writes the database file or its `-wal` (a commit):
/// an inotify watch on the file's directory on Linux, filtered by name. Elsewhere it does
/// nothing, and the slow poll of ``ChangeFeed`` and of the sync client's push loop finds
/// other processes' commits. Idle, it costs no wake-up: the kernel reports writes only.
final class FileChangeWatch: @unchecked Sendable {
    #if canImport(Glibc)
    private let source: (any DispatchSourceRead)?
    #endif

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
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .global(qos: .utility))
        source.setEventHandler {
            if Self.drain(descriptor, names: names) { onChange() }
        }
        source.setCancelHandler { close(descriptor) }
        source.resume()
        self.source = source
        #endif
    }

    func cancel() {
        #if canImport(Glibc)
        source?.cancel()
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
