import Foundation
import Testing
import OpenSwiftData

@Model
final class SmokeCategory {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \SmokeExpense.category)
    var expenses: [SmokeExpense] = []
    init(name: String) { self.name = name }
}

@Model
final class SmokeExpense {
    var amount: Double
    var date: Date
    var note: String?
    var category: SmokeCategory?
    init(amount: Double, date: Date = .now, note: String? = nil, category: SmokeCategory? = nil) {
        self.amount = amount
        self.date = date
        self.note = note
        self.category = category
    }
}

@Test func smoke() throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("smoke-\(UUID()).store")
    let container = try ModelContainer(for: SmokeExpense.self, configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)
    let food = SmokeCategory(name: "Food")
    let e = SmokeExpense(amount: 12, note: "lunch", category: food)
    context.insert(e)
    #expect(food.expenses.count == 1)
    try context.save()
    let context2 = ModelContext(container)
    let all = try context2.fetch(FetchDescriptor<SmokeExpense>())
    #expect(all.count == 1)
    #expect(all.first?.category?.name == "Food")
    #expect(all.first?.note == "lunch")
    let cats = try context2.fetch(FetchDescriptor<SmokeCategory>(predicate: #Predicate { $0.name == "Food" }))
    #expect(cats.first?.expenses.count == 1)
}
