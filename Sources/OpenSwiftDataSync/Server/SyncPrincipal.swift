import Foundation

/// Who a sync request comes from, as the app's own authentication verified it: a user's name,
/// and the roles the app gives that user. The library never sees a token, a cookie or a
/// certificate — the host checks those and hands the server this (``SyncServer/serve(_:as:)``).
///
/// ```swift
/// router.post("/sync") { request, context in
///     let claims = try await verifier.verify(request)          // the app's JWT, cookie or mTLS check
///     let principal = SyncPrincipal(user: claims.subject, roles: claims.roles)
///     return try await server.serve(Data(buffer: try await request.body.collect(upTo: SyncServer.maximumRequestBytes)), as: principal)
/// }
/// ```
///
/// On a server whose store keeps owners (``SyncServer``), the user is the owner of everything
/// that user's devices create, and the only one whose objects they read and write (unless a
/// ``SyncRule`` says more).
public struct SyncPrincipal: Hashable, Sendable, CustomStringConvertible {
    /// The user's name: the owner of that user's objects. Stable for the user's whole life (an
    /// identity provider's subject, not an e-mail address that can change).
    public let user: String
    /// The roles the app gives the user, which ``SyncRule``s name.
    public let roles: Set<String>

    /// A principal for `user`, with `roles`.
    public init(user: String, roles: Set<String> = []) {
        self.user = user
        self.roles = roles
    }

    /// The user's name.
    public var description: String { user }
}
