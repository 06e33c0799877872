import Logging
import PostgresNIO

/// The server's tables in its PostgreSQL database, created and upgraded by ``migrate(_:logger:)``.
///
/// - `sync_schema(version)`: which migrations ran.
/// - `sync_spaces(id, name)`: the spaces; every row belongs to one.
/// - `sync_tokens(hash, space, revoked)`: bearer tokens, only as their SHA-256.
/// - `sync_tables(space, tbl)`: the tables each space declared (`PUT /v1/tables`).
/// - `sync_clients(space, client_id, last_mutation, ref)`: the last mutation applied per
///   client, and a small number naming it in `sync_rows.meta`.
/// - `sync_mutations(space, client_id, id, hash, versions, applied)`: the last
///   ``Push/keptMutations`` mutations applied per client: their content's SHA-256 and each
///   change's outcome (replays, conflicts).
/// - `sync_identity(id)`: the database's random identity (part of every answer's scope).
/// - `sync_version`: the one sequence every row version comes from.
/// - `sync_rows(space, tbl, rid, id, version, deleted, columns)`: the latest state of every
///   row, live or a tombstone (`rid` is ``SwiduxSyncWire/SyncValue/key``; `id` and `columns`
///   are the wire JSON, stored verbatim as `json`). No foreign key to `sync_spaces`: its
///   check cost a query per written row, and a row's space always comes from a token.
///   `version` defaults to `nextval('sync_version')`, for the copies of ``RowCopy``. `meta`:
///   which version and client last wrote each column an update wrote (``ColumnMerge``).
/// - `sync_members(space, subject, role)`: the members of shared spaces (JWT subjects) and
///   their role, `owner`, `writer` or `reader` (``Members``). A space with members always has
///   an owner, and a personal space's user is its owner (a trigger checks both at commit).
/// - `sync_conflicts(id, space, tbl, rid, row_id, col, kept, replaced, kept_client,
///   replaced_client, kept_version, replaced_version, at)`: values a later push replaced
///   without having seen them, listed for the client that wrote them.
///
/// ```swift
/// try await Schema.migrate(client, logger: logger)
/// ```
public enum Schema {
    /// The migrations, in order; `sync_schema.version` counts those that ran.
    static let migrations: [[PostgresQuery]] = [
        [
            """
            CREATE TABLE sync_spaces (
                id bigserial PRIMARY KEY,
                name text NOT NULL UNIQUE)
            """,
            """
            CREATE TABLE sync_tokens (
                hash bytea PRIMARY KEY,
                space bigint NOT NULL REFERENCES sync_spaces(id),
                revoked boolean NOT NULL DEFAULT false,
                created timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE sync_tables (
                space bigint NOT NULL REFERENCES sync_spaces(id),
                tbl text NOT NULL,
                PRIMARY KEY (space, tbl))
            """,
            """
            CREATE TABLE sync_clients (
                space bigint NOT NULL REFERENCES sync_spaces(id),
                client_id text NOT NULL,
                last_mutation bigint NOT NULL,
                PRIMARY KEY (space, client_id))
            """,
            "CREATE SEQUENCE sync_version",
            """
            CREATE TABLE sync_rows (
                space bigint NOT NULL REFERENCES sync_spaces(id),
                tbl text NOT NULL,
                rid text NOT NULL,
                id json NOT NULL,
                version bigint NOT NULL,
                deleted boolean NOT NULL,
                columns json,
                PRIMARY KEY (space, tbl, rid))
            """,
            "CREATE INDEX sync_rows_space_version ON sync_rows (space, version)",
        ],
        [
            // The mutations applied per client (the SHA-256 of their canonical JSON,
            // and each change's outcome), so that a replayed push gets its original results
            // and a used id with another content is refused (a copied or restored client file).
            """
            CREATE TABLE sync_mutations (
                space bigint NOT NULL REFERENCES sync_spaces(id),
                client_id text NOT NULL,
                id bigint NOT NULL,
                hash bytea NOT NULL,
                versions bigint[] NOT NULL,
                applied boolean[] NOT NULL,
                PRIMARY KEY (space, client_id, id))
            """,
            // The database's identity: a new database (replaced, re-created) gets a new one,
            // and clients that synced with the old one sync as for the first time.
            "CREATE TABLE sync_identity (id text NOT NULL)",
            "INSERT INTO sync_identity (id) VALUES (md5(random()::text || clock_timestamp()::text))",
        ],
        [
            // The foreign key from sync_rows to sync_spaces ran one check
            // query per written row (a third of PostgreSQL's time in a large push). A row's
            // space always comes from a token of that space (sync_tokens keeps its foreign
            // key), and spaces are never deleted.
            "ALTER TABLE sync_rows DROP CONSTRAINT IF EXISTS sync_rows_space_fkey",
            // A large push's mutation holds a version and an outcome per change (80 KB for
            // 10,000): stored without compressing them (pglz was 6% of PostgreSQL's time).
            "ALTER TABLE sync_mutations ALTER COLUMN versions SET STORAGE EXTERNAL, ALTER COLUMN applied SET STORAGE EXTERNAL",
        ],
        [
            // A large first push is written with COPY (``RowCopy``), each row's
            // version from this default, in the rows' order. Every other write sets it.
            "ALTER TABLE sync_rows ALTER COLUMN version SET DEFAULT nextval('sync_version')",
        ],
        [
            // Merge by column. `meta` holds, for the columns updates wrote since the
            // row's last insert, the version and the client that wrote each one
            // (``ColumnMerge``); NULL for a row as its insert wrote it. Nullable without a
            // default: no rewrite of the table.
            "ALTER TABLE sync_rows ADD COLUMN meta text",
            // A small number per client, for `meta` (a client id is 36 characters).
            "CREATE SEQUENCE sync_client_ref",
            "ALTER TABLE sync_clients ADD COLUMN ref bigint NOT NULL DEFAULT nextval('sync_client_ref')",
            "CREATE INDEX sync_clients_ref ON sync_clients (space, ref)",
            // Values replaced by a later push that had not seen them: listed for the client
            // that wrote them (`GET /v1/conflicts`).
            """
            CREATE TABLE sync_conflicts (
                id bigserial PRIMARY KEY,
                space bigint NOT NULL,
                tbl text NOT NULL,
                rid text NOT NULL,
                row_id text NOT NULL,
                col text NOT NULL,
                kept text NOT NULL,
                replaced text NOT NULL,
                kept_client text NOT NULL,
                replaced_client text NOT NULL,
                kept_version bigint NOT NULL,
                replaced_version bigint NOT NULL,
                at timestamptz NOT NULL DEFAULT now())
            """,
            "CREATE INDEX sync_conflicts_replaced ON sync_conflicts (space, replaced_client, id)",
            "CREATE INDEX sync_conflicts_space ON sync_conflicts (space, id)",
        ],
        [
            // The users of JWTs (their `sub`) and their personal spaces.
            """
            CREATE TABLE sync_users (
                subject text PRIMARY KEY,
                space bigint NOT NULL UNIQUE REFERENCES sync_spaces(id),
                created timestamptz NOT NULL DEFAULT now())
            """,
        ],
        [
            // The members of spaces shared between JWT users, by subject (a member need not
            // have signed in yet, hence no foreign key to sync_users), each with one role.
            """
            CREATE TABLE sync_members (
                space bigint NOT NULL REFERENCES sync_spaces(id),
                subject text NOT NULL,
                role text NOT NULL CHECK (role IN ('owner', 'writer', 'reader')),
                PRIMARY KEY (space, subject))
            """,
            "CREATE INDEX sync_members_subject ON sync_members (subject)",
            // Every personal space made so far is owned by its user.
            "INSERT INTO sync_members (space, subject, role) SELECT space, subject, 'owner' FROM sync_users",
            // The invariants, checked at commit so that one transaction may swap owners:
            // a space with members keeps at least one owner, and a personal space's user stays its owner.
            // ``Members`` checks them first to give a clearer message; this is the backstop.
            """
            CREATE FUNCTION sync_members_check() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                changed bigint := CASE WHEN TG_OP = 'INSERT' THEN NEW.space ELSE OLD.space END;
            BEGIN
                IF NOT EXISTS (SELECT 1 FROM sync_members WHERE space = changed AND role = 'owner') THEN
                    RAISE EXCEPTION 'space % would have no owner', changed USING ERRCODE = 'check_violation';
                END IF;
                IF TG_OP <> 'INSERT' AND EXISTS (SELECT 1 FROM sync_users WHERE space = OLD.space AND subject = OLD.subject)
                   AND NOT EXISTS (SELECT 1 FROM sync_members WHERE space = OLD.space AND subject = OLD.subject AND role = 'owner') THEN
                    RAISE EXCEPTION 'the personal space % must stay owned by its user %', OLD.space, OLD.subject
                        USING ERRCODE = 'check_violation';
                END IF;
                RETURN NULL;
            END $$
            """,
            """
            CREATE CONSTRAINT TRIGGER sync_members_check AFTER INSERT OR UPDATE OR DELETE ON sync_members
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION sync_members_check()
            """,
        ],
        [
            // Why a rule refused each change of a remembered mutation ('' where none did), so
            // that a replayed push is answered with the reasons of its first answer. NULL for
            // mutations remembered before reasons were kept.
            "ALTER TABLE sync_mutations ADD COLUMN IF NOT EXISTS reasons text[]",
        ],
    ]

