import Foundation

/// Contexts made for an owner (``OwnedRows``): the rows they read and the owner they write as.
extension ModelContext {
    /// Creates a context that reads and writes only `owner`'s rows of the entities whose rows
    /// keep an owner (``ModelConfiguration/ownedRows``): its fetches, counts, faults and
    /// relationship loads never see another owner's row, what it inserts belongs to `owner`, and
    /// unique constraints hold among `owner`'s rows. Rows of shared entities, and every row of a
    /// store that keeps no owners, it reads and writes as any context does.
    ///
    /// ```swift
    /// let context = ModelContext(container, owner: user.id)
    /// let expenses = try context.fetch(FetchDescriptor<Expense>())   // this user's only
    /// ```
    ///
    /// The owner is the app's own, verified name for the user (from its authentication); the
    /// rows of a context without an owner belong to the owner `""`.
    ///
    /// With `alsoReading`, the context also reads — fetches, counts, faults, relationship
    /// loads, and may change and delete — the rows of those owners (a team's, a space shared
    /// with the user), while what it inserts still belongs to `owner`, and a unique constraint
    /// still holds per owner:
    ///
    /// ```swift
    /// let context = ModelContext(container, owner: "bob", alsoReading: ["team-42"])
    /// let visible = try context.fetch(FetchDescriptor<Expense>())   // bob's and the team's
    /// ```
    ///
    /// Which owners a user may read is the app's to decide; the context reads what it is told.
    public convenience init(_ container: ModelContainer, owner: String, alsoReading: [String] = []) {
        self.init(container: container, owner: owner, alsoReading: alsoReading)
    }

    /// A context of `context`'s container, for the same owner (or none), without its changes:
    /// what the library reads or writes apart from a context stays within its owner's rows.
    convenience init(beside context: ModelContext) {
        self.init(container: context.container, owner: context.owner, alsoReading: context.alsoReading)
    }
}
