#if PostgreSQL
import Foundation
import NIOCore
import OpenSwiftData

/// A store in a PostgreSQL database: the same models, contexts, fetches and saves as the SQLite
/// store, for applications that run on several machines.
///
/// ```swift
/// import OpenSwiftData
/// import OpenSwiftDataPostgres
///
/// let configuration = PostgresConfiguration("Trips", url: URL(string: "postgres://app:secret@db.internal:5432/travel?sslmode=verify-full")!)
/// let container = try ModelContainer(for: Trip.self, configurations: configuration)
/// try await container.perform { context in
///     context.insert(Trip(name: "Lisbon"))
///     try context.save()
/// }
/// ```
///
/// The tables live in the PostgreSQL schema `postgresSchema` (created if missing), so several
/// applications or test runs can share one database. The first container on a new namespace
/// creates the tables; containers on other machines find them.
public struct PostgresConfiguration: DataStoreConfiguration, Sendable {
    /// The store it opens.
    public typealias Store = PostgresStore

    /// The configuration's name (for messages and ``PostgresStore``).
    public let name: String
    /// The server and database: `postgres://user:password@host:port/database`, with
    /// `?sslmode=verify-full|verify-ca|require|prefer|disable` (required unless the host is
    /// loopback, where it defaults to `disable`).
    public let url: URL
    /// More servers (`host:port`) connections try after the URL's, in order, for failover: with
    /// `target_session_attrs=read-write` in the URL (the default when there are several), a
    /// connection takes the first that accepts writes, so after a standby is promoted the store
    /// goes on with it. ``init(_:connectionString:schema:postgresSchema:allowsSave:)`` fills it
    /// from libpq's multi-host URL.
    public var failoverHosts: [String] = []
    /// Read replicas — hot standbys of the primary, as `postgres://` URLs — that fetches, counts,
    /// aggregates, faults and history reads may use, as ``readConsistency`` allows; saves and
    /// everything in a transaction go to the primary. A replica that is down or behind is left
    /// out and its reads go to the primary.
    ///
    /// ```swift
    /// var configuration = try PostgresConfiguration("Trips", connectionString: "postgres://app:secret@db1:5432,db2:5432/travel?sslmode=verify-full")
    /// configuration.replicas = [URL(string: "postgres://app:secret@db2:5432/travel?sslmode=verify-full")!]
    /// ```
    public var replicas: [URL] = []
    /// What reads sent to a replica may miss; by default a container reads its own saves
    /// (``PostgresReadConsistency/default``).
    public var readConsistency = PostgresReadConsistency.default
    /// How long a replica that could not be reached, or failed a read, is left out before reads
    /// try it again, in seconds (5 by default); its reads go to the primary meanwhile.
    ///
    /// ```swift
    /// configuration.replicaRetryInterval = 30
    /// ```
    public var replicaRetryInterval: TimeInterval = 5
    /// How a pooler between the store and the server lends server sessions: `.session` (the
    /// default: a direct connection, or PgBouncer's session pooling) or `.transaction`
    /// (PgBouncer's `pool_mode = transaction`, Supabase's and Neon's pooled URLs), where the
    /// store keeps nothing in a session (see ``PostgresConnectionPooling``). `pgbouncer=true` in
    /// the URL says `.transaction` too.
    ///
    /// ```swift
    /// var configuration = PostgresConfiguration("Trips", url: pooledURL)
    /// configuration.connectionPooling = .transaction
    /// ```
    public var connectionPooling = PostgresConnectionPooling.session
    /// The models stored here; `nil` means every model of the container's schema.
    public var schema: Schema?
    /// The PostgreSQL schema (namespace) the tables live in.
    public let postgresSchema: String
    /// Whether contexts may save.
    public let allowsSave: Bool
    /// How many connections this container opens at most: one per concurrent fetch or save.
    public var maximumConnections: Int
    /// How long connecting may take before it is an error, in seconds.
    public var connectTimeout: TimeInterval
    /// Whether a new store keeps dates in `timestamptz` columns, which other SQL tools read as
    /// times, rather than as seconds since 2001 in `DOUBLE PRECISION` ones (the default). A
    /// `timestamptz` keeps whole microseconds, so a date with a finer part (`Date.now` has one)
    /// reads back rounded to the nearest microsecond. Decided when the store is created; a store
    /// keeps the form it was created with.
    ///
    /// ```swift
    /// var configuration = PostgresConfiguration("Trips", url: url)
    /// configuration.storesDatesAsTimestamps = true
    /// ```
    public var storesDatesAsTimestamps = false
    /// Whether saves are recorded in the store's history (always). Only the benchmarks turn it
    /// off, to measure in one run what history costs a save.
    @_spi(Benchmarking) public var recordsHistory = true
    /// Which entities keep an owner beside each row, so that one database holds many users' data
    /// apart (see `OwnedRows`); `nil`, the default: rows have no owner.
    ///
    /// ```swift
    /// var configuration = PostgresConfiguration("Server", url: url)
    /// configuration.ownedRows = .allEntities()
    /// ```
    public var ownedRows: OwnedRows?
    /// Warnings of relationships loaded model by model, and a log of slow queries with their
    /// plans (see `QueryInsight`).
    ///
    /// ```swift
    /// var configuration = PostgresConfiguration("Server", url: url)
    /// configuration.queryInsight.slowQueryThreshold = .milliseconds(50)
    /// ```
    public var queryInsight = QueryInsight()