    /// The advisory lock that serializes migrations of concurrently starting servers.
    static let migrationLock: Int64 = 0x5357_4458_5359_4E43

    /// Creates the tables if missing and runs the migrations not yet run, in one
    /// transaction under an advisory lock: idempotent, and safe when several servers start at once.
    ///
    /// ```swift
    /// try await Schema.migrate(client, logger: logger)
    /// ```
    public static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        try await client.transaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS sync_schema (version integer NOT NULL)", logger: logger)
            var current = 0
            for try await version in try await connection.query("SELECT version FROM sync_schema", logger: logger).decode(Int.self) {
                current = version
            }
            if current > migrations.count {
                throw SyncServerError("the database's sync schema is version \(current), newer than this server's \(migrations.count)")
            }
            guard current < migrations.count else { return }
            for migration in migrations[current...] {
                for statement in migration { try await connection.query(statement, logger: logger) }
            }
            try await connection.query("DELETE FROM sync_schema", logger: logger)
            try await connection.query("INSERT INTO sync_schema (version) VALUES (\(migrations.count))", logger: logger)
            logger.info("sync schema migrated", metadata: ["from": "\(current)", "to": "\(migrations.count)"])
        }
    }

    /// The database's identity (`sync_identity`), after ``migrate(_:logger:)``.
    ///
    /// ```swift
    /// let identity = try await Schema.identity(client, logger: logger)
    /// ```
    static func identity(_ client: PostgresClient, logger: Logger) async throws -> String {
        var identity: String?
        for try await id in try await client.query("SELECT id FROM sync_identity LIMIT 1", logger: logger).decode(String.self) {
            identity = id
        }
        if let identity { return identity }
        throw SyncServerError("the database has no sync_identity row (delete sync_schema to migrate again)")
    }
}
