import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SwiduxSyncWire

/// The HTTP side of a ``SyncClient``: Foundation's `URLSession`, bearer token, and the
/// mapping of answers to ``SyncError``.
struct SyncTransport: Sendable {
    let server: URL
    let token: String
    let session: URLSession

    init(server: URL, token: String) {
        self.server = server
        self.token = token
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = TimeInterval(SyncProtocol.maxWaitSeconds + 30)
        configuration.httpMaximumConnectionsPerHost = 4
        session = URLSession(configuration: configuration)
    }

    /// Sends one request; the answer's body when the status is 2xx.
    func send(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, timeout: TimeInterval = 30) async throws -> Data {
        var url = server.appendingPathComponent(path)
        if !query.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.queryItems = query
            url = components.url ?? url
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await perform(request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        switch status {
        case 200..<300:
            return data
        case 401:
            throw SyncError.unauthorized
        default:
            let body = try? JSONDecoder().decode(SyncErrorBody.self, from: data)
            let message = body?.error ?? String(decoding: data.prefix(500), as: UTF8.self)
            if let code = body?.code { throw CodedRefusal(code: code, status: status, message: message) }
            throw SyncError.rejected(status: status, message: message)
        }
    }

    /// Sends and decodes a JSON answer.
    func send<Answer: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil,
                                 timeout: TimeInterval = 30, as type: Answer.Type) async throws -> Answer {
        let data = try await send(method, path, query: query, body: body, timeout: timeout)
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw SyncError.rejected(status: 200, message: "an answer that is not a \(Answer.self): \(error)")
        }
    }

    /// Sends and reads the answer with `read` (``WireReader``'s fast paths).
    func send<Answer>(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil,
                      timeout: TimeInterval = 30, reading read: (Data) throws -> Answer) async throws -> Answer {
        let data = try await send(method, path, query: query, body: body, timeout: timeout)
        do {
            return try read(data)
        } catch {
            throw SyncError.rejected(status: 200, message: "an answer that is not a \(Answer.self): \(error)")
        }
    }

    /// One data task, cancelled when the calling task is.
    private func perform(_ request: URLRequest) async throws -> (Data, URLResponse) {
        #if canImport(Glibc)
        // FoundationNetworking's URLSession spins a core while it waits for an answer.
        if request.url?.scheme?.lowercased() == "http" {
            do {
                return try await PlainHTTPClient.send(request, timeout: request.timeoutInterval)
            } catch let failure as PlainHTTPClient.Failure {
                throw SyncError.unreachable(server, underlying: failure.urlError)
            }
        }
        #endif
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: SyncError.unreachable(server, underlying: error))
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: SyncError.unreachable(server, underlying: URLError(.badServerResponse)))
                    }
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// A refusal the client acts on (409 with a ``SyncErrorBody/Code``); ``SyncClient`` turns
/// one it does not handle into ``SyncError/rejected(status:message:)``.
struct CodedRefusal: Error {
    let code: SyncErrorBody.Code
    let status: Int
    let message: String

    var syncError: SyncError { .rejected(status: status, message: message) }
}

/// The running data task, for cancellation from another thread.
private final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func set(_ task: URLSessionDataTask) {
        let cancel = lock.withLock { () -> Bool in
            self.task = task
            return cancelled
        }
        if cancel { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock { () -> URLSessionDataTask? in
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}
