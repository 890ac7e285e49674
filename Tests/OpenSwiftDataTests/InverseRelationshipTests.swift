import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Both sides of a relationship stay consistent in memory, immediately, and in the store.
@Suite struct InverseRelationshipTests {
    @Test(arguments: StoreKind.allCases)
    func settingTheToOneUpdatesTheToMany(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        let lunch = Expense(amount: 10)
        context.insert(food)
        context.insert(lunch)
        lunch.category = food
        #expect(food.expenses.count == 1)
        #expect(food.expenses.first === lunch)
        try context.save()
        let stored = try store.context().fetch(FetchDescriptor<Category>())
        #expect(stored.first?.expenses.map(\.amount) == [10])
    }

    @Test(arguments: StoreKind.allCases)
    func appendingToTheToManySetsTheToOne(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        let lunch = Expense(amount: 10)
        context.insert(food)
        food.expenses.append(lunch)
        #expect(lunch.category === food)
        #expect(lunch.modelContext === context)  // inserted through the relationship
        try context.save()
        let stored = try store.context().fetch(FetchDescriptor<Expense>())
        #expect(stored.first?.category?.name == "Food")
    }

    @Test(arguments: StoreKind.allCases)
    func movingBetweenParentsUpdatesBoth(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        let travel = Category(name: "Travel")
        let lunch = Expense(amount: 10, category: food)
        context.insert(lunch)
        context.insert(travel)
        try context.save()

        // In a fresh context, nothing is loaded: moving loads both sides first.
        let fresh = store.context()
        let expense = try #require(try fresh.fetch(FetchDescriptor<Expense>()).first)
        let categories = try fresh.fetch(FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)]))
        expense.category = categories[1]
        #expect(categories[0].expenses.isEmpty)
        #expect(categories[1].expenses.first === expense)
        // And moving back through the to-many side.
        categories[0].expenses.append(expense)
        #expect(expense.category === categories[0])
        #expect(categories[1].expenses.isEmpty)
        categories[0].expenses.removeAll()
        #expect(expense.category == nil)
        categories[1].expenses = [expense]
        #expect(expense.category === categories[1])
        try fresh.save()

        let check = store.context()
        let stored = try check.fetch(FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)]))
        #expect(stored[0].expenses.isEmpty)
        #expect(stored[1].expenses.map(\.amount) == [10])
    }

    @Test func relationshipsAssignedInInitialisersGetInversesOnInsert() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        let lunch = Expense(amount: 10, category: food)
        context.insert(lunch)
        #expect(food.expenses.first === lunch)
        #expect(food.modelContext === context)
    }

    @Test func inversesWorkBeforeInsertion() {
        let food = Category(name: "Food")
        let lunch = Expense(amount: 10)
        lunch.category = food
        #expect(food.expenses.first === lunch)
        food.expenses.removeAll()
        #expect(lunch.category == nil)
    }

    @Test func oneToManyInferredInverseAppearsInTheSchema() {
        let schema = Schema([Course.self])
        #expect(schema.entitiesByName["Course"]?.relationshipsByName["pupils"]?.inverseName == "courses")
        #expect(schema.entitiesByName["Pupil"]?.relationshipsByName["courses"]?.inverseName == "pupils")
        #expect(schema.entitiesByName["Student"] == nil)
        let school = Schema([Student.self])
        #expect(school.entitiesByName["Student"]?.relationshipsByName["room"]?.inverseName == "studentList")
    }
}