    /// A store in the database at `url`, in the namespace `postgresSchema`.
    public init(_ name: String, url: URL, schema: Schema? = nil, postgresSchema: String = "public", allowsSave: Bool = true) {
        self.name = name
        self.url = url
        self.schema = schema
        self.postgresSchema = postgresSchema
        self.allowsSave = allowsSave
        self.maximumConnections = 8
        self.connectTimeout = 10
    }

    /// A store in the database a libpq connection URL names, which may list several servers for
    /// failover: `postgres://user:password@host1:port1,host2:port2/database?target_session_attrs=read-write`
    /// (the first is ``url``'s, the others ``failoverHosts``). Throws where it cannot be read.
    ///
    /// ```swift
    /// let configuration = try PostgresConfiguration("Trips", connectionString: "postgres://app:secret@db1:5432,db2:5432/travel?sslmode=verify-full")
    /// ```
    public init(_ name: String, connectionString: String, schema: Schema? = nil, postgresSchema: String = "public", allowsSave: Bool = true) throws {
        let (url, others) = try PostgresURL.splitting(connectionString)
        self.init(name, url: url, schema: schema, postgresSchema: postgresSchema, allowsSave: allowsSave)
        failoverHosts = others
    }

    /// A store in the database the `DATABASE_URL` environment variable names (as hosting platforms
    /// set it); throws if it is missing or not a URL.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Trip.self, configurations: try PostgresConfiguration(name: "Trips"))
    /// ```
    public init(name: String, schema: Schema? = nil, postgresSchema: String = "public", allowsSave: Bool = true, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let text = environment["DATABASE_URL"], !text.isEmpty else {
            throw SwiftDataError(.loadIssueModelContainer, "DATABASE_URL is not set; set it to postgres://user:password@host:port/database")
        }
        guard let (url, others) = try? PostgresURL.splitting(text) else {
            throw SwiftDataError(.loadIssueModelContainer, "DATABASE_URL is not a URL; set it to postgres://user:password@host:port/database")
        }
        self.init(name, url: url, schema: schema, postgresSchema: postgresSchema, allowsSave: allowsSave)
        failoverHosts = others
    }

    public func validate() throws {
        _ = try PostgresURL(url, failoverHosts: failoverHosts)
        for replica in replicas { _ = try PostgresURL(replica) }
        guard !postgresSchema.isEmpty else {
            throw SwiftDataError(.loadIssueModelContainer, "the configuration '\(name)' has an empty postgresSchema; name the namespace the tables live in (\"public\" by default)")
        }
    }
}

extension PostgresConfiguration: BuiltInStoreConfiguration {
    package func openStore(_ request: StoreOpenRequest) throws -> OpenedStore {
        let (pool, address) = try primaryPool(maximum: maximumConnections, readOnly: false)
        var replicaPools: [PostgresConnectionPool] = []
        for replica in replicas {
            replicaPools.append(try PostgresConnectionPool(
                url: try PostgresURL(replica), maximum: maximumConnections, connectTimeout: .milliseconds(Int64(connectTimeout * 1000)), namespace: postgresSchema, readOnly: true, store: name,
                pooling: connectionPooling))
        }
        let engine = PostgresEngine(pool: pool, replicas: replicaPools.isEmpty ? nil : PostgresReplicas(pools: replicaPools, consistency: readConsistency, store: name, retryInterval: replicaRetryInterval))
        let place = "\(address.place), schema \(postgresSchema)"
        do {
            let prepared = try prepareTables(request, engine: engine, place: place)
            return request.makeStore(engine: engine, identifier: prepared.identifier, name: name, allowsSave: allowsSave, keepsHistory: prepared.keepsHistory && recordsHistory, search: prepared.search)
        } catch {
            engine.close()
            throw error
        }
    }

