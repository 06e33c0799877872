import ArgumentParser
import SwiduxSyncServer

/// `swidux-sync-server space add-member|remove-member|list`: the members of shared spaces.
struct Space: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add, remove and list the members of spaces shared between JWT users.",
        discussion: """
            A member is a JWT user (the token's subject) with a role: an owner reads, writes and manages \
            the members; a writer reads and writes; a reader only reads. A space with members always keeps \
            an owner, and a personal space (user:<subject>) stays owned by its user.
            """,
        subcommands: [AddMember.self, RemoveMember.self, List.self])

    struct AddMember: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a user a member of a space with a role, or change their role (a new space is made; its first member must be an owner).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The space's name.") var space: String
        @Option(help: "The user: a JWT's subject (sub).") var user: String
        @Option(help: "owner, writer or reader.") var role: String

        func run() async throws {
            // Checked here rather than by the parser, so that the message names the role and the choices.
            guard let role = SpaceRole(rawValue: role) else {
                throw ValidationError("unknown role \"\(role)\": a role is owner, writer or reader")
            }
            try await withClient(database) { client, logger in
                try await Members.add(space: space, subject: user, role: role, client: client, logger: logger)
            }
            print("\(user) is a \(role.rawValue) of \(space)")
        }
    }

    struct RemoveMember: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a user from a space (not its last owner, nor a personal space's own user).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The space's name.") var space: String
        @Option(help: "The user: a JWT's subject (sub).") var user: String

        func run() async throws {
            try await withClient(database) { client, logger in
                try await Members.remove(space: space, subject: user, client: client, logger: logger)
            }
            print("\(user) is no longer a member of \(space)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the members of a space, or of every space: one line each, space, user and role separated by tabs.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Only this space's members.") var space: String?

        func run() async throws {
            let members = try await withClient(database) { client, logger in
                try await Members.list(space: space, client: client, logger: logger)
            }
            for member in members { print("\(member.space)\t\(member.subject)\t\(member.role.rawValue)") }
        }
    }
}
