import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Seed 001's delete rules, applied on save.
@Suite struct DeleteRuleTests {
    private func school(_ store: TestStore) throws -> (Classroom, Student, Student) {
        let context = store.context()
        let room = Classroom(name: "M.6/1", teacher: "Khun Somchai")
        let mario = Student(name: "Mario Maurer", gender: "M", score: 67, room: room)
        let mai = Student(name: "Mai Davika", gender: "F", score: 82, room: room)
        context.insert(mario)
        context.insert(mai)
        try context.save()
        return (room, mario, mai)
    }

    /// `delete(model:)` applies to the rows there were when it was called, on every store: a
    /// restore ("delete all, insert the backup, save") keeps what it inserted.
    @Test(arguments: StoreKind.allCases)
    func aDeleteOfAnEntitySparesWhatIsInsertedAfterIt(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Classroom.self])
        _ = try school(store)
        let context = store.context()
        try context.delete(model: Student.self)
        try context.delete(model: Classroom.self)
        let room = Classroom(name: "M.6/2", teacher: "Khun Malee")
        context.insert(Student(name: "Restored", gender: "F", score: 90, room: room))
        context.insert(Student(name: "Restored without a room", gender: "M", score: 70, room: nil))
        try context.save()
        let check = store.context()
        #expect(try check.fetch(FetchDescriptor<Student>()).map(\.name).sorted() == ["Restored", "Restored without a room"])
        #expect(try check.fetch(FetchDescriptor<Classroom>()).map { "\($0.name) \($0.studentList.count)" } == ["M.6/2 1"])
    }

    @Test(arguments: StoreKind.allCases)
    func cascadeDeletesRelatedModels(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Classroom.self])
        _ = try school(store)
        let context = store.context()
        let room = try #require(try context.fetch(FetchDescriptor<Classroom>()).first)
        context.delete(room)
        try context.save()
        let check = store.context()
        #expect(try check.fetchCount(FetchDescriptor<Classroom>()) == 0)
        #expect(try check.fetchCount(FetchDescriptor<Student>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func nullifyClearsTheOtherSide(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Classroom.self])
        _ = try school(store)
        let context = store.context()
        let students = try context.fetch(FetchDescriptor<Student>(sortBy: [SortDescriptor(\.name)]))
        let room = try #require(students[0].room)
        #expect(room.studentList.count == 2)
        context.delete(students[0])  // Mai Davika; Student.room is .nullify
        try context.save()
        #expect(room.studentList.map(\.name) == ["Mario Maurer"])
        let check = store.context()
        #expect(try check.fetch(FetchDescriptor<Classroom>()).first?.studentList.map(\.name) == ["Mario Maurer"])

        // Category.expenses is .nullify too: deleting the category leaves uncategorised expenses.
        let expenses = try TestStore(kind, [Expense.self])
        let ctx = expenses.context()
        let food = Category(name: "Food")
        let lunch = Expense(amount: 1, category: food)
        ctx.insert(lunch)
        try ctx.save()
        ctx.delete(food)
        try ctx.save()
        #expect(lunch.category == nil)
        let stored = try expenses.context().fetch(FetchDescriptor<Expense>())
        #expect(stored.count == 1)
        #expect(stored.first?.category == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func nullifyReachesModelsThatWereNotLoaded(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        for amount in 1...3 { context.insert(Expense(amount: Double(amount), category: food)) }
        try context.save()

        let fresh = store.context()
        let category = try #require(try fresh.fetch(FetchDescriptor<Category>()).first)
        fresh.delete(category)
        try fresh.save()
        let stored = try store.context().fetch(FetchDescriptor<Expense>())
        #expect(stored.count == 3)
        #expect(stored.allSatisfy { $0.category == nil })
    }

    @Test(arguments: StoreKind.allCases)
    func denyRefusesWhileRelatedModelsRemain(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Team.self])
        let context = store.context()
        let team = Team(name: "Blue")
        let ann = Member(name: "Ann", team: team)
        context.insert(ann)
        try context.save()

        context.delete(team)
        #expect(throws: SwiftDataError.deleteRuleDenied) { try context.save() }
        #expect(try store.context().fetchCount(FetchDescriptor<Team>()) == 1)
        #expect(team.isDeleted)  // still pending; the caller decides

        context.rollback()
        ann.team = nil
        try context.save()
        context.delete(team)
        try context.save()
        #expect(try store.context().fetchCount(FetchDescriptor<Team>()) == 0)
        #expect(try store.context().fetchCount(FetchDescriptor<Member>()) == 1)
    }

    @Test func denyAllowsDeletingWhenRelatedModelsAreDeletedToo() throws {
        let store = try TestStore(.memory, [Team.self])
        let context = store.context()
        let team = Team(name: "Blue")
        let ann = Member(name: "Ann", team: team)
        context.insert(ann)
        try context.save()
        context.delete(team)
        context.delete(ann)
        try context.save()
        #expect(try store.context().fetchCount(FetchDescriptor<Team>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func noActionLeavesRelatedModelsPointingAtTheDeletedOne(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Shelf.self])
        let context = store.context()
        let shelf = Shelf(label: "A")
        let book = Book(title: "Dune", shelf: shelf)
        context.insert(book)
        try context.save()
        context.delete(shelf)
        try context.save()
        // The book "still believes it has a shelf" in memory...
        #expect(book.shelf === shelf)
        // ...and its stored reference is left as it was; reading it in a new context finds no row.
        let fresh = store.context()
        let stored = try #require(try fresh.fetch(FetchDescriptor<Book>()).first)
        #expect(try store.context().fetchCount(FetchDescriptor<Shelf>()) == 0)
        #expect(stored.shelf == nil)
    }

    @Test func deletingAnUnsavedModelNeverReachesTheStore() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        let lunch = Expense(amount: 1, category: food)
        context.insert(lunch)
        context.delete(lunch)
        #expect(context.insertedModelsArray.count == 1)  // the category
        try context.save()
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 0)
        #expect(food.expenses.isEmpty)
    }
}

