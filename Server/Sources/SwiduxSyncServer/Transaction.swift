import Logging
import PostgresNIO

extension PostgresClient {
    /// `withTransaction`, rethrowing the closure's own error as it was (postgres-nio wraps it
    /// in a `PostgresTransactionError`), so that a refusal keeps its status and message.
    func transaction<Result>(
        logger: Logger, isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        do {
            return try await withTransaction(logger: logger, isolation: isolation, body)
        } catch let error as PostgresTransactionError {
            if let closureError = error.closureError, error.rollbackError == nil { throw closureError }
            throw error
        }
    }
}
