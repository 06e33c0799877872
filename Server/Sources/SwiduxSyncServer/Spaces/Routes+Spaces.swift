import Foundation
import Hummingbird
import SwiduxSyncWire

/// The spaces API, what a device needs to sync every space of its user:
/// - `GET /v1/spaces`: the caller's spaces (``SwiduxSyncWire/SpaceList``). A JWT user's
///   personal space first (`{"name":"user:alice","role":"owner","personal":true}`, made by this
///   request if it is their first), then the shared spaces they are a member of, by name, with
///   their role; an opaque token's one space, as a writer.
/// - `POST /v1/spaces` with `{"name":"family"}` (``SwiduxSyncWire/NewSpace``), for JWT users:
///   makes the shared space, the caller its owner: 201 with its ``SwiduxSyncWire/SpaceEntry``;
///   200 when the caller already owns it (a retry); 409 when it exists otherwise; 400 for an
///   invalid name or one starting with `user:`; 403 for an opaque token.
///
/// Both are counted in the caller's requests in flight, as a request to their personal space.
/// A long poll on a personal space answers its page at once when its user's spaces change
/// (a membership added, removed or given another role; a space made): the device asks for
/// its spaces again.
///
/// ```sh
/// curl -H "Authorization: Bearer $JWT" https://sync.example/v1/spaces
/// curl -X POST -H "Authorization: Bearer $JWT" -d '{"name":"family"}' https://sync.example/v1/spaces
/// ```
extension Routes {
    func addSpaceRoutes<Context: RequestContext>(to router: RouterGroup<Context>) {
        router.get(RouterPath(SyncProtocol.spacesPath)) { request, context in
            try await serving(context).respond(context) { try await $0.spaces(request) }
        }
        router.post(RouterPath(SyncProtocol.spacesPath)) { request, context in
            try await serving(context).respond(context) { try await $0.makeSpace(request) }
        }
    }

    private func spaces(_ request: Request) async throws -> Response {
        // The personal space's name and id are the request's own, not the query parameter's.
        let caller = try await authenticate(try bearerToken(request), space: nil)
        return try await admitted(caller) {
            let (logger, space) = (self.logger, caller.space)
            guard let subject = caller.subject else {
                let name = try await database.withConnection { connection in
                    var name: String?
                    for try await found in try await connection.query("SELECT name FROM sync_spaces WHERE id = \(space)", logger: logger)
                        .decode(String.self) { name = found }
                    return name
                }
                guard let name else { throw RequestFailure.unauthorized("unknown or revoked token") }
                return try json(SpaceList(spaces: [SpaceEntry(name: name, role: SpaceRole.writer.rawValue, personal: true)]))
            }
            let personal = UserSpaces.prefix + subject
            let shared = try await refusals {
                try await database.withConnection { try await Members.spaces(of: subject, connection: $0, logger: logger) }
            }.filter { $0.space != personal }
            let entries = [SpaceEntry(name: personal, role: SpaceRole.owner.rawValue, personal: true)]
                + shared.map { SpaceEntry(name: $0.space, role: $0.role.rawValue, personal: false) }
            return try json(SpaceList(spaces: entries))
        }
    }

    private func makeSpace(_ request: Request) async throws -> Response {
        let token = try bearerToken(request)
        guard JWTUsers.isJWT(token) else {
            throw RequestFailure(status: .forbidden,
                                 description: "shared spaces are made by JWT users: an opaque token opens its own space only, and cannot make one")
        }
        let caller = try await authenticate(token, space: nil)
        guard let subject = caller.subject else { throw RequestFailure.unauthorized("the token names no user") }
        return try await admitted(caller) {
            let body = try await decode(NewSpace.self, from: request)
            do {
                try Members.checkNewSpaceName(body.name)
            } catch let refusal as MemberRefusal {
                throw RequestFailure.badRequest(refusal.description)
            }
            let logger = self.logger
            let made = try await refusals {
                try await database.transaction { try await Members.make(space: body.name, owner: subject, connection: $0, logger: logger) }
            }
            return try json(SpaceEntry(name: body.name, role: SpaceRole.owner.rawValue, personal: false), status: made ? .created : .ok)
        }
    }
}
