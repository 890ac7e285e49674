import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// The SQL the SQLite store runs, in one place: what representative predicates become (joins for
/// to-one paths, correlated EXISTS and count subqueries for to-many, json_each for array
/// attributes, Swift functions and collation for strings, every value bound), and the statements
/// behind saves, faults, prefetching, batches and batch deletes. Every other suite asserts what a
/// user observes, on every store.
@Suite struct SQLShapeTests {
    private func sql<T: PersistentModel>(_ predicate: Predicate<T>, sortBy: [SortDescriptor<T>] = []) throws -> RenderedSQL {
        let store = try TestStore(.memory, [QPerson.self, QTeam.self, QSponsor.self])
        let statements = try store.sql {
            _ = try store.context().fetch(FetchDescriptor<T>(predicate: predicate, sortBy: sortBy))
        }
        return try #require(statements.first)
    }

    /// A class hierarchy lives in its top class's table: a subclass's fetch keeps the rows whose
    /// `Z_ENT` names it or its subclasses, reads their columns and, last, each row's class as a
    /// number; `is` and `as?` test `Z_ENT`.
    @Test func classHierarchiesShareATableWithAnEntityColumn() throws {
        let store = try TestStore(.memory, InheritanceModels.types)
        let statements = try store.sql {
            let context = store.context()
            _ = try context.fetch(FetchDescriptor<BusinessJourney>())
            _ = try context.fetch(FetchDescriptor<Journey>(predicate: #Predicate { ($0 as? PersonalJourney)?.companions == 2 }))
        }
        try #require(statements.count == 2)
        #expect(statements[0].text == "SELECT \"t0\".\"Z_PK\", \"t0\".\"name\", \"t0\".\"start\", \"t0\".\"code\", \"t0\".\"voyager\", \"t0\".\"purpose\", \"t0\".\"budget\", \"t0\".\"conference\", \"t0\".\"talks\", (CASE WHEN (\"t0\".\"Z_ENT\" = ?1) THEN 0 WHEN (\"t0\".\"Z_ENT\" = ?2) THEN 1 ELSE -1 END) FROM \"Journey\" AS \"t0\" WHERE (\"t0\".\"Z_ENT\" IN (?3, ?4))")
        #expect(statements[0].bindings == [.text("BusinessJourney"), .text("ConferenceJourney"), .text("BusinessJourney"), .text("ConferenceJourney")])
        // A fetch of the top class reads every subclass's columns once.
        #expect(statements[1].text.contains("\"t0\".\"talks\", \"t0\".\"reason\", \"t0\".\"companions\", \"t0\".\"hours\", (CASE WHEN"))
        #expect(statements[1].text.contains("FROM \"Journey\" AS \"t0\" WHERE ((CASE WHEN (\"t0\".\"Z_ENT\" IN (?6)) THEN \"t0\".\"companions\" ELSE NULL END) IS ?7)"))
        #expect(statements[1].bindings.suffix(2) == [.text("PersonalJourney"), .integer(2)])
    }

    /// A grantee's context looks its grants up inside each statement (`OwnerGrant`): the
    /// statement is the same, with the same values bound, whether the store grants it no owner or
    /// a thousand — no list of owners grows with them.
    @Test func grantsAreLookedUpInsideTheStatement() throws {
        let store = try TestStore(.memory, [Expense.self, Category.self], ownedRows: .allEntities())
        func fetched() throws -> RenderedSQL {
            let statements = try store.sql {
                _ = try ModelContext(store.container, owner: "bob", includingGrants: true).fetch(FetchDescriptor<Expense>())
            }
            return try #require(statements.first)
        }
        let none = try fetched()
        let admin = store.context()
        for owner in 0..<1_000 { admin.grant(.read, toRowsOf: "owner\(owner)", to: "bob") }
        try admin.save()
        let many = try fetched()
        #expect(many.text == none.text)
        #expect(many.bindings == none.bindings)
        #expect(many.text.contains("IN (SELECT \"zg\".\"Z_OWNER\" FROM \"Z_GRANT\" AS \"zg\" WHERE (\"zg\".\"Z_GRANTEE\" = ?"))
        #expect(many.bindings == [.text("bob"), .text("bob")])
    }

    /// A fetch with no sort descriptors and no page takes the rows in the order SQLite's plan
    /// reads them, as Core Data's fetches do (the order is undefined): no `ORDER BY`, which on a
    /// predicate over an index made SQLite sort every row again by key. A page, or a sort's ties,
    /// still follow the key, so pages repeat.
    @Test func onlyPagesAndSortsOrderTheRows() throws {
        let store = try TestStore(.memory, [QPerson.self, QTeam.self, QSponsor.self])
        var page = FetchDescriptor<QPerson>(predicate: #Predicate { $0.age > 3 })
        page.fetchOffset = 2
        let statements = try store.sql {
            let context = store.context()
            _ = try context.fetch(FetchDescriptor<QPerson>(predicate: #Predicate { $0.age > 3 }))
            _ = try context.fetch(page)
            _ = try context.fetch(FetchDescriptor<QPerson>(sortBy: [SortDescriptor(\.age)]))
        }
        try #require(statements.count == 3)
        #expect(!statements[0].text.contains("ORDER BY"), "\(statements[0].text)")
        #expect(statements[1].text.contains("ORDER BY \"t0\".\"Z_PK\" ASC"), "\(statements[1].text)")
        #expect(statements[2].text.contains("ORDER BY \"t0\".\"age\" ASC, \"t0\".\"Z_PK\" ASC"), "\(statements[2].text)")
    }

    @Test func toOnePathsJoin() throws {
        let statement = try sql(#Predicate<QPerson> { $0.mentor?.team?.name == "Lions" })
        #expect(statement.text.contains("LEFT JOIN \"QPerson\" AS \"t1\" ON (\"t1\".\"Z_PK\" = \"t0\".\"mentor\")"))
        #expect(statement.text.contains("LEFT JOIN \"QTeam\" AS \"t2\" ON (\"t2\".\"Z_PK\" = \"t1\".\"team\")"))
        #expect(!statement.text.contains("EXISTS"))
        #expect(statement.bindings == [.text("Lions")])
    }

    @Test func toManyBecomesCorrelatedExists() throws {
        let statement = try sql(#Predicate<QTeam> { $0.members.contains { $0.age > 40 } })
        #expect(statement.text == "SELECT \"t0\".\"Z_PK\", \"t0\".\"name\", \"t0\".\"city\", \"t0\".\"founded\" FROM \"QTeam\" AS \"t0\" WHERE EXISTS (SELECT 1 FROM \"QPerson\" AS \"t1\" WHERE ((\"t1\".\"team\" = \"t0\".\"Z_PK\") AND (\"t1\".\"age\" > ?1)))")
        #expect(statement.bindings == [.integer(40)])
    }

    @Test func manyToManyGoesThroughTheJoinTable() throws {
        let statement = try sql(#Predicate<QTeam> { $0.sponsors.count > 1 })
        #expect(statement.text.contains("(SELECT count(1) FROM \"QSponsor\" AS \"t1\" JOIN \"Z_QSponsor_teams\" AS \"t2\" ON (\"t2\".\"Z_SOURCE\" = \"t1\".\"Z_PK\") WHERE (\"t2\".\"Z_TARGET\" = \"t0\".\"Z_PK\"))"))
    }

    @Test func allSatisfyIsNotExistsOfAFailingElement() throws {
        let statement = try sql(#Predicate<QTeam> { $0.members.allSatisfy { $0.isActive } })
        #expect(statement.text.contains("(NOT EXISTS (SELECT 1 FROM \"QPerson\" AS \"t1\" WHERE ((\"t1\".\"team\" = \"t0\".\"Z_PK\") AND (NOT coalesce(\"t1\".\"isActive\", 0)))))"))
    }

    @Test func arrayAttributesUseJSONEach() throws {
        let statement = try sql(#Predicate<QPerson> { $0.scores.contains(where: { $0 > 90 }) })
        #expect(statement.text.contains("EXISTS (SELECT 1 FROM json_each(\"t0\".\"scores\") AS \"t1\" WHERE (\"t1\".\"value\" > ?1))"))
    }

    @Test func constantArraysBecomeInLists() throws {
        let names = ["Ann", "Bob"]
        let statement = try sql(#Predicate<QPerson> { names.contains($0.name) })
        #expect(statement.text.contains("(\"t0\".\"name\" COLLATE SWIFT) IN (?1, ?2)"))
        #expect(statement.bindings == [.text("Ann"), .text("Bob")])
    }

    @Test func stringOperationsCallSwift() throws {
        let search = "pe"
        let statement = try sql(#Predicate<QPerson> { $0.name.localizedStandardContains(search) || $0.name.starts(with: "A") || $0.name.contains("x") })
        #expect(statement.text.contains("osd_localized_standard_contains(\"t0\".\"name\", ?1)"))
        #expect(statement.text.contains("osd_starts_with(\"t0\".\"name\", ?2)"))
        #expect(statement.text.contains("osd_contains(\"t0\".\"name\", ?3)"))
        #expect(statement.bindings == [.text("pe"), .text("A"), .text("x")])
    }

    @Test func valuesAreNeverSplicedIntoTheText() throws {
        let hostile = "'; DROP TABLE \"QPerson\"; --"
        let statement = try sql(#Predicate<QPerson> { $0.name == hostile || $0.tags.contains(hostile) || $0.attributes[hostile] == 1 })
        #expect(!statement.text.contains("DROP TABLE"))
        #expect(statement.bindings.contains(.text(hostile)))
    }

    @Test func constantSubexpressionsAreFolded() throws {
        let base = 20
        let statement = try sql(#Predicate<QPerson> { $0.age > base * 2 + 1 && (base > 100 || $0.isActive) })
        #expect(statement.text.contains("WHERE ((\"t0\".\"age\" > ?1) AND \"t0\".\"isActive\")"))
        #expect(statement.bindings == [.integer(41)])
    }

    @Test func sortingThroughToOnePathsJoins() throws {
        let statement = try sql(#Predicate<QPerson> { $0.age > 0 }, sortBy: [SortDescriptor(\.team?.name), SortDescriptor(\.name, order: .reverse)])
        #expect(statement.text.contains("LEFT JOIN \"QTeam\" AS \"t1\" ON (\"t1\".\"Z_PK\" = \"t0\".\"team\")"))
        #expect(statement.text.contains("ORDER BY (\"t1\".\"name\" COLLATE SWIFT) ASC, (\"t0\".\"name\" COLLATE SWIFT) DESC, \"t0\".\"Z_PK\" ASC"))
    }

    // MARK: From AttributeRoundTripTests

    @Test func enumsAreStoredByRawValueAndCodableValuesAsJSON() throws {
        let store = try TestStore(.file, [Sample.self])
        let context = store.context()
        context.insert(Sample(mood: .init(rawValue: "mixed feelings")!, priority: .low))
        let statements = try store.sql { try context.save() }
        let insert = try #require(statements.starting(with: "INSERT INTO \"Sample\"").first)
        #expect(insert.bindings.contains(.text("mixed feelings")))
        #expect(insert.bindings.contains(.integer(1)))
        #expect(insert.bindings.contains(.text("{\"city\":\"Springfield\",\"street\":\"1 Main St\"}")))
    }

    // MARK: From ChangeTrackingTests

    @Test func aSaveUpdatesOnlyChangedColumnsInOneTransaction() throws {
        let store = try TestStore(.file, [Expense.self])
        let context = store.context()
        let lunch = Expense(amount: 10, note: "lunch")
        context.insert(lunch)
        try context.save()

        lunch.note = "late lunch"
        let statements = try store.sql { try context.save() }
        #expect(statements.texts == [
            "BEGIN IMMEDIATE",
            "UPDATE \"Expense\" SET \"note\" = ?1 WHERE \"Z_PK\" = ?2",
            // The history transaction, written last, in the same database transaction.
            "UPDATE \"Z_PRIMARYKEY\" SET \"Z_MAX\" = \"Z_MAX\" + ?1 WHERE \"Z_ENTITY\" = ?2 RETURNING \"Z_MAX\"",
            "INSERT INTO \"Z_HISTORYTRANSACTION\" (\"Z_PK\", \"Z_TIMESTAMP\", \"Z_AUTHOR\", \"Z_BUNDLE\", \"Z_PROCESS\") VALUES (?1, ?2, ?3, ?4, ?5)",
            "INSERT INTO \"Z_HISTORYCHANGE\" (\"Z_TRANSACTION\", \"Z_ORDER\", \"Z_KIND\", \"Z_ENTITY\", \"Z_KEYS\", \"Z_PROPERTIES\", \"Z_TOMBSTONES\") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            "COMMIT",
        ])
        #expect(statements[1].bindings == [.text("late lunch"), .integer(1)])
        #expect(statements[2].bindings == [.integer(1), .text("(history)")])
        #expect(statements[4].bindings == [.integer(2), .integer(0), .integer(1), .text("Expense"), .text("1"), .text("note"), .null])
    }

    /// However many models a save inserts, updates or deletes, its history is one transaction row
    /// and one row per group of changes: the keys of a group are kept as runs.
    @Test func historyOfABigSaveIsAFewRows() throws {
        let store = try TestStore(.file, [Expense.self])
        let context = store.context()
        for amount in 0..<1_000 { context.insert(Expense(amount: Double(amount))) }
        let inserting = try store.sql { try context.save() }
        let insertGroups = inserting.starting(with: "INSERT INTO \"Z_HISTORYCHANGE\"")
        #expect(insertGroups.map(\.bindings) == [[.integer(1), .integer(0), .integer(0), .text("Expense"), .text("1-1000"), .null, .null]])

        let expenses = try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        for expense in expenses where expense.amount.truncatingRemainder(dividingBy: 2) == 0 { expense.amount += 0.5 }
        let updating = try store.sql { try context.save() }
        let updateGroups = updating.starting(with: "INSERT INTO \"Z_HISTORYCHANGE\"")
        #expect(updateGroups.count == 1)
        #expect(updateGroups.first?.bindings[5] == .text("amount"))
        #expect(updating.starting(with: "INSERT INTO \"Z_HISTORYTRANSACTION\"").count == 1)
    }

    @Test func aSaveWithoutChangesWritesNothing() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        let statements = try store.sql { try context.save() }
        #expect(statements.isEmpty)
    }

    @Test func insertsAndDeletesOfManyModelsShareOneTransaction() throws {
        let store = try TestStore(.file, [Expense.self])
        let context = store.context()
        for amount in 1...50 { context.insert(Expense(amount: Double(amount))) }
        let statements = try store.sql { try context.save() }
        #expect(statements.texts.filter { $0 == "BEGIN IMMEDIATE" }.count == 1)
        #expect(statements.texts.filter { $0 == "COMMIT" }.count == 1)
        // 50 rows as statements of 32, 16 and 2 rows: powers of two, so their texts stay prepared.
        #expect(statements.starting(with: "INSERT INTO \"Expense\"").map { $0.bindings.count / 5 } == [32, 16, 2])
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 50)
    }

    /// A save's new rows of one entity go up 64 to an `INSERT … VALUES (…), (…)` on SQLite, the
    /// last ones in powers of two; a second save of the same size runs the same few texts.
    @Test func newRowsGoUpManyToAStatement() throws {
        let store = try TestStore(.file, [Expense.self])
        let context = store.context()
        for amount in 0..<200 { context.insert(Expense(amount: Double(amount))) }
        let first = try store.sql { try context.save() }.starting(with: "INSERT INTO \"Expense\"")
        #expect(first.map { $0.bindings.count / 5 } == [64, 64, 64, 8])
        let full = try #require(first.first)
        #expect(full.text.hasPrefix("INSERT INTO \"Expense\" (\"Z_PK\", \"amount\", \"date\", \"note\", \"category\") VALUES (?1, ?2, ?3, ?4, ?5), (?6, ?7, ?8, ?9, ?10), "))
        #expect(full.bindings.prefix(2) == [.integer(1), .real(0)])
        for amount in 200..<400 { context.insert(Expense(amount: Double(amount))) }
        let second = try store.sql { try context.save() }.starting(with: "INSERT INTO \"Expense\"")
        #expect(second.map(\.text) == first.map(\.text))
        #expect(second.first?.bindings.prefix(2) == [.integer(201), .real(200)])
    }

    // MARK: From FetchDescriptorTests

    @Test(arguments: StoreKind.sqlite)
    func propertiesToFetchLoadTheRestOnAccess(_ kind: StoreKind) throws {
        let store = try FetchDescriptorTests.expenses(kind)
        let context = store.context()
        var descriptor = FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])
        descriptor.propertiesToFetch = [\.amount]
        var results: [Expense] = []
        let fetchSQL = try store.sql { results = try context.fetch(descriptor) }
        #expect(fetchSQL.count == 1)
        #expect(fetchSQL[0].text.hasPrefix("SELECT \"t0\".\"Z_PK\", \"t0\".\"amount\" FROM \"Expense\""))
        #expect(results.map(\.amount) == (0..<30).map(Double.init))
        var note: String?
        let faultSQL = store.sql { note = results[3].note }
        #expect(note == "note 3")
        #expect(faultSQL.count == 1)
        let restSQL = store.sql { _ = results[3].date }
        #expect(restSQL.isEmpty)  // the rest of the row came with the fault
        #expect(results[3].category?.name == "Food")
    }

    @Test(arguments: StoreKind.sqlite)
    func prefetchingRunsOneQueryPerRelationship(_ kind: StoreKind) throws {
        let store = try FetchDescriptorTests.expenses(kind)
        let context = store.context()
        var byCategory = FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)])
        byCategory.relationshipKeyPathsForPrefetching = [\.expenses]
        var categories: [Category] = []
        let fetchSQL = try store.sql { categories = try context.fetch(byCategory) }
        #expect(fetchSQL.count == 2)
        var counts: [Int] = []
        let walkSQL = store.sql { counts = categories.map { $0.expenses.count } }
        #expect(walkSQL.isEmpty)
        #expect(counts == [10, 10, 10])

        let other = store.context()
        var withCategory = FetchDescriptor<Expense>()
        withCategory.relationshipKeyPathsForPrefetching = [\.category]
        var expenses: [Expense] = []
        let toOneSQL = try store.sql { expenses = try other.fetch(withCategory) }
        #expect(toOneSQL.count == 2)
        let resolveSQL = store.sql { _ = expenses.map { $0.category?.name } }
        #expect(resolveSQL.isEmpty)
    }

    @Test func prefetchingManyToMany() throws {
        let store = try DifferentialPredicateTests.fixture(.memory)
        let context = store.context()
        var descriptor = FetchDescriptor<QTeam>(sortBy: [SortDescriptor(\.name)])
        descriptor.relationshipKeyPathsForPrefetching = [\.sponsors, \.members]
        var teams: [QTeam] = []
        let fetchSQL = try store.sql { teams = try context.fetch(descriptor) }
        #expect(fetchSQL.count == 3)
        var sponsors: [[String]] = []
        let walkSQL = store.sql { sponsors = teams.map { $0.sponsors.map(\.name).sorted() } }
        #expect(walkSQL.isEmpty)
        #expect(sponsors == [[], ["Acme", "O'Neil & Sons"], [], ["Acme"]])
    }

    @Test(arguments: StoreKind.sqlite)
    func batchedFetchLoadsBatchesOnDemand(_ kind: StoreKind) throws {
        let store = try FetchDescriptorTests.expenses(kind)
        let context = store.context()
        let descriptor = FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount, order: .reverse)])
        var results: FetchResultsCollection<Expense>?
        let keysSQL = try store.sql { results = try context.fetch(descriptor, batchSize: 8) }
        #expect(keysSQL.count == 1)  // only the keys
        let batched = try #require(results)
        #expect(batched.count == 30)
        var amounts: [Double] = []
        let walkSQL = store.sql { amounts = batched.map(\.amount) }
        #expect(amounts == (0..<30).reversed().map(Double.init))
        #expect(walkSQL.count == 4)  // 30 rows in batches of 8
        #expect(batched[29].amount == 0)

        context.insert(Expense(amount: 1))
        #expect(throws: SwiftDataError.includePendingChangesWithBatchSize) { try context.fetch(descriptor, batchSize: 8) }
        var stored = descriptor
        stored.includePendingChanges = false
        #expect(try context.fetch(stored, batchSize: 8).count == 30)
    }

    @Test(arguments: StoreKind.sqlite)
    func enumerateWalksInBatchesAndLetsModelsGo(_ kind: StoreKind) throws {
        let store = try FetchDescriptorTests.expenses(kind)
        let context = store.context()
        var seen: [Double] = []
        weak var firstOfFirstBatch: Expense?
        var releasedWhenSecondBatchStarted = false
        try context.enumerate(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]), batchSize: 10) { expense in
            if seen.isEmpty { firstOfFirstBatch = expense }
            if seen.count == 10 { releasedWhenSecondBatchStarted = firstOfFirstBatch == nil }
            seen.append(expense.amount)
        }
        #expect(seen == (0..<30).map(Double.init))
        #expect(releasedWhenSecondBatchStarted)

        // The default batch size is 5,000: one batch here.
        let defaultSQL = try store.sql { try context.enumerate(FetchDescriptor<Expense>()) { _ in } }
        #expect(defaultSQL.count == 2)

        // Changing models without saving is refused unless allowed.
        #expect(throws: SwiftDataError.unsavedChangesDuringEnumeration) {
            try context.enumerate(FetchDescriptor<Expense>(), batchSize: 10) { $0.amount += 1 }
        }
        context.rollback()
        try context.enumerate(FetchDescriptor<Expense>(), batchSize: 10, allowEscapingMutations: true) { $0.amount += 1 }
        try context.save()
        #expect(try store.context().fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).first?.amount == 1)
    }

