import Foundation

/// Contexts made for an owner (``OwnedRows``): the rows they read and write, and the owner they insert as.
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
    /// loads — the rows of those owners, and its saves refuse to change, delete or add to any
    /// of them (``SwiftDataError/readOnlyOwner``); with `alsoWriting`, it reads them and may
    /// change and delete them too. What it inserts still belongs to `owner`, and a unique
    /// constraint still holds per owner:
    ///
    /// ```swift
    /// let context = ModelContext(container, owner: "bob", alsoReading: ["team-42"])
    /// let visible = try context.fetch(FetchDescriptor<Expense>())   // bob's and the team's
    /// visible.first { $0.note == "Team lunch" }?.amount = 0
    /// try context.save()   // throws SwiftDataError.readOnlyOwner: bob only reads team-42's rows
    /// ```
    ///
    /// With `includingGrants`, it also reads the owners the store's grants open to `owner`
    /// (``OwnerGrant``), and writes those granted to write: the grants are looked up inside each
    /// statement, so a context of a user granted a thousand owners costs what one of a user
    /// granted one does.
    ///
    /// Which owners a user may read is the app's to decide; the context reads what it is told,
    /// and writes only what it is told it may.
    public convenience init(_ container: ModelContainer, owner: String, alsoReading: [String] = [], alsoWriting: [String] = [], includingGrants: Bool = false) {
        let writing = Self.distinct(alsoWriting, without: [owner])
        let scope = OwnerScope(owner: owner, alsoWriting: writing, alsoReading: Self.distinct(alsoReading, without: [owner] + writing), includesGrants: includingGrants)
        self.init(container: container, scope: scope)
    }

    /// `names` in order, once each, without those of `excluded`.
    private static func distinct(_ names: [String], without excluded: [String]) -> [String] {
        var seen = Set(excluded)
        return names.filter { seen.insert($0).inserted }
    }

    /// A context of `context`'s container, for the same owner (or none), without its changes:
    /// what the library reads or writes apart from a context stays within its owner's rows.
    convenience init(beside context: ModelContext) {
        self.init(container: context.container, scope: context.ownerScope)
    }
}
