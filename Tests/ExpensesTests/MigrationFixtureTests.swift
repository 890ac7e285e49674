import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing
import ExpensesCore

/// The expense tracker's stores from every release (`Examples/Expenses/Fixtures`), each opened in
/// a temporary copy through `ExpensesMigrationPlan` with the current models: none may fail, and
/// every expense must survive.
@Suite struct MigrationFixtureTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/Expenses/Fixtures", isDirectory: true)

    @Test func everyReleasedStoreOpensWithTheCurrentModels() throws {
        let fixtures = try MigrationFixtures(folder: Self.folder)
        #expect(fixtures.fixtures.map(\.lastPathComponent) == (1...6).map { "release-\($0).store" })
        let replays = try fixtures.replay(
            Schema(versionedSchema: ExpensesSchemaV6.self), migrationPlan: ExpensesMigrationPlan.self,
            expecting: [
                .keepsEveryModel(of: Expense.self),
                .models(Expense.self, where: #Predicate { $0.note?.starts(with: "Lunch with the release-") == true }, count: 1),
            ]
        ) { _, context in
            // Release 3 made category names unique; every store is past it now.
            let names = try context.fetch(FetchDescriptor<ExpensesCore.Category>()).map(\.name)
            #expect(Set(names).count == names.count, "\(names)")
        }
        #expect(replays.map(\.stages.count) == [5, 4, 3, 2, 1, 1], "\(replays)")
        #expect(replays[1].stages[0] == "2.0.0 → 3.0.0, custom")
        // Release 6's store predates sync's offers: its SyncShare and SyncReplicaState gain
        // columns (and an index) within 6.0.0, which opening does on its own.
        #expect(replays[5].stages == ["6.0.0 → 6.0.0, automatic lightweight"])
    }

    @Test func theReleaseTwoStoreHasItsDuplicateCategoriesMerged() throws {
        let fixtures = try MigrationFixtures(folder: Self.folder)
        let releaseTwo = try #require(fixtures.fixtures.first { $0.lastPathComponent == "release-2.store" })
        #expect(fixtures.manifest(of: releaseTwo)?.rows["Category"] == 3)
        try fixtures.replay(Schema(versionedSchema: ExpensesSchemaV6.self), migrationPlan: ExpensesMigrationPlan.self) { fixture, context in
            guard fixture == releaseTwo else { return }
            let food = try context.fetch(FetchDescriptor<ExpensesCore.Category>(predicate: #Predicate { $0.name == "Food" }))
            #expect(food.count == 1)
            #expect(Set(food.first?.expenses.compactMap(\.note) ?? []) == ["Lunch with the release-2 app", "Coffee"])
        }
    }

    @Test func everyStepOfThePlanCanBeMadeAsDeclared() {
        for step in SchemaDiff.steps(of: ExpensesMigrationPlan.self) {
            #expect(step.problems.isEmpty, "\(step)")
            #expect(step.verdict < .customStage, "\(step)")
        }
    }
}
