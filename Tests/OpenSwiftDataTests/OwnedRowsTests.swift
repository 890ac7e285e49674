import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// One store, many owners (``OwnedRows``): a context made for an owner reads and writes only
/// that owner's rows, unique constraints hold per owner, and a context without one sees all.
@Suite struct OwnedRowsTests {
    private static let types: [any PersistentModel.Type] = [Expense.self, Category.self, Tag.self]

    /// alice's food category with two expenses, bob's with one, and a row of no one's.
    private func seeded(_ kind: StoreKind, ownedRows: OwnedRows = .allEntities()) throws -> TestStore {
        let store = try TestStore(kind, Self.types, ownedRows: ownedRows)
        for (owner, amounts) in [("alice", [1.0, 2.0]), ("bob", [30.0])] {
            let context = ModelContext(store.container, owner: owner)
            let food = Category(name: "Food")
            context.insert(food)
            for amount in amounts { context.insert(Expense(amount: amount, note: owner, category: food)) }
            try context.save()
        }
        let nobody = store.context()
        nobody.insert(Expense(amount: 500, note: "nobody"))
        try nobody.save()
        return store
    }

    @Test(arguments: StoreKind.keepingOwners)
    func anOwnersContextReadsOnlyItsOwnersRows(_ kind: StoreKind) throws {
        let store = try seeded(kind)
        let alice = ModelContext(store.container, owner: "alice")
        let expenses = try alice.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        #expect(expenses.map(\.amount) == [1, 2])
        #expect(try alice.fetchCount(FetchDescriptor<Expense>()) == 2)
        #expect(try alice.fetchIdentifiers(FetchDescriptor<Expense>()).count == 2)
        #expect(try alice.fetchCount(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount > 10 })) == 0)
        // Relationships load within the owner.
        let categories = try alice.fetch(FetchDescriptor<Category>())
        #expect(categories.count == 1)
        #expect(categories.first?.expenses.map(\.amount).sorted() == [1, 2])
        #expect(expenses.first?.category?.name == "Food")

        let bob = ModelContext(store.container, owner: "bob")
        #expect(try bob.fetch(FetchDescriptor<Expense>()).map(\.amount) == [30])
        // A context without an owner reads every row.
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 4)
        #expect(try ModelContext(store.container, owner: "carol").fetchCount(FetchDescriptor<Expense>()) == 0)
    }

    @Test(arguments: StoreKind.keepingOwners)
    func uniqueValuesHoldPerOwner(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types, ownedRows: .allEntities())
        for (owner, uses) in [("alice", 1), ("bob", 2)] {
            let context = ModelContext(store.container, owner: owner)
            context.insert(Tag(name: "swift", uses: uses))
            try context.save()
        }
        // alice's second "swift" is an upsert of her own row; bob's is untouched.
        let alice = ModelContext(store.container, owner: "alice")
        alice.insert(Tag(name: "swift", uses: 5))
        try alice.save()

        let all = try store.context().fetch(FetchDescriptor<Tag>(sortBy: [SortDescriptor(\.uses)]))
        #expect(all.map(\.uses) == [2, 5])
        #expect(try ModelContext(store.container, owner: "bob").fetch(FetchDescriptor<Tag>()).map(\.uses) == [2])
        // Changing a value to one another row of the same owner holds is refused; to one only
        // another owner holds is not.
        let bob = ModelContext(store.container, owner: "bob")
        bob.insert(Tag(name: "linux"))
        try bob.save()
        let linux = try #require(try bob.fetch(FetchDescriptor<Tag>(predicate: #Predicate { $0.name == "linux" })).first)
        linux.name = "swift"
        #expect(throws: SwiftDataError.self) { try bob.save() }
        let aliceLinux = Tag(name: "linux")
        let alice2 = ModelContext(store.container, owner: "alice")
        alice2.insert(aliceLinux)
        try alice2.save()
        #expect(try store.context().fetchCount(FetchDescriptor<Tag>()) == 4)
    }

    @Test(arguments: StoreKind.keepingOwners)
    func anotherOwnersRowCannotBeReachedOrReferred(_ kind: StoreKind) throws {
        let store = try seeded(kind)
        let bob = ModelContext(store.container, owner: "bob")
        let bobsFood = try #require(try bob.fetch(FetchDescriptor<Category>()).first)
        let id = bobsFood.persistentModelID

        let alice = ModelContext(store.container, owner: "alice")
        #expect(try alice.fetch(FetchDescriptor<Category>(predicate: #Predicate { $0.persistentModelID == id })).isEmpty)
        // A reference to it, through an identifier got elsewhere, is refused by the save.
        let expense = Expense(amount: 9)
        alice.insert(expense)
        expense.category = alice.model(for: id) as? Category
        #expect(throws: SwiftDataError.self) { try alice.save() }
        #expect(try ModelContext(store.container, owner: "bob").fetch(FetchDescriptor<Category>()).first?.expenses.count == 1)
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 4)
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aContextAlsoWritingAnotherOwnersRowsInsertsAsItsOwner(_ kind: StoreKind) throws {
        let store = try seeded(kind)
        let bob = ModelContext(store.container, owner: "bob", alsoWriting: ["alice"])
        // Fetches, counts, identifiers and relationships see both owners' rows; nobody's stays out.
        let expenses = try bob.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        #expect(expenses.map(\.amount) == [1, 2, 30])
        #expect(try bob.fetchCount(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount < 10 })) == 2)
        let alicesFood = try #require(expenses.first?.category)
        #expect(alicesFood.expenses.map(\.amount).sorted() == [1, 2])

        // What it inserts is bob's, and may refer to alice's row.
        bob.insert(Expense(amount: 7, note: "bob", category: alicesFood))
        bob.insert(Category(name: "Travel"))
        // An edit of alice's row is saved as any edit (which owners' rows a user may change is
        // the app's to decide, here by alsoWriting).
        alicesFood.name = "Groceries"
        try bob.save()
        #expect(try ModelContext(store.container, owner: "bob").fetch(FetchDescriptor<Expense>()).map(\.amount).sorted() == [7, 30])
        #expect(try ModelContext(store.container, owner: "bob").fetchCount(FetchDescriptor<Category>()) == 2)
        let alice = ModelContext(store.container, owner: "alice")
        #expect(try alice.fetch(FetchDescriptor<Category>()).map(\.name) == ["Groceries"])
        #expect(try alice.fetchCount(FetchDescriptor<Expense>()) == 2)
        // A unique value holds per owner: carol's tag "swift", made where she reads alice's, is
        // her own row, not an upsert of alice's.
        alice.insert(Tag(name: "swift", uses: 1))
        try alice.save()
        let carol = ModelContext(store.container, owner: "carol", alsoWriting: ["alice"])
        carol.insert(Tag(name: "swift", uses: 9))
        try carol.save()
        #expect(try ModelContext(store.container, owner: "carol").fetch(FetchDescriptor<Tag>()).map(\.uses) == [9])
        #expect(try ModelContext(store.container, owner: "alice").fetch(FetchDescriptor<Tag>()).map(\.uses) == [1])
        // Deletes by predicate reach what it reads, and no more.
        try bob.delete(model: Expense.self, where: #Predicate { $0.amount < 10 })
        try bob.save()
        #expect(try store.context().fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).map(\.amount) == [30, 500])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aContextOnlyReadingAnotherOwnersRowsCannotChangeThem(_ kind: StoreKind) throws {
        let store = try seeded(kind)
        let bob = ModelContext(store.container, owner: "bob", alsoReading: ["alice"])
        let expenses = try bob.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        #expect(expenses.map(\.amount) == [1, 2, 30])
        let alicesFood = try #require(expenses.first?.category)
        func refused(_ change: () throws -> Void) throws {
            try change()
            #expect {
                try bob.save()
            } throws: { error in
                // Named: the model and whose it is.
                guard let error = error as? SwiftDataError, error.code == .readOnlyOwner else { return false }
                return error.message.contains("belongs to 'alice'") && error.message.contains("may only read")
            }
            bob.rollback()
        }
        // A change, a delete, and an expense of bob's filed in alice's category (which adds to
        // her category's expenses) are each refused, and nothing of them is saved.
        try refused { alicesFood.name = "Groceries" }
        try refused { bob.delete(try #require(expenses.first)) }
        try refused { bob.insert(Expense(amount: 7, note: "bob", category: alicesFood)) }
        // A delete by predicate that would reach her rows too.
        try refused { try bob.delete(model: Expense.self, where: #Predicate { $0.amount < 100 }) }
        let alice = ModelContext(store.container, owner: "alice")
        #expect(try alice.fetch(FetchDescriptor<Category>()).map(\.name) == ["Food"])
        #expect(try alice.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).map(\.amount) == [1, 2])
        #expect(try ModelContext(store.container, owner: "bob").fetchCount(FetchDescriptor<Expense>()) == 1)

        // Its own rows it changes as any context does, beside what it only reads.
        let own = try #require(expenses.last)
        own.amount = 31
        bob.insert(Category(name: "Travel"))
        try bob.save()
        #expect(try ModelContext(store.container, owner: "bob").fetch(FetchDescriptor<Expense>()).map(\.amount) == [31])
        try bob.delete(model: Expense.self, where: #Predicate { $0.note == "bob" })
        try bob.save()
        #expect(try ModelContext(store.container, owner: "bob").fetchCount(FetchDescriptor<Expense>()) == 0)
    }

    /// A relationship named `owner` has an index of its own, as the owner column has: the two
    /// names must not meet (SQLite's ignore case).
    @Test(arguments: StoreKind.keepingOwners)
    func aRelationshipNamedOwnerSitsBesideTheOwnerColumn(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Collar.self, Owner.self, Pet.self], ownedRows: .allEntities())
        let alice = ModelContext(store.container, owner: "alice")
        let rex = Owner(name: "Rex's")
        alice.insert(rex)
        alice.insert(Collar(size: 3, owner: rex))
        try alice.save()
        #expect(try ModelContext(store.container, owner: "alice").fetch(FetchDescriptor<Collar>()).map { $0.owner?.name } == ["Rex's"])
        #expect(try ModelContext(store.container, owner: "bob").fetchCount(FetchDescriptor<Collar>()) == 0)
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aStoredRowCanBeGivenToAnotherOwner(_ kind: StoreKind) throws {
        let store = try seeded(kind)
        let alice = ModelContext(store.container, owner: "alice")
        let food = try #require(try alice.fetch(FetchDescriptor<Category>()).first)
        alice.setOwner("team", of: food)
        #expect(alice.hasChanges)
        try alice.save()
        // The team's now, with its values and links: alice reads it only as a reader of the team's.
        #expect(try ModelContext(store.container, owner: "alice").fetchCount(FetchDescriptor<Category>()) == 0)
        let team = try ModelContext(store.container, owner: "team").fetch(FetchDescriptor<Category>())
        #expect(team.map(\.name) == ["Food"])
        let reader = ModelContext(store.container, owner: "alice", alsoReading: ["team"])
        #expect(try reader.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).map { $0.category?.name } == ["Food", "Food"])

        // Given to an owner that holds the same unique value, the save fails and nothing moves.
        for owner in ["team", "bob"] {
            let context = ModelContext(store.container, owner: owner)
            context.insert(Tag(name: "swift"))
            try context.save()
        }
        let bob = ModelContext(store.container, owner: "bob")
        let bobsTag = try #require(try bob.fetch(FetchDescriptor<Tag>()).first)
        bob.setOwner("team", of: bobsTag)
        #expect(throws: SwiftDataError.self) { try bob.save() }
        #expect(try ModelContext(store.container, owner: "bob").fetchCount(FetchDescriptor<Tag>()) == 1)
        #expect(try ModelContext(store.container, owner: "team").fetchCount(FetchDescriptor<Tag>()) == 1)
    }

    @Test(arguments: StoreKind.keepingOwners)
    func deletesAndUpdatesByPredicateTouchOnlyTheOwnersRows(_ kind: StoreKind) throws {
        let store = try seeded(kind)
        let alice = ModelContext(store.container, owner: "alice")
        try alice.delete(model: Expense.self, where: #Predicate { $0.amount > 0 })
        try alice.save()
        let bob = ModelContext(store.container, owner: "bob")
        let updated = try bob.update(model: Expense.self, where: #Predicate { $0.amount > 0 }, set: \.note, to: "seen")
        #expect(updated == 1)

        let notes = try store.context().fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).map(\.note)
        #expect(notes == ["seen", "nobody"])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func sharedEntitiesAreEveryones(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types, ownedRows: .allEntities(except: [Tag.self]))
        let alice = ModelContext(store.container, owner: "alice")
        alice.insert(Tag(name: "swift", uses: 1))
        try alice.save()
        let bob = ModelContext(store.container, owner: "bob")
        bob.insert(Tag(name: "swift", uses: 2))
        try bob.save()
        // One row: a shared entity's uniqueness is everyone's, and bob's insert was an upsert.
        let tags = try ModelContext(store.container, owner: "carol").fetch(FetchDescriptor<Tag>())
        #expect(tags.map(\.uses) == [2])
    }

    @Test(arguments: StoreKind.keepingOwners.filter { $0 != .memory })
    func openingWithOwnersGivesExistingRowsToNoOne(_ kind: StoreKind) throws {
        let store = try TestStore(kind, Self.types)
        let before = store.context()
        before.insert(Tag(name: "swift", uses: 1))
        before.insert(Expense(amount: 3))
        try before.save()

        let container = try store.reopen(Self.types, ownedRows: .allEntities())
        let alice = ModelContext(container, owner: "alice")
        #expect(try alice.fetchCount(FetchDescriptor<Tag>()) == 0)
        alice.insert(Tag(name: "swift", uses: 7))
        try alice.save()
        let tags = try ModelContext(container).fetch(FetchDescriptor<Tag>(sortBy: [SortDescriptor(\.uses)]))
        #expect(tags.map(\.uses) == [1, 7])
        // Opened again the same way, it is left as it is.
        let again = try store.reopen(Self.types, ownedRows: .allEntities())
        #expect(try ModelContext(again, owner: "alice").fetch(FetchDescriptor<Tag>()).map(\.uses) == [7])
    }

    @Test(arguments: StoreKind.keepingOwners.filter { $0 != .memory })
    func openingWithoutTheOwnersItKeepsIsRefused(_ kind: StoreKind) throws {
        let store = try seeded(kind)
        #expect(throws: SwiftDataError.self) { _ = try store.reopen(Self.types, ownedRows: nil) }
        #expect(throws: SwiftDataError.self) { _ = try store.reopen(Self.types, ownedRows: .allEntities(except: [Expense.self])) }
        // Nothing changed: the owners are still apart.
        let container = try store.reopen(Self.types, ownedRows: .allEntities())
        #expect(try ModelContext(container, owner: "bob").fetch(FetchDescriptor<Expense>()).map(\.amount) == [30])
    }

    @Test(arguments: StoreKind.keepingOwners)
    func historyIsReadWithoutAnOwner(_ kind: StoreKind) throws {
        let store = try seeded(kind)
        // History holds every owner's changes: an owner's context may not read or delete it.
        let alice = ModelContext(store.container, owner: "alice")
        #expect(throws: SwiftDataError.self) { _ = try alice.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()) }
        #expect(throws: SwiftDataError.self) { try alice.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>()) }
        #expect(try store.context().fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 3)
    }

    @Test(arguments: MigrationPlaceKind.allCases)
    func aMigrationKeepsEachRowsOwner(_ kind: MigrationPlaceKind) throws {
        let place = MigrationPlace(kind)
        do {
            let container = try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: [try place.configuration(ownedRows: .allEntities())])
            for owner in ["alice", "bob"] {
                let context = ModelContext(container, owner: owner)
                let inbox = NotesV1.Folder(name: "Inbox")
                context.insert(inbox)
                context.insert(NotesV1.Note(title: owner, priority: 1, folder: inbox))
                try context.save()
            }
        }
        // V1 → V2 rebuilds Note (a column changes type) and alters Folder in place.
        let container = try ModelContainer(for: Schema(versionedSchema: NotesV2.self), migrationPlan: OwnedNotesPlan.self,
                                           configurations: [try place.configuration(ownedRows: .allEntities())])
        let bob = ModelContext(container, owner: "bob")
        let notes = try bob.fetch(FetchDescriptor<NotesV2.Note>())
        #expect(notes.map(\.heading) == ["bob"])
        #expect(notes.first?.folder?.name == "Inbox")
        #expect(try bob.fetchCount(FetchDescriptor<NotesV2.Folder>()) == 1)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<NotesV2.Note>()) == 2)
    }
}

/// NotesV1 → NotesV2 only, lightweight.
enum OwnedNotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self] }
    static var stages: [MigrationStage] { [NotesPlan.v1ToV2] }
}
