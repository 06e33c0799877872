import Foundation
import GRDB
@testable import SwiduxSQLite
import Testing

/// Issue 30, item 5: a protected file opened before the first unlock fails with a cause
/// that says so. Data protection exists only on Apple's devices; here the classification is
/// checked with the protection predicate injected.
@Suite("Data protection: an open failure of a protected file says so")
struct ProtectedDataTests {
    @Test("An open-like failure of an existing protected file is explained by data protection; nothing else is")
    func classification() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let protected: (String) -> Bool = { _ in true }
        for code in [ResultCode.SQLITE_CANTOPEN, .SQLITE_IOERR, .SQLITE_PERM, .SQLITE_AUTH] {
            #expect(ProtectedData.explains(code, path: path, isProtected: protected), "\(code)")
        }
        #expect(!ProtectedData.explains(.SQLITE_CORRUPT, path: path, isProtected: protected))
        #expect(!ProtectedData.explains(.SQLITE_BUSY, path: path, isProtected: protected))
        #expect(!ProtectedData.explains(.SQLITE_CANTOPEN, path: path, isProtected: { _ in false }))
        #expect(!ProtectedData.explains(.SQLITE_CANTOPEN, path: directory.path("missing.sqlite"), isProtected: protected))
        #expect(!ProtectedData.explains(.SQLITE_CANTOPEN, path: nil, isProtected: protected))
        // Where there is no data protection, no file is protected: the cause stays cannotOpen.
        #if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS))
        #expect(!ProtectedData.isProtected(path))
        let wrapped = SwiduxDatabaseError.wrapping(DatabaseError(resultCode: .SQLITE_CANTOPEN), path: path)
        #expect(wrapped.cause == .cannotOpen)
        #endif
    }

    @Test("The cause reads as an explanation with what to do")
    func description() {
        let error = SwiduxDatabaseError(path: "/data/app.sqlite", cause: .protectedDataUnavailable)
        #expect(error.description.contains("/data/app.sqlite"))
        #expect(error.description.contains("data protection"))
        #expect(error.description.contains("unlocked"))
    }
}