    /// The configuration checked (its URLs, its namespace's length), and a pool of connections to
    /// the primary in the namespace: what a store opens, and what the studio's browser opens.
    func primaryPool(maximum: Int, readOnly: Bool) throws -> (PostgresConnectionPool, PostgresURL) {
        try validate()
        if let limit = PostgresDialect().maximumIdentifierBytes, postgresSchema.utf8.count > limit {
            throw SwiftDataError(.loadIssueModelContainer, "the namespace (postgresSchema) \(postgresSchema) is \(postgresSchema.utf8.count) bytes; PostgreSQL keeps names of at most \(limit) bytes and would cut it short")
        }
        let address = try PostgresURL(url, failoverHosts: failoverHosts)
        let pool = try PostgresConnectionPool(
            url: address, maximum: maximum, connectTimeout: .milliseconds(Int64(connectTimeout * 1000)), namespace: postgresSchema,
            readOnly: readOnly, store: name, pooling: connectionPooling)
        return (pool, address)
    }

    /// Refuses a connection that lost the namespace its session was given when it opened: a
    /// pooler that hands each transaction to any server connection (PgBouncer's transaction
    /// pooling), unless the configuration says so (``connectionPooling``), would send the
    /// store's statements to other tables, and its live results' `LISTEN` to a session that goes
    /// away. (Told, each transaction sets the namespace itself, which this checks too.)
    private func checkSessionKept(on connection: any SQLConnection, dialect: any SQLDialect) throws {
        var path: String?
        try connection.query("SELECT current_setting('search_path')", bindings: []) { row in
            if case .text(let text) = row.value(at: 0) { path = text }
        }
        guard path == dialect.quote(postgresSchema) || path == postgresSchema else {
            throw SwiftDataError(.loadIssueModelContainer, "the PostgreSQL session lost its settings (search_path is \(path ?? "unset"), not the namespace \(postgresSchema)); a pooler in transaction mode, such as PgBouncer with pool_mode = transaction, lends sessions a transaction at a time: set the configuration's connectionPooling to .transaction (or add pgbouncer=true to the URL), or use session pooling. Nothing was created")
        }
    }

    /// Creates, checks or migrates the tables in one transaction, holding a lock on the namespace
    /// so that containers opening it at once on several machines create or migrate it once.
    private func prepareTables(_ request: StoreOpenRequest, engine: PostgresEngine, place: String) throws -> (identifier: String, keepsHistory: Bool, search: [String: [String]]) {
        let connection = try engine.beginWrite()
        defer { engine.endWrite(connection) }
        _ = try connection.execute("BEGIN", bindings: [])
        do {
            _ = try connection.execute("SELECT pg_advisory_xact_lock(hashtext($1))", bindings: [.text("OpenSwiftData " + postgresSchema)])
            try checkSessionKept(on: connection, dialect: engine.dialect)
            if allowsSave {
                _ = try connection.execute("CREATE SCHEMA IF NOT EXISTS \(engine.dialect.quote(postgresSchema))", bindings: [])
                // In the namespace (first on the search path), for sorts with `.localizedStandard`.
                _ = try connection.execute(PostgresDialect.createLocalizedStandardCollation, bindings: [])
            }
            var tables = Set<String>()
            try connection.query("SELECT table_name::text FROM information_schema.tables WHERE table_schema = $1", bindings: [.text(postgresSchema)]) { row in
                if case .text(let name) = row.value(at: 0) { tables.insert(name) }
            }
            // A new store keeps UUIDs and decimals in `uuid` and `numeric` columns; an existing one
            // as its metadata says (one created before, in their storage forms).
            let forNewStore = PostgresDialect.newStoreTypedValues.union(storesDatesAsTimestamps ? [.date] : [])
            engine.keep(typedValues: try SQLStore.storedTypedValues(on: connection, dialect: engine.dialect, tables: tables) ?? forNewStore)
            let prepared = try request.prepareTables(
                on: connection, dialect: engine.dialect, tables: tables, place: place, name: name, allowsSave: allowsSave, translate: { $0 })
            _ = try connection.execute("COMMIT", bindings: [])
            return prepared
        } catch {
            _ = try? connection.execute("ROLLBACK", bindings: [])
            throw error
        }
    }
}
#endif
