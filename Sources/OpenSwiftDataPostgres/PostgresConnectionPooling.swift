#if PostgreSQL
/// How a pooler between the store and PostgreSQL lends server sessions: for as long as a client
/// stays connected (session pooling, or no pooler), or one transaction at a time (PgBouncer's
/// `pool_mode = transaction`, the pooled URLs of Supabase and Neon).
///
/// Behind transaction pooling nothing may rely on a server session outliving a transaction, so
/// the store keeps none: each transaction names the store's namespace itself (`SET LOCAL`),
/// statements outside a save run in a transaction of their own, and live results poll for other
/// servers' saves instead of `LISTEN`ing. Say so in the configuration, or with `pgbouncer=true`
/// in the URL (the spelling Supabase's pooled URLs already carry for other libraries):
///
/// ```swift
/// var configuration = PostgresConfiguration("Trips", url: URL(string: "postgres://app:secret@pooler.example.com:6543/travel?sslmode=verify-full")!)
/// configuration.connectionPooling = .transaction
/// ```
///
/// A store that was not told refuses to open behind a pooler in transaction mode when it sees
/// its session settings gone, and names this setting.
public enum PostgresConnectionPooling: String, Sendable, Hashable {
    /// Each connection keeps its server session (a direct connection, or PgBouncer's
    /// `pool_mode = session`): the namespace is set once per connection and live results
    /// `LISTEN` for other servers' saves. The default.
    case session
    /// Each transaction may run in another server session (PgBouncer's
    /// `pool_mode = transaction`): every read and save is a transaction that sets the namespace
    /// for itself — a fetch costs three more round trips than in session pooling — and live
    /// results learn of other servers' saves by asking the server four times a second.
    case transaction
}
#endif
