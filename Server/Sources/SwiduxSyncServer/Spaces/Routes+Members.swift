import Foundation
import Hummingbird
import SwiduxSyncWire

/// The members API, for JWT users (an opaque token has no user to be a member):
/// - `GET /v1/spaces/{space}/members`: `{"members":[{"user":"alice","role":"owner"}, …]}`
///   (``SwiduxSyncWire/SpaceMemberList``), for any member;
/// - `POST /v1/spaces/{space}/members` with `{"user":"bob","role":"reader"}`
///   (``SwiduxSyncWire/SpaceMemberEntry``): adds a member or changes their role, for an owner (204);
/// - `DELETE /v1/spaces/{space}/members/{user}`: removes a member, for an owner (204).
///
/// 403 for a caller who may not, 404 for an unknown space or member, 409 for a change that
/// would leave the space without an owner or take a personal space from its user. A change
/// also ends the long polls on the member's personal space: the member's devices learn at
/// once that their spaces changed, and ask `GET /v1/spaces` again (`Routes+Spaces.swift`).
///
/// ```sh
/// curl -X POST -H "Authorization: Bearer $JWT" -d '{"user":"bob","role":"reader"}' https://sync.example/v1/spaces/family/members
/// ```
extension Routes {
    static let membersPath = "/v1/spaces/:space/members"

    func addMemberRoutes<Context: RequestContext>(to router: RouterGroup<Context>) {
        router.get(RouterPath(Self.membersPath)) { request, context in
            try await serving(context).respond(context) { try await $0.members(request, context) }
        }
        router.post(RouterPath(Self.membersPath)) { request, context in
            try await serving(context).respond(context) { try await $0.addMember(request, context) }
        }
        router.delete(RouterPath(Self.membersPath + "/:user")) { request, context in
            try await serving(context).respond(context) { try await $0.removeMember(request, context) }
        }
    }

    private func members(_ request: Request, _ context: some RequestContext) async throws -> Response {
        let (caller, space) = try await memberCaller(request, context)
        let logger = self.logger
        let members = try await refusals {
            try await database.withConnection { try await Members.list(space: space, by: caller, connection: $0, logger: logger) }
        }
        return try json(SpaceMemberList(members: members.map { SpaceMemberEntry(user: $0.subject, role: $0.role.rawValue) }))
    }

    private func addMember(_ request: Request, _ context: some RequestContext) async throws -> Response {
        let (caller, space) = try await memberCaller(request, context)
        let body = try await decode(SpaceMemberEntry.self, from: request)
        guard let role = SpaceRole(rawValue: body.role) else {
            throw RequestFailure.badRequest("unknown role \"\(body.role)\": a role is owner, writer or reader")
        }
        let logger = self.logger
        try await refusals {
            try await database.transaction {
                try await Members.add(space: space, subject: body.user, role: role, by: caller, connection: $0, logger: logger)
            }
        }
        return Response(status: .noContent)
    }

    private func removeMember(_ request: Request, _ context: some RequestContext) async throws -> Response {
        let (caller, space) = try await memberCaller(request, context)
        guard let user = context.parameters.get("user").flatMap({ $0.removingPercentEncoding }) else {
            throw RequestFailure.badRequest("no user in the path (/v1/spaces/{space}/members/{user})")
        }
        let logger = self.logger
        try await refusals {
            try await database.transaction {
                try await Members.remove(space: space, subject: user, by: caller, connection: $0, logger: logger)
            }
        }
        return Response(status: .noContent)
    }

    /// The JWT user who asks and the space named in the path; 401 without a valid JWT, 403
    /// for an opaque token.
    private func memberCaller(_ request: Request, _ context: some RequestContext) async throws -> (String, String) {
        let token = try bearerToken(request)
        guard JWTUsers.isJWT(token) else {
            throw RequestFailure(status: .forbidden, description: "members are JWT users: an opaque token cannot manage or list them")
        }
        let subject = try await subject(ofJWT: token)
        authenticated()
        guard let space = context.parameters.get("space").flatMap({ $0.removingPercentEncoding }) else {
            throw RequestFailure.badRequest("no space in the path (/v1/spaces/{space}/members)")
        }
        return (subject, space)
    }

    /// Runs `body`, a ``MemberRefusal`` answered with its status.
    func refusals<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let refusal as MemberRefusal {
            switch refusal.kind {
            case .notFound: throw RequestFailure(status: .notFound, description: refusal.description)
            case .forbidden: throw RequestFailure(status: .forbidden, description: refusal.description)
            case .invalid: throw RequestFailure(status: .conflict, description: refusal.description)
            }
        }
    }
}