/// A non-optional to-one can never be left empty or dangling by a delete.
@Suite struct RequiredRelationshipTests {
    @Test(arguments: StoreKind.allCases)
    func requiredToOneRoundTripsAndCannotBeNullified(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Folder.self])
        let context = store.context()
        let docs = Folder(name: "Docs")
        let file = File(name: "a.txt", folder: docs)
        context.insert(file)
        #expect(docs.files.first === file)
        try context.save()
        let fresh = store.context()
        let loaded = try #require(try fresh.fetch(FetchDescriptor<File>()).first)
        #expect(loaded.folder.name == "Docs")

        // Folder.files is .nullify by default, but File.folder cannot become nil.
        fresh.delete(loaded.folder)
        do {
            try fresh.save()
            Issue.record("a required to-one was nullified")
        } catch let error as SwiftDataError {
            #expect(error == .modelValidationFailure)
            #expect(error.message.contains("File.folder"))
        }
        fresh.rollback()
        #expect(try store.context().fetchCount(FetchDescriptor<Folder>()) == 1)

        // Moving the file first makes the delete possible.
        let other = Folder(name: "Other")
        fresh.insert(other)
        loaded.folder = other
        fresh.delete(try #require(try fresh.fetch(FetchDescriptor<Folder>(predicate: #Predicate { $0.name == "Docs" })).first))
        try fresh.save()
        #expect(try store.context().fetch(FetchDescriptor<File>()).first?.folder.name == "Other")
    }

    @Test func noActionTowardsARequiredToOneIsRefusedBySchema() {
        #expect(throws: SwiftDataError.unsupportedType) {
            try ModelContainer(for: Drawer.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
    }
}

@Model
final class Drawer {
    var label: String
    @Relationship(deleteRule: .noAction, inverse: \Sock.drawer)
    var socks: [Sock] = []
    init(label: String) { self.label = label }
}

@Model
final class Sock {
    var color: String
    var drawer: Drawer
    init(color: String, drawer: Drawer) {
        self.color = color
        self.drawer = drawer
    }
}
