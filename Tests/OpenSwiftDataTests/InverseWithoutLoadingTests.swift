import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Keeping an inverse consistent does not load it: setting `expense.category = food` in a fresh
/// context records the change on `food.expenses` instead of reading all of food's expenses, and
/// `food.expenses` reads as the store's members merged with this context's unsaved changes —
/// before the save, after it, and in a fresh context. Each scenario runs twice, once with the
/// to-many sides read first (loaded, changed in place) and once without, and both must show the
/// same thing.
@Suite struct InverseWithoutLoadingTests {
    /// Food holds expenses 1, 2 and 3; Travel holds 10.
    private func seed(_ store: TestStore) throws {
        let context = store.context()
        let food = Category(name: "Food")
        let travel = Category(name: "Travel")
        context.insert(food)
        context.insert(travel)
        for amount in [1.0, 2, 3] { context.insert(Expense(amount: amount, category: food)) }
        context.insert(Expense(amount: 10, category: travel))
        try context.save()
    }

    private func category(_ name: String, in context: ModelContext) throws -> Category {
        try #require(try context.fetch(FetchDescriptor<Category>(predicate: #Predicate { $0.name == name })).first)
    }

    private func expense(_ amount: Double, in context: ModelContext) throws -> Expense {
        try #require(try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount == amount })).first)
    }

    /// The amounts of each category's expenses, sorted, as `Food: 1 2 3; Travel: 10`.
    private func members(_ categories: [Category]) -> String {
        categories.map { "\($0.name): " + $0.expenses.map { String(Int($0.amount)) }.sorted { Int($0)! < Int($1)! }.joined(separator: " ") }
            .joined(separator: "; ")
    }

