#if Studio
import Foundation
import OpenSwiftData
import OpenSwiftDataPostgres

/// Sign-outs that end every token a user was given before them (a per-user "not before"): what
/// `expenses-web revoke USER` records, for a lost device or a leaked token. Kept in a small store
/// of the app's own beside the expenses' — a file next to theirs (`NAME.accounts`), or on
/// PostgreSQL the namespace `SCHEMA_accounts` — so every instance serving the store sees them.
public final class AccountRevocations: Sendable {
    let container: ModelContainer

    /// The revocations kept beside the store `configuration` names.
    public init(beside configuration: any DataStoreConfiguration) throws {
        let own: any DataStoreConfiguration
        if let sqlite = configuration as? ModelConfiguration {
            own = sqlite.isStoredInMemoryOnly
                ? ModelConfiguration("accounts", isStoredInMemoryOnly: true)
                : ModelConfiguration("accounts", url: sqlite.url.deletingPathExtension().appendingPathExtension("accounts"))
        } else if let postgres = configuration as? PostgresConfiguration {
            own = PostgresConfiguration("accounts", url: postgres.url, postgresSchema: String("\(postgres.postgresSchema)_accounts".prefix(63)))
        } else {
            throw AccountsError("account mode needs a SQLite or PostgreSQL store")
        }
        container = try ModelContainer(for: Revocation.self, configurations: own)
    }

    /// Ends every token of `user` given before `date`: sign-outs everywhere.
    public func revoke(_ user: String, at date: Date = Date()) async throws {
        try await container.perform { context in
            let found = try context.fetch(FetchDescriptor<Revocation>(predicate: #Predicate { $0.user == user })).first
            if let found { found.notBefore = max(found.notBefore, date) } else { context.insert(Revocation(user: user, notBefore: date)) }
            try context.save()
        }
    }

    /// The moment before which `user`'s tokens no longer count; `nil` where none was revoked.
    func notBefore(_ user: String) async throws -> Date? {
        try await container.perform { context in
            try context.fetch(FetchDescriptor<Revocation>(predicate: #Predicate { $0.user == user })).first?.notBefore
        }
    }
}

/// One user's tokens given before `notBefore` count no more.
@Model
final class Revocation {
    #Unique<Revocation>([\.user])
    var user: String
    var notBefore: Date

    init(user: String, notBefore: Date) {
        self.user = user
        self.notBefore = notBefore
    }
}
#endif
