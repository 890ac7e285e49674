#if Studio
import Foundation
import JWTKit
import OpenSwiftData
import OpenSwiftDataPostgres
import OpenSwiftDataSync

/// Account mode: the server serves many users, each seeing and syncing only their own data. A
/// user proves who they are with a token — a JWT signed with the server's secret
/// (`EXPENSES_AUTH_SECRET`), naming the user in `sub`, expiring at `exp` — which
/// `expenses-web token USER` prints: the example's stand-in for a real identity provider, whose
/// tokens an app would verify with the provider's keys instead.
///
/// Signatures are made and checked by jwt-kit with HMAC-SHA256 only: a token signed another way,
/// with another key, or not at all (`alg: none`) is refused, as is an expired one, and — with
/// ``revocations`` — one given before its user was signed out everywhere (`iat` before the
/// user's "not before"). The page's session cookie is `HttpOnly`, `SameSite=Strict`, and
/// `Secure` where ``secureCookies`` says the page is served over https.
///
/// ```swift
/// let accounts = try await Accounts(secret: secret)
/// let token = try await accounts.token(for: "alice", expiresIn: .seconds(3600))
/// let user = await accounts.user(of: token)   // "alice"
/// ```
public struct Accounts: Sendable {
    private let keys: JWTKeyCollection
    /// Where sign-outs everywhere are kept; `nil`: tokens count until they expire.
    public let revocations: AccountRevocations?
    /// Whether the session cookie is `Secure`: the page is served over https (by the server
    /// itself, or by a proxy in front of it, which the operator says with `--secure-cookies`).
    public let secureCookies: Bool

    /// The fewest bytes a secret may have: an HMAC-SHA256 key shorter than its hash is weaker.
    public static let minimumSecretBytes = 32
    /// The longest a user's name may be.
    static let maximumUserBytes = 200

    /// Accounts signed with `secret`; throws for a secret shorter than ``minimumSecretBytes``.
    public init(secret: String, revocations: AccountRevocations? = nil, secureCookies: Bool = false) async throws {
        self.revocations = revocations
        self.secureCookies = secureCookies
        guard secret.utf8.count >= Self.minimumSecretBytes else {
            throw AccountsError("EXPENSES_AUTH_SECRET must have at least \(Self.minimumSecretBytes) bytes (it has \(secret.utf8.count)); use a random one, such as the output of `openssl rand -hex 32`")
        }
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
    }

    /// `configuration` (the store's, SQLite or PostgreSQL) keeping an owner per row, as account
    /// mode needs: each user's expenses and categories apart, sync's own state the server's.
    /// A store that kept none gains the owner column when opened (its rows belong to no user).
    public static func storeConfiguration(_ configuration: any DataStoreConfiguration) throws -> any DataStoreConfiguration {
        let owned = OwnedRows.allEntities(except: SyncSchema.sharedModels)
        if var sqlite = configuration as? ModelConfiguration {
            sqlite.ownedRows = owned
            return sqlite
        }
        if var postgres = configuration as? PostgresConfiguration {
            postgres.ownedRows = owned
            return postgres
        }
        throw AccountsError("account mode needs a SQLite or PostgreSQL store")
    }

    /// A token for `user`, valid for `expiresIn`.
    public func token(for user: String, expiresIn: Duration) async throws -> String {
        guard Self.isValidUser(user) else {
            throw AccountsError("a user's name has 1 to \(Self.maximumUserBytes) bytes of letters, digits, '.', '_', '-' or '@'")
        }
        let seconds = Double(expiresIn.components.seconds)
        guard seconds > 0 else { throw AccountsError("a token must expire in the future") }
        return try await token(for: user, expiringAt: Date().addingTimeInterval(seconds))
    }

    /// A token for `user` that expires at `date` (an expired one, for tests).
    func token(for user: String, expiringAt date: Date, issuedAt: Date = Date()) async throws -> String {
        try await keys.sign(AccountToken(sub: SubjectClaim(value: user), exp: ExpirationClaim(value: date), iat: IssuedAtClaim(value: issuedAt)))
    }

    /// The user a token names, if it is one this server signed and it has not expired; `nil`
    /// for anything else (the reason is not told: it would only help a forger).
    public func user(of token: String) async -> String? {
        guard token.utf8.count <= 4096, let payload = try? await keys.verify(token, as: AccountToken.self),
              Self.isValidUser(payload.sub.value) else { return nil }
        // A token given before its user was signed out everywhere counts no more (one without
        // `iat` predates them all). Where the revocations cannot be read, no token counts.
        if let revocations {
            let notBefore: Date?
            do { notBefore = try await revocations.notBefore(payload.sub.value) } catch { return nil }
            if let notBefore, (payload.iat?.value ?? .distantPast) < notBefore { return nil }
        }
        return payload.sub.value
    }

    /// Whether `user` is a name tokens may carry: it becomes the owner of rows, so it is kept to
    /// printable, unambiguous characters.
    static func isValidUser(_ user: String) -> Bool {
        !user.isEmpty && user.utf8.count <= maximumUserBytes
            && user.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-@".unicodeScalars.contains($0)) }
    }
}

/// What an account token says.
struct AccountToken: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    /// When it was given, against a sign-out everywhere.
    var iat: IssuedAtClaim?

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

/// A secret or a user name the accounts cannot use.
public struct AccountsError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
#endif