    private func storedMembers(_ store: TestStore) throws -> String {
        members(try store.context().fetch(FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)])))
    }

    /// Creates, moves (from either side) and deletes expenses while the categories' expenses are
    /// loaded or not; returns what a user sees at each step.
    private func createMoveDelete(_ kind: StoreKind, loadFirst: Bool, readBeforeSave: Bool = true) throws -> [String] {
        let store = try TestStore(kind, [Expense.self])
        try seed(store)
        let context = store.context()
        let food = try category("Food", in: context)
        let travel = try category("Travel", in: context)
        let one = try expense(1, in: context)
        let two = try expense(2, in: context)
        let three = try expense(3, in: context)
        if loadFirst { _ = members([food, travel]) }
        var seen: [String] = []

        context.insert(Expense(amount: 4, category: food))           // created with its category
        let five = Expense(amount: 5)
        context.insert(five)
        five.category = food                                          // given one afterwards
        one.category = travel                                         // moved by its to-one
        travel.expenses.append(two)                                   // moved by the other to-many
        context.delete(three)
        seen.append("changed: " + context.changedModelsArray.map { "\(type(of: $0))" }.sorted().joined(separator: " "))
        if readBeforeSave { seen.append("before save: " + members([food, travel])) }
        try context.save()
        seen.append("after save: " + members([food, travel]))
        seen.append("has changes: \(context.hasChanges)")
        seen.append("stored: " + (try storedMembers(store)))
        if StoreKind.keepingHistory.contains(kind) {
            let last = try #require(try HistoryTests.history(store.container).last)
            seen.append("history: " + last.changes.map { change -> String in
                switch change {
                case .insert(let insert): return "insert \(insert.changedPersistentIdentifier.entityName)"
                case .update(let update): return "update \(update.changedPersistentIdentifier.entityName)"
                case .delete(let delete): return "delete \(delete.changedPersistentIdentifier.entityName)"
                }
            }.sorted().joined(separator: ", "))
        }
        return seen
    }

    @Test(arguments: StoreKind.allCases)
    func createsMovesAndDeletesReadTheSameLoadedOrNot(_ kind: StoreKind) throws {
        let unloaded = try createMoveDelete(kind, loadFirst: false)
        let loaded = try createMoveDelete(kind, loadFirst: true)
        #expect(unloaded == loaded)
        #expect(unloaded.contains("before save: Food: 3 4 5; Travel: 1 2 10"))  // deleted: gone at the save
        #expect(unloaded.contains("after save: Food: 4 5; Travel: 1 2 10"))
        #expect(unloaded.contains("stored: Food: 4 5; Travel: 1 2 10"))
        #expect(unloaded.contains("has changes: false"))
        #expect(unloaded.contains("changed: Category Category Expense Expense"))
        // Saved without reading the changed relationships first: the same once saved.
        let unread = try createMoveDelete(kind, loadFirst: false, readBeforeSave: false)
        #expect(unread == unloaded.filter { !$0.hasPrefix("before save") })
    }

    @Test(arguments: StoreKind.allCases)
    func settingAToOneLeavesTheOtherSidesMembersUnread(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        try seed(store)
        let twoID = try expense(2, in: store.context()).persistentModelID
        let context = store.context()
        let food = try category("Food", in: context)
        let travel = try category("Travel", in: context)
        let one = try expense(1, in: context)
        one.category = travel
        // Food's other expenses were never read into this context.
        #expect(context.registeredModel(for: twoID) as Expense? == nil)
        #expect(context.changedModelsArray.count == 3)
        try context.save()
        // A custom `DataStore` saves snapshots, which list a to-many's members: the SQL stores
        // write the change without them.
        if ![.json, .logged].contains(kind) {
            #expect(context.registeredModel(for: twoID) as Expense? == nil)
        }
        #expect(members([food, travel]) == "Food: 2 3; Travel: 1 10")
        #expect(try storedMembers(store) == "Food: 2 3; Travel: 1 10")
    }

    @Test(arguments: StoreKind.allCases)
    func rollbackForgetsChangesRecordedWithoutLoading(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        try seed(store)
        let context = store.context()
        let food = try category("Food", in: context)
        let travel = try category("Travel", in: context)
        try expense(1, in: context).category = travel
        context.insert(Expense(amount: 7, category: food))
        context.rollback()
        #expect(!context.hasChanges)
        #expect(members([food, travel]) == "Food: 1 2 3; Travel: 10")
        try context.save()
        #expect(try storedMembers(store) == "Food: 1 2 3; Travel: 10")
    }

    @Test(arguments: StoreKind.allCases)
    func undoAndRedoChangesRecordedWithoutLoading(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        try seed(store)
        let context = store.context()
        let undoManager = UndoManager()
        context.undoManager = undoManager
        let food = try category("Food", in: context)
        let travel = try category("Travel", in: context)
        let one = try expense(1, in: context)
        context.processPendingChanges()

        one.category = travel
        undoManager.undo()
        #expect(one.category === food)
        #expect(!context.hasChanges)  // back at the stored values: nothing to save
        #expect(members([food, travel]) == "Food: 1 2 3; Travel: 10")

        // Redone, saved, then undone across the save: a change again, which a save stores.
        undoManager.redo()
        #expect(one.category === travel)
        #expect(context.hasChanges)
        try context.save()
        #expect(try storedMembers(store) == "Food: 2 3; Travel: 1 10")
        undoManager.undo()
        #expect(one.category === food)
        #expect(members([food, travel]) == "Food: 1 2 3; Travel: 10")
        try context.save()
        #expect(try storedMembers(store) == "Food: 1 2 3; Travel: 10")
    }

    @Test(arguments: StoreKind.allCases)
    func undoAcrossASaveWithTheOtherSideUnloaded(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        try seed(store)
        let context = store.context()
        let undoManager = UndoManager()
        context.undoManager = undoManager
        let travel = try category("Travel", in: context)
        let one = try expense(1, in: context)
        context.processPendingChanges()
        one.category = travel
        try context.save()
        // Undone without reading either category's expenses since the save.
        undoManager.undo()
        try context.save()
        #expect(try storedMembers(store) == "Food: 1 2 3; Travel: 10")
        undoManager.redo()
        try context.save()
        #expect(try storedMembers(store) == "Food: 2 3; Travel: 1 10")
    }

    /// Pupils join and leave a course whose pupils are loaded or not; what a user sees.
    private func joinAndLeave(_ kind: StoreKind, loadFirst: Bool, readBeforeSave: Bool = true) throws -> [String] {
        let store = try TestStore(kind, [Course.self])
        do {
            let context = store.context()
            let math = Course(title: "Math")
            let art = Course(title: "Art")
            context.insert(math)
            context.insert(art)
            for name in ["Ann", "Bob"] { math.pupils.append(Pupil(name: name)) }
            art.pupils.append(math.pupils[1])
            try context.save()
        }
        let context = store.context()
        let courses = try context.fetch(FetchDescriptor<Course>(sortBy: [SortDescriptor(\.title)]))
        let ann = try #require(try context.fetch(FetchDescriptor<Pupil>(predicate: #Predicate { $0.name == "Ann" })).first)
        let names = { courses.map { "\($0.title): " + $0.pupils.map(\.name).sorted().joined(separator: " ") }.joined(separator: "; ") }
        if loadFirst { _ = names() }
        var seen: [String] = []

        let cid = Pupil(name: "Cid")
        context.insert(cid)
        cid.courses.append(courses[1])      // Math gains Cid
        ann.courses.removeAll()             // Math loses Ann
        ann.courses.append(courses[0])      // Art gains Ann
        if readBeforeSave { seen.append("before save: " + names()) }
        try context.save()
        seen.append("after save: " + names())
        let stored = try store.context().fetch(FetchDescriptor<Course>(sortBy: [SortDescriptor(\.title)]))
        seen.append("stored: " + stored.map { "\($0.title): " + $0.pupils.map(\.name).sorted().joined(separator: " ") }.joined(separator: "; "))
        return seen
    }

    @Test(arguments: StoreKind.allCases)
    func manyToManyJoinsAndLeavesReadTheSameLoadedOrNot(_ kind: StoreKind) throws {
        let unloaded = try joinAndLeave(kind, loadFirst: false)
        #expect(unloaded == (try joinAndLeave(kind, loadFirst: true)))
        #expect(unloaded == [
            "before save: Art: Ann Bob; Math: Bob Cid",
            "after save: Art: Ann Bob; Math: Bob Cid",
            "stored: Art: Ann Bob; Math: Bob Cid",
        ])
        // Saved without reading the courses' pupils first: only the pairs that changed are written.
        #expect(try joinAndLeave(kind, loadFirst: false, readBeforeSave: false) == Array(unloaded.dropFirst()))
    }

    @Test(arguments: StoreKind.allCases)
    func prefetchingMergesChangesRecordedWithoutLoading(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        try seed(store)
        let context = store.context()
        let travel = try category("Travel", in: context)
        try expense(1, in: context).category = travel
        var descriptor = FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)])
        descriptor.relationshipKeyPathsForPrefetching = [\.expenses]
        #expect(members(try context.fetch(descriptor)) == "Food: 2 3; Travel: 1 10")
    }

    /// The delete rules see the members a context added without loading: a cascade deletes them,
    /// a deny counts them, and removals count as gone.
    @Test(arguments: StoreKind.allCases)
    func deleteRulesSeeMembersJoinedWithoutLoading(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Classroom.self, Team.self])
        do {
            let setup = store.context()
            setup.insert(Classroom(name: "A", teacher: "Ann"))
            setup.insert(Student(name: "Mai", gender: "F", score: 82, room: Classroom(name: "B", teacher: "Bob")))
            setup.insert(Team(name: "Empty"))
            setup.insert(Member(name: "Lee", team: Team(name: "Full")))
            try setup.save()
        }
        // Cascade: Mai moves into A (A's students unread), then A is deleted with her.
        let context = store.context()
        let rooms = try context.fetch(FetchDescriptor<Classroom>(sortBy: [SortDescriptor(\.name)]))
        let mai = try #require(try context.fetch(FetchDescriptor<Student>()).first)
        mai.room = rooms[0]
        context.delete(rooms[0])
        try context.save()
        #expect(try store.context().fetchCount(FetchDescriptor<Student>()) == 0)
        #expect(try store.context().fetch(FetchDescriptor<Classroom>()).map(\.name) == ["B"])

        // Deny: Lee moves into Empty (its members unread); Empty may not be deleted, Full may.
        let teams = try context.fetch(FetchDescriptor<Team>(sortBy: [SortDescriptor(\.name)]))
        let lee = try #require(try context.fetch(FetchDescriptor<Member>()).first)
        lee.team = teams[0]
        context.delete(teams[0])
        #expect(throws: SwiftDataError.self) { try context.save() }
        context.rollback()
        lee.team = teams[0]
        context.delete(teams[1])
        try context.save()
        #expect(try store.context().fetch(FetchDescriptor<Team>()).map(\.name) == ["Empty"])
        #expect(try store.context().fetch(FetchDescriptor<Member>()).first?.team?.name == "Empty")
    }
}