    @Test(arguments: StoreKind.sqlite)
    func deletesRowsWithOneStatementAndAppliesNullify(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        let travel = Category(name: "Travel")
        for amount in 1...20 { context.insert(Expense(amount: Double(amount), category: amount.isMultiple(of: 2) ? food : travel)) }
        try context.save()

        let other = store.context()
        let loaded = try other.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount == 20 }))
        try other.delete(model: Expense.self, where: #Predicate { $0.amount > 15 })
        #expect(other.hasChanges)
        #expect(loaded.first?.isDeleted == true)  // a registered match is deleted in memory at once
        #expect(try other.fetchCount(FetchDescriptor<Expense>()) == 15)  // pending deletes already apply
        let statements = try store.sql { try other.save() }
        #expect(statements.starting(with: "DELETE FROM \"Expense\"").count == 2)  // the registered one, then the batch
        #expect(statements.filter { $0.text.contains("SELECT \"t0\".\"Z_PK\" FROM \"Expense\"") }.count >= 1)
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 15)

        // Deleting categories in the store nullifies their expenses' references.
        try other.delete(model: Category.self, where: #Predicate { $0.name == "Food" })
        try other.save()
        let fresh = store.context()
        #expect(try fresh.fetch(FetchDescriptor<Category>()).map(\.name) == ["Travel"])
        #expect(try fresh.fetchCount(FetchDescriptor<Expense>(predicate: #Predicate { $0.category == nil })) == 7)

        // Rollback cancels a pending batch.
        try other.delete(model: Expense.self)
        other.rollback()
        try other.save()
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 15)
    }

    @Test(arguments: StoreKind.sqlite)
    func deletingEveryRowRunsOneUnconditionalStatementAndReportsEachIdentifier(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        for amount in 1...12 { context.insert(Expense(amount: Double(amount), category: food)) }
        try context.save()
        let saved = Set(try context.fetch(FetchDescriptor<Expense>()).map(\.persistentModelID))

        let other = store.context()
        try other.delete(model: Expense.self)
        let posted = NotificationBox()
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: other, queue: nil) { posted.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        let statements = try store.sql { try other.save() }
        #expect(statements.filter { $0.text == "DELETE FROM \"Expense\"" }.count == 1)
        let reported = posted.items.first?.userInfo?[ModelContext.NotificationKey.deletedIdentifiers.rawValue] as? [PersistentIdentifier]
        #expect(Set(reported ?? []) == saved)
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 0)
        #expect(try store.context().fetch(FetchDescriptor<Category>()).map(\.name) == ["Food"])
    }

    // MARK: From LazyLoadingTests

    @Test func toManyLoadsOnFirstAccess() throws {
        let store = try TestStore(.file, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        for amount in [3.0, 1.0, 2.0] { context.insert(Expense(amount: amount, category: food)) }
        try context.save()

        let fresh = store.context()
        var category: Category?
        let fetchSQL = try store.sql {
            category = try fresh.fetch(FetchDescriptor<Category>()).first
        }
        #expect(fetchSQL.count == 1)
        #expect(!fetchSQL[0].text.contains("\"Expense\""))

        var amounts: [Double] = []
        let loadSQL = store.sql { amounts = category?.expenses.map(\.amount) ?? [] }
        #expect(amounts == [3, 1, 2])  // stored order
        #expect(loadSQL.count == 1)
        #expect(loadSQL[0].text.contains("FROM \"Expense\""))
        #expect(loadSQL[0].text.contains("WHERE (\"t0\".\"category\" = ?1)"))

        // Loaded once: the second access runs nothing.
        let again = store.sql { _ = category?.expenses.count }
        #expect(again.isEmpty)
    }

    @Test func toOneResolvesOnFirstAccessToTheRegisteredInstance() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        context.insert(Expense(amount: 1, category: Category(name: "Food")))
        try context.save()

        let fresh = store.context()
        let expense = try #require(try fresh.fetch(FetchDescriptor<Expense>()).first)
        let load = store.sql { _ = expense.category?.name }
        #expect(load.count == 1)
        #expect(load[0].text.contains("FROM \"Category\""))
        let category = try #require(try fresh.fetch(FetchDescriptor<Category>()).first)
        #expect(expense.category === category)
    }

    // MARK: From ManyToManyTests

    @Test func joinRowsAreWrittenOnceAndDeletedWithTheModel() throws {
        let store = try TestStore(.file, [Course.self])
        let context = store.context()
        let math = Course(title: "Math")
        let ann = Pupil(name: "Ann")
        context.insert(math)
        math.pupils.append(ann)
        let insertStatements = try store.sql { try context.save() }
        let joinInserts = insertStatements.filter { $0.text.contains("INSERT OR IGNORE INTO \"Z_Course_pupils\"") }
        #expect(!joinInserts.isEmpty)
        #expect(Set(joinInserts.map(\.bindings)).count == 1)

        context.delete(ann)
        try context.save()
        #expect(math.pupils.isEmpty)
        let fresh = store.context()
        #expect(try fresh.fetch(FetchDescriptor<Course>()).first?.pupils.isEmpty == true)
    }

    // MARK: From PredicateTranslationTests

    @Test func toOnePathsBecomeJoinsAndValuesAreBound() throws {
        let store = try PredicateTranslationTests.seeded(.memory)
        let context = store.context()
        let statements = try store.sql {
            _ = try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.category?.name == "Food" && $0.amount > 50 }))
        }
        let select = try #require(statements.first)
        #expect(select.text.contains("LEFT JOIN \"Category\" AS \"t1\" ON (\"t1\".\"Z_PK\" = \"t0\".\"category\")"))
        #expect(select.text.contains("\"t1\".\"name\""))
        #expect(!select.text.contains("Food"))
        #expect(select.bindings.contains(.text("Food")))
        #expect(select.bindings.contains(.real(50)))
    }

    @Test func nilComparisonsUseNullSafeOperators() throws {
        let store = try PredicateTranslationTests.seeded(.memory)
        let statements = try store.sql {
            _ = try store.context().fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.note == nil || $0.note != "Lunch" }))
        }
        let text = try #require(statements.first?.text)
        #expect(text.contains("(\"t0\".\"note\" IS NULL)"))
        #expect(text.contains("(\"t0\".\"note\" IS NOT (?1 COLLATE SWIFT))"))
    }

    // MARK: From SaveNotificationTests

    @Test(arguments: StoreKind.sqlite)
    func transactionSavesOnceOrRollsBack(_ kind: StoreKind) throws {
        struct Refused: Error {}
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let kept = Expense(amount: 1)
        context.insert(kept)  // pending before the transaction: saved first
        let statements = try store.sql {
            try context.transaction {
                context.insert(Expense(amount: 2))
                context.insert(Expense(amount: 3))
            }
        }
        #expect(statements.filter { $0.text == "COMMIT" }.count == 2)
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 3)

        #expect(throws: Refused.self) {
            try context.transaction {
                kept.amount = 100
                context.insert(Expense(amount: 4))
                throw Refused()
            }
        }
        #expect(!context.hasChanges)
        #expect(kept.amount == 1)
        #expect(try store.context().fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).map(\.amount) == [1, 2, 3])
    }

    // MARK: From ValueFidelityTests

    @Test func valuesAreBoundNotSpliced() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        let hostile = "x'); DELETE FROM \"Expense\"; --"
        context.insert(Expense(amount: 1, note: hostile))
        let statements = try store.sql {
            try context.save()
            _ = try store.context().fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.note == hostile }))
        }
        #expect(!statements.isEmpty)
        for statement in statements {
            #expect(!statement.text.contains("DELETE FROM \"Expense\"; --"))
        }
        #expect(statements.contains { $0.bindings.contains(.text(hostile)) })
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 1)
    }

    /// A sum is one aggregate query and loads no row; a page of rows is selected by key in the
    /// descriptor's order, so the sum covers exactly that page.
    @Test func sumsAreOneAggregateQuery() throws {
        let store = try TestStore(.memory, AggregateModels.types)
        var page = FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.count, order: .reverse)])
        page.fetchLimit = 3
        let statements = try store.sql {
            let context = store.context()
            _ = try context.fetchSum(FetchDescriptor(predicate: #Predicate<Reading> { $0.sensor?.name == "a" }), of: \.count)
            _ = try context.fetchSum(page, of: \.weight)
        }
        try #require(statements.count == 2)
        #expect(statements[0].text == "SELECT CAST(sum(\"t0\".\"count\") AS INTEGER) FROM \"Reading\" AS \"t0\" LEFT JOIN \"Sensor\" AS \"t1\" ON (\"t1\".\"Z_PK\" = \"t0\".\"sensor\") WHERE ((CASE WHEN (\"t0\".\"sensor\" IS NULL) THEN NULL ELSE \"t1\".\"name\" END) IS (?1 COLLATE SWIFT))")
        #expect(statements[1].text == "SELECT sum(\"t0\".\"weight\"), max(\"t0\".\"weight\") FROM \"Reading\" AS \"t0\" WHERE (\"t0\".\"Z_PK\" IN (SELECT \"t0\".\"Z_PK\" FROM \"Reading\" AS \"t0\" ORDER BY \"t0\".\"count\" DESC, \"t0\".\"Z_PK\" ASC LIMIT ?1))")
        #expect(statements[1].bindings.last == .integer(3))
    }

    /// A grouped aggregate is one query grouped in the database: by the key of the related row
    /// for a key read through a relationship, by stored bytes otherwise (the context merges
    /// groups whose keys Swift finds equal).
    @Test func groupedAggregatesAreOneGroupedQuery() throws {
        let store = try TestStore(.memory, AggregateModels.types)
        let statements = try store.sql {
            _ = try store.context().fetchSum(FetchDescriptor<Reading>(), of: \.count, groupedBy: \.sensor?.name)
            _ = try store.context().fetchMin(FetchDescriptor<Reading>(), of: \.weight, groupedBy: \.grade)
        }
        try #require(statements.count == 2)
        #expect(statements[0].text == "SELECT CAST(sum(\"t0\".\"count\") AS INTEGER), \"t1\".\"name\" FROM \"Reading\" AS \"t0\" LEFT JOIN \"Sensor\" AS \"t1\" ON (\"t1\".\"Z_PK\" = \"t0\".\"sensor\") GROUP BY \"t1\".\"Z_PK\"")
        #expect(statements[1].text == "SELECT min(\"t0\".\"weight\"), \"t0\".\"grade\" FROM \"Reading\" AS \"t0\" GROUP BY \"t0\".\"grade\"")
    }

    /// A batch update is one UPDATE with the predicate as its condition (a predicate that joins
    /// selects the rows by key), after reading the keys in the same transaction, and records its
    /// history with it.
    @Test func batchUpdatesAreOneUpdate() throws {
        let store = try TestStore(.memory, AggregateModels.types)
        let context = store.context()
        (1...3).forEach { context.insert(Reading(count: $0, sensor: $0 == 1 ? Sensor(name: "a", offset: 0) : nil)) }
        try context.save()
        let statements = try store.sql {
            _ = try context.update(model: Reading.self, where: #Predicate { $0.count > 1 }, set: \.label, to: "x")
        }
        let updates = statements.filter { $0.text.hasPrefix("UPDATE \"Reading\"") }
        try #require(updates.count == 1)
        #expect(updates[0].text == "UPDATE \"Reading\" AS \"t0\" SET \"label\" = ?1 WHERE (\"t0\".\"count\" > ?2)")
        #expect(updates[0].bindings == [.text("x"), .integer(1)])
        #expect(statements.contains { $0.text.hasPrefix("INSERT INTO \"\(SQLStore.historyChangeTable)\"") })
        let joined = try store.sql {
            _ = try context.update(model: Reading.self, where: #Predicate { $0.sensor?.name == "a" }, set: \.label, to: "y")
        }
        #expect(joined.filter { $0.text.hasPrefix("UPDATE \"Reading\"") }.map(\.text) == ["UPDATE \"Reading\" SET \"label\" = ?1 WHERE (\"Z_PK\" IN (SELECT \"t0\".\"Z_PK\" FROM \"Reading\" AS \"t0\" LEFT JOIN \"Sensor\" AS \"t1\" ON (\"t1\".\"Z_PK\" = \"t0\".\"sensor\") WHERE ((CASE WHEN (\"t0\".\"sensor\" IS NULL) THEN NULL ELSE \"t1\".\"name\" END) IS (?2 COLLATE SWIFT))))"])
    }

    #if PostgreSQL
    /// PostgreSQL: a substring predicate on a searchable attribute asks the trigram index of the
    /// folded column (`LIKE`, which `pg_trgm`'s GIN index answers), for `contains` without the
    /// needle's last character; anything else reads the rows.
    @Test(.enabled(if: PostgresServer.url != nil, PostgresServer.skipReason))
    func postgresSearchesThroughTheTrigramIndex() throws {
        let store = try TestStore(.postgres, [SNote.self])
        let sqlStore = try #require(store.container.stores[0] as? SQLStore)
        store.context().insert(SNote(text: "Straße"))
        try store.context().save()
        func statement(_ predicate: Predicate<SNote>) throws -> RenderedSQL {
            try #require(try store.sql { _ = try store.context().fetch(FetchDescriptor(predicate: predicate)) }.first)
        }
        /// The plan PostgreSQL makes for `statement` where the index pays (with one row, the
        /// planner would read the table).
        func plan(_ statement: RenderedSQL) throws -> String {
            try sqlStore.write { connection in
                _ = try connection.execute("SET LOCAL enable_seqscan = off", bindings: [])
                var lines: [String] = []
                try connection.query("EXPLAIN " + statement.text, bindings: statement.bindings) { row in
                    if case .text(let line) = row.value(at: 0) { lines.append(line) }
                }
                return lines.joined(separator: "\n")
            }
        }
        let narrowed = try statement(#Predicate { $0.text.localizedStandardContains("STRASSE") && $0.rank < 3 })
        #expect(narrowed.text.contains(" LIKE "))
        let narrowedPlan = try plan(narrowed)
        #expect(narrowedPlan.contains("Bitmap Index Scan on \"Z_SEARCH.SNote.text\""), "\(narrowedPlan)")
        // A note or its folder's name: both indexes.
        let acrossPlan = try plan(try statement(#Predicate { $0.text.localizedStandardContains("strasse") || ($0.folder?.name.localizedStandardContains("cafe") ?? false) }))
        #expect(acrossPlan.contains("\"Z_SEARCH.SNote.text\"") && acrossPlan.contains("\"Z_SEARCH.SFolder.name\""), "\(acrossPlan)")
        #expect(try statement(#Predicate { $0.title?.contains("Stra") == true }).text.contains("left("))
        // A container that may not write uses the indexes it finds.
        let readOnly = try ModelContainer(for: Schema([SNote.self]), configurations: [
            try PostgresServer.configuration(namespace: try #require(store.namespace), allowsSave: false),
        ])
        let readOnlyStore = try #require(readOnly.stores[0] as? SQLStore)
        readOnlyStore.startTracing()
        _ = try ModelContext(readOnly).fetch(FetchDescriptor(predicate: #Predicate<SNote> { $0.text.localizedStandardContains("STRASSE") }))
        #expect(readOnlyStore.stopTracing().first?.text.contains(" LIKE ") == true)
        for predicate in [
            #Predicate<SNote> { $0.text.localizedStandardContains("st") },
            #Predicate<SNote> { !$0.text.localizedStandardContains("strasse") },
            #Predicate<SNote> { $0.body.localizedStandardContains("strasse") },
        ] {
            #expect(try !statement(predicate).text.contains(" LIKE "))
        }
    }
    #endif

    /// PostgreSQL: a save's rows go up as arrays, one parameter per column (`unnest`), and a
    /// column of only NULLs as NULL without one; updates join the arrays to the table by key,
    /// check the columns read, and return the keys they changed.
    @Test func postgresSavesBindColumnsAsArrays() {
        let dialect = PostgresDialect(typedValues: [.decimal])
        #expect(dialect.arrayType(of: .decimal(1)) == "numeric[]")
        #expect(dialect.arrayType(of: .date(Date())) == "double precision[]")
        #expect(SQLiteDialect().arrayType(of: .integer(1)) == nil)
        let insert = SQLRenderer.render(.insertArrays(table: "Item", columns: ["Z_PK", "note", "score"], types: ["bigint[]", nil, "double precision[]"]), dialect: dialect)
        #expect(insert.text == "INSERT INTO \"Item\" (\"Z_PK\", \"note\", \"score\") SELECT \"u\".\"a0\", NULL, \"u\".\"a2\" FROM unnest(CAST($1 AS bigint[]), CAST($2 AS double precision[])) AS \"u\"(\"a0\", \"a2\")")
        let update = SQLRenderer.render(.updateByKeyArrays(
            table: "Item", columns: ["score"], key: "Z_PK", unchanged: [(column: "score", json: false)], counting: "Z_OPT",
            types: ["double precision[]", "bigint[]", "double precision[]"]), dialect: dialect)
        #expect(update.text == "UPDATE \"Item\" SET \"score\" = \"u\".\"a0\", \"Z_OPT\" = \"Item\".\"Z_OPT\" + 1 FROM unnest(CAST($1 AS double precision[]), CAST($2 AS bigint[]), CAST($3 AS double precision[])) AS \"u\"(\"a0\", \"a1\", \"a2\") WHERE \"Item\".\"Z_PK\" = \"u\".\"a1\" AND \"Item\".\"score\" IS NOT DISTINCT FROM \"u\".\"a2\" RETURNING \"Item\".\"Z_PK\"")
    }

    /// The number of rows of `Z_LARGEVALUE`: byte values written from files, kept apart.
    static func valuesKeptApart(in store: SQLStore) throws -> Int {
        try store.read { connection in
            var count = 0
            try connection.query("SELECT count(*) FROM \"Z_LARGEVALUE\"", bindings: []) { count = Int($0.int64(at: 0)) }
            return count
        }
    }

    /// A byte value written from a file is kept in a row of `Z_LARGEVALUE` of its own, which
    /// leaves with the value: replaced (by a file's bytes or a value set in memory), its row
    /// deleted one by one or by a batch delete, all data deleted.
    @Test(arguments: StoreKind.sqlite)
    func valuesWrittenFromFilesAreKeptApartAndLeaveWithTheirValue(_ kind: StoreKind) throws {
        typealias Scan = FileValueTests.Scan
        let store = try TestStore(kind, [Scan.self])
        let sqlStore = try #require(store.container.stores[0] as? SQLStore)
        let first = try FileValueTests.file(1_100_000, seed: 8), second = try FileValueTests.file(1_300_000, seed: 9)
        defer { for file in [first, second] { try? FileManager.default.removeItem(at: file.url) } }
        let context = ModelContext(store.container)
        let scans = (0..<3).map { Scan(name: "scan \($0)", image: Data()) }
        for scan in scans {
            context.insert(scan)
            try context.setStoredValue(fromFileAt: first.url, of: scan, "image")
        }
        try context.save()
        #expect(try Self.valuesKeptApart(in: sqlStore) == 3)
        try context.setStoredValue(fromFileAt: second.url, of: scans[0], "image")
        try context.save()
        #expect(try Self.valuesKeptApart(in: sqlStore) == 3)
        scans[0].image = Data([1])
        try context.save()
        #expect(try Self.valuesKeptApart(in: sqlStore) == 2)
        context.delete(scans[1])
        try context.save()
        #expect(try Self.valuesKeptApart(in: sqlStore) == 1)
        try context.delete(model: Scan.self, where: #Predicate { $0.name == "scan 2" })
        try context.save()
        #expect(try Self.valuesKeptApart(in: sqlStore) == 0)
        let again = Scan(name: "again", image: Data())
        context.insert(again)
        try context.setStoredValue(fromFileAt: second.url, of: again, "image")
        try context.save()
        #expect(try Self.valuesKeptApart(in: sqlStore) == 1)
        store.container.deleteAllData()
        #expect(try Self.valuesKeptApart(in: sqlStore) == 0)
    }

    /// A fetch leaves `.externalStorage` attributes out, and the first read of one loads it (as
    /// Core Data reads external data): a list of scans does not read the scans.
    @Test(arguments: StoreKind.sqlite)
    func externalStorageLoadsWhenFirstRead(_ kind: StoreKind) throws {
        typealias Scan = FileValueTests.Scan
        let store = try TestStore(kind, [Scan.self])
        let image = Data(repeating: 42, count: 10_000)
        let context = ModelContext(store.container)
        context.insert(Scan(name: "scan", image: image, preview: Data([1])))
        try context.save()
        let fresh = ModelContext(store.container)
        var scans: [Scan] = []
        let fetched = try store.sql { scans = try fresh.fetch(FetchDescriptor<Scan>()) }
        #expect(fetched.count == 1)
        #expect(fetched.first?.text.contains("\"preview\"") == true)
        #expect(fetched.first?.text.contains("\"image\"") == false)
        let read = try store.sql { #expect(scans.first?.image == image) }
        #expect(read.count == 1)
        #expect(read.first?.text.contains("\"image\"") == true)
    }

    /// A substring predicate on a searchable attribute asks the search index for its rows
    /// (an FTS5 phrase of the folded needle) and reads the table by key, not whole; where the
    /// index cannot help — a short needle, one the fold cannot promise, a search under OR or
    /// NOT, an attribute that is not searchable — the statement has no lookup.
    @Test func searchableSubstringPredicatesNarrowThroughTheIndex() throws {
        let store = try TestStore(.file, [SNote.self])
        let url = try #require(store.url)
        store.context().insert(SNote(text: "Straße"))
        try store.context().save()
        func statement(_ predicate: Predicate<SNote>) throws -> RenderedSQL {
            try #require(try store.sql { _ = try store.context().fetch(FetchDescriptor(predicate: predicate)) }.first)
        }
        let narrowed = try statement(#Predicate { $0.text.localizedStandardContains("STRASSE") && $0.rank < 3 })
        #expect(narrowed.text.contains("MATCH"))
        #expect(narrowed.bindings.contains(.text("\"strasse\"")))
        let plan = try CoreDataFileRows.read(url, "EXPLAIN QUERY PLAN " + narrowed.text)
        #expect(plan.contains { $0.contains("SEARCH t0 USING INTEGER PRIMARY KEY") }, "\(plan)")
        #expect(!plan.contains { $0.contains("SCAN t0") }, "\(plan)")
        #expect(try statement(#Predicate { $0.title?.localizedStandardContains("STRASSE") ?? false }).text.contains("MATCH"))
        #expect(try statement(#Predicate { $0.title?.localizedStandardContains("STRASSE") == true }).text.contains("MATCH"))
        #expect(try statement(#Predicate { $0.text.contains("Stra") }).text.contains("MATCH"))
        // Either of two searchable attributes of the row: both lookups, one key list.
        let either = try statement(#Predicate { $0.text.localizedStandardContains("strasse") || ($0.title?.localizedStandardContains("CAFE") ?? false) })
        #expect(either.text.components(separatedBy: "MATCH").count == 3)
        #expect(either.bindings.contains(.text("\"cafe\"")))
        let eitherPlan = try CoreDataFileRows.read(url, "EXPLAIN QUERY PLAN " + either.text)
        #expect(!eitherPlan.contains { $0.contains("SCAN t0") }, "\(eitherPlan)")
        // A note or its folder's name: both indexes, the folder's matches through the notes'
        // foreign key.
        let across = try statement(#Predicate { $0.text.localizedStandardContains("strasse") || ($0.folder?.name.localizedStandardContains("cafe") ?? false) })
        #expect(across.text.components(separatedBy: "MATCH").count == 3)
        #expect(!(try CoreDataFileRows.read(url, "EXPLAIN QUERY PLAN " + across.text)).contains { $0.contains("SCAN t0") })
        // A ranked search's rows: each term looked up in both attributes.
        let searched = try #require(try store.sql { _ = try store.context().search("strasse cafe", in: SNote.self, filter: #Predicate { $0.rank < 3 }) }.first)
        #expect(searched.text.components(separatedBy: "MATCH").count == 5)
        #expect(!(try CoreDataFileRows.read(url, "EXPLAIN QUERY PLAN " + searched.text)).contains { $0.contains("SCAN t0") })

        for predicate in [
            #Predicate<SNote> { $0.text.localizedStandardContains("st") },
            #Predicate<SNote> { $0.text.localizedStandardContains("ßtr") },
            #Predicate<SNote> { $0.text.localizedStandardContains("strasse") || $0.rank == 1 },
            #Predicate<SNote> { !$0.text.localizedStandardContains("strasse") },
            #Predicate<SNote> { $0.body.localizedStandardContains("strasse") },
        ] {
            #expect(try !statement(predicate).text.contains("MATCH"))
        }
    }
}
