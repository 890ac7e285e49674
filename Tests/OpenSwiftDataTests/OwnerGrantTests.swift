import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Grants kept by the store (``OwnerGrant``): a grantee's context made with `includingGrants`
/// reads the owners granted to it, writes only those granted to write, and stops at a revoke.
@Suite struct OwnerGrantTests {
    private static let types: [any PersistentModel.Type] = [Expense.self, Category.self, Tag.self]

    /// alice's and the team's food categories, each with an expense.
    private func seeded(_ kind: StoreKind) throws -> TestStore {
        let store = try TestStore(kind, Self.types, ownedRows: .allEntities())
        for (owner, amount) in [("alice", 1.0), ("team", 20.0)] {
            let context = ModelContext(store.container, owner: owner)
            let food = Category(name: "Food")
            context.insert(food)
            context.insert(Expense(amount: amount, note: owner, category: food))
            try context.save()
        }
        return store
    }

    private func amounts(_ context: ModelContext) throws -> [Double] {
        try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).map(\.amount)
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aGranteeReadsWhatIsGrantedAndWritesOnlyWhatItMay(_ kind: StoreKind) throws {
        let store = try seeded(kind)
        let admin = store.context()
        // Nothing granted yet: a context with grants reads its owner's rows alone.
        #expect(try amounts(ModelContext(store.container, owner: "alice", includingGrants: true)) == [1])

        admin.grant(.read, toRowsOf: "team", to: "alice")
        try admin.save()
        #expect(try admin.grants(to: "alice") == [OwnerGrant(owner: "team", grantee: "alice", access: .read)])
        let reader = ModelContext(store.container, owner: "alice", includingGrants: true)
        #expect(try amounts(reader) == [1, 20])
        #expect(try reader.fetchCount(FetchDescriptor<Category>()) == 2)
        // A context without grants of the same owner still reads its own rows alone.
        #expect(try amounts(ModelContext(store.container, owner: "alice")) == [1])
        let teamExpense = try #require(try reader.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount == 20 })).first)
        teamExpense.amount = 25
        #expect(throws: SwiftDataError.readOnlyOwner) { try reader.save() }
        reader.rollback()
        #expect(try amounts(ModelContext(store.container, owner: "team")) == [20])

        // Granted to write, the same change is saved; what alice inserts stays hers.
        admin.grant(.write, toRowsOf: "team", to: "alice")
        try admin.save()
        let writer = ModelContext(store.container, owner: "alice", includingGrants: true)
        try #require(try writer.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount == 20 })).first).amount = 25
        writer.insert(Expense(amount: 3, note: "alice"))
        try writer.save()
        #expect(try amounts(ModelContext(store.container, owner: "team")) == [25])
        #expect(try amounts(ModelContext(store.container, owner: "alice")) == [1, 3])

        // Revoked, the team's rows are gone from alice's contexts.
        admin.revokeGrant(toRowsOf: "team", from: "alice")
        try admin.save()
        #expect(try admin.grants(to: "alice").isEmpty)
        #expect(try amounts(ModelContext(store.container, owner: "alice", includingGrants: true)) == [1, 3])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aGrantIsSavedWithTheSaveItIsPartOf(_ kind: StoreKind) throws {
        let store = try seeded(kind)
        // A save refused for another reason grants nothing.
        let bob = ModelContext(store.container, owner: "bob", alsoReading: ["alice"])
        try #require(try bob.fetch(FetchDescriptor<Category>()).first).name = "Groceries"
        bob.grant(.write, toRowsOf: "bob", to: "carol")
        #expect(throws: SwiftDataError.readOnlyOwner) { try bob.save() }
        #expect(try store.context().grants().isEmpty)
        bob.rollback()
        // Rolled back, the grant is gone from the context too.
        #expect(!bob.hasChanges)
        bob.grant(.write, toRowsOf: "bob", to: "carol")
        try bob.save()
        #expect(try store.context().grants(of: "bob") == [OwnerGrant(owner: "bob", grantee: "carol", access: .write)])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func theFingerprintChangesWithWhatOthersGrant(_ kind: StoreKind) throws {
        let store = try seeded(kind)
        let admin = store.context()
        let before = try admin.grantsFingerprint(to: "alice")
        // A full grant (the grantee's own rows given an owner of their own) leaves it alone.
        admin.grant(.full, toRowsOf: "alice-trip", to: "alice")
        try admin.save()
        #expect(try admin.grantsFingerprint(to: "alice") == before)
        admin.grant(.read, toRowsOf: "team", to: "alice")
        try admin.save()
        let granted = try admin.grantsFingerprint(to: "alice")
        #expect(granted != before)
        // Another grantee's grants leave it alone; a revoke changes it again.
        admin.grant(.read, toRowsOf: "team", to: "bob")
        try admin.save()
        #expect(try admin.grantsFingerprint(to: "alice") == granted)
        admin.revokeGrant(toRowsOf: "team", from: "alice")
        try admin.save()
        #expect(try admin.grantsFingerprint(to: "alice") != granted)
    }

    @Test func aStoreWithoutOwnersKeepsNoGrants() throws {
        let store = try TestStore(.file, Self.types)
        let context = store.context()
        context.insert(Tag(name: "swift"))
        context.grant(.read, toRowsOf: "team", to: "alice")
        #expect(throws: SwiftDataError.self) { try context.save() }
        // Nothing of the save was kept.
        #expect(try store.context().fetchCount(FetchDescriptor<Tag>()) == 0)
    }
}
